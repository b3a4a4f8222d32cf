"""`memchat memories capture` and `memchat memories review`: how extracted memories come and are checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import complete_session_ids, load_encoder
from memchat.errors import parse_id
from memchat.text import sanitize
from memchat.ui import console
from memchat.ui.terminal import stdin_is_tty

if TYPE_CHECKING:
    from memchat.memory.capture.turns import CaptureResult


def capture(
    ctx: typer.Context,
    session_id: str | None = typer.Option(
        None,
        "--session",
        "-s",
        autocompletion=complete_session_ids,
        help="Only this session, and what was said in it while learning was not agreed (default: every "
        "session with uncaptured turns, never what was said under no).",
    ),
    final: bool = typer.Option(False, "--final", help="Also write the session's episodic summary."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing."),
    background: bool = typer.Option(
        False, "--background", hidden=True, help="The detached run of `ask` and REPL quit: quiet, idle sessions too."
    ),
    only_sessions: str | None = typer.Option(
        None, "--only-sessions", hidden=True, help="With --background: these session ids (comma separated) only."
    ),
) -> None:
    """Extract memories from turns not yet captured (normally automatic, in the background)."""

    def report(result: CaptureResult) -> None:
        counts: dict[str, int] = {}
        for o in result.outcomes:
            counts[o.action] = counts.get(o.action, 0) + 1
        summary = ", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "nothing new"
        console.say(f"session {result.session_id}: {result.turns} new messages read; {summary}")

    memchat = open_app(ctx)
    if session_id is not None:
        memchat.chat.session(session_id)  # no such session, or no key: say so before loading anything
    memchat.memory_provider.ready()
    if background:  # the encoder loads only if there is something worth capturing
        only = [parse_id(i, "session") for i in only_sessions.split(",")] if only_sessions else None
        # Asked again here: a `memchat consent no` since the chat that started this run stops it
        # (sessions the user named, an import's, were asked for whatever the answer)
        if only or memchat.capture.can_capture:
            memchat.capture.run(session_id, final=True, background=True, only=only)
        if memchat.privacy.retention_due():  # `ask` has no warm-up: its detached run applies the windows
            memchat.privacy.apply_retention()
        return
    load_encoder(memchat)
    memchat.capture.run(session_id, final=final, on_result=None if quiet else report)


def review(
    ctx: typer.Context,
    confirm_ids: list[str] | None = typer.Option(None, "--confirm", help="Confirm pending memory ID (repeatable)."),
    reject_ids: list[str] | None = typer.Option(
        None, "--reject", help="Reject (forget) pending memory ID (repeatable)."
    ),
) -> None:
    """Walk the pending memories: confirm, edit or reject each (or use --confirm/--reject)."""
    memchat = open_app(ctx)
    if confirm_ids or reject_ids:
        for mid in confirm_ids or []:
            m = memchat.store.confirm(mid)
            typer.echo(f"confirmed memory {m.id}: {sanitize(m.text)}")
        for mid in reject_ids or []:
            memchat.store.reject(mid)
            typer.echo(f"rejected memory {mid}")
        return
    pending = memchat.store.find(status="pending")
    if not pending:
        typer.echo("no memories waiting for review")
        return
    if not stdin_is_tty():
        for m in pending:
            typer.echo(f"{m.id}\t{m.kind}\t{sanitize(m.text)}")
        console.note("confirm or reject with: memchat memories review --confirm ID --reject ID")
        return
    for m in pending:
        typer.echo(f"\nmemory {m.id} ({m.kind}, {m.origin}, sensitive={'yes' if m.sensitive else 'no'}):")
        typer.echo(f"  {sanitize(m.text)}")
        choice = typer.prompt("[c]onfirm, [e]dit, [r]eject, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if choice == "q":
            break
        if choice == "c":
            memchat.store.confirm(m.id)
            typer.echo("confirmed")
        elif choice == "r":
            memchat.store.reject(m.id)
            typer.echo("rejected and forgotten")
        elif choice == "e":
            text = typer.prompt("new text", default=m.text)
            memchat.store.edit(m.id, text)
            memchat.store.confirm(m.id)
            typer.echo("edited and confirmed")
