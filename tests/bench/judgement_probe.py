#!/usr/bin/env python3
"""Why a prompt of the judgement sets got what it got: one profile, case by case.

    python tests/bench/judgement_probe.py [--set own-large] [--no-history] [--misses] [--match WORDS]

For each prompt it prints the memory section it was sent (each item with its section, score and
reason, marked NEED when a case needs it), the needed memories it was not sent, and where each
needed memory ranked before the gate: in retrieval (the hybrid search's 40 candidates) and in topic
need (memchat.memory.judge.need, read far past its cut). The profile is built as
tests/bench/judgement_eval.py builds it, and the section through the same builder as `ask`'s.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from judgement_eval import ROOT, _open, build, clock, load_sets


def _rank_in(ids: list[int], wanted: int) -> str:
    return str(ids.index(wanted) + 1) if wanted in ids else "-"


def probe(app, profile, ids: dict[int, int], case: dict) -> tuple[str, bool]:
    from memchat import tokens
    from memchat.memory.judge import inject, need
    from memchat.memory.judge.personal import without_request
    from memchat.memory.recall.search import recall

    embedder = app.embedder()
    from memchat.db import utcnow
    from memchat.memory.recall.dates import message_date

    section = inject.build(
        app.db,
        case["prompt"],
        embedder=embedder,
        budget=app.settings.get("memory.budget"),
        count=tokens.count,
        today=message_date(utcnow()),  # the set's own clock (judgement_eval.clock), as a message's date is
    )
    back = {v: k for k, v in ids.items()}
    need_set = set(case.get("need", []))
    query = without_request(case["prompt"])
    hits = recall(
        app.db, query, embedder, kinds=("fact", "event", "message"), limit=inject.CANDIDATES, exclude_private=True
    )
    memory_hits = [h.id for h in hits if h.type == "memory"]
    scores = {h.id: h.score for h in hits if h.type == "memory"}  # how far under the bar a missed one was
    best = max((h.score for h in hits), default=0.0)
    request = need.read(query, embedder)
    saved = need.TOPIC_ITEMS
    need.TOPIC_ITEMS = 50
    try:
        topical = [n.memory.id for n in need.by_topic(app.db, request, embedder, exclude=set(), personal=True)]
    finally:
        need.TOPIC_ITEMS = saved
    lines = [f"## {case['prompt']!r}  topic={request.topic} general={request.general:+.2f}"]
    lines.append(f"   forbid={case.get('forbid')}  tokens={section.tokens} profile={section.profile_tokens}")
    sent = set()
    for item in section.items:
        if item.section == "rules":
            continue
        index = ids.get(item.memory_id) if item.memory_id else None
        sent.add(index)
        mark = "NEED" if index in need_set else ("    " if item.section == "profile" else "junk")
        lines.append(f"   {mark} [{item.section}] {item.reason:<22} {item.text[:90]}")
    missed = need_set - sent
    for i in sorted(need_set):
        flag = "MISS" if i in missed else "ok  "
        mid = back[i]
        lines.append(
            f"   {flag} need #{i} retrieval rank {_rank_in(memory_hits, mid)} topic rank {_rank_in(topical, mid)}:"
            f" relevance {scores.get(mid, 0.0):.2f} (best {best:.2f}): {profile.memories[i]['text'][:80]}"
        )
    return "\n".join(lines), bool(missed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=ROOT.parent / "shared" / "eval")
    parser.add_argument("--set", default="own-large")
    parser.add_argument("--no-history", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print only the cases that missed a memory")
    parser.add_argument("--match", help="only prompts containing these words")
    args = parser.parse_args()
    profile = next(p for p in load_sets(args.eval_dir) if p.name == args.set)
    with tempfile.TemporaryDirectory() as tmp, clock(profile.now):
        base = Path(tmp) / "base.db"
        ids = build(profile, base, not args.no_history)
        app = _open(base)
        try:
            for case in profile.cases:
                if args.match and args.match.lower() not in case["prompt"].lower():
                    continue
                text, missed = probe(app, profile, ids, case)
                if missed or not args.misses:
                    print(text)
        finally:
            app.close()


if __name__ == "__main__":
    main()
