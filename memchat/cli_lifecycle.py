"""`memchat memories capture` and `memchat memories review`: the lifecycle of memories."""

from __future__ import annotations

from typing import Optional

import typer

from memchat.cli import state
from memchat.cli_memory import memories_app


@memories_app.command()
def capture(
    ctx: typer.Context,
    session_id: Optional[str] = typer.Option(None, "--session", "-s", help="Only this session (default: every session with uncaptured turns)."),
    final: bool = typer.Option(False, "--final", help="Also write the session's episodic summary."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing (used by the background capture of `ask`)."),
) -> None:
    """Extract memories from turns not yet captured (normally automatic, in the background)."""
    from memchat import render, sessions
    from memchat.cli_memory import embedder
    from memchat.memory.capture import capture_session, pending_sessions
    from memchat.providers import get_provider

    st = state(ctx)
    settings = st.settings()
    db = st.db()
    ids = [sessions.get_session(db, session_id).id] if session_id else pending_sessions(db)
    provider = get_provider(settings.provider, settings)
    provider.ready()
    enc = embedder(st)
    for sid in ids:
        result = capture_session(db, settings, provider, sid, final=final or not session_id, embedder=enc)
        if not quiet:
            counts: dict[str, int] = {}
            for o in result.outcomes:
                counts[o.action] = counts.get(o.action, 0) + 1
            summary = ", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "nothing new"
            render.out().print(f"session {sid}: {result.turns} new messages read; {summary}", markup=False)


@memories_app.command()
def review(
    ctx: typer.Context,
    confirm_ids: Optional[list[str]] = typer.Option(None, "--confirm", help="Confirm pending memory ID (repeatable)."),
    reject_ids: Optional[list[str]] = typer.Option(None, "--reject", help="Reject (forget) pending memory ID (repeatable)."),
) -> None:
    """Walk the pending memories: confirm, edit or reject each (or use --confirm/--reject)."""
    from memchat import render
    from memchat.cli_ask import stdin_is_tty
    from memchat.memory.store import MemoryStore

    store = MemoryStore(state(ctx).db())
    if confirm_ids or reject_ids:
        for mid in confirm_ids or []:
            m = store.confirm(mid)
            typer.echo(f"confirmed memory {m.id}: {render.sanitize(m.text)}")
        for mid in reject_ids or []:
            store.reject(mid)
            typer.echo(f"rejected memory {mid}")
        return
    pending = store.list(status="pending")
    if not pending:
        typer.echo("no memories waiting for review")
        return
    if not stdin_is_tty():
        for m in pending:
            typer.echo(f"{m.id}\t{m.kind}\t{render.sanitize(m.text)}")
        render.note("confirm or reject with: memchat memories review --confirm ID --reject ID")
        return
    for m in pending:
        typer.echo(f"\nmemory {m.id} ({m.kind}, {m.origin}, sensitive={'yes' if m.sensitive else 'no'}):")
        typer.echo(f"  {render.sanitize(m.text)}")
        choice = typer.prompt("[c]onfirm, [e]dit, [r]eject, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if choice == "q":
            break
        if choice == "c":
            store.confirm(m.id)
            typer.echo("confirmed")
        elif choice == "r":
            store.reject(m.id)
            typer.echo("rejected and forgotten")
        elif choice == "e":
            text = typer.prompt("new text", default=m.text)
            store.edit(m.id, text)
            store.confirm(m.id)
            typer.echo("edited and confirmed")
