#!/usr/bin/env python3
"""Start-up costs, as a user feels them: fresh processes, medians, peak RSS, before -> after.

    python tests/bench/startup.py [--runs 7] [--sizes 0,10000,100000] [--baseline DIR]

Measures `memchat --help`, `memchat recall "q"` at each size of memory, `memchat ask` with
the echo provider and memory on (10k memories), and REPL launch to a ready prompt, each the
median of --runs fresh processes (page cache warm; one unmeasured run first creates the lazy
files: the vector copy, bytecode), against the floor of the fast path (`python -c "import
onnxruntime, tokenizers, numpy"`) and the targets of issue #17.

--baseline DIR: also run every command with an earlier checkout of memchat (e.g. `git
worktree add /tmp/old <commit>`), in the same run, on its own profiles built by its own code,
interleaved run by run with the current tree so that a noisy machine affects both alike. Each
tree is run through tests/bench/checkout.py: on PYTHONPATH, as this script did before, an
editable install's finder won and both columns measured the installed tree. Synthetic memories carry random unit vectors (see recall_speed.py);
the ONNX export is prepared once beforehand and not counted. PYTHONDONTWRITEBYTECODE is
removed from the environment: a user's Python keeps its bytecode cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import md_tables  # tests/bench/md_tables.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
CHECKOUT = Path(__file__).with_name("checkout.py")  # runs memchat from a given tree
sys.path.append(str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

TARGETS = {  # issue #17
    "memchat --help": 0.12,
    'memchat recall "q", 100,000 memories': 0.40,
    'memchat recall "q", 1,000,000 memories': 1.0,
    "memchat ask (echo, memory on), 10,000 memories": 0.60,
    "REPL launch to ready prompt": 0.20,
}
RSS_TARGETS = {'memchat recall "q", 1,000,000 memories': 1024}


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MiB) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], env=env, capture_output=True, stdin=subprocess.DEVNULL, cwd="/"
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-400:]}")
    rss_kb = int(proc.stderr.decode().strip().splitlines()[-1])
    return wall, rss_kb // 1024


def repl_ready(env: dict[str, str], cmd: list[str] | None = None) -> tuple[float, int]:
    """Seconds from launch to the REPL's prompt, and peak RSS (MiB); cmd defaults to `python -m memchat`."""
    import pexpect

    cmd = cmd or [sys.executable, "-m", "memchat"]
    start = time.perf_counter()
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd="/", encoding="utf-8", timeout=60, dimensions=(30, 100))
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


def build_home(home: Path, n: int, env: dict[str, str], root: Path = ROOT) -> None:
    """A profile of n synthetic memories, built by the memchat of the tree `root` (its own schema)."""
    home.mkdir(parents=True)
    code = (
        "import random, sys; sys.path.insert(0, sys.argv[3]); from recall_speed import build_memories; "
        "from memchat.db import open_db; db = open_db(sys.argv[1]); n = int(sys.argv[2]); "
        "n and build_memories(db, n, 'all-MiniLM-L6-v2', 384, random.Random(1)); db.conn.close()"
    )
    subprocess.run(
        [
            sys.executable,
            str(CHECKOUT),
            str(root),
            "-c",
            code,
            str(home / "default.db"),
            str(n),
            str(Path(__file__).parent),
        ],
        env=env,
        check=True,
        cwd="/",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sizes", default="0,10000,100000")
    ap.add_argument("--baseline", help="An earlier checkout of memchat to compare with, in the same run.")
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(tempfile.mkdtemp(prefix="memchat-startup-"))
    cache = base / "cache"
    env0 = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCHAT_", "ANTHROPIC_"))}
    env0.pop("PYTHONDONTWRITEBYTECODE", None)
    env0.update(
        HF_HUB_OFFLINE="1",
        MEMCHAT_CACHE_DIR=str(cache),
        MEMCHAT_PROVIDER="echo",
        MEMCHAT_MEMORY_CAPTURE="false",
        TERM="xterm",
    )
    versions = {"after": ROOT}
    if args.baseline:
        versions = {"before": Path(args.baseline).resolve(), "after": ROOT}
    for version, root in versions.items():  # each column is the tree it names, or the run stops here
        where = subprocess.run(
            [sys.executable, str(CHECKOUT), str(root), "-c", "import memchat; print(memchat.__file__)"],
            env=env0,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not where.startswith(str(root) + os.sep):
            raise SystemExit(f"{version}: memchat was imported from {where}, not from {root}")

    os.environ.update(MEMCHAT_CACHE_DIR=str(cache), MEMCHAT_HOME=str(base / "prep"))
    from memchat.memory.recall import onnx_embed
    from memchat.memory.recall.embed import DEFAULT_MODEL

    if not onnx_embed.ready(DEFAULT_MODEL):
        print("preparing the ONNX export (not measured)…", file=sys.stderr)
        onnx_embed.prepare(DEFAULT_MODEL)

    homes: dict[tuple[str, int], Path] = {}
    for version, root in versions.items():
        for n in sorted(set(sizes) | {0, 10_000}):  # --help runs on an empty profile, `ask` on 10,000
            print(f"building {n:,} memories for {version}…", file=sys.stderr)
            homes[version, n] = base / version / f"home-{n}"
            build_home(homes[version, n], n, env0, root)

    rows: list[tuple[str, dict[str, tuple[float, int]]]] = []

    def measure(label: str, args_: list[str] | None, n: int) -> None:
        fns = {}
        for version, root in versions.items():
            e = dict(env0, MEMCHAT_HOME=str(homes[version, n]))
            cmd = [sys.executable, str(CHECKOUT), str(root), *(args_ or [])]
            fns[version] = (lambda e=e, c=cmd: repl_ready(e, c)) if args_ is None else (lambda e=e, c=cmd: run(c, e))
            fns[version]()  # unmeasured: page cache warm, lazy files created
        samples: dict[str, list[tuple[float, int]]] = {v: [] for v in versions}
        for _ in range(args.runs):  # interleaved: noise hits both alike
            for version, fn in fns.items():
                samples[version].append(fn())
        rows.append(
            (label, {v: (statistics.median(s[0] for s in xs), max(s[1] for s in xs)) for v, xs in samples.items()})
        )

    floor = []
    for _ in range(args.runs):
        floor.append(run([sys.executable, "-c", "import onnxruntime, tokenizers, numpy"], env0)[0])
    measure("memchat --help", ["--help"], 0)
    for n in sizes:
        measure(f'memchat recall "q", {n:,} memories', ["recall", "where did we leave the webhook bug?"], n)
    measure("memchat ask (echo, memory on), 10,000 memories", ["ask", "what do I like?"], 10_000)
    measure("REPL launch to ready prompt", None, 10_000)

    floor_s = statistics.median(floor)
    print(
        f"\n{os.cpu_count()}-core machine, median of {args.runs} fresh processes; floor "
        f'(`python -c "import onnxruntime, tokenizers, numpy"`): {floor_s:.2f} s\n'
    )
    cols = list(versions)
    head = " | ".join(f"{v} | peak RSS" for v in cols)
    print(f"| command | {head} | target | met |")
    print("|---|" + "---|---|" * len(cols) + "---|---|")
    for label, got in rows:
        cells = " | ".join(f"{got[v][0]:.2f} s | {got[v][1]} MiB" for v in cols)
        target = TARGETS.get(label)
        rss_target = RSS_TARGETS.get(label)
        after = got["after"]
        met = "" if target is None else ("yes" if after[0] <= target else "NO")
        if rss_target is not None and met:
            met = met if after[1] <= rss_target else "NO (RSS)"
        goal = "" if target is None else f"≤ {target:.2f} s" + (f", ≤ {rss_target} MiB" if rss_target else "")
        print(f"| {label} | {cells} | {goal} | {met} |")
    recall = [got["after"][0] for label, got in rows if label.startswith('memchat recall "q", 100,000')]
    if recall:
        print(f"\nrecall at 100,000 memories / floor: {recall[0] / floor_s:.1f}x (target ≤ 2x)")


if __name__ == "__main__":
    main()
