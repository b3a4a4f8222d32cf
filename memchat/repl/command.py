"""What a slash command is: name, handler, help, arguments, argument completion.

Each module under memchat.repl.commands collects its commands in a `CommandSet` with the
`command` decorator; memchat.repl.registry puts the sets together. Handlers take the REPL (as
memchat.repl.state.ReplState, what they may use of it) and the raw argument text, print through
the REPL, and raise MemchatError for bad input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memchat.repl.state import ReplState

Handler = Callable[["ReplState", str], None]
# Completions for an argument, in the order shown: a value, or (value, what it is) for the menu.
ArgCompleter = Callable[["ReplState", str], Iterable[str | tuple[str, str]]]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    help: str
    args: str = ""
    complete: ArgCompleter | None = None
    aliases: tuple[str, ...] = ()


class CommandSet:
    """The commands of one module, in the order they are defined."""

    def __init__(self) -> None:
        self.commands: list[Command] = []

    def command(
        self, name: str, help: str, args: str = "", complete: ArgCompleter | None = None, aliases: tuple[str, ...] = ()
    ) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            self.commands.append(Command(name, fn, help, args, complete, aliases))
            return fn

        return register


def choices(*words: str) -> ArgCompleter:
    """An argument completer offering fixed words."""
    return lambda repl, prefix: [w for w in words if w.startswith(prefix)]
