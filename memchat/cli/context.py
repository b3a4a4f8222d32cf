"""`memchat context`: the token budget of a session's next call."""

from __future__ import annotations

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import complete_session_ids
from memchat.ui import console


def context(
    ctx: typer.Context,
    session_id: str | None = typer.Option(
        None, "--session", "-s", autocompletion=complete_session_ids, help="Session ID (default: the latest)."
    ),
    json_out: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Show the token budget of the next call: each part's tokens and share of the window."""
    from memchat.ui import tables

    memchat = open_app(ctx)
    session = memchat.chat.session(session_id) if session_id is not None else memchat.chat.latest_session()
    budget = memchat.chat.preview(session).budget
    if json_out:
        console.print_json({"session_id": session.id if session else None, **budget.as_dict()})
        return
    console.out().print(tables.budget_table(budget))
