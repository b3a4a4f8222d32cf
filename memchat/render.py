"""Terminal output: streamed Markdown on a TTY, plain text in pipes, tables, JSON.

Model and memory text is untrusted: escape sequences and control characters are
stripped before anything reaches the terminal.
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any

from rich.console import Console
from rich.text import Text

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_LIST_ITEM = re.compile(r"([-*+]|\d+[.)])\s")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def sanitize(text: str) -> str:
    """Drop ANSI/OSC escape sequences and control characters; keep newlines and tabs."""
    return _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n")))


_out: Console | None = None
_err: Console | None = None


def out() -> Console:
    global _out
    if _out is None:
        _out = Console(highlight=False, soft_wrap=False)
    return _out


def err() -> Console:
    global _err
    if _err is None:
        _err = Console(stderr=True, highlight=False)
    return _err


def error_line(message: str) -> None:
    err().print(f"[red]memchat: {_escape(sanitize(message))}[/red]", soft_wrap=True)


def note(message: str) -> None:
    err().print(f"[dim]{_escape(sanitize(message))}[/dim]", soft_wrap=True)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def stdout_is_tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


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


class ReplyWriter:
    """Streams a reply: Markdown through a small live region on a terminal, raw text elsewhere.

    Finished blocks (paragraphs, closed code fences) are printed once and never redrawn,
    so the live region only holds the block being written: no flicker, no scrollback spam.
    """

    def __init__(self, markdown: bool | None = None, console: Console | None = None) -> None:
        self.console = console or out()
        tty = self.console.is_terminal
        self.markdown = tty if markdown is None else (markdown and tty)
        self.buffer = ""
        self.any_output = False
        self._live: Any = None
        self._last_draw = 0.0
        self._printed_any = False

    def write(self, chunk: str) -> None:
        chunk = sanitize(chunk)
        if not chunk:
            return
        self.any_output = True
        if not self.markdown:
            self.console.file.write(chunk)
            self.console.file.flush()
            self.buffer += chunk
            return
        self.buffer += chunk
        split = _stable_split(self.buffer)
        if split:
            done, self.buffer = self.buffer[:split], self.buffer[split:]
            self._clear_live()
            self._print_markdown(done)
        now = time.monotonic()
        if now - self._last_draw > 0.05:
            self._draw()
            self._last_draw = now

    def _print_markdown(self, text: str) -> None:
        from rich.markdown import Markdown

        if not text.strip():
            return
        # Blocks printed apart need the blank line Rich puts between elements; a list
        # brings its own.
        if self._printed_any and not _LIST_ITEM.match(text.lstrip()):
            self.console.print()
        self.console.print(Markdown(text, code_theme="monokai"))
        self._printed_any = True

    def _draw(self) -> None:
        from rich.live import Live
        from rich.markdown import Markdown

        if not self.buffer.strip():
            return
        if self._live is None:
            self._live = Live(console=self.console, auto_refresh=False, transient=True,
                              vertical_overflow="crop")
            self._live.start()
        self._live.update(Markdown(self.buffer, code_theme="monokai"), refresh=True)

    def _clear_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def close(self) -> None:
        """Print what is left and end the line."""
        if not self.markdown:
            if self.buffer and not self.buffer.endswith("\n"):
                self.console.file.write("\n")
            self.console.file.flush()
            return
        self._clear_live()
        self._print_markdown(self.buffer)
        self.buffer = ""


def budget_table(budget: Any) -> Any:
    """The /context table: each part's tokens and share of the window."""
    from rich.table import Table

    table = Table(box=None, header_style="bold", title=f"context window {budget.window:,} tokens (estimated)",
                  title_justify="left")
    table.add_column("part")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    for name, n in budget.rows():
        table.add_row(name, f"{n:,}", f"{100 * n / budget.window:.1f}%")
    table.add_row("[dim]safety margin (inside free)[/dim]", f"[dim]{budget.margin:,}[/dim]", "")
    return table


def history_table(rows: list[tuple[int, Any, int, str]]) -> Any:
    """The /history table: number, role, tokens, what happens to the message, a preview."""
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for col, justify in (("#", "right"), ("role", "left"), ("tokens", "right"), ("state", "left"), ("text", "left")):
        table.add_column(col, justify=justify, no_wrap=col != "text", overflow="ellipsis")
    for number, m, n, disposition in rows:
        state = "pinned" if m.pinned else disposition
        if m.status not in ("ok",) and disposition != "unsent":
            state += f" ({m.status})"
        elif disposition == "unsent":
            state = m.status
        preview = sanitize(" ".join(m.content.split()))[:120]
        table.add_row(str(number), m.role, f"{n:,}", state, Text(preview))  # never read as markup
    return table


def memory_items(section: Any) -> list[dict[str, Any]]:
    """What the memory section of a call held, for --explain and /why."""
    if section is None:
        return []
    return [{"section": i.section, "text": i.text, "reason": i.reason, "memory_id": i.memory_id,
             "message_id": i.message_id} for i in section.items]


def explain_memory(section: Any, console: Console | None = None) -> None:
    console = console or err()
    items = memory_items(section)
    if not items:
        console.print("[dim]no memories were sent with this message[/dim]")
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold", title=f"sent with this message ({section.tokens} tokens)",
                  title_justify="left")
    for col in ("section", "why", "source", "text"):
        table.add_column(col, overflow="fold" if col == "text" else "ellipsis")
    for i in items:
        source = f"memory {i['memory_id']}" if i["memory_id"] else f"message {i['message_id']}"
        table.add_row(i["section"], Text(sanitize(i["reason"])), source, Text(sanitize(i["text"])))
    console.print(table)
