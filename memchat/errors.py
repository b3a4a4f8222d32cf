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
        sys.stderr.write(f"memchat: {self.message}\n")
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


def parse_id(value: str | int, what: str) -> int:
    """A positive id typed by a user ("12" or "#12"), or a UsageError naming what it is."""
    try:
        number = int(str(value).strip().lstrip("#"))
    except ValueError:
        raise UsageError(f"{what} id must be a number, got {value!r}") from None
    if number < 1:
        raise UsageError(f"{what} id must be a positive number, got {value!r}")
    return number
