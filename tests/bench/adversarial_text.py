#!/usr/bin/env python3
"""Pasted text of unusual shapes must cost time in proportion to its size, never its square.

    python tests/bench/adversarial_text.py [--sizes 32,128] [--only SHAPE]

A user pastes a bibliography, a log, a table, a minified blob. Every rule that reads text (the
sentence splitter, the gate, the routes of need-to-know, capture's checks, the snippet clipper)
runs over it, and one loop that rescans what it has read turns a 300 kB paste into minutes. For
each shape below, at two sizes, this times a full turn through memchat's own Python API (echo
provider, capture off, memory on, 200 ordinary memories): the paste sent as the message, then a
short question whose words match it sent in a new session (the paste is now history a search
finds and clips), then the paste kept as a memory. It prints each time and the ratio between the
sizes: about the ratio of the sizes is linear; its square is a rescanning loop (flagged).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

NAMES = ["Smith", "Jones", "Okafor", "Nguyen", "Brown", "Garcia", "Kowalski", "Dubois"]
INITIALS = "ABCDEFGHJKLMNPRSTW"


def _words(rnd: random.Random, pool: list[str], size: int, sep: str = " ") -> str:
    out: list[str] = []
    length = 0
    while length < size:
        w = rnd.choice(pool)
        out.append(w)
        length += len(w) + len(sep)
    return sep.join(out)[:size]


def shapes(size: int) -> dict[str, tuple[str, str]]:
    """Each shape: (the paste, a short question that finds it again)."""
    rnd = random.Random(size)
    bib = ", ".join(f"{rnd.choice(NAMES)}, {rnd.choice(INITIALS)}. {rnd.choice(INITIALS)}." for _ in range(size // 14))
    return {
        "bibliography": (bib[:size], "which papers did Okafor and Garcia write?"),
        "initials": ("J. R. R. " * (size // 9), "what did J. R. R. write?"),
        "abbreviations": ("e.g. etc. approx. No. 4 vs. Mr. Dr. St. " * (size // 40), "what did Dr. St. say, approx.?"),
        "whitespace": ("my mum " + " " * size + "lift!", "what about my mum and the lift?"),
        "hyphens": ("wheelchair" + " -" * (size // 2) + " ramp", "is there a wheelchair ramp?"),
        "one long word": ("a" * size + "!", "what was the long word?"),
        "dots": ("a." * (size // 2) + "!", "what were the dots about?"),
        "first person": (
            _words(rnd, ["my", "mum", "can", "I", "have", "I'm", "we", "our", "wife's", "a", "drink", "with"], size),
            "can I have a drink with my mum?",
        ),
        "places and aids": (
            _words(rnd, ["wheelchair", "lift", "ramp", "hotel", "flight", "access", "step-free", "to", "Paris"], size),
            "is the hotel in Paris step-free?",
        ),
        "log": (
            "".join(
                f"2026-05-{rnd.randint(1, 28):02d} 12:{rnd.randint(0, 59):02d}:01 ERROR db timeout after "
                f"{rnd.randint(1, 900)} ms at conn.py:{rnd.randint(1, 400)}\n"
                for _ in range(size // 64)
            ),
            "why did the db time out?",
        ),
        "table": (
            "| name | dose | when |\n|---|---|---|\n" + "| sertraline | 50 mg | morning |\n" * (size // 33),
            "what dose of sertraline was in the table?",
        ),
        "punctuation": ("".join(rnd.choice(" ,.-'’!?();:") for _ in range(size)), "what was that punctuation?"),
    }


def _app(home: Path):
    from memchat.app import Memchat

    os.environ.update(MEMCHAT_HOME=str(home), MEMCHAT_MEMORY_CAPTURE="false")
    app = Memchat.load(provider="echo")
    rnd = random.Random(7)
    topics = ["garden", "deploy", "dentist", "holiday", "recipe", "budget", "bike", "piano"]
    for i in range(200):
        app.memories.remember(f"Note {i}: the {rnd.choice(topics)} plan is on {rnd.choice(NAMES)}'s list")
    return app


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="32,128", help="two sizes in kB (default 32,128)")
    ap.add_argument("--only", help="one shape")
    args = ap.parse_args()
    small, large = (int(s) * 1000 for s in args.sizes.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(Path(tmp) / "home")
        app.embedder().encode(["warm"])  # the encoder's load is not the paste's cost
        try:
            for name in shapes(small):
                if args.only and name != args.only:
                    continue
                times = []
                for size in (small, large):
                    paste, question = shapes(size)[name]
                    sent = timed(lambda paste=paste: app.chat.send(app.chat.start_session(), paste))
                    found = timed(lambda question=question: app.chat.send(app.chat.start_session(), question))
                    kept = timed(lambda paste=paste: app.memories.remember(paste[:100_000]))
                    times.append((sent, found, kept))
                    print(f"{name} {size // 1000} kB: {sent:.2f} {found:.2f} {kept:.2f}", file=sys.stderr)
                rows.append((name, times))
        finally:
            app.close()
    growth = large / small
    print(f"\nseconds at {small // 1000} kB -> {large // 1000} kB (linear: ×{growth:.0f}; square: ×{growth**2:.0f})")
    print("| shape | the paste sent | a question that finds it | kept as a memory (first 100 kB) |")
    print("|---|---|---|---|")
    for name, ((s1, f1, k1), (s2, f2, k2)) in rows:

        def cell(a: float, b: float) -> str:
            flag = " **square**" if b > 0.2 and b / max(a, 1e-3) > growth * 2.5 else ""
            return f"{a:.2f} → {b:.2f}{flag}"

        print(f"| {name} | {cell(s1, s2)} | {cell(f1, f2)} | {cell(k1, k2)} |")


if __name__ == "__main__":
    main()
