"""`memchat recall` and `memchat reindex`: finding things, and keeping them findable."""

from __future__ import annotations

import sys

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import complete_session_ids, load_encoder, progress_bar
from memchat.text import plural
from memchat.ui import console


def recall(
    ctx: typer.Context,
    query: list[str] = typer.Argument(..., metavar="QUERY", help="What to look for, in your own words."),
    kind: list[str] | None = typer.Option(None, "--kind", "-k", help="fact, event, rule or message (repeatable)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many results."),
    since: str | None = typer.Option(None, "--since", help="Only from this date/time on (2026-01-01)."),
    until: str | None = typer.Option(None, "--until", help="Only up to this date/time."),
    session: str | None = typer.Option(
        None, "--session", "-s", autocompletion=complete_session_ids, help="Only this session."
    ),
    min_score: float | None = typer.Option(
        None, "--min-score", min=0.0, max=1.0, help="Only hits of at least this relevance (0-1), for scripts."
    ),
    all_: bool = typer.Option(False, "--all", hidden=True, help="Kept for scripts: recall always shows its best."),
    json_out: bool = typer.Option(
        False, "--json", help="A JSON array of hits, each with its score and weak flag ([] when none)."
    ),
) -> None:
    """Search what memchat remembers: memories and past conversations, best first.

    Shows the best matches whatever their relevance; weak ones (below `recall.weak`) are labelled.
    """
    from memchat.ui import memory as show

    memchat = open_app(ctx)
    if session is not None:
        memchat.chat.session(session)  # a bad or unknown session is said before anything loads
    load_encoder(memchat, alongside=memchat.preload_vectors)
    text = " ".join(query)

    def search(limit: int, min_score: float | None = None) -> list:
        with progress_bar("embedding new messages") as progress:
            return memchat.memories.recall(
                text,
                kinds=kind or None,
                limit=limit,
                since=since,
                until=until,
                session=session,
                min_score=min_score,
                progress=progress,
            )

    hits = search(limit, min_score)
    if json_out:
        console.print_json([show.hit_json(h) for h in hits])
    elif hits and console.plainly_piped(sys.stdout):  # for grep and cut, and no Rich to import
        sys.stdout.write(show.hit_rows(hits))
    elif hits:
        console.out().print(show.hits_table(hits, text))
    else:
        nearest = search(1) if min_score is not None else []
        filtered = bool(kind) or any(v is not None for v in (since, until, session))
        console.note(show.no_hits(nearest[0] if nearest else None, min_score, filtered))


def reindex(ctx: typer.Context, full: bool = typer.Option(False, "--full", help="Re-embed everything.")) -> None:
    """Rebuild the search indexes; re-embed what is new, changed, or from another model."""
    memchat = open_app(ctx)
    load_encoder(memchat)
    name = memchat.embedder().model_name
    with progress_bar(f"embedding with {name}", minimum=1) as progress:
        result = memchat.memories.reindex(full=full, progress=progress)
    typer.echo(
        f"reindexed with {name}: {plural(result.memories, 'memory', 'memories')} and "
        f"{plural(result.messages, 'message')} embedded"
    )
