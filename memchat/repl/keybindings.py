"""REPL key bindings: Enter sends, Alt-Enter / Esc Enter adds a line, Ctrl-C clears the line."""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def build_key_bindings() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", "enter")  # terminals send Alt-Enter as Esc followed by Enter
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-c")
    def _clear(event: KeyPressEvent) -> None:
        # Ctrl-C never quits from the prompt: it clears the line (Ctrl-D or /exit quit).
        event.current_buffer.reset()

    return kb
