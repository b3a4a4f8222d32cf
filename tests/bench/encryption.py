#!/usr/bin/env python3
"""What encryption at rest costs: fresh-process `recall` and `ask` on one profile, plain and
encrypted (SQLCipher, raw key and passphrase), medians, interleaved run by run.

    python tests/bench/encryption.py --home /tmp/h100k [--runs 7]

--home: a memchat home with a profile to copy (e.g. one built by tests/bench/recall_speed.py
with 100,000 memories); it is copied three times and never changed. The plain copy keeps its
vector copy (the memory-mapped .npy beside the database); the encrypted ones have none, so
their vectors load from the database, decrypted: that is most of the difference.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PASSPHRASE = "correct horse battery staple"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, stdin=subprocess.DEVNULL, cwd="/")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-400:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=7)
    a = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    work = Path(tempfile.mkdtemp(prefix="memchat-enc-"))
    cache = os.environ.get("MEMCHAT_CACHE_DIR") or str(a.home)
    raw = secrets.token_hex(32)
    variants = {
        "plain": {},
        "encrypted, raw key": {"MEMCHAT_DB_KEY": raw},
        "encrypted, passphrase": {"MEMCHAT_DB_KEY": PASSPHRASE},
    }
    envs = {}
    for name, extra in variants.items():
        home = work / name.replace(", ", "-").replace(" ", "-")
        home.mkdir()
        shutil.copy2(a.home / "default.db", home / "default.db")
        if (a.home / "default.db.vectors").exists():
            shutil.copytree(a.home / "default.db.vectors", home / "default.db.vectors")
        env = dict(
            os.environ,
            MEMCHAT_HOME=str(home),
            MEMCHAT_CACHE_DIR=cache,
            HF_HUB_OFFLINE="1",
            MEMCHAT_MEMORY_CAPTURE="false",
            **extra,
        )
        if extra:
            subprocess.run(
                [sys.executable, "-m", "memchat", "profile", "encrypt", "--yes"],
                env=env,
                check=True,
                capture_output=True,
            )
        envs[name] = env
    commands = {
        'recall "q"': [sys.executable, "-m", "memchat", "recall", "where did I put the spare key"],
        "ask (echo, memory on)": [sys.executable, "-m", "memchat", "--provider", "echo", "ask", "what is my plan?"],
    }
    times = {(c, v): [] for c in commands for v in envs}
    for cmd in commands.values():
        for env in envs.values():
            timed(cmd, env)  # one unmeasured run: lazy files, page cache
    for _ in range(a.runs):
        for c, cmd in commands.items():
            for v, env in envs.items():
                times[c, v].append(timed(cmd, env))
    size = (a.home / "default.db").stat().st_size / 1e6
    print(f"profile copied from {a.home} ({size:.0f} MB); median of {a.runs} fresh processes, interleaved\n")
    print("| command | " + " | ".join(envs) + " |\n|---|" + "---|" * len(envs))
    for c in commands:
        plain = statistics.median(times[c, "plain"])
        cells = [
            f"{statistics.median(times[c, v]):.2f} s"
            + ("" if v == "plain" else f" ({statistics.median(times[c, v]) / plain:.1f}×)")
            for v in envs
        ]
        print(f"| {c} | " + " | ".join(cells) + " |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
