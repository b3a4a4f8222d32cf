"""What a fresh process pays to open the ONNX encoder, with and without repacking its weights at load,
and to load its tokenizer from tokenizer.json or from the vocab.txt the export keeps beside it.

    python tests/bench/encoder_start.py [--runs 7] [--texts 640]

Each open is timed in a process of its own (onnxruntime keeps state per process), with the
export the bundled model uses. Prints medians: opening the session, encoding one query in
it, and encoding a bulk batch, for each setting; and the least cosine between the two
settings' vectors (the query session must find what the bulk session stored).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy
import onnxruntime
from memchat.memory.recall import onnx_embed
from memchat.memory.recall.models import DEFAULT_MODEL

onnx_embed.prepare(DEFAULT_MODEL)
prepack, count = sys.argv[1] == "1", int(sys.argv[2])
full = onnx_embed.OnnxEmbedder(DEFAULT_MODEL)
start = time.perf_counter()
full._session = onnx_embed.open_session(onnx_embed.export_dir(DEFAULT_MODEL) / "model.onnx", prepack=prepack)
opened = time.perf_counter() - start
start = time.perf_counter()
query = full.encode(["where did we leave the webhook bug?"])
one = time.perf_counter() - start
texts = [f"Talked with my sister, number {i}, about the garden, the rain and her new job in town" for i in range(count)]
start = time.perf_counter()
bulk = full.encode(texts)
many = time.perf_counter() - start
print(json.dumps({"open": opened, "one": one, "bulk": many, "vectors": numpy.vstack([query, bulk[:8]]).tolist()}))
"""

TOKENIZER_CHILD = r"""
import sys, time
import numpy, tokenizers
from memchat.memory.recall import onnx_embed
from memchat.memory.recall.models import DEFAULT_MODEL

onnx_embed.prepare(DEFAULT_MODEL)
directory = onnx_embed.export_dir(DEFAULT_MODEL)
start = time.perf_counter()
if sys.argv[1] == "json":
    tokenizers.Tokenizer.from_file(str(directory / "tokenizer.json"))
else:
    onnx_embed._load_tokenizer(directory)
print(time.perf_counter() - start)
"""


def _tokenizer_load(how: str) -> float:
    out = subprocess.run([sys.executable, "-c", TOKENIZER_CHILD, how], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _run(prepack: bool, count: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, "1" if prepack else "0", str(count)],
        capture_output=True,
        text=True,
        check=True,
        env={**__import__("os").environ, "HF_HUB_OFFLINE": "1"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--texts", type=int, default=640)
    args = parser.parse_args()
    import numpy as np

    results: dict[bool, list[dict]] = {True: [], False: []}
    loads: dict[str, list[float]] = {"json": [], "export": []}
    for _ in range(args.runs):  # interleaved, so that load on the machine falls on both alike
        for prepack in (False, True):
            results[prepack].append(_run(prepack, args.texts))
        for how in loads:
            loads[how].append(_tokenizer_load(how))
    print(f"| weights | open session | one query | {args.texts} texts |")
    print("|---|---|---|---|")
    for prepack in (False, True):
        rows = results[prepack]
        med = {k: statistics.median(r[k] for r in rows) for k in ("open", "one", "bulk")}
        label = "packed at load (onnxruntime's default)" if prepack else "as stored (memchat)"
        print(f"| {label} | {med['open'] * 1000:.0f} ms | {med['one'] * 1000:.0f} ms | {med['bulk']:.2f} s |")
    a = np.array(results[False][0]["vectors"])
    b = np.array(results[True][0]["vectors"])
    print("\n| tokenizer | load |\n|---|---|")
    print(f"| tokenizer.json (the model's file) | {statistics.median(loads['json']) * 1000:.1f} ms |")
    print(f"| as the export loads it (vocab.txt, memchat) | {statistics.median(loads['export']) * 1000:.1f} ms |")
    print(f"\nleast cosine between the two settings' vectors: {float((a * b).sum(axis=1).min()):.6f}")


if __name__ == "__main__":
    main()
