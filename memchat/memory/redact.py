"""Take a forgotten memory out of the summaries that may have quoted it.

Summaries paraphrase, so an exact-text match is not enough. A sentence of a summary is
taken to mention a forgotten memory when it contains
- the memory's value (its `value` field, e.g. "Lisbon"), or
- a distinctive word of the memory: a name (capitalised, not first in the text) or a token
  with a digit, the parts a person most likely wanted gone, or
- at least 60 % of the memory's content words (all of them if it has one or two), compared by their first five letters so that
  "lives" meets "live" and "painting" meets "painted".

Such a sentence becomes "[forgotten]". This errs on the side of removing too much: a user
who forgets their sister's name would rather lose a neighbouring detail than keep the name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

REDACTED = "[forgotten]"

_STOP = frozenset("""
a an the and or but if of to in on at by for with from as is are was were be been being am
i me my mine you your yours he him his she her hers it its we us our they them their this that
these those there here what which who whom whose when where why how not no yes do does did done
has have had having will would can could should shall may might must so than then too very just
also about into over under again only own same some any each few more most other such both all
user users assistant session said says told asked wants likes like said mentioned talked
""".split())
_WORD = re.compile(r"[\w'’-]+", re.UNICODE)
# Sentence ends, line breaks and list bullets split a summary into the parts that are redacted.
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n")


def _stem(word: str) -> str:
    return word.lower().strip("'’-")[:5]


def _content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if len(w) > 2 and w.lower().strip("'’-") not in _STOP}


def _distinctive(text: str) -> set[str]:
    """Names and numbers: a capitalised word that does not start the text, or any token with a digit."""
    words = _WORD.findall(text)
    found = set()
    for i, w in enumerate(words):
        bare = w.strip("'’-").removesuffix("'s").removesuffix("’s")
        if len(bare) < 3 or bare.lower() in _STOP:
            continue
        if any(c.isdigit() for c in bare) or (i > 0 and bare[0].isupper()):
            found.add(bare.lower())
    return found


class Forgotten:
    """What to look for in a summary: one forgotten memory's text and value."""

    def __init__(self, text: str, value: str | None = None) -> None:
        self.text = text.strip().lower()
        self.value = (value or "").strip().lower()
        self.words = _content_words(text)
        self.names = _distinctive(text)

    def in_sentence(self, sentence: str) -> bool:
        lower = sentence.lower()
        if self.text and self.text in lower:
            return True
        tokens = {w.lower().strip("'’-").removesuffix("'s").removesuffix("’s") for w in _WORD.findall(sentence)}
        if len(self.value) >= 3 and (self.value in tokens or f" {self.value} " in f" {lower} "):
            return True
        if self.names & tokens:
            return True
        shared = self.words & {_stem(t) for t in tokens}
        return bool(self.words) and len(shared) >= math.ceil(0.6 * len(self.words))


def redact(summary: str, forgotten: Iterable[Forgotten]) -> tuple[str, int]:
    """The summary with every sentence that mentions a forgotten memory replaced; and how many."""
    forgotten = list(forgotten)
    if not summary or not forgotten:
        return summary, 0
    out, count, last = [], 0, 0
    for match in _SENTENCE.finditer(summary + "\n"):
        part = summary[last:match.start()]
        sep = summary[match.start():match.end()]
        last = match.end()
        body = part.lstrip(" -*•\t0123456789.)")
        lead = part[: len(part) - len(body)]
        if body and body != REDACTED and any(f.in_sentence(body) for f in forgotten):
            out.append(lead + REDACTED + sep)
            count += 1
        else:
            out.append(part + sep)
    # The "\n" added above always ends the last match, so the parts rebuild the whole summary.
    return ("".join(out), count) if count else (summary, 0)
