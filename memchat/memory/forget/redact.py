"""Take a forgotten memory out of the summaries that may have quoted it.

Summaries paraphrase, so an exact-text match is not enough. A sentence of a summary is
taken to mention a forgotten memory when it contains
- the memory's value (its `value` field, e.g. "Lisbon"), or
- a distinctive word of the memory: a name (capitalised, not first in the text) or a token
  with a digit, the parts a person most likely wanted gone, or
- at least 60 % of the memory's content words (all of them if it has one or two), compared by
  their stems (memchat.memory.text) so that "lives" meets "live" and "painting" meets "painted".

Such a sentence becomes "[forgotten]". This errs on the side of removing too much: a user
who forgets their sister's name would rather lose a neighbouring detail than keep the name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from memchat.memory.text import STOPWORDS, sentence_parts, stem, tokens, words

REDACTED = "[forgotten]"

# Digits split by separators are one number: "4-4-1-1" is 4411, "+351 912 345 678" one phone number.
_DIGIT_GROUPS = re.compile(r"(?<=\d)[\s\-./()]+(?=\d)")


def _join_digits(text: str) -> str:
    return _DIGIT_GROUPS.sub("", text)


# Words that start a sentence without naming anything.
_STARTERS = frozenset(
    "please remember always never today yesterday tomorrow yes no maybe also still just actually "
    "there here what when where who why how which whose user users assistant".split()
)


def _content_words(text: str) -> set[str]:
    return {stem(w) for w in words(text) if len(w) > 2 and w not in STOPWORDS}


def distinctive(text: str) -> set[str]:
    """Names and numbers: a capitalised word, or any token with a digit. The first word counts too
    ("Biscuit is my dog's name") unless it is a usual way to start a sentence: forgetting errs
    towards withholding a message that shares the word."""
    found = set()
    for i, bare in enumerate(tokens(_join_digits(text))):
        if len(bare) < 3 or bare.lower() in STOPWORDS or (i == 0 and bare.lower() in _STARTERS):
            continue
        if any(c.isdigit() for c in bare) or bare[0].isupper():
            found.add(bare.lower())
    return found


def _tokens(text: str) -> set[str]:
    return set(words(_join_digits(text)))


class Forgotten:
    """What to look for in a summary: one forgotten memory's text and value."""

    def __init__(self, text: str, value: str | None = None) -> None:
        self.text = _join_digits(text.strip().lower())
        self.value = _join_digits((value or "").strip().lower())
        self.words = _content_words(text)
        self.names = distinctive(text)

    def triggers(self) -> tuple[set[str], set[str]]:
        """(tokens, stems) of which a sentence must share one to possibly mention this memory."""
        tokens = self.names | (_tokens(self.value) if len(self.value) >= 3 else set())
        if not tokens and not self.words:  # a text of short or common words only: any of them
            tokens = _tokens(self.text)
        return tokens, self.words

    def in_sentence(self, lower: str, tokens: set[str], stems: set[str]) -> bool:
        """Whether a sentence (lower-cased, with its _tokens and their stems) mentions this memory."""
        if self.text and self.text in lower:
            return True
        if len(self.value) >= 3 and (self.value in tokens or f" {self.value} " in f" {lower} "):
            return True
        if self.names & tokens:
            return True
        shared = self.words & stems
        return bool(self.words) and len(shared) >= math.ceil(0.6 * len(self.words))


class Redactor:
    """Redacts summaries against many forgotten memories at once (`forget --all`).

    Only memories that share a word with a sentence are checked against it: comparing every
    sentence with every memory took 0.9 s per summary at 10,000 memories.
    """

    def __init__(self, forgotten: Iterable[Forgotten]) -> None:
        self.forgotten = list(forgotten)
        self._by_token: dict[str, list[Forgotten]] = {}
        self._by_stem: dict[str, list[Forgotten]] = {}
        for f in self.forgotten:
            tokens, stems = f.triggers()
            for t in tokens:
                self._by_token.setdefault(t, []).append(f)
            for t in stems:
                self._by_stem.setdefault(t, []).append(f)

    def mentions(self, sentence: str) -> bool:
        tokens = _tokens(sentence)
        stems = {stem(t) for t in tokens}
        candidates = {id(f): f for t in tokens for f in self._by_token.get(t, ())}
        candidates.update({id(f): f for t in stems for f in self._by_stem.get(t, ())})
        lower = _join_digits(sentence.lower())
        return any(f.in_sentence(lower, tokens, stems) for f in candidates.values())

    def redact(self, summary: str, label: str = REDACTED) -> tuple[str, int]:
        """The summary with every sentence that mentions a forgotten memory replaced (by `label`);
        and how many."""
        if not summary or not self.forgotten:
            return summary, 0
        out, count = [], 0
        for part, sep in sentence_parts(summary):
            body = part.lstrip(" -*•\t0123456789.)")
            lead = part[: len(part) - len(body)]
            if body and body not in (REDACTED, label) and self.mentions(body):
                out.append(lead + label + sep)
                count += 1
            else:
                out.append(part + sep)
        return ("".join(out), count) if count else (summary, 0)
