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
# Every tag memchat uses to mark data in a prompt: stored or imported text may open or close none.
DATA_TAGS = ("memory", "session_summary", "previous_summary", "transcript", "existing_memories", "new_turns", "turn")
_DATA_TAG = re.compile(r"<\s*/?\s*(?:" + "|".join(DATA_TAGS) + r")\b[^>]*>?", re.IGNORECASE)


def sanitize(text: str) -> str:
    """Drop ANSI/OSC escape sequences and control characters; keep newlines and tabs."""
    return _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))


def fence(text: str) -> str:
    """Untrusted text for inside a prompt's data block, lines kept: it cannot open or close any of
    memchat's data tags, and carries no control characters or escape sequences."""
    return _DATA_TAG.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), sanitize(text))


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


_KEY_FIELD = r"(?i:(?:x-api-key|authorization|api[_-]?key)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)"
# "sk-ant-..." is how memchat's own hints spell a key: a placeholder, never a key.
_KEY_SHAPES = re.compile(rf"sk-ant-[A-Za-z0-9_\-]{{4,}}|(?P<field>{_KEY_FIELD})(?!sk-ant-\.\.\.)[^\s\"',;]{{8,}}")


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
    """Anything shaped like an API key (and the configured key itself, whatever its shape) replaced:
    an error body that echoes the key must not reach the screen, a JSON result or the database."""
    import os

    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if len(key) >= 8:
        text = text.replace(key, "[redacted key]")
    return _KEY_SHAPES.sub(lambda m: (m.group("field") or "") + "[redacted key]", text)
