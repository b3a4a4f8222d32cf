"""Terminal helpers: is there a person at stdin, reading stdin as text, the encoder's one-time preparation."""

from __future__ import annotations

import contextlib
import sys
import termios
from collections.abc import Iterator

from memchat.errors import UsageError
from memchat.text import sanitize
from memchat.ui.console import err, escape


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
    """A spinner on stderr while something slow runs (only on a terminal). The text may name a
    setting's value (a model): sanitized, and never read as Rich markup."""
    console = err()
    if not show or not console.is_terminal:
        yield
        return
    global spinning
    spinning += 1
    try:
        with console.status(escape(sanitize(text)), spinner="dots"):
            yield
    finally:
        spinning -= 1


spinning = 0  # spinners on screen: a waiting line (memchat.ui.stream.Waiting) keeps off them


@contextlib.contextmanager
def keys_not_echoed() -> Iterator[None]:
    """While a reply streams, the terminal does not echo what is typed (Ctrl-C still interrupts).

    Its echo of Ctrl-C ("^C") lands after the last column of a live region's padded line, wraps,
    and the redraw then leaves the partial reply on screen twice; keys typed ahead would scribble
    over the reply the same way.
    """
    try:
        fd = sys.stdin.fileno()
        before = termios.tcgetattr(fd)
    except (OSError, ValueError, AttributeError):  # not a terminal
        yield
        return
    quiet = list(before)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, before)
        except (OSError, termios.error):
            pass
