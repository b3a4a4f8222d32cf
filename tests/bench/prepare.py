#!/usr/bin/env python3
"""The encoder's one-time preparation: wall time and peak memory, fresh process, fresh cache.

    python tests/bench/prepare.py [--runs 3]

"after": what `prepare` does today for the bundled all-MiniLM-L6-v2 (the graph built from
its weights by memchat.memory.recall.onnx_build, verified against shipped reference vectors, no
torch). "before": the torch route every model took until then (sentence-transformers loaded,
torch.onnx.export, verification against sentence-transformers), forced in the same process
code by making the direct build decline. Both then optimise with onnxruntime, externalise
the weights and verify. Prints a Markdown table of medians (wall, peak RSS).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

SNIPPET = """
import sys
from memchat.memory.recall import onnx_embed
if sys.argv[1] == "before":
    import memchat.memory.recall.onnx_build as build
    def decline(*a, **k):
        raise ValueError("forced: the torch route")
    build.build_onnx = decline
    onnx_embed._shipped_reference = lambda *a: None
assert onnx_embed.prepare("all-MiniLM-L6-v2")
print("torch" if "torch" in sys.modules else "no torch")
"""


def run(route: str) -> tuple[float, int, str]:
    cache = tempfile.mkdtemp(prefix="memchat-prep-")
    env = dict(os.environ, MEMCHAT_CACHE_DIR=cache, HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", sys.executable, "-c", SNIPPET, route],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        raise SystemExit(proc.stderr[-800:])
    wall, rss = proc.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) // 1024, proc.stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rows = {}
    for route in ("before", "after"):
        runs = [run(route) for _ in range(args.runs)]
        rows[route] = (statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[0][2])
    print(f"\nencoder preparation, fresh process and cache, {os.cpu_count()}-core machine, median of {args.runs}\n")
    print("| route | wall | peak RSS | torch imported |\n|---|---|---|---|")
    for route, (wall, rss, torch) in rows.items():
        print(f"| {route} | {wall:.1f} s | {rss} MiB | {torch} |")
    print(f"\ntarget: ≤ 8 s and ≤ 500 MiB; after/before: {rows['after'][0] / rows['before'][0]:.2f}x time")


if __name__ == "__main__":
    main()
