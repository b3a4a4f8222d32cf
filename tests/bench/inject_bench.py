#!/usr/bin/env python3
"""Added latency of long-term memory per chat turn: retrieve + build the memory section.

    python tests/bench/inject_bench.py [--memories 10000] [--turns 50]

A database of --memories synthetic memories (random unit vectors; see recall_speed.py) and
an older session; the encoder loaded and warm, as in a running REPL. Each turn times
memchat.app.turn.memory_section (query embedding, hybrid recall over memories and messages, ranking,
layout within memory.budget), which is all memory adds before the model is called.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--turns", type=int, default=50)
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="memchat-inject-")
    os.environ.update(MEMCHAT_HOME=home, MEMCHAT_PROVIDER="echo", HF_HUB_OFFLINE="1")

    from recall_speed import QUESTIONS, build_memories

    from memchat import sessions
    from memchat.app import Memchat
    from memchat.app.turn import memory_section
    from memchat.config import load_settings
    from memchat.db import open_db
    from memchat.memory.recall.embed import DEFAULT_MODEL, configured

    settings = load_settings()
    db = open_db(settings.db_path)
    build_memories(db, args.memories, DEFAULT_MODEL, 384, random.Random(1))
    old = sessions.create_session(db)
    for i in range(40):
        sessions.add_message(db, old.id, "user" if i % 2 == 0 else "assistant", f"older turn {i} about the project")
    encoder = configured(settings)
    app = Memchat(settings, db=db)  # its encoder: the configured one, loaded once per process
    session = sessions.create_session(db)
    times, sizes = [], []
    for i in range(args.turns + 3):
        user = sessions.add_message(db, session.id, "user", QUESTIONS[i % len(QUESTIONS)], status="ok")
        start = time.perf_counter()
        section = memory_section(app, session, user)
        elapsed = (time.perf_counter() - start) * 1000
        if i >= 3:  # the first calls load the vectors and catch up embeddings
            times.append(elapsed)
            sizes.append(section.tokens)
    times.sort()
    print(f"| measure ({os.cpu_count()}-core machine, {type(encoder).__name__}) | result |\n|---|---|")
    print(f"| retrieve + inject per turn, {args.memories:,} memories: median | {statistics.median(times):.1f} ms |")
    print(f"| p95 | {times[int(len(times) * 0.95) - 1]:.1f} ms |")
    print(f"| memory section size (median) | {statistics.median(sizes):.0f} tokens |")


if __name__ == "__main__":
    main()
