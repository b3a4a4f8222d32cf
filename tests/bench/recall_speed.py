#!/usr/bin/env python3
"""Recall and import speed: `recall` over many memories, and import throughput.

    python tests/bench/recall_speed.py [--memories 100000] [--queries 200] [--import-messages 2000]
                                       [--baseline DIR]

1. Recall: a database of --memories synthetic memories (sentences drawn from a Zipf-weighted
   English vocabulary, indexed by FTS5 as any memory is) with random unit vectors in place
   of embeddings, which would take minutes to compute and do not change the cost of the
   scan. The model is loaded and warm; each query runs the same `recall` as `memchat
   recall` (query embedding included, over memories and the empty transcript). Median and
   p95 over --queries, with the cost of each step, and the one-off cost of loading the
   vectors into the process.
2. Import: `memchat import`'s code on JSON lines of synthetic chat messages and, when the
   LoCoMo development set is there, on its 788 real messages; messages/s for parse + insert
   + embedding in batches.
Prints Markdown tables. Nothing here downloads anything. --baseline DIR first runs the same
bench with an earlier checkout of memchat first on PYTHONPATH (before), then this one (after).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import md_tables  # tests/bench/md_tables.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT))  # after PYTHONPATH: a --baseline checkout there wins
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def vocabulary() -> list[str]:
    """English words in frequency order: the whole words of the bundled model's WordPiece
    vocabulary (about 21,000), so a Zipf draw gives text with realistic term statistics."""
    from memchat.memory.recall.embed import default_model_path

    words = (default_model_path() / "vocab.txt").read_text(encoding="utf-8").split()
    return [w for w in words if w.isascii() and w.isalpha() and w.islower() and len(w) >= 3]


SUBJECTS = ["The user", "I", "My partner", "We", "The team", "My manager", "Our client"]
QUESTIONS = [
    "where did we leave the webhook bug?",
    "what coffee do I like in the morning?",
    "when is the dentist appointment?",
    "which city did I move to?",
    "what did my manager say about the budget?",
    "do I have any food allergies?",
    "what was the deadline for the release?",
    "who is coming to the birthday party?",
    "what guitar did I buy?",
    "how do I like my reports formatted?",
    "what did we decide about kubernetes?",
    "which hotel did we book in Lisbon?",
    "what is my sister's job?",
    "did I cancel the gym subscription?",
]


def sentence(rng: random.Random, words: list[str], cum: list[float]) -> str:
    n = rng.randint(6, 18)
    return f"{rng.choice(SUBJECTS)} " + " ".join(rng.choices(words, cum_weights=cum, k=n)) + "."


def zipf(words: list[str]) -> list[float]:
    return list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))


def build_memories(db, n: int, model: str, dim: int, rng: random.Random) -> float:
    """Insert n memories with random unit vectors; returns seconds."""
    import numpy as np

    from memchat.db import immediate, utcnow

    words = vocabulary()
    cum = zipf(words)
    nprng = np.random.default_rng(7)
    started = time.perf_counter()
    now = utcnow()
    for start in range(0, n, 10_000):
        count = min(10_000, n - start)
        vectors = nprng.standard_normal((count, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        rows = [
            (
                rng.choice(("fact", "fact", "event", "rule")),
                sentence(rng, words, cum),
                now,
                now,
                vectors[i].astype("<f4").tobytes(),
                model,
            )
            for i in range(count)
        ]
        with immediate(db):
            db.conn.executemany(
                "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, embedding_model) "
                "VALUES (?, ?, 'active', ?, ?, ?, ?)",
                rows,
            )
    return time.perf_counter() - started


def queries(n: int, rng: random.Random) -> list[str]:
    words = vocabulary()
    cum = zipf(words)
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append(QUESTIONS[i // 2 % len(QUESTIONS)])
        else:
            out.append("what did I say about " + " and ".join(rng.choices(words, cum_weights=cum, k=2)) + "?")
    return out


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_recall(args, embedder) -> list[tuple[str, str, str]]:
    from memchat.db import open_db
    from memchat.memory.recall import index, scan, search

    rng = random.Random(42)
    db = open_db(Path(tempfile.mkdtemp(prefix="memchat-speed-")) / "speed.db")
    build = build_memories(db, args.memories, embedder.model_name, embedder.dim, rng)
    started = time.perf_counter()
    index.vector_set(db, "memories", embedder.model_name)
    load = time.perf_counter() - started
    qs = queries(args.queries, rng)
    for q in qs[:5]:  # warm the FTS pages and the encoder's kernels
        search.recall(db, q, embedder)
    apart, back_to_back = [], []
    for q in qs:
        time.sleep(args.pause_ms / 1000)
        t0 = time.perf_counter()
        search.recall(db, q, embedder, limit=10)
        apart.append(time.perf_counter() - t0)
    for q in qs:
        t0 = time.perf_counter()
        search.recall(db, q, embedder, limit=10)
        back_to_back.append(time.perf_counter() - t0)
    encode, fts, vec = [], [], []
    for q in qs:  # the parts, timed one by one (the same calls as inside recall)
        time.sleep(args.pause_ms / 1000)
        t1 = time.perf_counter()
        v = embedder.encode([q])[0]
        t2 = time.perf_counter()
        query = search._Query(q, search.fts_query(q), v, search.ALL_KINDS, ("active",), None, None, None, search.TUNING)
        search._bm25_memories(db, query)
        t3 = time.perf_counter()
        vs, mask = search._memory_scan(db, query, embedder.model_name)
        scan.nearest(vs, v, mask, search.TUNING.pool)
        t4 = time.perf_counter()
        encode.append(t2 - t1)
        fts.append(t3 - t2)
        vec.append(t4 - t3)
    ms = lambda xs, p: f"{1000 * (statistics.median(xs) if p == 50 else pct(xs, p)):.1f} ms"  # noqa: E731
    n = f"{args.memories:,}"
    return [
        (f"recall over {n} memories, top 10, queries {args.pause_ms} ms apart", ms(apart, 50), ms(apart, 95)),
        (f"recall over {n} memories, top 10, back to back", ms(back_to_back, 50), ms(back_to_back, 95)),
        ("· query embedding", ms(encode, 50), ms(encode, 95)),
        ("· FTS5 BM25 over memories (runs beside the scan)", ms(fts, 50), ms(fts, 95)),
        ("· cosine scan, numpy, two threads", ms(vec, 50), ms(vec, 95)),
        (f"one-off: insert {n} memories with vectors", f"{build:.1f} s", ""),
        (f"one-off: load {n} vectors into the process", f"{1000 * load:.0f} ms", ""),
    ]


def chat_lines(n: int, rng: random.Random) -> list[dict]:
    words = vocabulary()
    cum = zipf(words)
    return [
        {
            "session": f"s{i // 40}",
            "role": "user" if i % 2 == 0 else "assistant",
            "content": sentence(rng, words, cum),
            "timestamp": f"2026-01-{1 + i // 400 % 28:02d}T10:00:00",
        }
        for i in range(n)
    ]


def locomo_lines(eval_dir: Path) -> list[dict]:
    path = eval_dir / "locomo_dev_sessions.jsonl"
    if not path.exists():
        return []
    return [
        {
            "session": r["session"],
            "role": r["role"],
            "content": r["content"],
            "name": r["speaker"],
            "timestamp": r["timestamp"],
            "id": r["id"],
        }
        for r in map(json.loads, open(path, encoding="utf-8"))
    ]


def bench_import(lines: list[dict], embedder) -> tuple[float, float]:
    """(messages/s for the whole import, messages/s for the insert alone)."""
    from memchat.db import open_db
    from memchat.importer import import_file
    from memchat.memory.recall.index import embed_messages

    tmp = Path(tempfile.mkdtemp(prefix="memchat-import-"))
    path = tmp / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    db = open_db(tmp / "import.db")
    t0 = time.perf_counter()
    result = import_file(lambda: db, path)
    t1 = time.perf_counter()
    embed_messages(db, embedder, result.message_ids)
    t2 = time.perf_counter()
    return len(lines) / (t2 - t0), len(lines) / (t1 - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--pause-ms", type=int, default=100, help="Idle time before each query, as between a person's searches."
    )
    ap.add_argument("--import-messages", type=int, default=2000)
    ap.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument(
        "--encoder",
        default="auto",
        choices=("auto", "onnx", "torch"),
        help="memory.encoder: auto (the default), onnx or torch (sentence-transformers).",
    )
    ap.add_argument("--baseline", help="An earlier checkout of memchat: run the same bench with it first.")
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    if args.baseline:
        import subprocess

        argv = [a for a in sys.argv[1:] if a not in (args.baseline, "--baseline")]
        env = dict(os.environ, PYTHONPATH=str(Path(args.baseline).resolve()))
        print(f"## before ({args.baseline})\n", flush=True)
        subprocess.run([sys.executable, __file__, *argv], env=env, check=False)
        print("\n## after (this tree)\n", flush=True)
    os.environ["MEMCHAT_HOME"] = tempfile.mkdtemp(prefix="memchat-bench-")

    from memchat.memory.recall.embed import get_embedder

    t0 = time.perf_counter()
    embedder = get_embedder(encoder=args.encoder)
    loaded = time.perf_counter() - t0
    embedder.encode(["warm up"] * 8)
    rows = bench_recall(args, embedder)
    print(f"| {'step':<52} | median | p95 |\n|---|---|---|")
    for name, p50, p95 in rows:
        print(f"| {name:<52} | {p50} | {p95} |")
    print(f"| {'one-off: load the model':<52} | {loaded:.1f} s | |")
    precision = "bfloat16 matmuls" if getattr(embedder, "bf16", False) else "float32"
    print(f"\nencoder: {type(embedder).__name__} ({precision}), model {embedder.model_name}\n")
    print("| import (parse + insert + embed) | messages | messages/s | insert alone |\n|---|---|---|---|")
    sets = [("synthetic chat messages", chat_lines(args.import_messages, random.Random(1)))]
    real = locomo_lines(Path(args.eval_dir))
    if real:
        sets.append(("LoCoMo dev messages (real, 35 tokens on average)", real))
    for name, lines in sets:
        rate, insert = bench_import(lines, embedder)
        print(f"| {name} | {len(lines):,} | {rate:.0f} | {insert:,.0f}/s |")


if __name__ == "__main__":
    main()
