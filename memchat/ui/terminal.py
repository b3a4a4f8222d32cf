"""Terminal helpers: is there a person at stdin, reading stdin as text, the encoder's one-time preparation."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from memchat.errors import UsageError


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
        from memchat.ui.console import stdout_is_tty

        return cls(stdin=sys.stdin, stdin_isatty=stdin_is_tty(), stdout_isatty=stdout_is_tty())


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
    from memchat.text import sanitize
    from memchat.ui.console import err, escape

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


def edit_in_editor(text: str) -> str | None:
    """Let the user change text in $VISUAL/$EDITOR (else vi); None if they left it unchanged.

    The text is private (a memory): it goes to a 0600 file in a 0700 directory of its own,
    removed afterwards. An editor that cannot run, or exits with an error, is one line.
    """
    import os
    import shlex
    import shutil
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        command = shlex.split(editor)
    except ValueError as exc:
        raise UsageError(f"cannot read $EDITOR {editor!r}: {exc}") from None
    if not command or shutil.which(command[0]) is None:
        raise UsageError(f"cannot run the editor {editor!r}: no such program (set $EDITOR, or pass --text)")
    directory = tempfile.mkdtemp(prefix="memchat-edit-")  # 0700
    path = os.path.join(directory, "memory.txt")
    try:
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
            f.write(text)
        try:
            done = subprocess.run([*command, path], check=False)
        except OSError as exc:
            raise UsageError(f"cannot run the editor {editor!r}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise UsageError(f"the editor {editor!r} exited with code {done.returncode}; nothing was changed")
        with open(path, encoding="utf-8", errors="replace") as f:
            edited = f.read()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return None if edited == text else edited


@contextlib.contextmanager
def keys_not_echoed() -> Iterator[None]:
    """While a reply streams, the terminal does not echo what is typed (Ctrl-C still interrupts).

    Its echo of Ctrl-C ("^C") lands after the last column of a live region's padded line, wraps,
    and the redraw then leaves the partial reply on screen twice; keys typed ahead would scribble
    over the reply the same way.
    """
    try:
        import termios
    except ImportError:  # no termios (Windows)
        yield
        return
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
