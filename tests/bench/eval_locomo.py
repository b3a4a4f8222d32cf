#!/usr/bin/env python3
"""Retrieval quality on the LoCoMo development set: recall@5/10, MRR, all-evidence@10, per category.

    python tests/bench/eval_locomo.py [--eval-dir ../shared/eval] [--out DIR] [--sweep]
    python tests/bench/eval_locomo.py --data tests/bench/data/realchat_dev.json [--shipped-only]

Protocol (../shared/eval/README.md): each conversation is imported into its own temporary
database through `memchat import`'s code (JSON lines with the speaker as `name`, the
LoCoMo id as `id`), its messages are embedded in batches, and every question is run
through `memchat recall`'s retrieval over messages. Hits are mapped back to LoCoMo ids,
written as rankings JSONL and scored by the set's own score.py (run as a subprocess).

Rows, all measured in the same run:
- memchat recall: the shipped `Tuning` defaults (tuned on this set only);
- baselines over the message text alone (no speaker name): BM25, cosine
  (all-MiniLM-L6-v2), and their RRF with k = 60;
- the same three over memchat's index (speaker name with the text), from the shipped
  search with one side switched off, and with the tuning switched off.
--sweep prints the grid the defaults were chosen from (recall@10 and MRR, categories 1-4).
--data reads another set in the real-style format of tests/bench/data/realchat_dev.json (sessions
of [speaker, text] turns; the same scoring); --shipped-only measures memchat recall alone.
The dataset is CC BY-NC 4.0: it is read in place and never copied into the repository.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import md_tables  # tests/bench/md_tables.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
LIMIT = 50  # ranks kept per question (score.py looks at 20)
SHIPPED = "memchat recall (shipped)"


class CachedEmbedder:
    """The real embedder; a question asked again (by another variant) is encoded once."""

    def __init__(self, inner):
        self.inner, self.model_name, self.dim = inner, inner.model_name, inner.dim
        self.memo: dict[str, object] = {}

    def encode(self, texts, batch_size=64):
        if len(texts) != 1:
            return self.inner.encode(texts, batch_size)
        if texts[0] not in self.memo:
            self.memo[texts[0]] = self.inner.encode(texts, batch_size)
        return self.memo[texts[0]]


def load(eval_dir: Path):
    convs: dict[str, list[dict]] = defaultdict(list)
    for line in open(eval_dir / "locomo_dev_sessions.jsonl", encoding="utf-8"):
        row = json.loads(line)
        convs[row["conversation"]].append(row)
    questions: dict[str, list[dict]] = defaultdict(list)
    for line in open(eval_dir / "locomo_dev_questions.jsonl", encoding="utf-8"):
        q = json.loads(line)
        questions[q["conversation"]].append(q)
    return convs, questions


def load_chat_set(path: Path, tmp: Path):
    """A set in realchat_dev.json's format, as load() returns LoCoMo; its questions are also
    written as JSON lines for score.py (returned third)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    convs: dict[str, list[dict]] = defaultdict(list)
    for conv in data["conversations"]:
        first = conv["sessions"][0]["turns"][0][0]
        for s, session in enumerate(conv["sessions"], 1):
            for t, (speaker, text) in enumerate(session["turns"], 1):
                convs[conv["id"]].append(
                    {
                        "conversation": conv["id"],
                        "session": f"{conv['id']}/session_{s}",
                        "id": f"{conv['id']}/D{s}:{t}",
                        "role": "user" if speaker == first else "assistant",
                        "speaker": speaker,
                        "content": text,
                        "timestamp": session["date"],
                    }
                )
    questions: dict[str, list[dict]] = defaultdict(list)
    questions_file = tmp / "questions.jsonl"
    with open(questions_file, "w", encoding="utf-8") as fh:
        for q in data["questions"]:
            questions[q["conversation"]].append(q)
            fh.write(json.dumps(q) + "\n")
    return convs, questions, questions_file


def build(conv: str, rows: list[dict], tmp: Path, embedder):
    """Import one conversation as memchat would; returns (db, seconds to import and embed)."""
    from memchat.db import open_db
    from memchat.importer import import_file
    from memchat.memory.recall.index import embed_messages

    lines = tmp / f"{conv}.jsonl"
    with open(lines, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(
                json.dumps(
                    {
                        "session": r["session"],
                        "role": r["role"],
                        "content": r["content"],
                        "timestamp": r["timestamp"],
                        "name": r["speaker"],
                        "id": r["id"],
                    }
                )
                + "\n"
            )
    db = open_db(tmp / f"{conv}.db")
    started = time.perf_counter()
    result = import_file(lambda: db, lines)
    embed_messages(db, embedder, result.message_ids)
    return db, time.perf_counter() - started


def plain_baselines(db, embedder):
    """BM25 and cosine over the message text alone, as the eval README defines them."""
    import numpy as np

    from memchat.memory.recall.search import fts_query

    ids, texts = zip(*db.conn.execute("SELECT id, content FROM messages ORDER BY id").fetchall(), strict=False)
    matrix = embedder.inner.encode(list(texts))

    def bm25(question):
        q = fts_query(question, stopwords=False)
        if not q:
            return []
        return [
            r[0]
            for r in db.conn.execute(
                "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
                ("{content} : (" + q + ")", LIMIT),
            )
        ]

    def cosine(question):
        scores = matrix @ embedder.encode([question])[0]
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:LIMIT]]

    def rrf(question, k=60):
        fused: dict[int, float] = defaultdict(float)
        for ranked in (bm25(question), cosine(question)):
            for rank, mid in enumerate(ranked, 1):
                fused[mid] += 1 / (k + rank)
        return sorted(fused, key=lambda m: -fused[m])[:LIMIT]

    return {"BM25, text only": bm25, "cosine, text only": cosine, "RRF k=60, text only": rrf}


def memchat_variants(db, embedder):
    from memchat.memory.recall.search import TUNING, Tuning, recall

    plain = Tuning(
        rrf_k=60,
        bm25_weight=1.0,
        vector_weight=1.0,
        stopwords=False,
        recency_weight=0.0,
        name_weight=1.0,
        rescore=False,
        set_discount=0.0,  # a baseline: one ranking for every question
    )
    variants = {
        SHIPPED: (embedder, TUNING),
        "memchat, first stage only (fused ranks, no relevance re-score)": (embedder, replace(TUNING, rescore=False)),
        "memchat, full text only (no vectors)": (None, TUNING),
        "BM25, name indexed": (None, plain),
        "cosine, name embedded": (embedder, replace(plain, bm25_weight=0.0)),
        "RRF k=60, name indexed": (embedder, plain),
    }

    def run(enc, tuning):
        return lambda question: [
            h.id for h in recall(db, question, enc, kinds=("message",), limit=LIMIT, tuning=tuning)
        ]

    return {name: run(enc, tuning) for name, (enc, tuning) in variants.items()}


def quick_scores(rankings: dict[str, list[str]], questions: list[dict]) -> tuple[float, float]:
    """recall@10 and MRR over categories 1-4, as score.py computes them (for the sweep)."""
    r10, mrr = [], []
    for q in questions:
        if q["category"] == "adversarial":
            continue
        pos = {mid: i + 1 for i, mid in enumerate(rankings.get(q["qid"], []))}
        found = [pos[e] for e in q["evidence"] if e in pos]
        r10.append(float(any(r <= 10 for r in found)))
        mrr.append(1 / min(found) if found else 0.0)
    return statistics.mean(r10), statistics.mean(mrr)


def score(path: Path, eval_dir: Path, questions_file: Path | None = None) -> dict:
    extra = ["--questions", str(questions_file)] if questions_file else []
    out = subprocess.run(
        [sys.executable, str(eval_dir / "score.py"), str(path), "--json", *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)["groups"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument("--out", default=None, help="Keep the rankings here (default: a temp dir).")
    ap.add_argument("--sweep", action="store_true", help="Also print the tuning grid.")
    ap.add_argument(
        "--encoder",
        default="auto",
        choices=("auto", "onnx", "torch"),
        help="memory.encoder: auto (the default), onnx or torch (sentence-transformers).",
    )
    ap.add_argument(
        "--model",
        default=None,
        help="memory.embedding_model: another sentence-transformers model (a name or a folder) "
        "instead of the bundled all-MiniLM-L6-v2 (tests/bench/encoder_compare.py compares them).",
    )
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    ap.add_argument("--data", default=None, help="A set in realchat_dev.json's format instead of LoCoMo.")
    ap.add_argument("--shipped-only", action="store_true", help="Measure memchat recall (shipped) alone.")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    eval_dir = Path(args.eval_dir)
    os.environ["MEMCHAT_HOME"] = tempfile.mkdtemp(prefix="memchat-eval-")

    from memchat.memory.recall.embed import DEFAULT_MODEL, get_embedder

    started = time.perf_counter()
    embedder = CachedEmbedder(get_embedder(args.model or DEFAULT_MODEL, encoder=args.encoder))
    print(f"{type(embedder.inner).__name__} loaded in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix="memchat-locomo-"))
    questions_file = None
    if args.data:
        convs, questions, questions_file = load_chat_set(Path(args.data), tmp)
    else:
        convs, questions = load(eval_dir)
    out = Path(args.out) if args.out else tmp
    out.mkdir(parents=True, exist_ok=True)
    rankings: dict[str, dict[str, list[str]]] = defaultdict(dict)
    dbs, import_time, n_messages = {}, 0.0, 0
    for conv, rows in convs.items():
        db, seconds = build(conv, rows, tmp, embedder)
        dbs[conv] = db
        import_time += seconds
        n_messages += len(rows)
        external = dict(db.conn.execute("SELECT id, external_id FROM messages"))
        systems = memchat_variants(db, embedder)
        if args.shipped_only:
            systems = {name: run for name, run in systems.items() if name == SHIPPED}
        else:
            systems.update(plain_baselines(db, embedder))
        for name, system in systems.items():
            for q in questions[conv]:
                rankings[name][q["qid"]] = [external[i] for i in system(q["question"])]
    print(
        f"imported and embedded {n_messages} messages in {import_time:.1f} s "
        f"({n_messages / import_time:.0f} messages/s)",
        file=sys.stderr,
    )

    all_questions = [q for qs in questions.values() for q in qs]
    results = {}
    for i, (name, ranks) in enumerate(rankings.items()):
        path = out / f"rankings-{i}.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for q in all_questions:
                fh.write(json.dumps({"qid": q["qid"], "ranked": ranks.get(q["qid"], [])}) + "\n")
        results[name] = score(path, eval_dir, questions_file)
    print_tables(results)
    print(f"\nrankings: {out}", file=sys.stderr)
    if args.sweep:
        sweep(dbs, questions, embedder, all_questions)


def print_tables(results: dict[str, dict]) -> None:
    # All@10: every evidence message of a question in the top 10 (what a multi-part answer needs);
    # multi-hop questions are the ones whose evidence is spread over several turns.
    print("| system | R@5 | R@10 | R@20 | MRR | All@10 | All@10 multi-hop |")
    print("|---|---|---|---|---|---|---|")
    for name, groups in results.items():
        o = groups["overall (1-4)"]
        multi = groups.get("multi-hop", {}).get("All@10", float("nan"))
        print(
            f"| {name} | {o['R@5']:.3f} | {o['R@10']:.3f} | {o['R@20']:.3f} | {o['MRR']:.3f} "
            f"| {o['All@10']:.3f} | {multi:.3f} |"
        )
    cats = [g for g in next(iter(results.values())) if g != "overall (1-4)"]
    first = next(iter(results.values()))
    print("\nrecall@10 / MRR per category (n):\n")
    print("| system | " + " | ".join(f"{c} ({first[c]['n']})" for c in cats) + " |")
    print("|---|" + "---|" * len(cats))
    for name, groups in results.items():
        print(f"| {name} | " + " | ".join(f"{groups[c]['R@10']:.3f} / {groups[c]['MRR']:.3f}" for c in cats) + " |")


def sweep(dbs, questions, embedder, all_questions) -> None:
    from memchat.memory.recall.search import TUNING, recall

    grid = {
        "rrf_k": [3, 5, 10, 15, 20, 60],
        "bm25_weight": [1.0, 1.25, 1.5, 2.0],
        "name_weight": [0.5, 1.0],
        "stopwords": [True, False],
    }
    print("\n| rrf_k | bm25_weight | name_weight | stopwords | R@10 | MRR |\n|---|---|---|---|---|---|")
    for values in itertools.product(*grid.values()):
        tuning = replace(TUNING, **dict(zip(grid, values, strict=False)))
        ranks = {}
        for conv, db in dbs.items():
            external = dict(db.conn.execute("SELECT id, external_id FROM messages"))
            for q in questions[conv]:
                ranks[q["qid"]] = [
                    external[h.id]
                    for h in recall(db, q["question"], embedder, kinds=("message",), limit=LIMIT, tuning=tuning)
                ]
        r10, mrr = quick_scores(ranks, all_questions)
        print("| " + " | ".join(str(v) for v in values) + f" | {r10:.3f} | {mrr:.3f} |", flush=True)


if __name__ == "__main__":
    main()
