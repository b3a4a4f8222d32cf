#!/usr/bin/env python3
"""Kill -9 at random points, the full count: chat turns, imports, extractions, forget, delete, export.

    python tests/bench/kill_loop.py [--kills 50] [--seed 1]

For each kind, --kills real `memchat` processes are SIGKILLed after a random delay, against
the local Messages-API server of the tests (tests/fakeapi.py). After every kill the database
must pass tests/faults.py:check_consistent (integrity_check, FTS in step, no half-written
active memory, no memory stored twice); at the end no acknowledged chat message may be
missing, and one more uninterrupted run must finish the interrupted work. For forget --all and
sessions delete, after the last run no byte of the secret may be left in the database or its WAL
and the chat that was never touched must be whole; an export killed mid-write must leave the
previous export whole, and no temporary file. The CI suite runs the same code with a few kills
(tests/test_reliability.py).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

from fakeapi import FakeAnthropic
from faults import (
    CHAT_SECRET,
    ROOT,
    SECRET,
    Extractor,
    check_consistent,
    connect,
    conversation_file,
    export_whole,
    kill_during,
    kill_during_capture,
    kill_during_import,
    kill_during_turn,
    secret_on_disk,
    seed_chats,
    seed_secrets,
)

ENCRYPTED = False  # --encrypted: every profile is encrypted (SQLCipher) before its kills


def fresh_home(kind: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"memchat-kill-{kind}-"))
    os.environ["MEMCHAT_HOME"] = str(home)
    if ENCRYPTED:
        done = run("profile", "encrypt", "--yes")
        assert done.returncode == 0, done.stderr.decode()
    return home


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memchat", *args], capture_output=True, cwd=str(ROOT), timeout=300)


def turns(api: FakeAnthropic, kills: int, rng: random.Random) -> dict:
    home = fresh_home("turn")
    api.set_default(None)
    acknowledged, bad = [], 0
    for i in range(kills):
        label, ack = kill_during_turn(api, rng.uniform(0.0, 1.5), after_first_byte=i % 2 == 1)
        acknowledged += [label] if ack else []
        try:
            check_consistent(home / "default.db")
        except AssertionError as exc:
            bad += 1
            print(f"  turn kill {i}: {exc}", file=sys.stderr)
    api.reset()
    conn = connect(home / "default.db")
    stored = {r[0] for r in conn.execute("SELECT content FROM messages WHERE role = 'user'")}
    conn.close()
    after = run("ask", "--no-memory", "after the storm")
    return {
        "kind": "chat turn",
        "kills": kills,
        "inconsistent": bad,
        "acknowledged": len(acknowledged),
        "lost": len(set(acknowledged) - stored),
        "next run ok": after.returncode == 0,
    }


def imports(kills: int, rng: random.Random) -> dict:
    home = fresh_home("import")
    conversation = home / "chats.jsonl"
    total = conversation_file(conversation)
    bad = torn = 0
    for i in range(kills):
        kill_during_import(conversation, rng.uniform(0.02, 0.35) if i % 2 == 0 else rng.uniform(0.35, 3))
        try:
            counts = check_consistent(home / "default.db") if (home / "default.db").exists() else {"messages": 0}
            torn += counts["messages"] not in (0, total)
        except AssertionError as exc:
            bad += 1
            print(f"  import kill {i}: {exc}", file=sys.stderr)
    after = run("import", str(conversation))
    final = check_consistent(home / "default.db")["messages"]
    return {
        "kind": "import",
        "kills": kills,
        "inconsistent": bad + torn,
        "acknowledged": "-",
        "lost": "-",
        "next run ok": after.returncode == 0 and final == total,
    }


def captures(api: FakeAnthropic, kills: int, rng: random.Random) -> dict:
    home = fresh_home("capture")
    os.environ["MEMCHAT_MEMORY_CAPTURE"] = "true"
    api.set_default(Extractor())
    gadgets = seed_chats(home / "default.db")
    bad = 0
    for i in range(kills):
        # Each round adds turns, so that every kill finds something left to capture.
        if i and i % 5 == 0:
            gadgets += seed_chats(home / "default.db", sessions=1, turns=6, first=len(gadgets))
        kill_during_capture(rng.uniform(0.3, 2.5))
        try:
            check_consistent(home / "default.db")
        except AssertionError as exc:
            bad += 1
            print(f"  capture kill {i}: {exc}", file=sys.stderr)
    after = run("memories", "capture")
    conn = connect(home / "default.db")
    facts = {r[0] for r in conn.execute("SELECT text FROM memories WHERE status = 'active' AND kind = 'fact'")}
    conn.close()
    os.environ["MEMCHAT_MEMORY_CAPTURE"] = "false"
    complete = facts == {Extractor.fact(g)["text"] for g in gadgets}
    return {
        "kind": "extraction",
        "kills": kills,
        "inconsistent": bad,
        "acknowledged": "-",
        "lost": "-",
        "next run ok": after.returncode == 0 and complete,
    }


def scrubs(kind: str, kills: int, rng: random.Random) -> dict:
    """Kill `memories forget --all` or `sessions delete` at random points; then finish with one more
    run and check that no byte of the secret is left and nothing else was lost."""
    home = fresh_home(kind)
    db_path = home / "default.db"
    seed_secrets(db_path)
    bad = 0
    for i in range(kills):
        if kind == "forget":
            args = ["memories", "forget", "--all", "--yes"]
        else:
            left = [
                r[0]
                for r in connect(db_path).execute(
                    "SELECT id FROM sessions WHERE title IS NULL OR id IN "
                    "(SELECT session_id FROM messages WHERE content LIKE ?)",
                    (f"%{CHAT_SECRET}%",),
                )
            ]
            if not left:
                seed_secrets(db_path, memories=0, chats=3)
                continue
            args = ["sessions", "delete", str(left[0]), "--yes"]
        kill_during(args, rng.uniform(0.2, 1.5))
        try:
            check_consistent(db_path)
        except AssertionError as exc:
            bad += 1
            print(f"  {kind} kill {i}: {exc}", file=sys.stderr)
        if i % 10 == 9 and kind == "forget":
            seed_secrets(db_path, memories=200, chats=0)  # more to forget for the next kills
    if kind == "forget":
        after = run("memories", "forget", "--all", "--yes")
    else:
        ids = [
            r[0]
            for r in connect(db_path).execute(
                "SELECT DISTINCT session_id FROM messages WHERE content LIKE ? "
                "UNION SELECT id FROM sessions WHERE title IS NULL",
                (f"%{CHAT_SECRET}%",),
            )
        ]
        after = subprocess.CompletedProcess([], 0)
        for sid in ids:
            after = run("sessions", "delete", str(sid), "--yes")
    kept = (
        connect(db_path)
        .execute("SELECT count(*) FROM messages WHERE content = 'A chat about bread that must survive everything.'")
        .fetchone()[0]
    )
    return {
        "kind": "forget --all" if kind == "forget" else "sessions delete",
        "kills": kills,
        "inconsistent": bad,
        "acknowledged": "-",
        "lost": 0 if kept >= 1 else "the other chat",
        "next run ok": after.returncode == 0
        and not secret_on_disk(db_path, SECRET if kind == "forget" else CHAT_SECRET),
    }


def exports(kills: int, rng: random.Random) -> dict:
    home = fresh_home("export")
    seed_secrets(home / "default.db", memories=3000, chats=0)
    out = home / "memories.json"
    run("memories", "export", "-o", str(out))
    torn = 0
    for _ in range(kills):
        kill_during(["memories", "export", "-o", str(out), "--force"], rng.uniform(0.3, 1.2))
        torn += not export_whole(out)
    after = run("memories", "export", "-o", str(out), "--force")
    return {
        "kind": "export",
        "kills": kills,
        "inconsistent": torn,
        "acknowledged": "-",
        "lost": 0 if export_whole(out) and out.exists() else "the export",
        "next run ok": after.returncode == 0 and not list(home.glob(".memories.json.*.tmp")),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--encrypted", action="store_true", help="Encrypted profiles (needs sqlcipher3).")
    args = ap.parse_args()
    global ENCRYPTED
    ENCRYPTED = args.encrypted
    for name in [n for n in os.environ if n.startswith(("MEMCHAT_", "ANTHROPIC_"))]:
        del os.environ[name]
    rng = random.Random(args.seed)
    started = time.perf_counter()
    with FakeAnthropic() as api:
        os.environ.update(
            ANTHROPIC_API_KEY="sk-ant-bench-0000",
            MEMCHAT_BASE_URL=api.url,
            MEMCHAT_PROVIDER="anthropic",
            MEMCHAT_TIMEOUT="5",
            MEMCHAT_MEMORY_CAPTURE="false",
            HF_HUB_OFFLINE="1",
            NO_COLOR="1",
        )
        if ENCRYPTED:
            os.environ["MEMCHAT_DB_KEY"] = "kill loop passphrase"
        rows = [turns(api, args.kills, rng), imports(args.kills, rng), captures(api, args.kills, rng)]
        os.environ["MEMCHAT_PROVIDER"] = "echo"
        rows += [scrubs("forget", args.kills, rng), scrubs("delete", args.kills, rng), exports(args.kills, rng)]
    cols = ["kind", "kills", "inconsistent", "acknowledged", "lost", "next run ok"]
    print(f"{'':2}" + " | ".join(f"{c:>12}" for c in cols))
    for r in rows:
        print(f"{'':2}" + " | ".join(f"{str(r[c]):>12}" for c in cols))
    print(f"  {sum(r['kills'] for r in rows)} kills in {time.perf_counter() - started:.0f} s")
    failed = any(r["inconsistent"] or (r["lost"] not in ("-", 0)) or not r["next run ok"] for r in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
