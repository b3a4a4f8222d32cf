"""Questions that ask for a set ("what are Kate's hobbies?", "which cities has Sam lived in?"):
retrieval for coverage, so every piece of the answer reaches the top, not only the best one.

A set's pieces were said on different days: the best-scored hits of such a question tend to be
one stretch of conversation retelling one piece. So the ranking of a set question is re-read
greedily: the first hits stay, and each next one is the best after a discount for every hit
its session already has in the list. A hit from a session not yet in the list is admitted
over a slightly better one from a session already there; a much weaker one is not. Hits just
below the places re-filled may join, but only for a session the list does not have yet.
"""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

from memchat.patterns import pattern


class _Ranked(Protocol):
    """What diversify reads of a hit (rank.Hit; not imported: rank imports this module)."""

    type: str
    session_id: int | None
    score: float


Hit = TypeVar("Hit", bound=_Ranked)

# "what/which ... <plural>": the answer is a list. Words ending in s that are not plurals, and
# plurals of time that ask for a date or a span rather than a set, do not count.
_NOT_PLURAL = frozenset(
    """is was has does this his hers its yes us as always perhaps sometimes whereas unless
    thus plus across series news lots years days weeks months hours minutes times""".split()
)
_WORD = pattern(r"[A-Za-z][A-Za-z'’]*")
_QUESTION_WORD = pattern(r"\b(what|which|where|who|how)\b", re.I)
# "what has Sam tried", "where has Melanie camped": the present perfect asks for everything so far.
_PERFECT = pattern(r"\b(?:has|have)\s+(?:\p{Lu}\w*\s+)+(?:\w+\s+)?\w+ed\b")
# A count is a set, counted ("how many times has she..."); a span of time is not.
_HOW_MANY = pattern(r"\bhow many\b(?!\s+(?:years|months|weeks|days|hours|minutes)\b)", re.I)
_BOTH = pattern(r"\b(both|each|all)\b", re.I)
# Two people joined ("Jon and Gina"): the answer has a piece from each.
_NAMES_JOINED = pattern(r"\b(\p{Lu}\p{Ll}+)\s+and\s+(\p{Lu}\p{Ll}+)\b")


def is_set_question(text: str) -> bool:
    """Whether the question asks for a set of things rather than one."""
    if _BOTH.search(text) or _NAMES_JOINED.search(text) or _HOW_MANY.search(text):
        return True
    if not _QUESTION_WORD.search(text):
        return False
    return bool(_PERFECT.search(text)) or any(_plural(w) for w in _WORD.findall(text) if not w[0].isupper())


def _plural(word: str) -> bool:
    w = word.lower().rstrip("'’")
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "'s", "’s")) and w not in _NOT_PLURAL


# Chosen on both development sets (LoCoMo pair and tests/bench/data/realchat_dev.json) as the
# setting that raised all-evidence@10 without lowering recall@10, MRR or recall@20 on either:
KEEP = 5  # the first hits stay where relevance put them (the best answer is usually among them)
WINDOW = 20  # places re-filled; below them the order stands
DEEP = 30  # hits ranked WINDOW..DEEP may join, only from a session not among those taken yet
DISCOUNT = 0.5  # a hit's score is halved for each hit its session already has above it


def diversify(hits: list[Hit], discount: float = DISCOUNT) -> list[Hit]:
    """Hits (best first) re-ordered for coverage: the first KEEP stay; the next places up to WINDOW
    are taken greedily by score after a `discount` (0..1) per hit of the same session already
    taken, from the hits up to WINDOW and, only when their session is not in yet, from those up
    to DEEP. Memories (no session) are never discounted; what is not taken keeps its order."""
    out, pool = hits[:KEEP], list(range(KEEP, min(DEEP, len(hits))))  # positions in hits
    taken: dict[int, int] = {}
    for h in out:
        _count(h, taken)
    while len(out) < WINDOW and pool:
        admitted = [i for i in pool if i < WINDOW or _adds_a_session(hits[i], taken)] or pool
        best = max(admitted, key=lambda i: (_discounted(hits[i], taken, discount), -i))
        pool.remove(best)
        out.append(hits[best])
        _count(hits[best], taken)
    return out + [hits[i] for i in pool] + hits[DEEP:]


def _adds_a_session(hit: _Ranked, taken: dict[int, int]) -> bool:
    return hit.type == "message" and hit.session_id is not None and hit.session_id not in taken


def _count(hit: _Ranked, taken: dict[int, int]) -> None:
    if hit.type == "message" and hit.session_id is not None:
        taken[hit.session_id] = taken.get(hit.session_id, 0) + 1


def _discounted(hit: _Ranked, taken: dict[int, int], discount: float) -> float:
    if hit.type != "message" or hit.session_id is None:
        return hit.score
    return hit.score * (1.0 - discount) ** taken.get(hit.session_id, 0)
