#!/usr/bin/env python3
"""How long the REPL takes to draw its prompt, beside what it cannot be faster than.

    python tests/bench/repl_start.py [--runs 11]

Fresh processes in a pseudo-terminal, interleaved run by run (a shared machine's noise hits
all alike), on one new profile (its consent answered; the REPL reads no memory before its
prompt), until the prompt `›` is on screen:

- bare `python -m memchat`, as a user starts a chat;
- the same chat through the command-line parser (`memchat.cli.main`, typer and every command
  module), which is how bare `memchat` started before memchat.cli.entry;
- a bare prompt_toolkit prompt: the line editor alone, the floor of any REPL built on it;
- `python -c "print('›')"`: the interpreter and the pseudo-terminal alone.

Medians of --runs; bytecode cached (PYTHONDONTWRITEBYTECODE is removed), as a user's Python keeps it.
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

COMMANDS = {
    "bare `memchat` (memchat.cli.entry)": ["-m", "memchat"],
    "the same chat through the command-line parser": [
        "-c",
        "import sys; sys.argv = ['memchat']; from memchat.cli.main import main; main()",
    ],
    "a bare prompt_toolkit prompt (the line editor alone)": [
        "-c",
        "from prompt_toolkit import PromptSession; PromptSession().prompt('› ')",
    ],
    "`python -c \"print('›')\"` (interpreter and terminal)": ["-c", "print('›')"],
}


def ready(args: list[str], env: dict[str, str]) -> float:
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, args, env=env, cwd="/", encoding="utf-8", timeout=60, dimensions=(30, 100))
    child.expect_exact("›")
    took = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--markdown", action="store_true", help="print only the table (for readme_figures.py)")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("MEMCHAT_")}
        env.update(
            HOME=str(home),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_CACHE_HOME=str(home / "cache"),
            MEMCHAT_PROVIDER="echo",
            TERM="xterm",
        )
        subprocess.run([sys.executable, "-m", "memchat", "consent", "yes"], env=env, check=True, capture_output=True)
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for cmd in COMMANDS.values():
            ready(cmd, env)  # unmeasured: bytecode and lazy files
        for _ in range(args.runs):
            for name, cmd in COMMANDS.items():
                times[name].append(ready(cmd, env))
    print(
        f"\n{os.cpu_count()}-core machine, medians of {args.runs} fresh processes in a pseudo-terminal, "
        "interleaved run by run\n"
    )
    print("| until the prompt is drawn | median | min |")
    print("|---|---|---|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.3f} s | {min(values):.3f} s |")


if __name__ == "__main__":
    main()
