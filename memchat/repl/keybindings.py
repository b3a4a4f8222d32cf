"""REPL key bindings: Enter sends, Alt-Enter / Esc Enter adds a line, Ctrl-C clears the line
(or leaves a Ctrl-R search)."""

from __future__ import annotations

from prompt_toolkit.filters import is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.bindings.search import abort_search


def build_key_bindings() -> KeyBindings:
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

    return kb
