#!/usr/bin/env python3
"""What the memory section brings back, on the LoCoMo development set and on off-topic prompts.

    python tests/bench/inject_eval.py [--eval-dir ../shared/eval] [--relevance BAR] [--sweep]

Each development conversation is imported into its own profile, as `memchat import` does
(speaker names kept, messages embedded). Every question is then sent as the first message
of a new session, and the memory section the engine would put in that call's system prompt
is inspected (memchat.app.turn.memory_section, the code a chat turn runs):

- evidence in section: the share of questions (categories 1-4) whose section holds at least
  one of the question's evidence messages (as a snippet, or as the turn attached to one);
- section size: mean and median tokens of the section, for those questions;
- off-topic prompts (OFF_TOPIC below, written for this check and used for nothing else):
  how many receive any transcript snippet or unpinned fact at all.

--sweep prints the three figures for a range of bars (memory.relevance), which is how the
default was chosen. Development data only; the team measures on conversations never seen.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import md_tables  # tests/bench/md_tables.py, beside this script
from eval_locomo import build, load  # the dev set read and imported as the recall bench does it

OFF_TOPIC = [
    "Why is the sky blue?",
    "How do I reverse a list in Python?",
    "What is the boiling point of water at high altitude?",
    "Explain recursion to a beginner.",
    "What's a good name for a pet goldfish?",
    "How does a bicycle stay upright?",
    "List three prime numbers larger than 100.",
    "What is the difference between weather and climate?",
    "How do I undo the last git commit?",
    "Write a limerick about a sleepy robot.",
    "What does HTTP 404 mean?",
    "How long should I boil an egg for a soft yolk?",
    "Why do onions make you cry?",
    "What is the Pythagorean theorem?",
    "Recommend a sorting algorithm for nearly sorted data.",
    "How do noise-cancelling headphones work?",
    "What is the tallest mountain in Africa?",
    "Explain what an API is in one paragraph.",
    "How many bytes are in a kilobyte?",
    "What's the origin of the word 'robot'?",
    "How do I format a date in JavaScript?",
    "Why does ice float on water?",
    "What is the plural of 'cactus'?",
    "Describe the water cycle briefly.",
]


def sections(db, settings, embedder, prompts: list[str]):
    """The memory section each prompt gets as the first message of a new session."""
    from memchat import sessions
    from memchat.app import Memchat
    from memchat.app.turn import memory_section

    app = Memchat(settings, db=db)  # its encoder: the configured one (the default model, as `embedder`)
    out = []
    for text in prompts:
        session = sessions.create_session(db)
        user = sessions.add_message(db, session.id, "user", text, status="ok")
        out.append(memory_section(app, session, user))
        # Gone before the next prompt, or later prompts would find this one as a past message.
        db.conn.execute("DELETE FROM messages WHERE session_id = ?", (session.id,))
        db.conn.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
        db.conn.commit()
    return out


def section_messages(section) -> set[int]:
    """Message ids a section holds: snippets, and turns attached to them (if this memchat attaches any)."""
    ids = set()
    for item in section.items:
        if item.message_id is not None:
            ids.add(item.message_id)
        ids.update(getattr(item, "context_ids", ()) or ())
    return ids


def measure(dbs, questions, settings, embedder):
    found, sizes, off = [], [], 0
    for conv, db in dbs.items():
        external = dict(db.conn.execute("SELECT id, external_id FROM messages"))
        qs = [q for q in questions[conv] if q["category"] != "adversarial"]
        for q, section in zip(qs, sections(db, settings, embedder, [q["question"] for q in qs]), strict=True):
            held = {external.get(i) for i in section_messages(section)}
            found.append(bool(held & set(q["evidence"])))
            sizes.append(section.tokens)
    for db in dbs.values():
        for section in sections(db, settings, embedder, OFF_TOPIC):
            off += any(i.section in ("facts", "history") for i in section.items)
    return statistics.mean(found), statistics.mean(sizes), statistics.median(sizes), off / (len(OFF_TOPIC) * len(dbs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument("--relevance", type=float, default=None, help="The bar (default: memory.relevance's default).")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    args = ap.parse_args()
    md_tables.tables_only(args.markdown)
    os.environ["MEMCHAT_HOME"] = tempfile.mkdtemp(prefix="memchat-inject-eval-")
    os.environ["MEMCHAT_PROVIDER"] = "echo"
    from memchat.config import load_settings
    from memchat.memory.recall.embed import get_embedder

    embedder = get_embedder()
    convs, questions = load(Path(args.eval_dir))
    tmp = Path(tempfile.mkdtemp(prefix="memchat-inject-eval-"))
    dbs = {conv: build(conv, rows, tmp, embedder)[0] for conv, rows in convs.items()}
    settings = load_settings()
    bars = [args.relevance] if args.relevance is not None else [None]
    if args.sweep:
        bars = [0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4]
    print(
        f"| memory.relevance | evidence in section | section tokens: mean | median | off-topic prompts with a "
        f"snippet or fact ({len(OFF_TOPIC)} x {len(dbs)}) |\n|---|---|---|---|---|"
    )
    for bar in bars:
        run = settings if bar is None else _with_bar(settings, bar)
        shown = "default" if bar is None else f"{bar:g}"
        if bar is None and "memory.relevance" in getattr(settings, "values", {}):
            shown = f"{settings.get('memory.relevance'):g} (default)"
        rate, mean, median, off = measure(dbs, questions, run, embedder)
        print(f"| {shown} | {rate:.3f} | {mean:.0f} | {median:.0f} | {off:.1%} |")


def _with_bar(settings, bar: float):
    try:
        return settings.with_overrides(**{"memory.relevance": bar})
    except KeyError:  # a memchat without the setting (before the relevance gate): the bar does nothing
        return settings


if __name__ == "__main__":
    main()
