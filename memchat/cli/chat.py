"""`memchat chat` and bare `memchat`: the interactive REPL."""

from __future__ import annotations

import typer

from memchat.cli.common import complete_session_ids, state
from memchat.cli.runner import CliState, open_chat


def run_chat(st: CliState, *, session: str | None, continue_: bool, no_memory: bool = False) -> None:
    code = open_chat(st, session=session, continue_=continue_, no_memory=no_memory)
    if code:
        raise typer.Exit(code)


def chat(
    ctx: typer.Context,
    continue_: bool = typer.Option(False, "--continue", "-c", help="Resume the latest session."),
    session: str | None = typer.Option(
        None, "--session", "-s", autocompletion=complete_session_ids, help="Resume session ID."
    ),
    no_memory: bool = typer.Option(False, "--no-memory", help="Neither read nor write long-term memory."),
) -> None:
    """Chat interactively (the default command)."""
    st = state(ctx)
    run_chat(
        st,
        session=session if session is not None else st.session,
        continue_=continue_ or st.continue_,
        no_memory=no_memory,
    )
