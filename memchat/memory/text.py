"""The text rules: how memchat reads words and sentences, in one place.

One tokenizer (`tokens`, `words`), one stop-word list (`STOPWORDS`), one stemmer (`stem`: the
Snowball English stemmer, through PyStemmer) and one sentence splitter (`sentence_parts`,
`sentences`), used by search (BM25 through FTS5, the relevance re-score), the gate and its
snippets (memchat.memory.judge), redaction (memchat.memory.forget.redact) and capture.
"""

from __future__ import annotations

import Stemmer  # type: ignore[import-not-found]  # PyStemmer: the Snowball project's stemmers, in C

from memchat.patterns import pattern

MAX_TERMS = 32
# What a turn reads of one stored text (ranking, the gate, snippets, what a message's state is):
# a window, so a turn's cost does not grow with the largest message in the profile (a pasted
# 100 MB log). The encoder reads 256 tokens of it anyway; full text search still indexes it all.
TEXT_WINDOW = 8_000
ASIDES = 2_000  # what judging a long request reads of its middle (ends)
_SAYS_I = pattern(r"\b(?:I|I'm|I've|I'd|my|me|we|we're|our)\b")  # the user speaking of themselves


def window(text: str) -> str:
    """The first TEXT_WINDOW characters of a stored text, marked when cut."""
    return text if len(text) <= TEXT_WINDOW else text[:TEXT_WINDOW] + " …"


def ends(text: str) -> str:
    """What judging a long request reads: its first and last TEXT_WINDOW characters, where its question
    usually is, and from the part between them the sentences that ask something or speak of the user
    (a question in the middle of pasted minutes), up to ASIDES characters. So a 1 MB paste costs a turn
    about what 18,000 characters do, not ~8 s of rules over all of it. Cuts fall between words."""
    if len(text) <= 2 * TEXT_WINDOW:
        return text
    head = (text[:TEXT_WINDOW].rsplit(None, 1) or [""])[0]
    tail = (text[-TEXT_WINDOW:].split(None, 1) or [""])[-1]
    said = sentences(text[len(head) : len(text) - len(tail)])
    asides: list[str] = []
    room = ASIDES
    for asking in (True, False):  # questions first, then what the user says of themselves
        for sentence in said:
            if room <= 0:
                break
            if len(sentence) <= room and sentence not in asides:
                if sentence.endswith("?") if asking else _SAYS_I.search(sentence) is not None:
                    asides.append(sentence)
                    room -= len(sentence)
    return "\n…\n".join([head, *asides, tail])


_WORD = pattern(r"[^\W_]+")  # letters and digits; an apostrophe or a hyphen splits ("Ana's", "co-op")
STOPWORDS = frozenset(
    """
a an and are as at be been but by can could did do does doing for from had has have having he her hers him his
how i if in into is it its itself me my myself of on or our ours she so than that the their theirs them then there
these they this those to too up us was we were what when where which while who whom why will with would you your
yours yourself yourselves am any been both each few more most other some such no nor not only own same just don
should now ever also about after again against all before being below between during further here once over
through under until off out very s t mine yes done shall may might must
user users assistant session said says told asked wants likes like mentioned talked
""".split()
)
_ENGLISH = Stemmer.Stemmer("english")


def stem(word: str) -> str:
    """The Snowball English (Porter2) stem of a word: "painted", "painting" and "paints" meet,
    "numbers" meets "number", "parties" meets "party"."""
    return str(_ENGLISH.stemWord(word.lower()))


def tokens(text: str) -> list[str]:
    """The words of a text as written (case kept: a capital marks a name)."""
    return _WORD.findall(text)


def words(text: str) -> list[str]:
    """The words of a text, lower-cased."""
    return _WORD.findall(text.lower())


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS}


def fts_words(text: str, *, stopwords: bool = True) -> list[str]:
    """The words of any text an FTS5 query searches for: without stop words, unless it has only those."""
    words = list(dict.fromkeys(_WORD.findall(text.lower())))  # in order, once each (a list's `in` was n²)
    if stopwords:
        words = [w for w in words if w not in STOPWORDS] or words
    return words[:MAX_TERMS]


def fts_match(words: list[str]) -> str | None:
    """An FTS5 MATCH expression for these words: each quoted (never parsed as syntax), OR-ed."""
    return " OR ".join(f'"{w}"' for w in words) if words else None


def fts_query(text: str, *, stopwords: bool = True) -> str | None:
    """An FTS5 MATCH expression for any text: its words, each quoted, OR-ed; None if it has none."""
    return fts_match(fts_words(text, stopwords=stopwords))


# Sentence ends (and a semicolon), line breaks: not the full stop of an abbreviation or an initial
# ("Mrs. Okafor", "J. R. Smith", "e.g. this").
_SENTENCE_END = pattern(r"(?<=[.!?;])\s+|\n")
_ABBREVIATIONS = frozenset(
    "mr mrs ms mx dr prof sr jr st mt no nr vs etc eg ie approx inc ltd co corp dept est fig gen gov lt col "
    "capt sgt rev hon ave blvd rd jan feb mar apr jun jul aug sep sept oct nov dec am pm".split()
)
_LAST_WORD = pattern(r"([A-Za-z][A-Za-z.]*)\.$")
# How far back from a full stop its word is read: longer than any abbreviation or initial. Reading
# the whole sentence so far instead made a paste that never ends one (a bibliography's "Okafor, J. A.,
# Smith, K. L., ...") cost its length squared: 60 kB took 2.2 s, 300 kB about a minute.
_WORD_BEFORE = 40


def _ends_sentence(before: str) -> bool:
    """Whether the text before a full stop and a space ends a sentence (not "Mrs." nor "J.")."""
    match = _LAST_WORD.search(before.rstrip())
    if match is None:
        return True
    word = match.group(1).lower().replace(".", "")
    return not (len(word) == 1 or word in _ABBREVIATIONS)


def sentence_parts(text: str) -> list[tuple[str, str]]:
    """The sentences of a text, each with the space or line break that follows it: joined back,
    the parts are the text itself."""
    parts, last = [], 0
    for match in _SENTENCE_END.finditer(text + "\n"):
        at_end = match.end() > len(text)
        before = text[max(last, match.start() - _WORD_BEFORE) : match.start()]
        if match.group(0) != "\n" and not at_end and not _ends_sentence(before):
            continue  # "Mrs. Okafor": the sentence goes on
        parts.append((text[last : match.start()], text[match.start() : min(match.end(), len(text))]))
        last = match.end()
    return parts


def sentences(text: str) -> list[str]:
    """The sentences of a text, without the spaces between them."""
    return [part for part, _ in sentence_parts(text) if part.strip()]


def clip_around(text: str, limit: int, focus: set[str] | None = None) -> str:
    """The text cut to `limit` characters around the sentence that best matches `focus` (content words,
    as content_stems gives them): a long text is shown as the part that answers, not its first lines."""
    if len(text) <= limit:
        return text
    said = sentences(text)
    if focus and len(said) > 1:
        best = max(range(len(said)), key=lambda i: (len(content_stems(said[i]) & focus), -i))
        start = best
        out = said[best]
        while start > 0 and len(said[start - 1]) + len(out) + 1 <= limit:  # widen backwards, then forwards
            start -= 1
            out = said[start] + " " + out
        end = best
        while end + 1 < len(said) and len(out) + len(said[end + 1]) + 1 <= limit:
            end += 1
            out += " " + said[end]
        clipped = ("… " if start > 0 else "") + out + (" …" if end + 1 < len(said) else "")
        if len(clipped) <= limit + 4:
            return clipped
    if focus:  # one long sentence (a list, a log line): a window around the first word it matches
        for match in _WORD.finditer(text):
            if stem(match.group(0).lower()) in focus:
                start = max(0, min(match.start() - limit // 3, len(text) - limit + 2))
                cut = text[start : start + limit - 2]
                return ("…" if start > 0 else "") + cut + ("…" if start + len(cut) < len(text) else "")
    return text[: limit - 1] + "…"
