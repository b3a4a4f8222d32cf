"""Streaming a reply: Markdown through a small live region on a terminal, raw text elsewhere."""

from __future__ import annotations

import re
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from memchat.text import sanitize
from memchat.ui import terminal
from memchat.ui.console import out, plainly_piped

if TYPE_CHECKING:  # rich loads when a reply is drawn, not when a command module imports this
    from rich.console import Console

_LIST_ITEM = re.compile(r"([-*+]|\d+[.)])\s")


def _stable_split(text: str) -> int:
    """Offset up to which the Markdown is complete: the end of the last blank line that is
    outside a code fence and followed by more text. 0 when nothing is complete yet."""
    in_fence = False
    fence = ""
    split = 0
    pos = 0
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):  # the last piece has no newline yet
        pos += len(line) + 1
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            if not in_fence:
                in_fence, fence = True, stripped[:3]
            elif stripped.startswith(fence) and stripped.strip("`~") == "":
                in_fence = False
            continue
        if not in_fence and stripped == "" and i > 0 and pos < len(text):
            split = pos
    return split


class Waiting:
    """ "waiting for the reply… 4 s" on stderr while nothing has arrived (a terminal only): a slow
    first token, a retry after a 429 or a timeout never look like a hang. Shown after a second,
    updated every second, erased by the first text."""

    DELAY = 1.0

    def __init__(self, label: str) -> None:
        self.label = label
        self.stream = sys.stderr
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._shown = False
        self._thread: threading.Thread | None = None
        if self.stream.isatty():
            self._thread = threading.Thread(target=self._run, name="memchat-waiting", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self.DELAY):
            with self._lock:
                if self._stop.is_set():
                    return
                if terminal.spinning:  # the encoder's preparation has its own spinner
                    continue
                seconds = int(time.monotonic() - started)
                self.stream.write(f"\r\x1b[2m{self.label}… {seconds} s (Ctrl-C stops)\x1b[0m\x1b[K")
                self.stream.flush()
                self._shown = True

    def stop(self) -> None:
        if self._stop.is_set():
            return
        with self._lock:
            self._stop.set()
            if self._shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()


class ReplyWriter:
    """Streams a reply: Markdown through a small live region on a terminal, raw text elsewhere.

    Finished blocks (paragraphs, closed code fences) are printed once and never redrawn,
    so the live region only holds the block being written: no flicker, no scrollback spam.
    """

    def __init__(self, markdown: bool | None = None, console: Console | None = None) -> None:
        self.console: Console | None
        if console is None and plainly_piped(sys.stdout):
            # Raw text to a pipe needs no rich: its import is ~25 ms of a scripted `ask`.
            self.console = None
        else:
            self.console = console or out()
        tty = self.console is not None and self.console.is_terminal
        self.markdown = tty if markdown is None else (markdown and tty)
        self.buffer = ""
        self._live: Any = None
        self._last_draw = 0.0
        self._draw_took = 0.0  # how long the last redraw of the unfinished block took
        self._printed_any = False
        self._waiting: Waiting | None = None

    @property
    def file(self) -> Any:
        return sys.stdout if self.console is None else self.console.file

    @property
    def screen(self) -> Console:
        """The terminal's console: Markdown is only ever drawn on one."""
        if self.console is None:
            raise RuntimeError("Markdown drawn on a pipe")
        return self.console

    def waiting(self, label: str = "waiting for the reply") -> None:
        """Say that a reply is awaited until its first text (on a terminal)."""
        if self.console is not None and self.console.is_terminal:
            self._waiting = Waiting(label)

    def write(self, chunk: str) -> None:
        if self._waiting is not None:
            self._waiting.stop()
        chunk = sanitize(chunk)
        if not chunk:
            return
        if not self.markdown:
            self.file.write(chunk)
            self.file.flush()
            self.buffer += chunk
            return
        self.buffer += chunk
        split = _stable_split(self.buffer)
        if split:
            done, self.buffer = self.buffer[:split], self.buffer[split:]
            self._clear_live()
            self._print_markdown(done)
        # Redrawn at most every 50 ms, and never sooner than twice the last redraw took: the unfinished
        # block is drawn whole, so a long one (a pasted paragraph echoed back, a long code block) made
        # every chunk redraw it once a redraw took over 50 ms (256 kB: over 200 s, its square in time).
        now = time.monotonic()
        if now - self._last_draw > max(0.05, 2 * self._draw_took):
            self._draw()
            self._last_draw = time.monotonic()
            self._draw_took = self._last_draw - now

    def _print_markdown(self, text: str) -> None:
        from rich.markdown import Markdown

        if not text.strip():
            return
        # Blocks printed apart need the blank line Rich puts between elements; a list
        # brings its own.
        if self._printed_any and not _LIST_ITEM.match(text.lstrip()):
            self.screen.print()
        self.screen.print(Markdown(text, code_theme="monokai"))
        self._printed_any = True

    def _draw(self) -> None:
        from rich.live import Live
        from rich.markdown import Markdown

        if not self.buffer.strip():
            return
        if self._live is None:
            self._live = Live(console=self.screen, auto_refresh=False, transient=True, vertical_overflow="crop")
            self._live.start()
        self._live.update(Markdown(self.buffer, code_theme="monokai"), refresh=True)

    def _clear_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def close(self) -> None:
        """Print what is left and end the line."""
        if self._waiting is not None:
            self._waiting.stop()
        if not self.markdown:
            if self.buffer and not self.buffer.endswith("\n"):
                self.file.write("\n")
            self.file.flush()
            return
        if self._live is not None and self.buffer.strip():
            # The block being written is on screen already: redraw it once more and leave it
            # there, rather than erase it and print it again (a Ctrl-C that lands mid-redraw
            # left both copies: the partial reply printed twice).
            from rich.markdown import Markdown

            self._live.transient = False
            self._live.update(Markdown(self.buffer, code_theme="monokai"), refresh=True)
            self._live.stop()
            self._live = None
            self._printed_any = True
        else:
            self._clear_live()
            self._print_markdown(self.buffer)
        self.buffer = ""
