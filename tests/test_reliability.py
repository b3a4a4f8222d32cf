"""Faults: a read-only database, kill -9 mid-turn. The user's words are never silently lost."""

import os
import random
import subprocess
import sys

import pytest
from conftest import ROOT, db_rows, run_memchat
from faults import (
    Extractor,
    check_consistent,
    conversation_file,
    kill_during_capture,
    kill_during_import,
    kill_during_turn,
    seed_chats,
)

# CI runs a few kills of each kind; tests/bench/kill_loop.py runs the full count (50 each).
ROUNDS = int(os.environ.get("MEMCHAT_KILL_ROUNDS", "8"))


def test_read_only_database_keeps_the_message_and_says_it_was_not_saved(tmp_path, api):
    db_path = tmp_path / "ro.db"
    assert run_memchat("--db", str(db_path), "ask", "first").returncode == 0
    # A read-only open, as on a read-only mount: chmod does not stop root, so ask SQLite.
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sqlite3, memchat.db as d; real = sqlite3.connect\n"
            "sqlite3.connect = lambda p, *a, **k: real(f'file:{p}?mode=ro', *a, uri=True, **k)\n"
            f"from memchat.cli.main import main; import sys; sys.argv = ['memchat', '--db', {str(db_path)!r}]; main()",
        ],
        input=b"a message worth keeping\n/retry\n",
        capture_output=True,
        cwd=str(ROOT),
        timeout=60,
    )
    err = proc.stderr.decode()
    assert "NOT saved" in err and "read-only" in err
    assert proc.stderr.count(b"Traceback") == 0
    assert db_rows(tmp_path, name="ro.db") == [("user", "first", "ok"), ("assistant", "echo: first", "ok")]
    # /retry found the kept message and tried again (and said so) instead of forgetting it.
    assert "retrying: a message worth keeping" in proc.stdout.decode()


def test_ask_under_another_writer_says_its_message_was_not_saved(cli, api, memchat_home, monkeypatch):
    import sqlite3

    from memchat import db as database

    assert cli("--provider", "echo", "ask", "first").exit_code == 0
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(memchat_home / "default.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another memchat, writing
    try:
        for args in (("ask", "a message worth keeping"), ("ask", "-c", "a message worth keeping")):
            result = cli("--provider", "echo", *args)
            err = result.stderr.strip()
            assert result.exit_code == 1 and "\n" not in err and "Traceback" not in err, err
            assert "another memchat is writing" in err and "Your message was NOT saved" in err, err
    finally:
        holder.rollback()
        holder.close()
    assert [text for _, text, _ in db_rows(memchat_home)] == ["first", "(echo) first"]


def test_kill_9_at_random_points_of_a_turn_loses_nothing_acknowledged(api, memchat_home):
    rng = random.Random(20261129)
    kills = ROUNDS + ROUNDS % 2
    acknowledged = []
    for i in range(kills):
        label, ack = kill_during_turn(api, rng.uniform(0.0, 1.5), after_first_byte=i % 2 == 1)
        if ack:
            acknowledged.append(label)
        check_consistent(memchat_home / "default.db")
    stored = {r[0] for r in db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'")}
    assert set(acknowledged) <= stored
    assert len(acknowledged) == kills // 2
    # An answered message is never left half-written: every assistant row follows its user row.
    rows = db_rows(memchat_home, "SELECT role, status FROM messages ORDER BY id")
    for i, (role, _status) in enumerate(rows):
        if role == "assistant":
            assert rows[i - 1][0] == "user"
    # The next run works without repair.
    api.reset()  # replies scripted for turns killed before they asked
    after = run_memchat("ask", "--no-memory", "after the storm")
    assert after.returncode == 0 and after.stdout == b"echo: after the storm\n"


def test_kill_9_during_an_import_leaves_all_or_nothing_and_a_rerun_completes_it(memchat_home, tmp_path):
    rng = random.Random(7)
    conversation = tmp_path / "chats.jsonl"
    total = conversation_file(conversation)
    db_path = memchat_home / "default.db"
    outcomes = set()
    for i in range(ROUNDS):
        # The messages commit about 0.3 s after start (2 cores); the embedding takes seconds more.
        finished = kill_during_import(conversation, rng.uniform(0.02, 0.35) if i % 2 == 0 else rng.uniform(0.35, 3))
        counts = check_consistent(db_path) if db_path.exists() else {"messages": 0}
        # The import commits in batches, its sessions hidden until the file is complete: what a user
        # can see (sessions list, recall, the memory section) is all of it or none, never a torn session.
        if counts["messages"]:
            counts["messages"] = visible_messages(memchat_home)
        assert counts["messages"] in (0, total)
        vectors = db_rows(memchat_home, "SELECT count(*) FROM message_vectors")[0][0] if counts["messages"] else 0
        outcomes.add(
            "nothing" if not counts["messages"] else "embedding" if vectors < total and not finished else "done"
        )
    rerun = run_memchat("import", str(conversation))
    assert rerun.returncode == 0, rerun.stderr
    assert check_consistent(db_path)["messages"] == total
    assert db_rows(memchat_home, "SELECT count(DISTINCT external_id) FROM messages") == [(total,)]
    vectors = db_rows(memchat_home, "SELECT count(*) FROM message_vectors")[0][0]
    assert vectors == total  # the embedding interrupted by a kill was finished by the rerun
    assert {"nothing", "embedding"} <= outcomes  # kills landed before the commit and while embedding


def visible_messages(home) -> int:
    return db_rows(
        home, "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.importing = 0"
    )[0][0]


def test_kill_9_during_extraction_leaves_no_half_written_memory_and_capture_resumes(api, memchat_home, monkeypatch):
    rng = random.Random(11)
    api.set_default(Extractor())
    db_path = memchat_home / "default.db"
    gadgets = seed_chats(db_path)
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    seen = []
    for _ in range(ROUNDS):
        kill_during_capture(rng.uniform(0.3, 2.5))
        seen.append(check_consistent(db_path)["memories"])
    assert min(seen) < len(gadgets)  # some kill really landed mid-capture
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "memories", "capture"], capture_output=True, cwd=str(ROOT), timeout=120
    )
    assert done.returncode == 0, done.stderr
    check_consistent(db_path)
    facts = {r[0] for r in db_rows(memchat_home, "SELECT text FROM memories WHERE status = 'active' AND kind = 'fact'")}
    assert facts == {Extractor.fact(g)["text"] for g in gadgets}
    # Capture pointers reached the end of every session: nothing is read twice from now on.
    behind = db_rows(
        memchat_home,
        "SELECT count(*) FROM sessions s LEFT JOIN capture_state c ON c.session_id = s.id "
        "WHERE coalesce(c.through_message_id, 0) < (SELECT max(id) FROM messages m "
        "WHERE m.session_id = s.id)",
    )
    assert behind == [(0,)]


def test_a_full_disk_is_one_clear_line_keeps_the_message_and_loses_nothing(memchat_home, monkeypatch):
    import resource

    monkeypatch.setenv("MEMCHAT_PROVIDER", "echo")
    assert run_memchat("ask", "first").returncode == 0
    db_path = memchat_home / "default.db"
    limit = db_path.stat().st_size + 48 * 1024  # the file may grow by 48 KiB, no more

    def small_disk():  # a file-size limit: writes past it fail as they would on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    def run(*args, input=None):
        return subprocess.run(
            [sys.executable, "-m", "memchat", *args],
            input=input,
            capture_output=True,
            cwd=str(ROOT),
            timeout=60,
            preexec_fn=small_disk,
        )

    big = "the long paste " * 20_000  # 300 kB
    asked = run("ask", "-", input=big.encode())
    assert asked.returncode != 0 and b"Traceback" not in asked.stderr
    assert asked.stderr.count(b"\n") == 1 and b"is the disk full?" in asked.stderr
    added = run("memories", "add", "m" * 100_000)
    assert added.returncode != 0 and added.stderr.count(b"\n") == 1 and b"disk" in added.stderr
    repl = run(input=f"a small one\n{big}\n/retry\n".encode())
    err = repl.stderr.decode()
    assert (
        "Traceback" not in err and err.count("Your message was NOT saved; it is kept here") == 2
    )  # once more on /retry
    assert "retrying: the long paste" in repl.stdout.decode()
    check_consistent(db_path)
    assert db_rows(memchat_home) == [
        ("user", "first", "ok"),
        ("assistant", "(echo) first", "ok"),
        ("user", "a small one", "ok"),
        ("assistant", "(echo) a small one", "ok"),
    ]
    # Space again: the same message goes through.
    assert run_memchat("ask", "-", input=big).returncode == 0
    assert db_rows(memchat_home, "SELECT role, length(content) FROM messages WHERE id > 4") == [
        ("user", len(big)),
        ("assistant", len("(echo) ") + len(big)),
    ]


def test_an_ask_whose_reply_cannot_be_stored_says_where_the_message_is(memchat_home, monkeypatch):
    # The disk filled between the message and the reply: `ask` printed only "the disk is full", and a
    # script that retried sent the message twice (an adversarial pass). It says the message is kept.
    monkeypatch.setenv("MEMCHAT_PROVIDER", "echo")
    full = (
        "import memchat.sessions as s, sys\n"
        "from memchat.errors import StoreError\n"
        "def full(*a, **k): raise StoreError('cannot write to the database: the disk is full')\n"
        "s.record_reply = full\n"
        "from memchat.cli.main import main; sys.argv = ['memchat', *sys.argv[1:]]; main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", full, "ask", "Which trains run to Whitby on Sundays?"],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "the disk is full" in done.stderr and "Your message is saved in session 1" in done.stderr, done.stderr
    assert db_rows(memchat_home) == [("user", "Which trains run to Whitby on Sundays?", "unanswered")]


@pytest.mark.parametrize("where", ["closing the database at the exit", "a lazy import"])
def test_ctrl_c_at_the_end_of_a_command_or_inside_an_import_is_an_interruption(memchat_home, monkeypatch, where):
    # An adversarial pass: a Ctrl-C landing as the command closed its database printed a traceback,
    # and one inside a lazy import (which Python wraps in a RuntimeError) was called a bug (exit 70).
    monkeypatch.setenv("MEMCHAT_PROVIDER", "echo")
    if where == "a lazy import":
        patch = (
            "import memchat.sessions as s\n"
            "def cut(*a, **k):\n"
            "    try:\n"
            "        raise KeyboardInterrupt\n"
            "    except KeyboardInterrupt as exc:\n"
            "        raise RuntimeError('Error calling __set_name__') from exc\n"
            "s.list_sessions = cut\n"
        )
        args, code = ["sessions", "list"], 130
    else:
        patch = (
            "import os, signal, time, memchat.db as d\n"
            "close = d.Database.close\n"
            "def cut(self):\n"
            "    os.kill(os.getpid(), signal.SIGINT); time.sleep(0.2); close(self)\n"
            "d.Database.close = cut\n"
        )
        args, code = ["ask", "hello"], 0
    script = patch + "import sys; from memchat.cli.main import main; sys.argv = ['memchat', *sys.argv[1:]]; main()\n"
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=str(ROOT), timeout=60
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert done.returncode == code, (done.returncode, done.stderr)


def test_a_bug_is_one_line_and_a_log_entry_and_the_repl_goes_on(memchat_home, monkeypatch):
    monkeypatch.setenv("MEMCHAT_PROVIDER", "echo")
    # A stand-in bug: a function deep inside raises something memchat never expects.
    boom = (
        "import memchat.sessions as s, sys\n"
        "def broken(*a, **k): raise ZeroDivisionError('deep inside')\n"
        "s.list_sessions = broken\n"
        "from memchat.cli.main import main; sys.argv = ['memchat', *sys.argv[1:]]; main()\n"
    )

    def run(*args, input=None):
        return subprocess.run(
            [sys.executable, "-c", boom, *args], input=input, capture_output=True, cwd=str(ROOT), timeout=60
        )

    listed = run("sessions", "list")
    assert listed.returncode == 70 and b"Traceback" not in listed.stderr
    lines = listed.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "memchat: internal error (ZeroDivisionError: deep inside); this is a bug: please report it"
    )
    log = next(memchat_home.rglob("memchat.log"))
    assert lines[0].endswith(str(log))
    log = log.read_text()
    assert "in broken" in log and "deep inside" not in log  # frames, not the message
    chat = run(input=b"hello\n/sessions\nstill here\n")
    assert chat.stderr.count(b"internal error (ZeroDivisionError") == 1 and b"Traceback" not in chat.stderr
    assert db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'") == [("hello",), ("still here",)]


@pytest.mark.parametrize("kind", ["forget", "delete", "export"])
def test_kill_9_during_forget_delete_and_export_leaves_no_secret_and_loses_nothing(memchat_home, kind, monkeypatch):
    from faults import CHAT_SECRET, SECRET, export_whole, kill_during, secret_on_disk, seed_secrets

    monkeypatch.setenv("MEMCHAT_PROVIDER", "echo")
    rng = random.Random({"forget": 3, "delete": 5, "export": 9}[kind])
    db_path = memchat_home / "default.db"
    seed_secrets(db_path, memories=600 if kind != "export" else 2000)
    out = memchat_home / "memories.json"
    if kind == "export":
        assert run_memchat("memories", "export", "-o", str(out)).returncode == 0
    for _ in range(ROUNDS // 2):
        if kind == "forget":
            kill_during(["memories", "forget", "--all", "--yes"], rng.uniform(0.2, 1.2))
        elif kind == "delete":
            kill_during(["sessions", "delete", "1", "--yes"], rng.uniform(0.2, 1.2))
        else:
            kill_during(["memories", "export", "-o", str(out), "--force"], rng.uniform(0.3, 1.0))
            assert export_whole(out), "a killed export tore the previous one"
        check_consistent(db_path)
    if kind == "export":
        assert run_memchat("memories", "export", "-o", str(out), "--force").returncode == 0
        assert export_whole(out) and not list(memchat_home.glob(".memories.json.*.tmp"))
        return
    # One uninterrupted run finishes what the kills left (an open finishes a pending scrub first).
    if kind == "forget":
        assert run_memchat("memories", "forget", "--all", "--yes").returncode == 0
    else:
        # What a user sees: the sessions still holding the words, and one a kill left half deleted.
        query = (
            f"SELECT session_id FROM messages WHERE content LIKE '%{CHAT_SECRET}%' "
            "UNION SELECT id FROM sessions WHERE title IS NULL"
        )
        for sid in {r[0] for r in db_rows(memchat_home, query)}:
            assert run_memchat("sessions", "delete", str(sid), "--yes").returncode == 0
    assert not secret_on_disk(db_path, SECRET if kind == "forget" else CHAT_SECRET)
    assert db_rows(memchat_home, "SELECT count(*) FROM pending_scrubs") == [(0,)]
    assert db_rows(memchat_home, "SELECT count(*) FROM messages WHERE content LIKE 'A chat about bread%'") == [(1,)]


def test_a_damaged_page_is_one_line_that_says_how_to_rescue_the_file(memchat_home, cli):
    """A page that breaks after the file was opened fine (a bad disk, a copy cut short) is found
    only when a command reads it: every path says so in one line, with what to do; not "a bug"."""
    import sqlite3

    for i in range(80):
        more = ["-c"] if i else []
        assert cli("--provider", "echo", "ask", *more, "--", f"message number {i} " + "x" * 200).exit_code == 0
    path = memchat_home / "default.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'")]
    conn.close()
    with open(path, "r+b") as f:
        for page in pages[len(pages) // 2 :]:
            f.seek((page - 1) * size)
            f.write(os.urandom(size))
    for args in (("sessions", "show", "1"), ("--provider", "echo", "ask", "-c", "hello again"), ("doctor", "--quick")):
        result = run_memchat(*args)
        err = result.stderr.decode() + result.stdout.decode()
        assert result.returncode == 1, (args, err)
        assert "damaged" in err and ".recover" in err and "internal error" not in err and "Traceback" not in err, err


def test_a_memories_import_the_disk_stops_part_way_says_what_went_in(memchat_home, tmp_path):
    # An adversarial pass: an import a full disk stopped after some memories said only "the disk is
    # full"; each memory is its own transaction, so it says how many are in and that importing again
    # adds the rest.
    export = tmp_path / "memories.json"
    assert run_memchat("memories", "add", "I live in Hull").returncode == 0
    assert run_memchat("memories", "add", "I play the oboe").returncode == 0
    assert run_memchat("memories", "add", "My cat is called Pangur").returncode == 0
    assert run_memchat("memories", "export", "-o", str(export)).returncode == 0
    other = tmp_path / "other.db"
    full = (
        "import sys, memchat.memory.store.memories as m\n"
        "from memchat.errors import StoreError\n"
        "add, calls = m.MemoryStore.add, []\n"
        "def add_until_full(self, *a, **k):\n"
        "    calls.append(1)\n"
        "    if len(calls) > 2: raise StoreError('cannot write to the database: the disk is full')\n"
        "    return add(self, *a, **k)\n"
        "m.MemoryStore.add = add_until_full\n"
        "from memchat.cli.main import main; sys.argv = ['memchat', *sys.argv[1:]]; main()\n"
    )
    args = ["--db", str(other), "memories", "import", str(export)]
    done = subprocess.run(
        [sys.executable, "-c", full, *args], capture_output=True, text=True, cwd=str(ROOT), timeout=60
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "2 of 3 memories were imported" in done.stderr and "importing the file again adds the rest" in done.stderr
    again = run_memchat("--db", str(other), "memories", "import", str(export))
    assert again.returncode == 0, again.stderr
    listed = run_memchat("--db", str(other), "memories", "list").stdout.decode()
    assert all(t in listed for t in ("Hull", "oboe", "Pangur")), listed
