"""Sensitive categories: which private subjects a text touches, so they travel only when needed.

The categories are the review queue's (memchat.memory.capture.extract.SENSITIVE): health, religion,
politics, sexual orientation and gender identity, finances, legal status, workplace
conflicts, precise location, identity documents, children. A memory or past message that
touches one goes into a call only when the message at hand is about the same category, and
clears a stricter relevance bar (memchat.memory.judge.inject). Detection is by words and by the
shapes of numbers (card, IBAN, social security, passport); it errs towards "sensitive".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# The word lists are data (sensitive_words.json, with what an entry means); their precision is
# measured on labelled examples by tests/test_word_lists.py.
WORD_LISTS = Path(__file__).with_name("sensitive_words.json")
_LISTS = json.loads(WORD_LISTS.read_text(encoding="utf-8"))
_WORDS: dict[str, list[str]] = _LISTS["memory_words"]
_ABOUT: dict[str, list[str]] = _LISTS["message_cues"]
_PATTERNS: dict[str, re.Pattern[str]] = {
    "health": re.compile(r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml)\b", re.IGNORECASE),  # a dose
    "finances": re.compile(r"\b(?:\d[ -]?){13,19}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b"),  # card, IBAN
    "identity_document": re.compile(r"\b\d{3}-\d{2}-\d{4}\b|\b[A-Z]{1,2}\d{6,8}\b"),  # US SSN, passport-like
}
_COMPILED = {
    category: re.compile(
        r"(?<![a-z])(?:" + "|".join(re.escape(w.strip()) + (r"\b" if w.endswith(" ") else "") for w in words) + ")",
        re.IGNORECASE,
    )
    for category, words in _WORDS.items()
}
_ABOUT_COMPILED = {
    category: re.compile(
        r"(?<![a-z])(?:" + "|".join(re.escape(w.strip()) + (r"\b" if w.endswith(" ") else "") for w in words) + ")",
        re.IGNORECASE,
    )
    for category, words in _ABOUT.items()
}
CATEGORIES = tuple(_WORDS)


def categories(text: str) -> frozenset[str]:
    """The sensitive categories a text touches (empty: none)."""
    found = {c for c, pattern in _COMPILED.items() if pattern.search(text)}
    found |= {c for c, pattern in _PATTERNS.items() if pattern.search(text)}
    return frozenset(found)


def topics(message: str) -> frozenset[str]:
    """The categories a message is about: the words above, and broader cues ("family", "my trip")."""
    return categories(message) | {c for c, pattern in _ABOUT_COMPILED.items() if pattern.search(message)}


def describe() -> str:
    """The categories in words, for the README and `memchat config`."""
    return ", ".join(c.replace("_", " ") for c in CATEGORIES)
