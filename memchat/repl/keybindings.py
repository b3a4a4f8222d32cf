"""REPL key bindings: Enter sends, Alt-Enter / Esc Enter adds a line, Ctrl-C clears the line
(or leaves a Ctrl-R search)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # prompt_toolkit loads when a terminal chat starts, not when the loop is imported
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def build_key_bindings() -> KeyBindings:
    from prompt_toolkit.filters import is_searching
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.bindings.mouse import load_mouse_bindings
    from prompt_toolkit.key_binding.bindings.search import abort_search
    from prompt_toolkit.keys import Keys

    kb = KeyBindings()

    @kb.add("escape", "enter")  # terminals send Alt-Enter as Esc followed by Enter
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    # In a Ctrl-R search, Ctrl-C leaves the search (back to the line as it was), like Ctrl-G.
    kb.add("c-c", filter=is_searching)(abort_search)

    @kb.add("c-c", filter=~is_searching)
    def _clear(event: KeyPressEvent) -> None:
        # Ctrl-C never quits from the prompt: it clears the line (Ctrl-D or /exit quit).
        event.current_buffer.reset()

    # An escape sequence typed or sent raw ("\x1b[0m") reaches prompt_toolkit as a mouse event it
    # cannot parse, and its handler raises ("Unhandled exception in event loop", the rest of the
    # line lost): only well-formed mouse reports go to it, the rest is dropped.
    (mouse,) = load_mouse_bindings().get_bindings_for_keys((Keys.Vt100MouseEvent,))

    @kb.add(Keys.Vt100MouseEvent)
    def _mouse(event: KeyPressEvent) -> object:
        if _MOUSE_REPORT.match(event.data):
            return mouse.handler(event)
        return None

    return kb


# Typical "ESC [ M b x y" (three bytes), urxvt "ESC [ 96;14;13 M", xterm SGR "ESC [ < 64;85;12 M|m"
_MOUSE_REPORT = re.compile(r"\x1b\[(?:M...|\d+;\d+;\d+M|<\d+;\d+;\d+[Mm])\Z", re.DOTALL)
