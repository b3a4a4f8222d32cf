#!/usr/bin/env python3
"""Start-up costs, as a user feels them: fresh processes, medians, peak RSS.

    python tests/bench/startup.py [--runs 5] [--sizes 0,10000,100000]

Measures `memchat --help`, `memchat recall "q"` at each size of memory, `memchat ask` with
the echo provider and memory on (10k memories), and REPL launch to a ready prompt, each as
the median of --runs fresh processes (page cache warm), with the fast path (onnxruntime
encoder, `memory.encoder = auto`) and with it disabled (`memory.encoder = torch`, i.e.
sentence-transformers), and prints the ratios. The ONNX export is prepared once beforehand
and not counted. Synthetic memories carry random unit vectors (see recall_speed.py).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], env=env, capture_output=True, stdin=subprocess.DEVNULL, cwd=str(ROOT)
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-400:]}")
    rss_kb = int(proc.stderr.decode().strip().splitlines()[-1])
    return wall, rss_kb // 1024


def repl_ready(env: dict[str, str]) -> tuple[float, int]:
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(
        sys.executable, ["-m", "memchat"], env=env, cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(30, 100)
    )
    child.expect_exact("›")
    wall = time.perf_counter() - start
    rss = 0
    try:
        for line in open(f"/proc/{child.pid}/status"):
            if line.startswith("VmHWM:"):
                rss = int(line.split()[1]) // 1024
    except OSError:
        pass
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    return wall, rss


def median(samples: list[tuple[float, int]]) -> tuple[float, int]:
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="0,10000,100000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(tempfile.mkdtemp(prefix="memchat-startup-"))
    cache = base / "cache"
    env0 = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCHAT_", "ANTHROPIC_"))}
    env0.update(
        HF_HUB_OFFLINE="1",
        MEMCHAT_CACHE_DIR=str(cache),
        MEMCHAT_PROVIDER="echo",
        MEMCHAT_MEMORY_CAPTURE="false",
        TERM="xterm",
    )

    os.environ.update(MEMCHAT_CACHE_DIR=str(cache), MEMCHAT_HOME=str(base / "prep"))
    from memchat.memory import onnx_embed
    from memchat.memory.embed import DEFAULT_MODEL

    if not onnx_embed.ready(DEFAULT_MODEL):
        print("preparing the ONNX export (not measured)…", file=sys.stderr)
        onnx_embed.prepare(DEFAULT_MODEL)

    from recall_speed import build_memories

    from memchat.db import open_db

    homes = {}
    for n in sorted(set(sizes) | {10_000}):
        home = base / f"home-{n}"
        home.mkdir()
        db = open_db(home / "default.db")
        if n:
            build_memories(db, n, DEFAULT_MODEL, 384, random.Random(1))
        db.conn.close()
        homes[n] = home

    rows: list[tuple[str, tuple[float, int], tuple[float, int] | None]] = []

    def measure(label: str, cmd: list[str] | None, home: Path, both: bool = True) -> None:
        results = []
        for encoder in ("auto", "torch") if both else ("auto",):
            env = dict(env0, MEMCHAT_HOME=str(home), MEMCHAT_MEMORY_ENCODER=encoder)
            fn = (lambda env=env: repl_ready(env)) if cmd is None else (lambda env=env: run(cmd, env))
            fn()  # one unmeasured run: page cache warm, lazy files created
            results.append(median([fn() for _ in range(args.runs)]))
        rows.append((label, results[0], results[1] if both else None))

    py = [sys.executable, "-m", "memchat"]
    measure("memchat --help", py + ["--help"], homes[0], both=False)
    for n in sizes:
        measure(f'memchat recall "q", {n:,} memories', py + ["recall", "where did we leave the webhook bug?"], homes[n])
    measure("memchat ask (echo, memory on), 10,000 memories", py + ["ask", "what do I like?"], homes[10_000])
    measure("REPL launch to ready prompt", None, homes[10_000], both=False)

    print(
        f"| command ({os.cpu_count()}-core machine, median of {args.runs}) | fast path | peak RSS "
        "| encoder = torch | peak RSS | ratio |"
    )
    print("|---|---|---|---|---|---|")
    for label, fast, slow in rows:
        tail = f"{slow[0]:.2f} s | {slow[1]} MiB | {slow[0] / fast[0]:.1f}x" if slow else "- | - | -"
        print(f"| {label} | {fast[0]:.2f} s | {fast[1]} MiB | {tail} |")


if __name__ == "__main__":
    main()
