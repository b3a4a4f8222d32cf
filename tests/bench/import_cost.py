#!/usr/bin/env python3
"""What importing a library costs a fresh process: median of --runs `python -X importtime`.

    python tests/bench/import_cost.py [--runs 7] [MODULE ...]

Counts only what the import adds to a bare interpreter (modules `python -c pass` already
loads are not counted), in milliseconds. The figures feed LAZY_IMPORTS in
tests/test_architecture.py: a library may be imported inside a function only when it is listed
there with its cost.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys


def _timings(code: str) -> dict[str, int]:
    """Top-level imports of one fresh process and their cumulative microseconds."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True)
    found = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        if not name.startswith("  "):  # a top-level import, not one made by another module
            found[name.strip()] = int(cumulative)
    return found


def cost_ms(module: str, runs: int) -> float:
    bare = set(_timings("pass"))
    samples = []
    for _ in range(runs):
        timings = _timings(f"import {module}")
        samples.append(sum(us for name, us in timings.items() if name not in bare) / 1000)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("modules", nargs="*")
    args = ap.parse_args()
    for module in args.modules:
        print(f"{module:40} {cost_ms(module, args.runs):8.1f} ms", flush=True)


if __name__ == "__main__":
    main()
