"""`memchat usage`: what the calls cost, by day, model and purpose (chat, memory, summary)."""

from __future__ import annotations

from dataclasses import asdict

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import complete_session_ids
from memchat.ui import console


def usage(
    ctx: typer.Context,
    since: str | None = typer.Option(
        None, "--since", help="Only calls from then on: 7d, 24h, today, 2026-11-01 (default: all)."
    ),
    session: str | None = typer.Option(
        None, "--session", "-s", autocompletion=complete_session_ids, help="Only calls of this session."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="One JSON array, an object per day, model and purpose ([] when there is none)."
    ),
) -> None:
    """Tokens and cost of every model call, by day, model and purpose.

    Purposes: chat (your replies), memory (capture: facts, events, rules, session summaries)
    and summary (compaction of long conversations); the last line sums each apart. Prices come
    from the [prices] table of the config file, over memchat's defaults for the Claude models
    (dollars per million tokens); calls of the echo provider cost nothing and are not counted.
    """
    from memchat.ui.tables import purpose_split, usage_table

    memchat = open_app(ctx)
    session_id = memchat.chat.session(session).id if session is not None else None
    rows = memchat.usage(since=since, session_id=session_id)
    if json_out:
        console.print_json([asdict(row) for row in rows])
        return
    if not rows:
        of = f" for session {session_id}" if session_id is not None else ""
        console.note(f"no model calls recorded{of}" + (f" since {since}" if since else ""))
        return
    console.out().print(usage_table(rows))
    console.say(f"by purpose: {purpose_split(rows)}")
