"""The exception tree. Every error a user can cause is a MemchatError: one line, an exit code."""

from __future__ import annotations

import sys


class MemchatError(Exception):
    """A known failure: shown as one line on stderr, no traceback."""

    exit_code = 1

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def show(self) -> None:
        from memchat.render import sanitize  # a message may quote hostile input

        sys.stderr.write(f"memchat: {sanitize(self.message)}\n")
        sys.stderr.flush()


class UsageError(MemchatError):
    """Bad arguments or flag combinations."""

    exit_code = 2


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


MAX_ID = 2 ** 63 - 1  # SQLite's largest INTEGER


def shorten(value: object, width: int = 60) -> str:
    """repr() of user input for an error message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def parse_id(value: str | int, what: str) -> int:
    """A positive id typed by a user ("12" or "#12"), or a UsageError naming what it is."""
    try:
        number = int(str(value).strip().lstrip("#"))
    except ValueError:
        raise UsageError(f"{what} id must be a number, got {shorten(value)}") from None
    if not 1 <= number <= MAX_ID:
        raise UsageError(f"{what} id must be a positive number up to {MAX_ID}, got {shorten(value)}")
    return number


def require_unicode(text: str, what: str) -> str:
    """Text that SQLite and the terminal can take: undecodable input bytes reach Python as lone
    surrogates (from argv, stdin, or \\ud800 escapes in JSON), which UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{what} is not valid UTF-8 (an undecodable byte or a lone surrogate at "
                         f"character {exc.start + 1}); convert it first, e.g. with iconv") from None
    return text
