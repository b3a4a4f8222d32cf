"""`memchat sessions ...`: list, show, rename, delete and export stored sessions."""

from __future__ import annotations

from dataclasses import asdict
from typing import Optional

import typer

from memchat.cli import app, state
from memchat.errors import UsageError

sessions_app = typer.Typer(help="List, show, rename, delete and export sessions.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")


def confirm(question: str, yes: bool) -> bool:
    """Ask on a terminal; refuse (not guess) when there is nobody to ask."""
    from memchat.cli_ask import stdin_is_tty

    if yes:
        return True
    if not stdin_is_tty():
        raise UsageError("refusing to delete without confirmation: pass --yes when not on a terminal")
    try:
        return typer.confirm(question, default=False)
    except (typer.Abort, EOFError, KeyboardInterrupt):
        return False


@sessions_app.command("list")
def list_(
    ctx: typer.Context,
    limit: int = typer.Option(20, "--limit", "-n", min=0, help="How many (0: all)."),
    json_out: bool = typer.Option(False, "--json", help="JSON lines."),
) -> None:
    """List sessions, most recent first."""
    from memchat import render, sessions

    rows = sessions.list_sessions(state(ctx).db(), limit=limit or None)
    if json_out:
        for s in rows:
            render.print_json(asdict(s))
        return
    if not rows:
        render.note("no sessions yet: start one with `memchat` or `memchat ask`")
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for col in ("id", "title", "msgs", "updated", "model"):
        table.add_column(col, overflow="fold" if col == "title" else "ellipsis",
                         justify="right" if col in ("id", "msgs") else "left")
    for s in rows:
        table.add_row(str(s.id), render.sanitize(s.title or "(untitled)"), str(s.message_count),
                      s.updated_at[:16].replace("T", " "), s.model or "")
    render.out().print(table)


@sessions_app.command()
def show(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID"),
    json_out: bool = typer.Option(False, "--json", help="memchat's JSON export."),
) -> None:
    """Show a session's transcript."""
    from memchat import render, sessions

    db = state(ctx).db()
    if json_out:
        typer.echo(sessions.export_session(db, session_id, "json"), nl=False)
        return
    text = sessions.export_session(db, session_id, "md")
    if render.stdout_is_tty():
        from rich.markdown import Markdown

        render.out().print(Markdown(render.sanitize(text)))
    else:
        typer.echo(render.sanitize(text), nl=False)


@sessions_app.command()
def rename(ctx: typer.Context, session_id: str = typer.Argument(..., metavar="ID"),
           title: list[str] = typer.Argument(..., metavar="TITLE")) -> None:
    """Give a session a new title."""
    from memchat import sessions

    s = sessions.rename_session(state(ctx).db(), session_id, " ".join(title))
    typer.echo(f"session {s.id}: {s.title}")


@sessions_app.command()
def delete(ctx: typer.Context, session_id: str = typer.Argument(..., metavar="ID"),
           yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Delete a session and all its messages."""
    from memchat import render, sessions

    db = state(ctx).db()
    s = sessions.get_session(db, session_id)
    if not confirm(f"Delete session {s.id} ({s.title or 'untitled'}, {s.message_count} messages)?", yes):
        render.note("nothing deleted")
        raise typer.Exit(1)
    sessions.delete_session(db, s.id)
    typer.echo(f"deleted session {s.id}")


@sessions_app.command()
def export(
    ctx: typer.Context,
    session_id: str = typer.Argument(..., metavar="ID"),
    fmt: str = typer.Option("md", "--format", "-f", help="md or json."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE (created 0600)."),
) -> None:
    """Export a session as Markdown or JSON."""
    from memchat import sessions
    from memchat.files import write_private

    text = sessions.export_session(state(ctx).db(), session_id, fmt)
    if output:
        write_private(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        typer.echo(text, nl=False)


@sessions_app.command()
def pin(ctx: typer.Context, session_id: str = typer.Argument(..., metavar="SESSION"),
        number: str = typer.Argument(..., metavar="MSG", help="The message's number, as `sessions show` gives it.")) -> None:
    """Pin a message: it is always sent verbatim, whatever the budget."""
    _set_pin(ctx, session_id, number, True)


@sessions_app.command()
def unpin(ctx: typer.Context, session_id: str = typer.Argument(..., metavar="SESSION"),
          number: str = typer.Argument(..., metavar="MSG")) -> None:
    """Unpin a message."""
    _set_pin(ctx, session_id, number, False)


def _set_pin(ctx: typer.Context, session_id: str, number: str, pinned: bool) -> None:
    from memchat import sessions

    db = state(ctx).db()
    s = sessions.get_session(db, session_id)
    m = sessions.message_by_number(db, s.id, number)
    sessions.set_pinned(db, m.id, pinned)
    typer.echo(f"{'pinned' if pinned else 'unpinned'} #{number} in session {s.id}: {sessions.title_from(m.content)}")
