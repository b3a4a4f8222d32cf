"""Terminal helpers: is there a person at stdin, reading stdin as text, the encoder's one-time preparation."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from memchat.errors import UsageError


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (AttributeError, ValueError):
        return True


def read_stdin() -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"stdin is not valid UTF-8 (bad byte at offset {exc.start}); convert it first, e.g. with iconv"
        ) from None


@contextlib.contextmanager
def spinner(text: str, *, show: bool = True) -> Iterator[None]:
    """A spinner on stderr while something slow runs (only on a terminal)."""
    from memchat.ui.console import err

    console = err()
    if not show or not console.is_terminal:
        yield
        return
    with console.status(text, spinner="dots"):
        yield
