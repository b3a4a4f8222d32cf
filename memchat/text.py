"""Untrusted text made safe for where it goes: the terminal, or a prompt.

Model replies, stored memories, imported transcripts and error messages that quote user
input are all untrusted. `sanitize` is for anything shown on a terminal (no escape
sequences, no control characters, no format characters: nothing invisible, no bidi control);
`neutralise` is for anything placed inside a prompt's delimited data block (it cannot open or
close the block, however the tag is spelled: the check reads the text normalised, see `as_read`).
Both are pure and cheap. `redact_secrets` takes API keys out of what a server said.
"""

from __future__ import annotations

import functools
import json
import os
import re
import unicodedata

from memchat.patterns import pattern

_ANSI = pattern(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = pattern(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The format characters (Unicode category Cf): invisible (soft hyphen, zero-width space and joiners,
# word joiner, BOM, tag characters) or reordering what follows on screen (the bidi controls, U+202E).
# Written out, since computing them costs a tenth of a second at every start; tests/test_invisible.py
# checks the list against Python's Unicode data (U+13430-1343F: the whole block, for newer Unicode).
FORMAT = pattern(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
# The other characters nobody sees (default-ignorable): combining grapheme joiner, Hangul fillers,
# variation selectors. Dropped when reading for a tag only: they give an emoji its look.
_IGNORABLE = pattern("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]")
# Every character whose compatibility decomposition holds an angle bracket (checked like FORMAT).
BRACKETS = "<>\u226e\u226f\ufe64\ufe65\uff1c\uff1e"
_OPENING = pattern("[<\u226e\ufe64\uff1c]")
_INERT_BRACKETS = str.maketrans({b: "‹" if i % 2 == 0 else "›" for i, b in enumerate(BRACKETS)})
_RUNS = pattern(r"[\x00-\x7f]+|[^\x00-\x7f]")
# Every tag memchat uses to mark data in a prompt: stored or imported text may open or close none.
DATA_TAGS = ("memory", "session_summary", "previous_summary", "transcript", "existing_memories", "new_turns", "turn")
# Possessive runs (`*+`): two `\s*` around an optional "/" tried every split of a long run of spaces
# after a "<" (a 16 kB run took 5 s, its square in time); a run of spaces is taken whole or not at all.
_DATA_TAG = pattern(r"(<\s*+/?\s*+(?:" + "|".join(DATA_TAGS) + r")\b)([^>]*+)(>?)", re.IGNORECASE)
# The same, in the text as read (`as_read`): an invisible character, read as \0, may sit anywhere
# in the tag, and ends its name as a space would ("<turn" + U+034F + "a" is the tag <turn).
_HIDDEN = "\x00"
_DATA_TAG_READ = pattern(
    r"(<[\s\x00]*+/?[\s\x00]*+(?:" + "|".join("\x00*".join(tag) for tag in DATA_TAGS) + r")\b)([^>]*+)(>?)",
    re.IGNORECASE,
)


def sanitize(text: str) -> str:
    """Drop ANSI/OSC escape sequences, control characters and format characters (invisible ones, and
    the bidi controls that make a terminal show text in another order); keep newlines and tabs."""
    return FORMAT.sub("", _without_controls(text))


def is_blank(text: str) -> bool:
    """Whether text shows nothing: only whitespace, control, format and other invisible characters
    (a zero-width space, a bidi override, a Hangul filler) is no prompt and no memory."""
    return not _IGNORABLE.sub("", sanitize(text)).strip()


def error_text(message: str) -> str:
    """An error message as one line, whatever it quotes (a file name with a line break in it, or a
    Unicode line or paragraph separator: U+2028, U+2029, NEL)."""
    lines = sanitize(message).splitlines()
    return "⏎".join(lines) if len(lines) > 1 else "".join(lines)


def _without_controls(text: str) -> str:
    return _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))


def as_read(text: str) -> tuple[str, list[int]]:
    """The text as a reader takes it in: compatibility forms folded (fullwidth letters, small and
    fullwidth brackets), case folded, each mark, format or other invisible character read as \\0
    (it can hide inside a tag, or end its name); and for each of its characters, the index in
    `text` it comes from. The folding is Unicode NFKD, marks then set apart: it finds every tag
    NFKC would, and a bracket with a combining stroke too."""
    seen: list[str] = []
    origin: list[int] = []
    for run in _RUNS.finditer(text):
        start = run.start()
        if run.group().isascii():
            seen.append(run.group().lower())
            origin.extend(range(start, run.end()))
        else:
            read = _reading(run.group())
            seen.append(read)
            origin.extend([start] * len(read))
    return "".join(seen), origin


@functools.lru_cache(maxsize=4096)
def _reading(char: str) -> str:
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", char).casefold())
    return "".join(
        _HIDDEN if unicodedata.category(c) in ("Mn", "Me", "Cf") or _IGNORABLE.match(c) else c for c in folded
    )


def holds_data_tag(text: str) -> bool:
    """Whether a reader finds one of memchat's data tags in `text`, however it is spelled."""
    if text.isascii():
        return bool(_DATA_TAG.search(text))
    return bool(_DATA_TAG_READ.search(as_read(text)[0]))


def _inert_tag(head: str, rest: str) -> str:
    """A data tag made harmless: its head (the bracket, the slash and the name) as it reads, without
    invisible characters, and every bracket in it a ‹ or ›."""
    head = unicodedata.normalize("NFKC", _IGNORABLE.sub("", FORMAT.sub("", head)))
    return (head + rest).translate(_INERT_BRACKETS)


def _disarm(text: str) -> str:
    """`text` with every spelling of a data tag made inert: read normalised (see `as_read`), so a
    soft hyphen, a zero-width space, a bidi override or fullwidth letters do not hide one. Text
    without a tag comes back as it was, every character kept."""
    if not _OPENING.search(text):
        return text
    if text.isascii():
        return _DATA_TAG.sub(lambda m: _inert_tag(m.group(1), m.group(2) + m.group(3)), text)
    seen, origin = as_read(text)
    out: list[str] = []
    done = 0
    for match in _DATA_TAG_READ.finditer(seen):
        end = origin[match.end() - 1] + 1
        if end <= done:  # within a character a match before already took
            continue
        start = max(origin[match.start()], done)
        name_end = min(max(origin[match.end(1) - 1] + 1, start), end)
        out += [text[done:start], _inert_tag(text[start:name_end], text[name_end:end])]
        done = end
    return "".join(out) + text[done:] if out else text


def fence(text: str) -> str:
    """Untrusted text for inside a prompt's data block, lines kept: it cannot open or close any of
    memchat's data tags, and carries no control characters or escape sequences."""
    return _disarm(_without_controls(text))


def neutralise(text: str) -> str:
    """`fence`, on one line: for a field of the memory block (a memory, a name, a date, a snippet)."""
    return " ".join(fence(text).split())


def turns_block(tag: str, turns: list[tuple[str, str, str]]) -> str:
    """A transcript as data: each turn (number, role, text) in its own <turn> element, fenced, so a
    message cannot pose as another turn ("\n[4] user: ...") or close the block."""
    body = "\n".join(f'<turn n="{n}" role="{role}">\n{fence(text)}\n</turn>' for n, role, text in turns)
    return f"<{tag}>\n{body}\n</{tag}>"


def one_line(text: str, width: int | None = None) -> str:
    """Sanitized text on one line, cut to width with an ellipsis."""
    line = " ".join(sanitize(text).split())
    if width and len(line) > width:
        return line[: width - 1].rstrip() + "…"
    return line


def shorten(value: object, width: int = 60) -> str:
    """repr() of user input for an error message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 memory', '2 memories'."""
    return f"{n} {word if n == 1 else many or word + 's'}"


REDACTED = "[redacted key]"
# An echoed key may come with its scheme ("Bearer KEY"): the two go as one.
_BEARER = r"(?i:bearer(?:\s|\\+[nrt])+)?"
# A field that names a key ("x-api-key: ...", '"authorization": "Bearer ...', escaped in nested JSON).
_KEY_FIELD = r"(?i:(?:x-api-key|authorization|api[_-]?key)(?:\\*[\"'])?\s*[:=]\s*(?:\\*[\"'])?)"
# "sk-ant-..." is how memchat's own hints spell a key: a placeholder, never a key; nor is a key
# already redacted (errors are redacted at each layer they pass: it must change nothing the second time).
_KEY_SHAPES = pattern(
    rf"{_BEARER}sk-ant-[A-Za-z0-9_\-]{{4,}}"
    rf"|(?P<field>{_KEY_FIELD}){_BEARER}(?!sk-ant-\.\.\.|{re.escape(REDACTED)})[^\s\"',;\\]{{8,}}"
)
# Where a gateway may break a long key: a line break (or JSON's escaped one), with indentation.
_LINE_BREAK = r"(?:[ \t]*(?:\r?\n|(?:\\+r)?\\+n)[ \t]*)?"


def id_ranges(ids: list[int]) -> str:
    """`1-3, 7, 9-10`: a long list of ids, short."""
    spans: list[list[int]] = []
    for i in sorted(set(ids)):
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def redact_secrets(text: str) -> str:
    """Anything shaped like an API key (and the configured keys themselves, whatever their shape)
    replaced by REDACTED, once per key: an error body that echoes a key must not reach the screen, a
    JSON result or the database. A key is found as written, JSON-escaped (nested too), or broken over
    lines, with its "Bearer " if it has one, and so is any run of FRAGMENT or more of its characters
    (a gateway that quotes it without its "sk-ant-", or only its end); redacting twice changes nothing."""
    for key in _configured_keys():
        text = _key_pattern(key).sub(REDACTED, text)
        text = _key_run(key).sub(functools.partial(_unless_part_of, key), text)
    return _KEY_SHAPES.sub(lambda m: (m.group("field") or "") + REDACTED, text)


_KEY_WORDS = ("sk-", "api-key", "api_key", "apikey", "authorization")  # what _KEY_SHAPES starts from


def may_hold_key(text: str) -> bool:
    """A cheap first look, for what a person types (a message may be a megabyte of pasted code):
    whether it holds a key's shape or a configured key, whole or from either end. redact_secrets
    then looks closely; it also finds what a server mangles (a key broken over lines, in part)."""
    lowered = text.lower()
    return any(word in lowered for word in _KEY_WORDS) or any(
        key[:FRAGMENT] in text or key[-FRAGMENT:] in text for key in _configured_keys()
    )


_LOADED_KEYS: set[str] = set()  # keys this process read from the OS keyring (memchat.keys)


def is_secret(key: str) -> None:
    """Redact `key` from everything said from now on in this process, as the environment's keys are."""
    if len(key.strip()) >= 8:
        _LOADED_KEYS.add(key.strip())


def _configured_keys() -> list[str]:
    """The keys memchat may send (environment and keyring), each long enough to be no ordinary word."""
    found = {os.environ.get(name, "").strip() for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")} | _LOADED_KEYS
    return sorted(k for k in found if len(k) >= 8)  # shorter than any real key: it would mangle words


FRAGMENT = 16  # characters of a key in one run that are no accident


@functools.lru_cache(maxsize=8)
def _key_run(key: str) -> re.Pattern[str]:
    """A run of FRAGMENT or more of the characters keys are made of, and of this key's own (a
    gateway token may hold + / = or any other), JSON's escaping backslash among them."""
    own = "".join(
        sorted({re.escape(c) for c in key if not (c.isascii() and (c.isalnum() or c in "_-")) and not c.isspace()})
    )
    extra = own + ("\\\\" if own else "")
    return pattern(rf"[A-Za-z0-9_\-{extra}]{{{FRAGMENT},}}")


def _unless_part_of(key: str, match: re.Match[str]) -> str:
    """The run of key characters as it is, or REDACTED when FRAGMENT of them in a row are the key's,
    whatever their case and however JSON escaped them."""
    run, parts = match.group(0), _key_parts(key)
    plain = run.replace("\\", "").casefold()
    return REDACTED if any(plain[i : i + FRAGMENT] in parts for i in range(len(plain) - FRAGMENT + 1)) else run


@functools.lru_cache(maxsize=8)
def _key_parts(key: str) -> frozenset[str]:
    """Every FRAGMENT-character stretch of the key past the prefix all keys of its kind share, casefolded."""
    secret = next((key[len(p) :] for p in ("sk-ant-", "sk-proj-", "sk-") if key.startswith(p)), key).casefold()
    return frozenset(secret[i : i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1))


@functools.lru_cache(maxsize=4)
def _key_pattern(key: str) -> re.Pattern[str]:
    spellings = set()
    spelled = key
    for _ in range(3):  # as written, inside a JSON string, inside a JSON string inside a JSON string
        spellings |= {spelled, spelled.replace("/", "\\/")}
        spelled = json.dumps(spelled)[1:-1]
    alternatives = (_LINE_BREAK.join(re.escape(c) for c in s) for s in sorted(spellings, key=len, reverse=True))
    return pattern(_BEARER + "(?:" + "|".join(alternatives) + ")")
