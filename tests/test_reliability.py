"""Faults: a read-only database, kill -9 mid-turn. The user's words are never silently lost."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ROOT, db_rows, run_memchat


def test_read_only_database_keeps_the_message_and_says_it_was_not_saved(tmp_path, api):
    db_path = tmp_path / "ro.db"
    assert run_memchat("--db", str(db_path), "ask", "first").returncode == 0
    # A read-only open, as on a read-only mount: chmod does not stop root, so ask SQLite.
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sqlite3, memchat.db as d; real = sqlite3.connect\n"
         "sqlite3.connect = lambda p, *a, **k: real(f'file:{p}?mode=ro', *a, uri=True, **k)\n"
         "from memchat.cli import main; import sys; sys.argv = ['memchat', '--db', %r]; main()" % str(db_path)],
        input=b"a message worth keeping\n/retry\n", capture_output=True, cwd=str(ROOT), timeout=60)
    err = proc.stderr.decode()
    assert "NOT saved" in err and "read-only" in err
    assert proc.stderr.count(b"Traceback") == 0
    assert db_rows(tmp_path, name="ro.db") == [("user", "first", "ok"), ("assistant", "echo: first", "ok")]
    # /retry found the kept message and tried again (and said so) instead of forgetting it.
    assert "retrying: a message worth keeping" in proc.stdout.decode()


def kill_during_turn(api, delay, after_first_byte):
    """Run a turn and SIGKILL it `delay` s after start, or after its reply began to stream."""
    import select

    api.enqueue_text(" ".join(f"w{i}" for i in range(40)), delay=0.05)
    label = f"message {delay:.3f} {after_first_byte}"
    proc = subprocess.Popen([sys.executable, "-m", "memchat", "ask", "--no-memory", label],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=str(ROOT))
    acknowledged = False
    if after_first_byte:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        acknowledged = bool(ready) and bool(proc.stdout.read(1))  # reply on screen: message stored before
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return label, acknowledged


def test_kill_9_at_random_points_of_a_turn_loses_nothing_acknowledged(api, memchat_home):
    rng = random.Random(20261129)
    kills = int(os.environ.get("MEMCHAT_KILL_ROUNDS", "12"))
    acknowledged = []
    for i in range(kills):
        label, ack = kill_during_turn(api, rng.uniform(0.0, 1.5), after_first_byte=i % 2 == 1)
        if ack:
            acknowledged.append(label)
        conn = sqlite3.connect(memchat_home / "default.db")
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
    stored = {r[0] for r in db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'")}
    assert set(acknowledged) <= stored
    assert len(acknowledged) == kills // 2
    # An answered message is never left half-written: every assistant row follows its user row.
    rows = db_rows(memchat_home, "SELECT role, status FROM messages ORDER BY id")
    for i, (role, status) in enumerate(rows):
        if role == "assistant":
            assert rows[i - 1][0] == "user"
    # The next run works without repair.
    api.reset()  # replies scripted for turns killed before they asked
    after = run_memchat("ask", "--no-memory", "after the storm")
    assert after.returncode == 0 and after.stdout == b"echo: after the storm\n"
