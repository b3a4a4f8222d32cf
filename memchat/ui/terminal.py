"""Terminal helpers: is there a person at stdin, reading stdin as text, the encoder's one-time preparation."""

from __future__ import annotations

import contextlib
import sys
import termios
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from memchat.errors import MAX_MESSAGE_CHARS, UsageError
from memchat.text import sanitize
from memchat.ui.console import err, err_is_terminal, escape, stdout_is_tty


@dataclass(frozen=True)
class Environment:
    """The terminal a shell talks to, handed in rather than read from `sys` (httpie's pattern): a test
    gives the REPL scripted keys and a dummy screen and runs it in-process; only what a real terminal
    alone shows (typing, Ctrl-C, streaming, signals) needs a pseudo-terminal."""

    stdin: TextIO  # the lines of a piped chat
    stdin_isatty: bool
    stdout_isatty: bool
    keys: Any = None  # prompt_toolkit Input (e.g. create_pipe_input()); None: the real terminal
    screen: Any = None  # prompt_toolkit Output (e.g. DummyOutput()); None: the real terminal

    @property
    def interactive(self) -> bool:
        """A person at both ends: the prompt, completion, Markdown; otherwise one message per line."""
        return self.stdin_isatty and self.stdout_isatty

    @classmethod
    def from_process(cls) -> Environment:
        return cls(stdin=sys.stdin, stdin_isatty=stdin_is_tty(), stdout_isatty=stdout_is_tty())


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (AttributeError, ValueError):
        return True


def read_stdin() -> str:
    """All of stdin as text, refused past MAX_MESSAGE_CHARS without reading on (`yes | memchat
    ask` had grown to gigabytes before anything was said)."""
    limit = 4 * (MAX_MESSAGE_CHARS + 1)  # UTF-8 takes at most 4 bytes a character
    data = sys.stdin.buffer.read(limit)
    if len(data) >= limit:
        raise UsageError(too_long("stdin"))
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
    if not show or not err_is_terminal():
        yield
        return
    console = err()
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
    except (OSError, ValueError, AttributeError, termios.error):  # not a terminal
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


def too_long(what: str) -> str:
    return (
        f"{what} is more than {MAX_MESSAGE_CHARS:,} characters; memchat takes at most {MAX_MESSAGE_CHARS:,} in "
        "one (about 260,000 tokens, more than a model reads at once): send a part of it"
    )
