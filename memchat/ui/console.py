"""Console output for the shells: stdout and stderr consoles, error and note lines, JSON.

Everything that reaches the terminal from stored or model text goes through
memchat.text.sanitize first: no escape sequence, control or format character (invisible, or a bidi
control) is ever written raw; JSON escapes them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from memchat.text import FORMAT, error_text, sanitize

if TYPE_CHECKING:  # rich loads on the first output, not when a command module imports this
    from rich.console import Console

_out: Console | None = None
_err: Console | None = None


def out() -> Console:
    global _out
    if _out is None:
        from rich.console import Console

        _out = Console(highlight=False, soft_wrap=False, width=_width(sys.stdout))
    return _out


def err() -> Console:
    global _err
    if _err is None:
        from rich.console import Console

        _err = Console(stderr=True, highlight=False, width=_width(sys.stderr))
    return _err


MIN_WIDTH = 20  # narrower than this, a table prints nothing at all (COLUMNS=0 had emptied `memories list`)


def _width(stream: Any) -> int | None:
    """None (rich reads COLUMNS, else the terminal's size, else 80) unless COLUMNS says a width no
    output fits in: then the terminal's own, or 80 when it is no terminal."""
    columns = os.environ.get("COLUMNS", "")
    if not (columns.isdigit() and int(columns) < MIN_WIDTH):
        return None
    try:
        return max(os.get_terminal_size(stream.fileno()).columns, MIN_WIDTH)
    except (OSError, ValueError, AttributeError):
        return 80


def error_line(message: str) -> None:
    err().print(f"[red]memchat: {escape(error_text(message))}[/red]", soft_wrap=True)


def note(message: str) -> None:
    err().print(f"[dim]{escape(sanitize(message))}[/dim]", soft_wrap=True)


def say(text: str, console: Console | None = None, style: str | None = None) -> None:
    """Untrusted text, sanitized and never read as Rich markup."""
    (console or out()).print(sanitize(text), style=style, markup=False, highlight=False, soft_wrap=True)


def dim_line(text: str) -> None:
    """A dim line on stdout without loading rich, while nothing has loaded it yet: the REPL's
    greeting, before its prompt (rich's import and console are ~25 ms of a ~0.45 s start)."""
    if _out is not None:
        say(text, style="dim")
        return
    styled = stdout_is_tty() and os.environ.get("TERM") != "dumb"
    sys.stdout.write(f"\x1b[2m{sanitize(text)}\x1b[0m\n" if styled else f"{sanitize(text)}\n")
    sys.stdout.flush()


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


# JSON leaves these raw with ensure_ascii=False: C1 controls (\x9b is a terminal's CSI), the
# characters str.splitlines() breaks on, and format characters (invisible, or bidi controls such as
# U+202E that show what follows reversed). Escaped, a JSON line is one line, inert on a terminal,
# and reads back as the same text.
_UNSAFE_IN_JSON = re.compile(f"[\x80-\x9f\u2028\u2029]|{FORMAT.pattern}")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def print_json(obj: Any) -> None:
    text = _UNSAFE_IN_JSON.sub(_json_escape, json.dumps(obj, ensure_ascii=False))
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def plainly_piped(stream: Any) -> bool:
    """The stream is no terminal, and nothing in the environment tells Rich to treat it as one (a
    non-empty FORCE_COLOR, TTY_COMPATIBLE=1, as rich.console.Console reads them): known without
    importing Rich (~16 ms of a fresh piped `recall`)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return not tty and not os.environ.get("FORCE_COLOR") and os.environ.get("TTY_COMPATIBLE") != "1"


def err_is_terminal() -> bool:
    """Whether stderr is a terminal to draw a spinner or a bar on, as Rich decides."""
    return not plainly_piped(sys.stderr) and err().is_terminal


def stdout_is_tty() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
