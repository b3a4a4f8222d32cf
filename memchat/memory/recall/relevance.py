"""How relevant a candidate is to the message at hand: a calibrated probability, from a few features.

The first stage (memchat.memory.recall.search) finds candidates by BM25 and cosine and fuses their
ranks; rank-based scores say which candidate is best, not whether any is good. The second
stage reads each candidate (and its neighbouring turns) against the query and combines:

    cosine        cosine similarity of the query and the candidate (speaker name included)
    coverage      IDF-weighted share of the query's content words found in the candidate's text,
                  not counting speaker names, so "Caroline" alone does not make a hit
    name          the query names the candidate's speaker
    prev_coverage the same coverage for the turn just before (a reply makes sense with its question)
    length        log(1 + words); short       fewer than six words ("same here!")
    bm25          1 / (1 + BM25 rank)
    session_best  best fused score among the first candidates of the same session (a topic is
    session_hits  a stretch of conversation, not one line), and how many of them it has
    neighbour     best fused score of the turns just before and after
    in_period     the candidate falls in the date or period the query names

into a logistic model. Its weights were fitted on the LoCoMo development set only
(`python tests/bench/fit_relevance.py`, which refits and prints them, with the figures of a
leave-one-conversation-out check); LEXICAL are the weights for a search without vectors.
The result is P(this candidate holds what the query asks for); the relevance gate
(`memory.relevance`) compares that probability with one bar.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memchat.db import db_file
from memchat.memory.text import STOPWORDS, content_stems, stem, words
from memchat.patterns import pattern

if TYPE_CHECKING:
    from memchat.db import Database

__all__ = ["FEATURES", "BIAS", "LEXICAL", "WEIGHTS", "QueryTerms", "content_stems", "probability", "query_terms"]

FEATURES = (
    "cosine",
    "coverage",
    "name",
    "prev_coverage",
    "length",
    "short",
    "bm25",
    "session_best",
    "session_hits",
    "neighbour",
    "in_period",
)
# Fitted by tests/bench/fit_relevance.py on the LoCoMo development set (see there).
WEIGHTS = {
    "cosine": 1.376,
    "coverage": 1.438,
    "name": 1.254,
    "prev_coverage": 0.861,
    "length": 1.482,
    "short": 0.278,
    "bm25": 4.686,
    "session_best": 2.742,
    "session_hits": 0.216,
    "neighbour": 1.520,
    "in_period": 1.5,
}
BIAS = -13.412
LEXICAL = {
    "cosine": 0.0,
    "coverage": 1.660,
    "name": 1.137,
    "prev_coverage": 0.934,
    "length": 1.268,
    "short": 0.256,
    "bm25": 4.711,
    "session_best": 2.935,
    "session_hits": 0.818,
    "neighbour": 1.059,
    "in_period": 1.5,
}
LEXICAL_BIAS = -12.660
SESSION_WINDOW = 30  # candidates that vote for their session (and whose neighbours join the pool)
DF_CAP = 5000  # document frequencies are counted up to this: past it a word is common anyway


@dataclass
class QueryTerms:
    """The query's content words, each with its weight (IDF over the transcript)."""

    stems: dict[str, float] = field(default_factory=dict)  # stem -> idf
    names: frozenset[str] = frozenset()  # the stems of the query's capitalised words: people, places

    def coverage(self, text_stems: set[str], ignore: set[str] | frozenset[str] = frozenset()) -> float:
        total = sum(w for s, w in self.stems.items() if s not in ignore)
        if total <= 0:
            return 0.0
        return sum(w for s, w in self.stems.items() if s not in ignore and self._said(s, text_stems)) / total

    def _said(self, stem: str, text_stems: set[str]) -> bool:
        """The word is in the text; a name also when the text has a short form of it, as people
        type a name in chat ("Kate" and "kat", "Duncan" and "dunc", "Samantha" and "sam")."""
        if stem in text_stems:
            return True
        return stem in self.names and any(len(t) >= SHORT_NAME and stem.startswith(t) for t in text_stems)


SHORT_NAME = 3  # letters a short form of a name keeps at least
_CAPITALISED = pattern(r"(?<![\w'’])\p{Lu}\p{Ll}+")


_DF: dict[tuple[str, str], tuple[int, int]] = {}  # (database, word) -> (document frequency, corpus size then)
_DF_LOCK = threading.Lock()


def query_terms(db: Database, text: str) -> QueryTerms:
    """The query's content words weighted by IDF over the transcript (counts cached per process)."""
    found: dict[str, str] = {}
    for w in words(text):
        if w not in STOPWORDS and stem(w) not in found:
            found[stem(w)] = w
    if not found:
        return QueryTerms()
    names = frozenset(stem(w) for w in _CAPITALISED.findall(text) if w.lower() not in STOPWORDS) & found.keys()
    key = str(db_file(db))
    size = int(db.conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0])
    weights = {}
    for s, w in list(found.items())[:32]:
        with _DF_LOCK:
            cached = _DF.get((key, w))
        if cached is None or abs(cached[1] - size) > 0.05 * max(size, 20):
            row = db.conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)",
                (f'"{w}"', DF_CAP),
            ).fetchone()
            cached = (int(row[0]), size)
            with _DF_LOCK:
                _DF[(key, w)] = cached
        df = cached[0]
        weights[s] = math.log((max(size, df) - df + 0.5) / (df + 0.5) + 1)
    return QueryTerms(weights, names)


def probability(values: dict[str, float], *, lexical: bool = False) -> float:
    weights, bias = (LEXICAL, LEXICAL_BIAS) if lexical else (WEIGHTS, BIAS)
    z = bias + sum(weights[f] * values.get(f, 0.0) for f in FEATURES)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


# A memory whose meaning is this close to the message is relevant whatever its words ("which foods
# make me ill?" and "I am allergic to peanuts"): the transcript model, learnt where questions share
# words with their answers, underrates paraphrase. 0.45 is the 99th percentile of the closest cosine
# any off-topic prompt reached on the development set; there a memory scores 0.05 (the default bar),
# at 0.7 it scores 0.5.
SEMANTIC = 0.45
_SEMANTIC_SLOPE = 12.0


def semantic(cosine: float) -> float:
    """A memory's relevance from its cosine alone (see SEMANTIC)."""
    z = _SEMANTIC_SLOPE * (cosine - SEMANTIC) - math.log(19.0)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def length_features(text: str) -> dict[str, float]:
    n = len(words(text))
    return {"length": math.log1p(n), "short": 1.0 if n < 6 else 0.0}


def speaker_stems(names: Iterable[str | None]) -> set[str]:
    return {stem(w) for name in names if name for w in words(name)}


# An item needs this share of the bar, and of the best candidate's relevance (a strong match crowds
# out weak ones). Chosen with the bar on the LoCoMo development set (tests/bench/inject_eval.py).
FLOOR = 0.25
RELATIVE = 0.05


def floor(scores: list[float], bar: float) -> float | None:
    """The lowest relevance that clears the bar for this query, or None when nothing does
    (the best candidate is under the bar: nothing here is relevant)."""
    if not scores or max(scores) < bar:
        return None
    return max(bar * FLOOR, max(scores) * RELATIVE)
