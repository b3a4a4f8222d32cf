"""`memchat log`: the last exchanges whatever their session, with the model, tokens and cost of each."""

from __future__ import annotations

from dataclasses import asdict

import typer

from memchat.cli.common import app as open_app
from memchat.ui import console


def log(
    ctx: typer.Context,
    count: int = typer.Option(3, "--count", "-n", min=0, help="How many exchanges (0: all)."),
    since: str | None = typer.Option(
        None, "--since", metavar="WHEN", help="Only from then on: 7d, 24h, today, 2026-11-01."
    ),
    query: str | None = typer.Option(
        None, "--query", "-q", metavar="TEXT", help="Only exchanges whose prompt or reply holds every word of TEXT."
    ),
    json_out: bool = typer.Option(False, "--json", help="One JSON array, oldest first ([] when none)."),
) -> None:
    """The last exchanges across all sessions, the newest last, as `llm logs` shows them.

    Each gives its session, when it was sent, the model, the tokens in and out and the cost
    (from the price table, as `memchat usage` prices; '-' for a model with no price). An
    unanswered message shows as such, with no reply.
    """
    from memchat.ui.tables import exchange_lines

    found = open_app(ctx).chat.exchanges(limit=count or None, since=since, query=query)
    if json_out:
        console.print_json([asdict(e) for e in found])
    elif not found:
        console.note(_nothing(since, query))
    else:
        exchange_lines(found)


def _nothing(since: str | None, query: str | None) -> str:
    if query is not None:
        return f"no exchange holds {query!r}" + (f" since {since}" if since else "")
    return "no exchanges" + (f" since {since}" if since else " yet: start one with `memchat` or `memchat ask`")
