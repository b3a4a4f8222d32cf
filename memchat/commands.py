"""The slash-command registry: name, arguments, help, argument completion, handler.

Commands are rows in a table, not branches of an if-chain: later features register
their own (/remember, /recall, /pin ...) with `command(...)`. Handlers take the REPL
and the raw argument text, print through the REPL, and raise MemchatError for bad input.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat.errors import MemchatError, UsageError

if TYPE_CHECKING:
    from memchat.repl import Repl

Handler = Callable[["Repl", str], None]
ArgCompleter = Callable[["Repl", str], Iterable[str]]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    help: str
    args: str = ""
    complete: ArgCompleter | None = None
    aliases: tuple[str, ...] = ()


REGISTRY: dict[str, Command] = {}


def command(name: str, help: str, args: str = "", complete: ArgCompleter | None = None,
            aliases: tuple[str, ...] = ()) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        cmd = Command(name, fn, help, args, complete, aliases)
        for key in (name, *aliases):
            REGISTRY[key] = cmd
        return fn

    return register


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


# --- argument completers ------------------------------------------------------------------

def _session_ids(repl: Repl, prefix: str) -> Iterable[str]:
    from memchat import sessions

    return [str(s.id) for s in sessions.list_sessions(repl.db, limit=50) if str(s.id).startswith(prefix)]


KNOWN_MODELS = ("claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-opus-4-8",
                "claude-sonnet-4-6", "claude-haiku-4-5")


def _models(repl: Repl, prefix: str) -> Iterable[str]:
    return [m for m in KNOWN_MODELS if m.startswith(prefix)]


def _formats(repl: Repl, prefix: str) -> Iterable[str]:
    return [f for f in ("md", "json") if f.startswith(prefix)]


# --- the commands --------------------------------------------------------------------------

@command("help", "Show commands and keys.", aliases=("?",))
def _help(repl: Repl, arg: str) -> None:
    rows = [(f"/{c.name}" + (f" {c.args}" if c.args else ""), c.help) for c in commands()]
    width = max(len(r[0]) for r in rows)
    lines = [f"  {name.ljust(width)}  {text}" for name, text in rows]
    lines += ["", "  Enter sends · Alt-Enter or Esc Enter: new line · Up/Down, Ctrl-R: history",
              "  Ctrl-C: stop a reply / clear the line · Ctrl-D or /exit: quit · // at the start sends a literal /"]
    repl.say("\n".join(lines))


@command("new", "Start a new session.")
def _new(repl: Repl, arg: str) -> None:
    repl.new_session()
    repl.info("new session (it is saved when you send the first message)")


@command("sessions", "List recent sessions.", args="[N]")
def _sessions(repl: Repl, arg: str) -> None:
    from memchat import sessions

    try:
        limit = int(arg) if arg else 10
    except ValueError:
        raise UsageError("usage: /sessions [N]") from None
    rows = sessions.list_sessions(repl.db, limit=limit)
    if not rows:
        repl.info("no sessions yet")
        return
    current = repl.session.id if repl.session else None
    repl.say("\n".join(
        f"{'*' if s.id == current else ' '} {s.id:>4}  {s.updated_at[:16].replace('T', ' ')}  {s.message_count:>4} msgs  "
        f"{s.title or '(untitled)'}" for s in rows))


@command("resume", "Switch to a stored session.", args="ID", complete=_session_ids)
def _resume(repl: Repl, arg: str) -> None:
    if not arg:
        raise UsageError("usage: /resume ID (see /sessions)")
    repl.resume(arg)


@command("title", "Rename this session.", args="TEXT")
def _title(repl: Repl, arg: str) -> None:
    from memchat import sessions

    if not arg:
        raise UsageError("usage: /title TEXT")
    session = repl.ensure_session()
    repl.session = sessions.rename_session(repl.db, session.id, arg)
    repl.info(f"session {repl.session.id}: {repl.session.title}")


@command("model", "Show or change the model.", args="[NAME]", complete=_models)
def _model(repl: Repl, arg: str) -> None:
    if not arg:
        repl.info(f"model: {repl.settings.model}")
        return
    repl.set_model(arg)
    repl.info(f"model: {repl.settings.model}")


@command("system", "Show or set this session's system prompt.", args="[TEXT]")
def _system(repl: Repl, arg: str) -> None:
    from memchat import sessions

    if not arg:
        repl.say(repl.engine.system_prompt(repl.session) if repl.session else repl.settings.system)
        return
    session = repl.ensure_session()
    repl.session = sessions.update_session(repl.db, session.id, system=arg)
    repl.info("system prompt set for this session")


@command("retry", "Resend the last unanswered or failed message.")
def _retry(repl: Repl, arg: str) -> None:
    repl.retry()


@command("undo", "Drop the last exchange from the conversation (kept in the database, marked undone).")
def _undo(repl: Repl, arg: str) -> None:
    repl.undo()


@command("copy", "Copy the last reply to the clipboard.")
def _copy(repl: Repl, arg: str) -> None:
    text = repl.last_reply_text()
    if not text:
        raise MemchatError("there is no reply to copy yet")
    for tool in (["wl-copy"], ["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"], ["pbcopy"]):
        if shutil.which(tool[0]):
            try:
                subprocess.run(tool, input=text.encode(), check=True, timeout=5, capture_output=True)
            except (OSError, subprocess.SubprocessError) as exc:
                raise MemchatError(f"{tool[0]} failed: {exc}") from None
            repl.info(f"copied {len(text)} characters with {tool[0]}")
            return
    raise MemchatError("no clipboard tool found (install wl-clipboard, xclip or xsel); /export writes a file instead")


@command("export", "Export this session to a file (created 0600).", args="[md|json] [FILE]", complete=_formats)
def _export(repl: Repl, arg: str) -> None:
    from memchat import sessions
    from memchat.files import write_private

    if repl.session is None:
        raise MemchatError("nothing to export yet")
    parts = arg.split(maxsplit=1)
    named = bool(parts) and parts[0] in ("md", "json", "markdown")
    fmt = parts[0] if named else "md"
    rest = (parts[1] if len(parts) > 1 else "") if named else arg
    path = rest.strip() or f"memchat-session-{repl.session.id}.{'json' if fmt == 'json' else 'md'}"
    write_private(path, sessions.export_session(repl.db, repl.session.id, fmt))
    repl.info(f"wrote {path}")


@command("exit", "Quit (Ctrl-D also quits).", aliases=("quit", "q"))
def _exit(repl: Repl, arg: str) -> None:
    repl.running = False


# Feature modules register their own commands in the same table.
from memchat import commands_context, commands_lifecycle, commands_memory  # noqa: E402,F401
