#!/usr/bin/env python3
"""Re-measure README's figures: rewrite the blocks between its figure markers in place.

    python tests/bench/readme_figures.py [NAME...]   re-run the named blocks and rewrite them
    python tests/bench/readme_figures.py --check     exit 1 when a cheap block differs from now
    python tests/bench/readme_figures.py --list      the blocks README has

A block in README.md is

    <!-- figures: NAME ARGS... -->
    ...generated, never edited by hand...
    <!-- /figures -->

NAME `help` is `memchat ARGS... --help` (cheap and deterministic: 80 columns, no colour), shown
as a terminal excerpt. Any other NAME is a benchmark, `tests/bench/NAME.py --markdown ARGS...`,
and the block is the Markdown table(s) it prints; its progress goes to the terminal. Without
NAME, only the cheap blocks are rewritten: the benchmarks take minutes and want a quiet machine.
`--check` compares the cheap blocks (or the named ones) with what they would be now.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
CHEAP = {"help"}
_BLOCK = re.compile(r"(<!-- figures: (?P<spec>[^>]*?) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)


@dataclass(frozen=True)
class Block:
    name: str
    args: tuple[str, ...]
    body: str

    @property
    def label(self) -> str:
        return " ".join((self.name, *self.args))


def blocks(readme: str) -> list[Block]:
    found = []
    for m in _BLOCK.finditer(readme):
        name, *args = shlex.split(m.group("spec"))
        found.append(Block(name, tuple(args), m.group("body")))
    return found


def generate(block: Block) -> str:
    """What the block holds when generated now."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    if block.name == "help":
        return _help(block.args, env)
    script = BENCH / f"{block.name}.py"
    if not script.is_file():
        raise SystemExit(f"readme_figures: no benchmark {script.relative_to(ROOT)} for block {block.label!r}")
    done = subprocess.run(
        [sys.executable, str(script), "--markdown", *block.args], env=env, stdout=subprocess.PIPE, text=True
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise SystemExit(f"readme_figures: {block.label} failed (exit {done.returncode}); README left as it was")
    return done.stdout.strip() + "\n"


def _help(args: tuple[str, ...], env: dict[str, str]) -> str:
    with tempfile.TemporaryDirectory(prefix="memchat-figures-") as home:
        env = {k: v for k, v in env.items() if not k.startswith(("MEMCHAT_", "ANTHROPIC_", "OPENAI_"))}
        env.update(MEMCHAT_HOME=home, COLUMNS="80", NO_COLOR="1", TERM="dumb")
        done = subprocess.run(
            [sys.executable, "-m", "memchat", *args, "--help"], env=env, capture_output=True, text=True, cwd=home
        )
    if done.returncode != 0:
        raise SystemExit(f"readme_figures: memchat {' '.join(args)} --help failed: {done.stderr.strip()}")
    command = " ".join(["memchat", *args, "--help"])
    return f"```\n$ {command}\n{done.stdout.rstrip()}\n```\n"


def rewrite(readme: str, chosen: set[str] | None) -> tuple[str, list[str]]:
    """README with the chosen blocks generated anew (None: the cheap ones), and the labels that changed."""
    changed = []

    def replace(m: re.Match[str]) -> str:
        name, *args = shlex.split(m.group("spec"))
        block = Block(name, tuple(args), m.group("body"))
        if (block.name not in CHEAP) if chosen is None else (block.name not in chosen):
            return m.group(0)
        body = generate(block)
        if body != block.body:
            changed.append(block.label)
        return m.group(1) + body + m.group(4)

    return _BLOCK.sub(replace, readme), changed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="Blocks to re-run (default: the cheap ones: help).")
    ap.add_argument("--check", action="store_true", help="Change nothing; exit 1 when a block is out of date.")
    ap.add_argument("--list", action="store_true", help="List README's blocks.")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = ap.parse_args()
    readme = args.readme.read_text()
    if args.list:
        for block in blocks(readme):
            print(block.label + ("  (cheap)" if block.name in CHEAP else ""))
        return
    known = {b.name for b in blocks(readme)}
    unknown = sorted(set(args.names) - known)
    if unknown:
        raise SystemExit(f"readme_figures: README has no block named {', '.join(unknown)} (--list shows them)")
    updated, changed = rewrite(readme, set(args.names) or None)
    if args.check:
        if changed:
            diff = difflib.unified_diff(readme.splitlines(), updated.splitlines(), "README.md", "now", lineterm="")
            print("\n".join(diff))
            print(f"\nout of date: {', '.join(changed)}; run: python tests/bench/readme_figures.py", file=sys.stderr)
            raise SystemExit(1)
        return
    if changed:
        args.readme.write_text(updated)
    print(f"rewrote: {', '.join(changed)}" if changed else "README's figures are up to date", file=sys.stderr)


if __name__ == "__main__":
    main()
