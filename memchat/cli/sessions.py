"""`memchat sessions ...`: list, show, rename, delete, export and pin stored sessions."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from memchat.cli.common import (
    JSON_HELP,
    JSONL_HELP,
    complete_session_ids,
    confirm,
    emit,
    export_format,
    json_mode,
    may_overwrite,
    print_stored,
    scrub_notes,
    write_or_print,
)
from memchat.cli.common import app as open_app
from memchat.errors import ExitCode, UsageError
from memchat.text import id_ranges, plural, sanitize
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.sessions import Session

sessions_app = typer.Typer(help="List, show, rename, delete and export sessions.", no_args_is_help=True)


@sessions_app.command("list")
def list_(
    ctx: typer.Context,
    limit: int = typer.Option(20, "--limit", "-n", min=0, help="How many (0: all)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jsonl_out: bool = typer.Option(False, "--jsonl", help=JSONL_HELP),
) -> None:
    """List sessions, most recent first."""
    from memchat.ui.tables import sessions_table

    mode = json_mode(json_out, jsonl_out)
    rows = open_app(ctx).chat.list_sessions(limit=limit or None)
    emit(rows, mode, asdict, sessions_table, "no sessions yet: start one with `memchat` or `memchat ask`")


@sessions_app.command()
def show(
    ctx: typer.Context,
    session_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_session_ids, help="The session's id, as `sessions list` shows it."
    ),
    around: str | None = typer.Option(
        None, "--around", "-a", metavar="MSG", help="Only the messages around this one (as recall cites it)."
    ),
    context: int = typer.Option(3, "--context", "-C", min=0, help="With --around: messages on each side."),
    json_out: bool = typer.Option(False, "--json", help="memchat's JSON export."),
) -> None:
    """Show a session's transcript, each message with its id (the one recall and pin use)."""
    memchat = open_app(ctx)
    if json_out:
        print_stored(memchat.chat.export_session(session_id, "json", around=around, context=context))
        return
    text = memchat.chat.export_session(session_id, "md", around=around, context=context)
    if console.stdout_is_tty():
        from rich.markdown import Markdown

        console.out().print(Markdown(sanitize(text)))
    else:
        typer.echo(sanitize(text), nl=False)


@sessions_app.command()
def rename(
    ctx: typer.Context,
    session_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_session_ids, help="The session's id, as `sessions list` shows it."
    ),
    title: list[str] = typer.Argument(..., metavar="TITLE", help="The new title."),
) -> None:
    """Give a session a new title."""
    s = open_app(ctx).chat.rename_session(session_id, " ".join(title))
    typer.echo(f"session {s.id}: {sanitize(s.title or '')}")


@sessions_app.command()
def delete(
    ctx: typer.Context,
    session_ids: list[str] | None = typer.Argument(
        None,
        metavar="[ID|FIRST-LAST]...",
        autocompletion=complete_session_ids,
        help="Sessions' ids and ranges (3 5 7-9), as `sessions list` shows them.",
    ),
    empty: bool = typer.Option(
        False, "--empty", help="Every session with no exchange (no reply), as a failed ask leaves one."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Delete sessions and all their messages, with what was learnt only from them.

    Nothing is deleted when an id is unknown or a range holds no session (a range may have gaps).
    """
    if not session_ids and not empty:
        raise UsageError("give the sessions to delete: ids or ranges (3 5 7-9), or --empty")
    memchat = open_app(ctx)
    doomed = {s.id: s for s in memchat.chat.sessions_named(session_ids or [])}  # a bad id: said before anything
    if empty:
        doomed.update((s.id, s) for s in memchat.chat.sessions_without_reply())
    targets = [doomed[i] for i in sorted(doomed)]
    if not targets:
        console.note("no session without a reply: nothing to delete")
        return
    if not confirm(_delete_question(targets, yes), yes, refusing="to delete"):
        console.note("nothing deleted")
        raise typer.Exit(ExitCode.FAILURE)
    done = memchat.chat.delete_sessions([s.id for s in targets])
    for s in targets:
        typer.echo(f"deleted session {s.id}")
    if done.ids:
        drawn = "it" if len(targets) == 1 else "them"
        console.note(
            f"forgot {plural(len(done.ids), 'memory', 'memories')} drawn only from {drawn}: {id_ranges(done.ids)}"
        )
    scrub_notes(done.complete, done.compacted, done.no_room, done.owed)


def _delete_question(targets: list[Session], yes: bool) -> str:
    """What to ask before deleting; several sessions are listed first (on stderr), when asking."""

    def described(s: Session) -> str:
        return f"{sanitize(s.title or 'untitled')}, {plural(s.message_count, 'message')}"

    if len(targets) == 1:
        return f"Delete session {targets[0].id} ({described(targets[0])})?"
    if not yes:
        for s in targets:
            console.say(f"  {s.id}: {described(s)}", console.err())
    return f"Delete these {len(targets)} sessions?"


@sessions_app.command()
def export(
    ctx: typer.Context,
    session_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_session_ids, help="The session's id, as `sessions list` shows it."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="md or json; default: by the file's extension, else md."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="Write to FILE (created 0600); - is stdout."),
    force: bool = typer.Option(False, "--force", help="Replace FILE if it exists, without asking."),
) -> None:
    """Export a session as Markdown or JSON."""
    chosen = export_format(fmt, output, "md")
    memchat = open_app(ctx)
    with memchat.audit_if_done():  # refused or failed: nothing written, nothing recorded
        text = memchat.chat.export_session(session_id, chosen, to=output or "-")  # an unknown session is said first
        may_overwrite(output, force)
        write_or_print(text, output)


@sessions_app.command()
def pin(
    ctx: typer.Context,
    session_id: str = typer.Argument(
        ..., metavar="SESSION", autocompletion=complete_session_ids, help="The session's id."
    ),
    number: str = typer.Argument(..., metavar="MSG", help="The message's id, as `sessions show` and recall give it."),
) -> None:
    """Pin a message: it is always sent verbatim, whatever the budget."""
    _set_pin(ctx, session_id, number, True)


@sessions_app.command()
def unpin(
    ctx: typer.Context,
    session_id: str = typer.Argument(
        ..., metavar="SESSION", autocompletion=complete_session_ids, help="The session's id."
    ),
    number: str = typer.Argument(..., metavar="MSG", help="The message's id."),
) -> None:
    """Unpin a message."""
    _set_pin(ctx, session_id, number, False)


def _set_pin(ctx: typer.Context, session_id: str, number: str, pinned: bool) -> None:
    from memchat.sessions import title_from

    memchat = open_app(ctx)
    s = memchat.chat.session(session_id)
    m = memchat.chat.pin_message(s, number, pinned)
    typer.echo(
        f"{'pinned' if pinned else 'unpinned'} message {m.id} in session {s.id}: {sanitize(title_from(m.content))}"
    )
