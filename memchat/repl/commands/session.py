"""Slash commands for the conversation: /new, /sessions, /resume, /title, /model, /system, /retry,
/undo, /copy, /export, /cost, /exit."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.errors import MemchatError, UsageError
from memchat.files import check_target, write_private
from memchat.repl.command import CommandSet, choices
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.repl.state import ReplState

COMMANDS = CommandSet()
command = COMMANDS.command

FORMATS = {"md": "md", "markdown": "md", "json": "json"}
KNOWN_MODELS = (
    "claude-sonnet-5-5",
    "claude-opus-5-5",
    "claude-haiku-5-5",
    "claude-opus-4-8",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
)


def _session_ids(repl: ReplState, prefix: str) -> Iterable[tuple[str, str]]:
    """The ids of the sessions most recently used first, each with its title for the menu."""
    prefix = prefix.strip().lstrip("#")
    return [
        (str(s.id), " ".join((s.title or "(untitled)").split()))
        for s in repl.app.chat.list_sessions(limit=50)
        if str(s.id).startswith(prefix)
    ]


@command("new", "Start a new session.")
def _new(repl: ReplState, arg: str) -> None:
    repl.new_session()
    repl.info("new session (it is saved when you send the first message)")


@command("sessions", "List recent sessions.", args="[N]")
def _sessions(repl: ReplState, arg: str) -> None:
    if arg and not (arg.isascii() and arg.isdigit()):
        raise UsageError("usage: /sessions [N]")
    rows = repl.app.chat.list_sessions(limit=int(arg) if arg else 10)
    if not rows:
        repl.info("no sessions yet")
        return
    current = repl.session.id if repl.session else None
    repl.say(
        "\n".join(
            f"{'*' if s.id == current else ' '} {s.id:>4}  {s.updated_at[:16].replace('T', ' ')}  {s.message_count:>4} msgs  "
            f"{s.title or '(untitled)'}"
            for s in rows
        )
    )


@command("resume", "Switch to a stored session.", args="ID", complete=_session_ids)
def _resume(repl: ReplState, arg: str) -> None:
    if not arg:
        raise UsageError("usage: /resume ID (see /sessions)")
    repl.resume(arg)


@command("attach", "Send a file with your next message (text, or an image); alone: what is attached.", args="[FILE]")
def _attach(repl: ReplState, arg: str) -> None:
    from memchat.attachments import read

    name = arg.strip()
    if len(name) > 1 and name[0] == name[-1] and name[0] in "'\"":  # a quoted name with spaces
        name = name[1:-1]
    if not name:
        if not repl.attached:
            repl.info("nothing attached: /attach FILE sends a file with your next message")
        for a in repl.attached:
            repl.info(f"attached: {a.name} ({_size(a)})")
        return
    attachment = read(name)  # a missing, unreadable or binary file: one line, nothing attached
    if attachment.is_image and not repl.app.provider.can_see_images:
        raise UsageError(f"the {repl.app.provider.name} provider cannot take images: attach text files only")
    repl.attached.append(attachment)
    repl.info(f"attached {attachment.name} ({_size(attachment)}) to your next message")


def _size(a: Any) -> str:
    return f"{a.media_type}, {len(a.data):,} bytes" if a.is_image else f"{len(a.text):,} characters"


@command("detach", "Drop the files attached to your next message.")
def _detach(repl: ReplState, arg: str) -> None:
    dropped, repl.attached = repl.attached, []
    repl.info(f"dropped {', '.join(a.name for a in dropped)}" if dropped else "nothing was attached")


@command("title", "Rename this session.", args="TEXT")
def _title(repl: ReplState, arg: str) -> None:
    if not arg:
        raise UsageError("usage: /title TEXT")
    session = repl.ensure_session()
    repl.session = repl.app.chat.rename_session(session.id, arg)
    repl.info(f"session {repl.session.id}: {repl.session.title}")


@command("model", "Show or change the model.", args="[NAME]", complete=choices(*KNOWN_MODELS))
def _model(repl: ReplState, arg: str) -> None:
    if arg:
        repl.app.configure(model=arg)
    model = repl.app.provider.model_name(repl.settings.model)
    if model != repl.settings.model:  # the echo provider: no model answers, whatever is set
        repl.info(f"model: {model} (the {repl.settings.provider} provider; {repl.settings.model} with a real one)")
    else:
        repl.info(f"model: {model}")


@command("system", "Show or set this session's system prompt.", args="[TEXT]")
def _system(repl: ReplState, arg: str) -> None:
    if not arg:
        repl.say(repl.app.chat.system_prompt(repl.session))
        return
    repl.session = repl.app.chat.set_system(repl.ensure_session(), arg)
    repl.info("system prompt set for this session")


@command("retry", "Resend the last unanswered or failed message.")
def _retry(repl: ReplState, arg: str) -> None:
    repl.retry()


@command("undo", "Drop the last exchange from the conversation (kept in the database, marked undone).")
def _undo(repl: ReplState, arg: str) -> None:
    repl.undo()


@command("copy", "Copy the last reply to the clipboard.")
def _copy(repl: ReplState, arg: str) -> None:
    text = repl.app.chat.last_reply(repl.session)
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


@command(
    "export", "Export this session to a file (created 0600).", args="[md|json] [FILE]", complete=choices("md", "json")
)
def _export(repl: ReplState, arg: str) -> None:
    if repl.session is None:
        raise MemchatError("nothing to export yet")
    parts = arg.split(maxsplit=1)
    fmt, name = None, arg.strip()
    if parts and parts[0].lower() in FORMATS:
        fmt, name = FORMATS[parts[0].lower()], parts[1].strip() if len(parts) > 1 else ""
    elif len(parts) > 1:
        raise UsageError(f"unknown export format {parts[0]!r}: use /export [md|json] [FILE]")
    elif name and not Path(name).suffix:
        raise UsageError(f"unknown export format {name!r}: use md or json (a file name needs an extension: {name}.md)")
    if fmt is None:
        fmt = {".json": "json", ".md": "md", ".markdown": "md"}.get(Path(name).suffix.lower(), "md") if name else "md"
    path = name or f"memchat-session-{repl.session.id}.{fmt}"
    check_target(Path(path).expanduser())  # a directory or a device: refused before any question
    if Path(path).expanduser().exists() and not _may_replace(repl, path):
        repl.info(f"{path} exists; nothing written (name another file)")
        return
    with repl.app.audit_if_done():  # recorded only once the file is written
        write_private(path, repl.app.chat.export_session(repl.session.id, fmt, to=str(path)))
    repl.info(f"wrote {path}")


def _may_replace(repl: ReplState, path: str) -> bool:
    if not repl.interactive:
        return False
    from prompt_toolkit.shortcuts import confirm

    try:
        return bool(confirm(f"{path} exists. Replace it?"))
    except (EOFError, KeyboardInterrupt):
        return False


@command("cost", "What this session's calls cost, and today's (chat apart from memory and summaries).")
def _cost(repl: ReplState, arg: str) -> None:
    from memchat.ui.tables import purpose_split, usage_table

    for label, rows in (
        ("this session", repl.app.usage(session_id=repl.session.id) if repl.session else []),
        ("today", repl.app.usage(since="today")),
    ):
        if rows:
            repl.info(f"{label}: {purpose_split(rows)}")
            console.out().print(usage_table(rows))
        else:
            repl.info(f"{label}: no model calls recorded")


@command("exit", "Quit (Ctrl-D also quits).", aliases=("quit", "q"))
def _exit(repl: ReplState, arg: str) -> None:
    repl.running = False
