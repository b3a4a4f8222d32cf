#!/usr/bin/env python3
"""One huge message must not make every later call slow: `ask` with and without a 10 MB message.

    python tests/bench/large_message.py [--size-mb 10] [--messages 2000] [--runs 5]

Builds two profiles alike but for one message: ordinary chat history (--messages turns of a
few sentences, embedded as memchat does), and in one of them a single message of --size-mb
megabytes whose words match the prompts (a pasted log, an exported chat). Then times
`memchat --provider echo ask PROMPT` (memory on, a fresh process each run) on both, runs
interleaved, and prints the medians and their ratio. The target: within 1.2x.
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

PROMPTS = ["what did the deploy log say about the database timeout?", "remind me what we said about the release"]
TOPICS = ["deploy", "database", "release", "timeout", "holiday", "garden", "recipe", "budget"]


def build(path: Path, messages: int, huge_mb: float) -> None:
    from memchat import sessions
    from memchat.app import Memchat

    app = Memchat.load(provider="echo", db=str(path))
    db = app.db
    for s in range(messages // 20):
        sid = sessions.create_session(db).id
        for t in range(20):
            topic = TOPICS[(s + t) % len(TOPICS)]
            sessions.add_message(
                db,
                sid,
                "user" if t % 2 == 0 else "assistant",
                f"Turn {t} of chat {s} about the {topic}: it went fine, more or less, and we moved on.",
            )
    if huge_mb:
        line = "2026-03-01 12:00:01 deploy step ok; database timeout retried; release gate green\n"
        text = line * int(huge_mb * 1_000_000 / len(line))
        sid = sessions.create_session(db).id
        sessions.add_message(db, sid, "user", text)
    app.memories.reindex()
    app.close()


def ask(path: Path, prompt: str) -> float:
    env = dict(os.environ, MEMCHAT_DB=str(path), MEMCHAT_MEMORY_CAPTURE="false")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "--provider", "echo", "ask", prompt],
        env=env,
        capture_output=True,
        cwd=str(ROOT),
        stdin=subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode())
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=10.0)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain, huge = Path(tmp) / "plain.db", Path(tmp) / "huge.db"
        t0 = time.perf_counter()
        build(plain, args.messages, 0)
        build(huge, args.messages, args.size_mb)
        print(f"built both profiles in {time.perf_counter() - t0:.1f} s")
        times: dict[str, list[float]] = {"plain": [], "huge": []}
        for _ in range(args.runs):
            for prompt in PROMPTS:
                times["plain"].append(ask(plain, prompt))
                times["huge"].append(ask(huge, prompt))
    p, h = statistics.median(times["plain"]), statistics.median(times["huge"])
    print()
    print("| profile | `ask` median | ratio |")
    print("|---|---|---|")
    print(f"| {args.messages} messages | {p:.2f} s | 1.00 |")
    print(f"| the same + one {args.size_mb:g} MB message | {h:.2f} s | {h / p:.2f} |")


if __name__ == "__main__":
    main()
