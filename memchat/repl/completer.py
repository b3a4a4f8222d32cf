"""Completion for slash commands and their arguments (session ids with their titles, most recent first;
models, formats)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from memchat.repl import registry
from memchat.text import sanitize

if TYPE_CHECKING:
    from memchat.repl.state import ReplState


class SlashCompleter(Completer):
    def __init__(self, repl: ReplState) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        name, space, arg = text[1:].partition(" ")
        if not space:
            for cmd in registry.commands():
                if cmd.name.startswith(name.lower()):
                    yield Completion("/" + cmd.name, start_position=-len(text), display_meta=cmd.help)
            return
        found = registry.REGISTRY.get(name.lower())
        if found is None or found.complete is None:
            return
        try:
            options = list(found.complete(self.repl, arg))
        except Exception:  # noqa: BLE001 - completion must never break typing
            return
        for option in options:
            value, meta = option if isinstance(option, tuple) else (option, "")
            yield Completion(value, start_position=-len(arg), display_meta=sanitize(meta) if meta else None)
