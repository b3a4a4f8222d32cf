"""Words of a text as search sees them: tokens, stopwords, the Snowball stemmer, and the FTS5 query.

Shared by the first stage (BM25 through FTS5), the relevance re-score and forgetting's
search for messages that mention what was forgotten.
"""

from __future__ import annotations

import re

import Stemmer  # type: ignore[import-not-found]  # PyStemmer: the Snowball project's stemmers, in C

MAX_TERMS = 32
# What a turn reads of one stored text (ranking, the gate, snippets, what a message's state is):
# a window, so a turn's cost does not grow with the largest message in the profile (a pasted
# 100 MB log). The encoder reads 256 tokens of it anyway; full text search still indexes it all.
TEXT_WINDOW = 8_000


def window(text: str) -> str:
    """The first TEXT_WINDOW characters of a stored text, marked when cut."""
    return text if len(text) <= TEXT_WINDOW else text[:TEXT_WINDOW] + " …"


_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(
    """
a an and are as at be been but by can could did do does doing for from had has have having he her hers him his
how i if in into is it its itself me my myself of on or our ours she so than that the their theirs them then there
these they this those to too up us was we were what when where which while who whom why will with would you your
yours yourself yourselves am any been both each few more most other some such no nor not only own same just don
should now ever also about after again against all before being below between during further here once over
through under until off out very s t
""".split()
)
_ENGLISH = Stemmer.Stemmer("english")


def stem(word: str) -> str:
    """The Snowball English (Porter2) stem of a word: "painted", "painting" and "paints" meet,
    "numbers" meets "number", "parties" meets "party"."""
    return str(_ENGLISH.stemWord(word.lower()))


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS}


def fts_query(text: str, *, stopwords: bool = True) -> str | None:
    """An FTS5 MATCH expression for any text: its words, each quoted, OR-ed; None if it has none."""
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w not in words:
            words.append(w)
    if stopwords:
        words = [w for w in words if w not in STOPWORDS] or words
    words = words[:MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in words) if words else None
