"""The slash-command registry: every command module's commands in one table, and /help.

Commands are rows in a table, not branches of an if-chain. The modules are listed here,
explicitly; a new group of commands is a new module and a line in MODULES.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memchat.errors import UsageError
from memchat.repl.command import Command, CommandSet
from memchat.repl.commands import context, memory, review, session

if TYPE_CHECKING:
    from memchat.repl.state import ReplState

_HELP = CommandSet()


@_HELP.command("help", "Show commands and keys.", aliases=("?",))
def _help(repl: ReplState, arg: str) -> None:
    rows = [(f"/{c.name}" + (f" {c.args}" if c.args else ""), c.help) for c in commands()]
    width = max(len(r[0]) for r in rows)
    lines = [f"  {name.ljust(width)}  {text}" for name, text in rows]
    lines += [
        "",
        "  Enter sends · Alt-Enter or Esc Enter: new line · Up/Down, Ctrl-R: history",
        "  Ctrl-C: stop a reply / clear the line · Ctrl-D or /exit: quit · // at the start sends a literal /",
    ]
    repl.say("\n".join(lines))


MODULES = (_HELP, session.COMMANDS, context.COMMANDS, review.COMMANDS, memory.COMMANDS)
REGISTRY: dict[str, Command] = {}
for _set in MODULES:
    for _cmd in _set.commands:
        for _key in (_cmd.name, *_cmd.aliases):
            REGISTRY[_key] = _cmd


def lookup(name: str) -> Command:
    try:
        return REGISTRY[name]
    except KeyError:
        close = [n for n in REGISTRY if n.startswith(name[:2])] if len(name) > 1 else []
        hint = f" (did you mean /{close[0]}?)" if close else ""
        raise UsageError(f"unknown command /{name}{hint}; /help lists them") from None


def commands() -> list[Command]:
    """Each command once, in registration order."""
    seen: dict[str, Command] = {}
    for cmd in REGISTRY.values():
        seen.setdefault(cmd.name, cmd)
    return list(seen.values())


def parse(line: str) -> tuple[Command, str] | None:
    """('/title  My title') -> (title command, 'My title'); None when the line is not a command."""
    if not line.startswith("/") or line.startswith("//"):
        return None
    name, _, arg = line[1:].partition(" ")
    return lookup(name.strip().lower()), arg.strip()
