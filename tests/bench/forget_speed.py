#!/usr/bin/env python3
"""`memories forget --all` at scale, with another writer waiting on the lock the whole time.

    python tests/bench/forget_speed.py [--sizes 5000,20000,100000]

For each size: a profile of that many synthetic memories (as tests/bench/recall_speed.py
builds them: Zipf-drawn sentences, FTS-indexed, random unit vectors; every 100th names a
secret word; an input history of 200 lines that name it), then `memchat memories forget --all
--yes` in a fresh process while this process writes one small row every 20 ms in its own
transactions, as a chat would. Printed:
the wall time of the forget, the forget's cost per 1,000 memories, the longest and p99 wait
of the other writer, its lock errors, and whether the secret word is left anywhere in the
database files or the input history afterwards. Exit 1 if any writer failed or a secret was left.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from faults import SECRET, secret_on_disk
from recall_speed import build_memories, pct


def other_writer(db_path: Path, stop: threading.Event, waits: list[float], errors: list[str]) -> None:
    conn = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO bench_writes (at) VALUES (?)", (t0,))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            errors.append(str(exc))
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        waits.append(time.perf_counter() - t0)
        time.sleep(0.02)
    conn.close()


def run(size: int) -> dict:
    from memchat.db import immediate, open_db

    home = Path(tempfile.mkdtemp(prefix="memchat-forget-"))
    env = {**os.environ, "MEMCHAT_HOME": str(home), "MEMCHAT_PROVIDER": "echo"}
    db_path = home / "default.db"
    db = open_db(db_path)
    build_memories(db, size, "all-MiniLM-L6-v2", 384, random.Random(size))
    with immediate(db):
        db.conn.execute(f"UPDATE memories SET text = text || ' {SECRET}.' WHERE id % 100 = 0")
        db.conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')")
        db.conn.execute("CREATE TABLE bench_writes (at REAL)")  # the other writer's rows
    db.conn.close()
    # A chat's input history, as a user has one: forget scrubs it of every forgotten text too.
    history = home / "history-default"
    history.write_text("".join(f"\n# 2026-01-01 10:00:00\n+/remember note {i} {SECRET}\n" for i in range(200)))
    history.chmod(0o600)
    stop, waits, errors = threading.Event(), [], []
    writer = threading.Thread(target=other_writer, args=(db_path, stop, waits, errors))
    writer.start()
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "memories", "forget", "--all", "--yes"],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    stop.set()
    writer.join()
    left = sqlite3.connect(db_path).execute("SELECT count(*) FROM memories WHERE status != 'forgotten'").fetchone()[0]
    return {
        "size": size,
        "wall": wall,
        "rc": done.returncode,
        "stderr": done.stderr.strip().splitlines()[-1:] if done.returncode else [],
        "max_wait": max(waits, default=0.0),
        "p99_wait": pct(waits, 99) if waits else 0.0,
        "writes": len(waits),
        "errors": len(errors),
        "left": left,
        "secret": secret_on_disk(db_path, SECRET) or SECRET in history.read_text(),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5000,20000,100000")
    args = ap.parse_args()
    rows = [run(int(s)) for s in args.sizes.split(",")]
    print(f"\n`memories forget --all --yes`, fresh process, {os.cpu_count()}-core machine\n")
    print(
        "| memories | forget wall s | s per 1,000 | other writer: max wait s | p99 wait s | writes | "
        "lock errors | left | secret on disk |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for r in rows:
        print(
            f"| {r['size']:,} | {r['wall']:.1f} | {1000 * r['wall'] / r['size']:.2f} | {r['max_wait']:.2f} | "
            f"{r['p99_wait']:.2f} | {r['writes']} | {r['errors']} | {r['left']} | {'YES' if r['secret'] else 'no'} |"
        )
        if r["rc"] or r["errors"] or r["left"] or r["secret"]:
            ok = False
            print(f"  exit {r['rc']} {r['stderr']}", file=sys.stderr)
    print(f"\n{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
