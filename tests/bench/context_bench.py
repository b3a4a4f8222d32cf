#!/usr/bin/env python3
"""Working-memory benchmark: cost of compiling the context, and tokens saved per turn.

    python tests/bench/context_bench.py [--messages 1000] [--turns 200] [--window 8000]

1. Per-turn cost of compiling the call (memchat.app.turn.compile_call, the history read) for a session of --messages stored messages (no
   summarisation call: strategy `tokens`, token counts already cached on the rows, as they
   are after the first turn). Median and p95 over 50 compiles.
2. Tokens sent per turn over a --turns session with the default 200k window and with a
   small --window, versus sending the whole transcript every turn (estimated tokens).
Prints a Markdown table. Uses the offline echo provider: nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--window", type=int, default=8000)
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="memchat-bench-")
    os.environ.update(MEMCHAT_HOME=home, MEMCHAT_PROVIDER="echo", MEMCHAT_HISTORY_STRATEGY="tokens")

    from memchat import sessions, tokens
    from memchat.app import Memchat
    from memchat.app.turn import compile_call
    from memchat.config import load_settings
    from memchat.db import open_db

    db = open_db(Path(home) / "bench.db")
    app = Memchat(load_settings(), db=db)

    def compile_once(session: sessions.Session, current: sessions.Message) -> None:
        history = sessions.messages(db, session.id)
        compile_call(app, session, history, current, tokens.load_factor(db, app.settings.model))

    session = sessions.create_session(db)
    text = "A message of ordinary length about the work at hand, with a number 42 and a name. " * 4
    for i in range(args.messages):
        sessions.add_message(
            db, session.id, "user" if i % 2 == 0 else "assistant", f"{i}: {text}", tokens=tokens.count(f"{i}: {text}")
        )
    current = sessions.add_message(db, session.id, "user", "and now?", tokens=3)
    compile_once(session, current)  # warm: tiktoken loaded
    times = []
    for _ in range(50):
        t = time.perf_counter()
        compile_once(session, current)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    rows = [
        (f"compile, {args.messages}-message session: median", f"{statistics.median(times):.1f} ms"),
        ("compile: p95", f"{times[int(len(times) * 0.95) - 1]:.1f} ms"),
    ]

    for window in (200_000, args.window):
        os.environ["MEMCHAT_CONTEXT_WINDOW"] = str(window)
        os.environ["MEMCHAT_MAX_TOKENS"] = "1000"
        chat = Memchat(load_settings(), db=db).chat
        s = sessions.create_session(db)
        sent, everything, running = 0, 0, 0
        for i in range(args.turns):
            body = f"turn {i}: " + ("some realistic content about the project " * 12)
            result = chat.send(s, body)
            sent += result.compiled.estimate
            running += tokens.count(body) + tokens.count(result.reply.text) + 8
            everything += running + tokens.count(result.compiled.system)
        rows.append(
            (
                f"tokens sent per turn, {args.turns} turns, window {window:,}",
                f"{sent / args.turns:,.0f} vs {everything / args.turns:,.0f} sending everything "
                f"({100 * sent / everything:.0f}%)",
            )
        )
    print(f"| measure ({os.cpu_count()}-core machine) | result |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
