#!/usr/bin/env python3
"""Many processes, one profile: concurrent writes and recalls on one SQLite file.

    python tests/bench/stress.py [--procs 4] [--writes 1000] [--recalls 1000] [--no-embedder]
                                 [--wal-limit-mb 16] [--fresh] [--keep] [--forget-all 20000]

A temporary profile is created (and migrated) first (--fresh: by the processes themselves,
all at once); then --procs processes start together and each runs --writes writes and
--recalls recalls, shuffled into one interleaved sequence:

- writes alternate between a memory (`MemoryStore.add`, a new fact) and a chat message
  (`sessions.add_message` for a user turn, `sessions.record_reply` for the reply to it), in
  the process's own session;
- with the encoder, each write embeds what it stored, as memchat's writers do (a chat turn
  after its reply, `remember`): `memchat.memory.recall.index.embed_messages`;
- a recall is `memchat.memory.recall.search.recall` over memories and messages with the configured
  encoder (the bundled all-MiniLM-L6-v2 through onnxruntime), as a chat turn runs it: it
  embeds nothing itself (catch_up=False). --no-embedder: no embedding anywhere, BM25 alone.

--forget-all N: the profile starts with N synthetic memories (as tests/bench/recall_speed.py
builds them) and, as the processes start, `memchat memories forget --all --yes` runs in a
fresh process of its own: its time is printed, and a process's memory may then be forgotten
(it counts as kept if its row is there, forgotten, with no text).

Printed: a Markdown table per process and in total (writes/s and recalls/s over the
process's run, p50/p95 latency of each, errors), the final row counts against what the
processes were acknowledged, PRAGMA integrity_check, the FTS indexes' integrity-check, and
the WAL file's peak size during the run (sampled every 20 ms) and after it, with the
machine's core count. Exit code 1 if any operation raised (the first traceback is printed),
a row is missing, the database is not intact or the WAL outgrew --wal-limit-mb.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from faults import watch_wal

NOUNS = [
    "houseplants",
    "bicycles",
    "sourdough",
    "the cello",
    "chess",
    "kubernetes",
    "the dentist",
    "Lisbon",
    "the webhook bug",
    "marathon training",
    "birdwatching",
    "the release deadline",
    "coffee",
    "the budget",
]
VERBS = ["likes", "asked about", "worries about", "decided on", "finished", "plans", "mentioned"]
QUESTIONS = [
    "what did I say about {n}?",
    "{n}",
    "when did we talk about {n} and {m}?",
    "do I like {n}?",
    "remind me of the plan for {n}",
]


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def worker(number: int, db_path: str, writes: int, recalls: int, use_embedder: bool, fresh: bool, go, results) -> None:
    """One process: its own connection and session; the operations in a seeded random order."""
    out = {
        "proc": number,
        "writes": 0,
        "memory_writes": 0,
        "message_writes": 0,
        "replies": 0,
        "recalls": 0,
        "write_ms": [],
        "recall_ms": [],
        "errors": [],
        "elapsed": 0.0,
        "memories": [],
        "session": None,
        "tracebacks": [],
    }
    try:
        from memchat import sessions
        from memchat.config import load_settings
        from memchat.db import open_db
        from memchat.memory.recall.embed import configured
        from memchat.memory.recall.index import embed_messages
        from memchat.memory.recall.search import recall
        from memchat.memory.store.memories import MemoryStore

        rng = random.Random(number)
        embedder = configured(load_settings()) if use_embedder else None
        if embedder is not None:
            embedder.encode(["warm up"])
        if fresh:  # every process creates the new profile at the same moment
            go.wait()
        db = open_db(db_path)
        store = MemoryStore(db)
        session = sessions.create_session(db, title=f"stress {number}")
        out["session"] = session.id
        ops = ["w"] * writes + ["r"] * recalls
        rng.shuffle(ops)
        pending_user = None
        w = 0
        go.wait()
        started = time.perf_counter()
        for op in ops:
            t0 = time.perf_counter()
            try:
                if op == "w":
                    if w % 2 == 0:
                        text = f"stress p{number} m{w}: the user {rng.choice(VERBS)} {rng.choice(NOUNS)}."
                        added = store.add(text, kind="fact", origin="manual")
                        if embedder is not None:
                            embed_messages(db, embedder, [], memory_ids=[added.id])
                        out["memories"].append((added.id, text))
                        out["memory_writes"] += 1
                    elif pending_user is None:
                        pending_user = sessions.add_message(
                            db, session.id, "user", f"p{number} w{w}: tell me about {rng.choice(NOUNS)}"
                        ).id
                        if embedder is not None:
                            embed_messages(db, embedder, [pending_user])
                        out["message_writes"] += 1
                    else:
                        reply = sessions.record_reply(
                            db, pending_user, f"p{number} w{w}: here is what I know about {rng.choice(NOUNS)}."
                        )
                        if embedder is not None:
                            embed_messages(db, embedder, [reply.id])
                        pending_user = None
                        out["message_writes"] += 1
                        out["replies"] += 1
                    out["writes"] += 1
                    out["write_ms"].append(1000 * (time.perf_counter() - t0))
                else:
                    n, m = rng.sample(NOUNS, 2)
                    recall(db, rng.choice(QUESTIONS).format(n=n, m=m), embedder, limit=10, catch_up=False)
                    out["recalls"] += 1
                    out["recall_ms"].append(1000 * (time.perf_counter() - t0))
            except Exception as exc:
                out["errors"].append(f"{'write' if op == 'w' else 'recall'}: {type(exc).__name__}: {exc}")
                if len(out["errors"]) <= 3:
                    out["tracebacks"].append(traceback.format_exc(limit=-5))
            if op == "w":
                w += 1
        out["elapsed"] = time.perf_counter() - started
        db.conn.close()
    except Exception as exc:
        out["errors"].append(f"setup: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
    results.put(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--writes", type=int, default=1000, help="Writes per process.")
    ap.add_argument("--recalls", type=int, default=1000, help="Recalls per process.")
    ap.add_argument("--no-embedder", action="store_true", help="Recall by BM25 alone (embedder None).")
    ap.add_argument(
        "--wal-limit-mb",
        type=float,
        default=16.0,
        help="Fail if the WAL grows past this during the run (SQLite checkpoints at ~4 MB).",
    )
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="Let the processes create the profile, all at once, instead of creating it first.",
    )
    ap.add_argument("--keep", action="store_true", help="Keep the temporary profile and print where it is.")
    ap.add_argument(
        "--forget-all", type=int, default=0, metavar="N", help="Seed N memories and forget them all during the load."
    )
    args = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="memchat-stress-"))
    os.environ["MEMCHAT_HOME"] = str(home)
    db_path = home / "default.db"
    from memchat.db import open_db

    if not args.fresh or args.forget_all:
        db = open_db(db_path)  # created and migrated once, before the processes start
        if args.forget_all:
            sys.path.insert(0, str(ROOT / "tests" / "bench"))
            from recall_speed import build_memories

            build_memories(db, args.forget_all, "all-MiniLM-L6-v2", 384, random.Random(3))
        db.conn.close()
    if not args.no_embedder:
        # Make sure the encoder's ONNX export exists, so the processes load it instead of each building it.
        from memchat.config import load_settings
        from memchat.memory.recall.embed import configured

        encoder = configured(load_settings())
        print(f"encoder: {type(encoder).__name__}, model {encoder.model_name}", file=sys.stderr)

    ctx = mp.get_context("spawn")
    go, results = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(
            target=worker,
            args=(n, str(db_path), args.writes, args.recalls, not args.no_embedder, args.fresh, go, results),
        )
        for n in range(args.procs)
    ]
    for p in procs:
        p.start()
    time.sleep(0.5)
    stop, peak = threading.Event(), [0]
    watcher = threading.Thread(target=watch_wal, args=(str(db_path) + "-wal", stop, peak), daemon=True)
    watcher.start()
    wall0 = time.perf_counter()
    go.set()  # workers that are still loading start as soon as they are ready
    forgetting = None
    if args.forget_all:
        import subprocess

        time.sleep(1.0)  # the workers are loaded and busy
        forget_started = time.perf_counter()
        forgetting = subprocess.Popen(
            [sys.executable, "-m", "memchat", "memories", "forget", "--all", "--yes"],
            env={**os.environ, "MEMCHAT_HOME": str(home), "MEMCHAT_PROVIDER": "echo"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    outs = [results.get() for _ in procs]
    forget_seconds, forget_error = 0.0, ""
    if forgetting is not None:
        forget_error = forgetting.communicate()[1].strip() if forgetting.wait() else ""
        forget_seconds = time.perf_counter() - forget_started
    wall = time.perf_counter() - wall0
    for p in procs:
        p.join()
    stop.set()
    watcher.join()
    outs.sort(key=lambda o: o["proc"])

    # --- the table ----------------------------------------------------------------------------
    def row(name, writes, recalls, elapsed, wms, rms, errors):
        return (
            f"| {name} | {writes} | {writes / elapsed if elapsed else 0:,.0f} | {percentile(wms, 50):.1f} | "
            f"{percentile(wms, 95):.1f} | {recalls} | {recalls / elapsed if elapsed else 0:,.1f} | "
            f"{percentile(rms, 50):.1f} | {percentile(rms, 95):.1f} | {errors} |"
        )

    cores = os.cpu_count()
    print(
        f"\n{args.procs} processes × {args.writes} writes + {args.recalls} recalls, one database, "
        f"{cores}-core machine, recall {'BM25 only' if args.no_embedder else 'hybrid (BM25 + vectors)'}\n"
    )
    print(
        "| process | writes | writes/s | write p50 ms | write p95 ms | recalls | recalls/s | recall p50 ms | "
        "recall p95 ms | errors |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    all_w, all_r = [], []
    for o in outs:
        print(
            row(
                f"#{o['proc']} ({o['elapsed']:.1f} s)",
                o["writes"],
                o["recalls"],
                o["elapsed"],
                o["write_ms"],
                o["recall_ms"],
                len(o["errors"]),
            )
        )
        all_w += o["write_ms"]
        all_r += o["recall_ms"]
    errors = [e for o in outs for e in o["errors"]]
    print(
        row(
            f"**total** ({wall:.1f} s wall)",
            sum(o["writes"] for o in outs),
            sum(o["recalls"] for o in outs),
            wall,
            all_w,
            all_r,
            len(errors),
        )
    )

    # --- what is on disk ----------------------------------------------------------------------
    conn = sqlite3.connect(db_path, timeout=10)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        fts = []
        for table in ("memories_fts", "messages_fts"):
            try:
                conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
                fts.append(f"{table} ok")
            except sqlite3.Error as exc:
                fts.append(f"{table}: {exc}")
        wal_after = os.path.getsize(str(db_path) + "-wal") if os.path.exists(str(db_path) + "-wal") else 0
        acked = {i: t for o in outs for i, t in o["memories"]}
        rows = {
            i: (t, status)
            for i, t, status in conn.execute(
                "SELECT id, text, status FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(acked)),),
            )
        }
        forgotten_acked = sum(1 for i in acked if rows.get(i, ("", ""))[1] == "forgotten")
        missing = [i for i in acked if i not in rows or (rows[i][1] != "forgotten" and rows[i][0] != acked[i])]
        if not args.forget_all:
            missing += [i for i in acked if rows.get(i, ("", ""))[1] == "forgotten"]
        memory_rows = len(rows)
        seeded_left = conn.execute(
            "SELECT count(*) FROM memories WHERE status != 'forgotten' AND id <= ?", (args.forget_all,)
        ).fetchone()[0]
        message_rows = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        replies = conn.execute("SELECT count(*) FROM messages WHERE role = 'assistant'").fetchone()[0]
        session_rows = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
        vectors = conn.execute("SELECT count(*) FROM message_vectors").fetchone()[0]
        embedded = conn.execute("SELECT count(*) FROM memories WHERE embedding IS NOT NULL").fetchone()[0]
    finally:
        conn.close()
    planned_memories = sum((args.writes + 1) // 2 for _ in outs)
    planned_messages = sum(args.writes // 2 for _ in outs)
    acked_memories = sum(o["memory_writes"] for o in outs)
    acked_messages = sum(o["message_writes"] for o in outs)
    acked_replies = sum(o["replies"] for o in outs)
    ok = (
        not errors
        and not forget_error
        and not seeded_left
        and integrity == "ok"
        and all(f.endswith(" ok") for f in fts)
        and not missing
        and memory_rows == acked_memories == planned_memories
        and message_rows == acked_messages == planned_messages
        and session_rows == args.procs
        and replies == acked_replies
        and peak[0] <= args.wal_limit_mb * 1e6
    )
    print("\n| check | result |\n|---|---|")
    print(
        f"| memories (rows / acknowledged / planned) | {memory_rows} / {acked_memories} / {planned_memories}"
        f"{'' if not missing else f' — {len(missing)} acknowledged but missing'} |"
    )
    print(
        f"| messages (rows / acknowledged / planned) | {message_rows} / {acked_messages} / {planned_messages} "
        f"(replies {replies} / {acked_replies}) |"
    )
    print(f"| sessions | {session_rows} / {args.procs} |")
    if args.forget_all:
        print(
            f"| forget --all of {args.forget_all:,} seeded memories, during the load | {forget_seconds:.1f} s, "
            f"{seeded_left} left{', failed: ' + forget_error.splitlines()[-1] if forget_error else ''}; "
            f"{forgotten_acked} of the processes' memories forgotten with them |"
        )
    print(f"| vectors written by the writers | {embedded} memories, {vectors} messages |")
    print(f"| PRAGMA integrity_check | {integrity} |")
    print(f"| FTS integrity-check | {', '.join(fts)} |")
    print(
        f"| WAL peak during the run | {peak[0] / 1e6:.2f} MB (limit {args.wal_limit_mb:g} MB"
        f"{'' if peak[0] <= args.wal_limit_mb * 1e6 else ', EXCEEDED'}) |"
    )
    print(f"| WAL after the run (all writers closed, before this check) | {wal_after / 1e6:.2f} MB |")
    if errors:
        locked = sum("locked" in e for e in errors)
        print(f"\n{len(errors)} errors ({locked} 'database is locked'); the first ones:", file=sys.stderr)
        for e in errors[:10]:
            print(f"  {e}", file=sys.stderr)
        tracebacks = [t for o in outs for t in o["tracebacks"]]
        if tracebacks:
            print("\nthe first one's last frames:\n" + tracebacks[0], file=sys.stderr)
    print(f"\n{'PASS' if ok else 'FAIL'}")
    if args.keep:
        print(f"profile kept in {home}")
    else:
        shutil.rmtree(home, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
