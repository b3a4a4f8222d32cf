#!/usr/bin/env python3
"""Fresh-process speed the way a user meets it, each figure paired with the floor in one run.

    python tests/bench/fresh_speed.py [--sizes 100000,1000000] [--runs 5] [--homes DIR]

1. Profiles are built with the project's own `tests/bench/recall_speed.build_memories`
   (synthetic sentences indexed by FTS5, random unit vectors) through memchat's schema, one
   per size; --homes DIR keeps them there and reuses them on the next run (1M takes minutes).
2. The first `memchat recall` after the memories were written is timed on its own: it is the
   run that writes the vector copy beside the database (later runs map it). The ONNX export is
   prepared once beforehand, as any first use on a machine does, and reported, not counted.
3. Then, per size, fresh processes interleaved run by run (so the noise of a shared machine
   hits all alike): the floor `python -c "import onnxruntime, tokenizers, numpy"`, `memchat
   recall "..."`, `memchat ask "..."` (echo provider, memory on) and the REPL until its prompt
   is drawn (at the smallest size). Medians of --runs, peak RSS, and the ratio to the floor
   of the same run: on a shared machine the ratios are the figures to trust.
4. A profile of where the time goes: each command once more in a process that times its
   phases (imports, opening the database, mapping the vectors, loading the encoder session,
   the query, the memory section) by wrapping memchat's own functions.

Commands run as a user runs them: the `memchat` script beside this Python, page cache warm,
bytecode cached (PYTHONDONTWRITEBYTECODE is removed from the environment).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.append(str(ROOT))
sys.path.insert(0, str(BENCH))

import md_tables  # tests/bench/md_tables.py, beside this script
from startup import repl_ready, run

FLOOR = [sys.executable, "-c", "import onnxruntime, tokenizers, numpy"]
QUERY = "where did we leave the webhook bug?"
ASK = "what do I like?"
# issue 25: (ratio to the floor, seconds, MiB), None where there is no such target
TARGETS: dict[str, tuple[float | None, float | None, int | None]] = {
    "recall 100,000": (2.0, None, None),
    "ask 100,000": (3.0, None, None),
    "repl 100,000": (None, 0.20, None),
    "recall 1,000,000": (None, 1.0, 1024),
}

# --- the child that times its own phases --------------------------------------------------------

PHASES = (  # (module, class, function, label): memchat's own functions, wrapped to time them
    ("memchat.db", None, "open_db", "open the database"),
    ("memchat.memory.recall.index", None, "vector_set", "map the vectors"),
    ("memchat.memory.recall.embed", None, "get_embedder", "encoder session"),
    ("memchat.memory.recall.onnx_embed", "OnnxEmbedder", "encode", "encode a text"),
    ("memchat.memory.recall.search", None, "recall", "search (BM25 + scan + rank)"),
    ("memchat.memory.judge.inject", None, "build", "memory section (ask)"),
    ("memchat.tokens", None, "encoding", "tokenizer (tiktoken)"),
    ("memchat.tokens", None, "_read_table", "token rank table (tiktoken not loaded)"),
)


def phases_child(argv: list[str]) -> None:
    """Run `memchat argv` in this process and print its phases as JSON on stderr's last line."""
    import importlib.abc
    import threading

    t0 = time.perf_counter()
    marks: list[tuple[str, float, float, str]] = []
    import memchat.cli.main as main
    import memchat.cli.runner as runner

    imported = time.perf_counter() - t0

    def wrap(owner: object, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                marks.append((label, start - t0, time.perf_counter() - t0, threading.current_thread().name))

        setattr(owner, name, timed)

    # Wrapped when first imported, so each module's import stays where the command pays for it.
    wanted = {module: [(cls, attr, label) for m, cls, attr, label in PHASES if m == module] for module, *_ in PHASES}

    class Hook(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: object, target: object = None) -> object:
            if name not in wanted:
                return None
            for finder in sys.meta_path:
                spec = None if finder is self else finder.find_spec(name, path, target)  # type: ignore[attr-defined]
                if spec is not None:
                    run_module = spec.loader.exec_module

                    def exec_module(module: object, run_module: object = run_module) -> None:
                        run_module(module)  # type: ignore[operator]
                        for cls, attr, label in wanted[name]:
                            wrap(getattr(module, cls) if cls else module, attr, label)

                    spec.loader.exec_module = exec_module
                    return spec
            return None

    for module in list(wanted):
        if module in sys.modules:
            for cls, attr, label in wanted.pop(module):
                wrap(getattr(sys.modules[module], cls) if cls else sys.modules[module], attr, label)
    sys.meta_path.insert(0, Hook())

    leave = runner._fast_exit

    def report(code: int) -> None:
        end = time.perf_counter() - t0
        sys.stderr.write("\n" + json.dumps({"imports": imported, "marks": marks, "end": end}) + "\n")
        leave(code)

    runner._fast_exit = report  # type: ignore[assignment]
    sys.argv = ["memchat", *argv]
    main.main()


# --- the parent -------------------------------------------------------------------------------


def memchat_cmd() -> list[str]:
    script = Path(sys.executable).with_name("memchat")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memchat"]


def build_home(home: Path, n: int, env: dict[str, str]) -> None:
    """n memories written with build_memories through memchat's own schema (skipped when there)."""
    if (home / "built").exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    code = (
        "import random, sys; sys.path.insert(0, sys.argv[3]); from recall_speed import build_memories; "
        "from memchat.db import open_db; db = open_db(sys.argv[1]); "
        "build_memories(db, int(sys.argv[2]), 'all-MiniLM-L6-v2', 384, random.Random(1)); db.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(home / "default.db"), str(n), str(BENCH)], env=env, check=True)
    (home / "built").write_text(str(n))


def profile_of(argv: list[str], env: dict[str, str]) -> dict:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--phases-of", *argv],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        cwd="/",
    )
    return json.loads(proc.stderr.decode().strip().splitlines()[-1])


def show_profile(label: str, prof: dict) -> None:
    """The phases, in the order they started; overlapping ones ran in threads side by side."""
    print(f"\n{label}: {prof['end']:.2f} s in the process (plus the interpreter's own start)")
    print("| phase | from | to | took | thread |\n|---|---|---|---|---|")
    print(f"| import memchat's CLI | 0.00 s | {prof['imports']:.2f} s | {prof['imports']:.2f} s | main |")
    seen: set[str] = set()
    for name, start, end, thread in sorted(prof["marks"], key=lambda m: m[1]):
        if end - start < 0.002 and name in seen:
            continue  # a cached second call
        seen.add(name)
        who = "main" if thread == "MainThread" else thread
        print(f"| {name} | {start:.2f} s | {end:.2f} s | {end - start:.3f} s | {who} |")


def met(key: str, ratio: float, wall: float, rss: int) -> str:
    target = TARGETS.get(key)
    if target is None:
        return "", ""
    max_ratio, max_s, max_rss = target
    goal = ", ".join(
        g
        for g in (
            f"≤ {max_ratio:.1f}× floor" if max_ratio else "",
            f"≤ {max_s:.2f} s" if max_s else "",
            f"≤ {max_rss} MiB" if max_rss else "",
        )
        if g
    )
    ok = (
        (max_ratio is None or ratio <= max_ratio)
        and (max_s is None or wall <= max_s)
        and (max_rss is None or rss <= max_rss)
    )
    return goal, "yes" if ok else "NO"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--homes", help="Keep the built profiles here and reuse them (default: a temporary directory).")
    ap.add_argument("--no-profile", action="store_true", help="Skip the time profile.")
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = Path(args.homes) if args.homes else Path(tempfile.mkdtemp(prefix="memchat-fresh-"))
    base.mkdir(parents=True, exist_ok=True)
    env0 = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCHAT_", "ANTHROPIC_", "OPENAI_"))}
    env0.pop("PYTHONDONTWRITEBYTECODE", None)
    env0.update(
        HF_HUB_OFFLINE="1",
        MEMCHAT_CACHE_DIR=str(base / "cache"),
        MEMCHAT_PROVIDER="echo",
        MEMCHAT_MEMORY_CAPTURE="false",
        TERM="xterm",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    )
    os.environ.update(MEMCHAT_CACHE_DIR=str(base / "cache"), MEMCHAT_HOME=str(base / "prep"))
    from memchat.memory.recall import onnx_embed
    from memchat.memory.recall.embed import DEFAULT_MODEL

    if not onnx_embed.ready(DEFAULT_MODEL):
        started = time.perf_counter()
        onnx_embed.prepare(DEFAULT_MODEL)
        print(f"ONNX export prepared once for this machine: {time.perf_counter() - started:.1f} s", file=sys.stderr)

    mc = memchat_cmd()
    homes = {}
    first: dict[int, tuple[float, int]] = {}
    for n in sizes:
        homes[n] = base / f"home-{n}"
        fresh = not (homes[n] / "built").exists()
        print(f"building {n:,} memories…" if fresh else f"reusing {homes[n]}", file=sys.stderr)
        build_home(homes[n], n, env0)
        if fresh:
            first[n] = run([*mc, "recall", QUERY], dict(env0, MEMCHAT_HOME=str(homes[n])))
    floor_warm = run(FLOOR, env0)  # page cache warm for the floor too
    del floor_warm

    rows = []  # (name, n, [(s, MiB)], [floor s])
    after_write: dict[int, tuple[float, int]] = {}
    for n in sizes:
        env = dict(env0, MEMCHAT_HOME=str(homes[n]))
        commands = {
            "recall": lambda env=env: run([*mc, "recall", QUERY], env),
            "ask": lambda env=env: run([*mc, "ask", ASK], env),
        }
        if n == min(sizes):
            commands["repl"] = lambda env=env: repl_ready(env, memchat_cmd())
            # A source checkout run with PYTHONDONTWRITEBYTECODE=1 and no __pycache__ (an editable
            # install in such a shell): every memchat module is compiled again on every run.
            src = base / "uncached"
            shutil.rmtree(src, ignore_errors=True)  # a copy kept by --homes is of the code of its day
            shutil.copytree(ROOT / "memchat", src / "memchat", ignore=shutil.ignore_patterns("__pycache__"))
            raw = dict(env, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(src))
            commands["recall-uncached"] = lambda raw=raw: run([*mc, "recall", QUERY], raw)
        for fn in commands.values():
            fn()  # unmeasured: page cache warm
        samples: dict[str, list[tuple[float, int]]] = {c: [] for c in commands}
        floors: dict[str, list[float]] = {c: [] for c in commands}
        for _ in range(args.runs):
            for name, fn in commands.items():  # each command beside a floor of its own
                floors[name].append(run(FLOOR, env0)[0])
                samples[name].append(fn())
        for name in commands:
            rows.append((name, n, samples[name], floors[name]))
        # One memory added, as `memchat memories add` does, then the next recall (one run: it
        # rebuilds the vector copy from SQLite, which is what every later run then maps).
        # (A new text each time: the same one again is found already there, and nothing changes.)
        run([*mc, "memories", "add", f"I keep the spare bike key under pot number {time.time_ns()}."], env)
        after_write[n] = run([*mc, "recall", QUERY], env)

    floor_all = [f for *_, fs in rows for f in fs]
    print(
        f"\n{os.cpu_count()}-core machine (shared), medians of {args.runs} fresh processes, each command "
        f'interleaved with the floor `python -c "import onnxruntime, tokenizers, numpy"` '
        f"(median {statistics.median(floor_all):.2f} s in this run)\n"
    )
    label = {
        "recall": f'`memchat recall "{QUERY}"`',
        "ask": f'`memchat ask "{ASK}"` (echo, memory on)',
        "repl": "REPL launch to a ready prompt",
        "recall-uncached": "`memchat recall`, memchat's bytecode not cached (PYTHONDONTWRITEBYTECODE=1)",
    }
    print("| command | memories | median | floor | × floor | peak RSS | target | met |")
    print("|---|---|---|---|---|---|---|---|")
    for n, (s, rss) in first.items():
        print(
            f"| first `memchat recall` after the write (writes the vector copy) | {n:,} | {s:.2f} s | | | {rss} MiB | | |"
        )
    for n, (s, rss) in after_write.items():
        print(
            f"| `memchat recall` right after `memchat memories add` (1 run) | {n:,} | {s:.2f} s | | | {rss} MiB | | |"
        )
    for name, n, samples, floors in rows:
        wall = statistics.median(s for s, _ in samples)
        rss = max(r for _, r in samples)
        floor = statistics.median(floors)
        goal, ok = met(f"{name} {n:,}", wall / floor, wall, rss)
        print(
            f"| {label[name]} | {n:,} | {wall:.2f} s | {floor:.2f} s | {wall / floor:.1f}× | {rss} MiB | {goal} | {ok} |"
        )
    asks = {n: statistics.median(s for s, _ in samples) for name, n, samples, _ in rows if name == "ask"}
    if len(asks) > 1:
        lo, hi = min(asks), max(asks)
        print(f"\nask at {hi:,} / ask at {lo:,}: {asks[hi] / asks[lo]:.2f}× (target ≤ 1.5×)")

    if not args.no_profile:
        for n in sizes:
            env = dict(env0, MEMCHAT_HOME=str(homes[n]))
            show_profile(f"`memchat recall`, {n:,} memories", profile_of(["recall", QUERY], env))
            show_profile(f"`memchat ask`, {n:,} memories", profile_of(["ask", ASK], env))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--phases-of"]:
        phases_child(sys.argv[2:])
    else:
        main()
