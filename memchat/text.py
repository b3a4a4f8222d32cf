"""Untrusted text made safe for where it goes: the terminal, or a prompt.

Model replies, stored memories, imported transcripts and error messages that quote user
input are all untrusted. `sanitize` is for anything shown on a terminal (no escape
sequences, no control characters); `neutralise` is for anything placed inside a prompt's
delimited data block (it cannot open or close the block). Both are pure and cheap.
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MEMORY_TAG = re.compile(r"</?\s*memory\b[^>]*>?", re.IGNORECASE)


def sanitize(text: str) -> str:
    """Drop ANSI/OSC escape sequences and control characters; keep newlines and tabs."""
    return _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))


def neutralise(text: str) -> str:
    """Stored text may not open or close the memory block, nor carry control characters."""
    text = _MEMORY_TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)
    return " ".join(text.split())


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
