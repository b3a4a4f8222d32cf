"""The exception tree and exit codes. Every error a user can cause is a MemchatError: one line, an exit code.

The core raises these and never prints them; a shell shows `memchat: <message>` on stderr
and exits with the error's code.
"""

from __future__ import annotations

import re
from enum import IntEnum

from memchat.text import redact_secrets, shorten


class ExitCode(IntEnum):
    """memchat's exit codes (documented in the README)."""

    OK = 0
    FAILURE = 1  # a known failure: the message says what and what to do
    USAGE = 2  # bad arguments or flag combinations
    SOFTWARE = 70  # an unexpected exception, i.e. a bug (EX_SOFTWARE)
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
    TERMINATED = 143  # SIGTERM (128 + 15), handled like Ctrl-C (memchat.signals)


class MemchatError(Exception):
    """A known failure: shown as one line on stderr, no traceback."""

    exit_code: int = ExitCode.FAILURE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        message = redact_secrets(message)  # an error may quote a server's reply, and it may echo the key
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(MemchatError):
    """Bad arguments or flag combinations."""

    exit_code = ExitCode.USAGE


class ConfigError(MemchatError):
    """The config file or a setting is invalid."""


class NeedsKeyError(MemchatError):
    """The provider needs an API key and none was found."""


class ProviderError(MemchatError):
    """The model provider failed (HTTP error, timeout, dropped stream)."""

    def __init__(self, message: str, *, status: int | None = None, partial: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.partial = partial


class NotFoundError(MemchatError):
    """A session, message or memory id that does not exist."""


class StoreError(MemchatError):
    """The database cannot be opened, is corrupt, too new, or cannot be written."""


class UnsavedMessageError(StoreError):
    """The database refused the user's message itself: nothing was stored, nothing was sent."""

    def __init__(self, cause: StoreError) -> None:
        super().__init__(f"{cause.message.rstrip('.')}. Your message was NOT saved")


MAX_ID = 2**63 - 1  # SQLite's largest INTEGER
# The most text one message (a prompt, a paste, an imported message) or one memory may hold: 1 MiB
# of characters, about 260,000 tokens, more than any model's window. A turn reads a bounded window
# of stored text (memchat.memory.text.TEXT_WINDOW) whatever this is.
MAX_MESSAGE_CHARS = 1 << 20


def check_size(text: str, what: str = "the message") -> str:
    """Refuse text over MAX_MESSAGE_CHARS in one line that says the limit."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise UsageError(
            f"{what} is {len(text):,} characters; memchat takes at most {MAX_MESSAGE_CHARS:,} in one "
            "(about 260,000 tokens, more than a model reads at once): send a part of it"
        )
    return text


# ASCII digits only: int() also takes Arabic-Indic and other Unicode digits ("١" is 1).
_ID = re.compile(r"#?([+-]?[0-9]+)")


def parse_id(value: str | int, what: str) -> int:
    """A positive id typed by a user ("12" or "#12"), or a UsageError naming what it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        match = _ID.fullmatch(str(value).strip())
        if match is None:
            raise UsageError(f"{what} id must be a number, got {shorten(value)}")
        number = int(match.group(1))
    if not 1 <= number <= MAX_ID:
        raise UsageError(f"{what} id must be a positive number up to {MAX_ID}, got {shorten(value)}")
    return number


_SPAN = re.compile(r"(#?[0-9]+)-(#?[0-9]+)")


def parse_id_spans(values: list[str], what: str) -> list[tuple[int, int]]:
    """Ids and ranges typed by a user ("3", "#5", "7-9"; each word may hold several, comma
    separated) as (first, last) pairs, or a UsageError naming the bad one."""
    spans = []
    if any(not value.replace(",", " ").split() for value in values):  # "$ID" a script left empty
        raise UsageError(f"an empty {what} id: give its number")
    for word in (w for value in values for w in value.replace(",", " ").split()):
        match = _SPAN.fullmatch(word)
        if match is None:
            number = parse_id(word, what)
            spans.append((number, number))
            continue
        first, last = parse_id(match.group(1), what), parse_id(match.group(2), what)
        if first > last:
            raise UsageError(f"{what} range {word} runs backwards: write {last}-{first}")
        spans.append((first, last))
    return spans


def require_unicode(text: str, what: str) -> str:
    """Text that SQLite and the terminal can take: undecodable input bytes reach Python as lone
    surrogates (from argv, stdin, or \\ud800 escapes in JSON), which UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(
            f"{what} is not valid UTF-8 (an undecodable byte or a lone surrogate at "
            f"character {exc.start + 1}); convert it first, e.g. with iconv"
        ) from None
    return text
