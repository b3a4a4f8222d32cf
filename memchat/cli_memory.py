"""`memchat recall`, `memchat memories ...`, `memchat import`, `memchat reindex`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Optional

import typer

from memchat.cli import app, state
from memchat.errors import UsageError
from memchat.render import sanitize

if TYPE_CHECKING:
    from memchat.cli import AppState
    from memchat.memory.embed import Embedder
    from memchat.memory.store import MemoryStore

memories_app = typer.Typer(help="List, show, add, edit, pin, forget, export and import memories.",
                           no_args_is_help=True)
app.add_typer(memories_app, name="memories")

PROGRESS_FROM = 64  # a bar for catch-ups of at least this many texts


# --- shared helpers ---------------------------------------------------------------------------

def embedder(st: AppState) -> Embedder:
    """The configured encoder, loaded once per process (with a spinner on a terminal)."""
    from memchat import render
    from memchat.memory.embed import configured, is_loaded

    settings = st.settings()
    name = settings.get("memory.embedding_model")
    if is_loaded(name) or not render.err().is_terminal:
        return configured(settings)
    with render.err().status(f"loading the embedding model {name}…", spinner="dots"):
        return configured(settings)


@contextlib.contextmanager
def progress_bar(label: str, minimum: int = PROGRESS_FROM) -> Iterator[Callable[[int, int], None]]:
    """A callback (done, total) that draws a Rich progress bar on stderr once total >= minimum."""
    from memchat import render

    console = render.err()
    bar: Any = None
    task: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            if total < minimum or not console.is_terminal:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeRemainingColumn(), console=console, transient=True)
            bar.start()
            task = bar.add_task(label, total=total)
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()


def count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def emit(items: list, json_out: bool, to_json: Callable[[Any], dict], table: Callable[[list], Any],
         empty: str) -> None:
    """JSON lines, or a table (a note on stderr when there is nothing to show)."""
    from memchat import render

    if json_out:
        for item in items:
            render.print_json(to_json(item))
    elif not items:
        render.note(empty)
    else:
        render.out().print(table(items))


def _store(ctx: typer.Context) -> MemoryStore:
    from memchat.memory.store import MemoryStore

    return MemoryStore(state(ctx).db())


def confirm(question: str, yes: bool) -> bool:
    from memchat.cli_sessions import confirm as ask

    return ask(question, yes)


# --- memchat recall ---------------------------------------------------------------------------

@app.command()
def recall(
    ctx: typer.Context,
    query: list[str] = typer.Argument(..., metavar="QUERY", help="What to look for, in your own words."),
    kind: Optional[list[str]] = typer.Option(None, "--kind", "-k", help="fact, event, rule or message (repeatable)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many results."),
    since: Optional[str] = typer.Option(None, "--since", help="Only from this date/time on (2026-01-01)."),
    until: Optional[str] = typer.Option(None, "--until", help="Only up to this date/time."),
    session: Optional[str] = typer.Option(None, "--session", "-s", help="Only this session."),
    json_out: bool = typer.Option(False, "--json", help="JSON lines."),
) -> None:
    """Search what memchat remembers: memories and past conversations."""
    from memchat import render_memory
    from memchat.memory.search import recall as search
    from memchat.sessions import parse_session_id

    st = state(ctx)
    db = st.db()
    session_id = parse_session_id(session) if session else None
    enc = embedder(st)
    with progress_bar("embedding new messages") as progress:
        hits = search(db, " ".join(query), enc, kinds=kind or None, limit=limit, since=since, until=until,
                      session_id=session_id, catch_up=True, progress=progress)
    emit(hits, json_out, render_memory.hit_json, render_memory.hits_table, "nothing found")


# --- memchat memories ... ---------------------------------------------------------------------

_STATUS_HELP = "active, pending, superseded, forgotten or all (default: active and pending)."


@memories_app.command("list")
def list_(
    ctx: typer.Context,
    kind: Optional[str] = typer.Option(None, "--kind", "-k", help="fact, event or rule."),
    status: Optional[str] = typer.Option(None, "--status", help=_STATUS_HELP),
    pinned: bool = typer.Option(False, "--pinned", help="Only pinned memories."),
    json_out: bool = typer.Option(False, "--json", help="JSON lines."),
) -> None:
    """List memories."""
    from memchat import render_memory

    statuses: Any = ("active", "pending") if status is None else (None if status == "all" else status)
    rows = _store(ctx).list(kind=kind, status=statuses, pinned=True if pinned else None)
    emit(rows, json_out, render_memory.memory_json, render_memory.memories_table,
         "no memories yet: add one with `memchat memories add \"...\"` or /remember in a chat")


@memories_app.command()
def show(ctx: typer.Context, memory_id: str = typer.Argument(..., metavar="ID"),
         json_out: bool = typer.Option(False, "--json", help="JSON.")) -> None:
    """Show one memory with all its fields."""
    from memchat import render, render_memory

    m = _store(ctx).get(memory_id)
    if json_out:
        render.print_json(render_memory.memory_json(m))
    else:
        render.out().print(render_memory.memory_details(m), markup=False, highlight=False)


@memories_app.command()
def add(
    ctx: typer.Context,
    text: list[str] = typer.Argument(..., metavar="TEXT"),
    kind: str = typer.Option("fact", "--kind", "-k", help="fact, event or rule."),
    key: Optional[str] = typer.Option(None, "--key", help="entity.attribute, e.g. user.city: a new value supersedes the old."),
    value: Optional[str] = typer.Option(None, "--value", help="The value for --key, e.g. Lisbon."),
    importance: float = typer.Option(0.5, "--importance", min=0.0, max=1.0, help="0 to 1."),
    pin: bool = typer.Option(False, "--pin", help="Pin it."),
) -> None:
    """Add a memory (yours: origin manual)."""
    store = _store(ctx)
    m = store.add(" ".join(text), kind=kind, key=key, value=value, importance=importance, pinned=pin,
                  origin="manual")
    typer.echo(f"memory {m.id} ({m.kind}): {sanitize(m.text)}")
    for old in store.replaced(m.id):
        typer.echo(f"  supersedes memory {old.id}: {sanitize(old.text)}")


@memories_app.command()
def edit(
    ctx: typer.Context,
    memory_id: str = typer.Argument(..., metavar="ID"),
    text: Optional[str] = typer.Option(None, "--text", "-t", help="The new text (default: open $EDITOR)."),
    value: Optional[str] = typer.Option(None, "--value", help="A new value for its key."),
) -> None:
    """Change a memory's text (opens $EDITOR without --text)."""
    from memchat.cli_ask import stdin_is_tty

    store = _store(ctx)
    m = store.get(memory_id)
    if text is None and value is None:
        if not stdin_is_tty():
            raise UsageError("no terminal to open an editor on: pass --text")
        import click

        edited = click.edit(m.text + "\n")
        if edited is None:
            typer.echo("no change")
            return
        text = edited
    updated = store.edit(m.id, text if text is not None else m.text, value=value)
    typer.echo(f"memory {updated.id}: {sanitize(updated.text)}" if updated.updated_at != m.updated_at else "no change")


@memories_app.command()
def pin(ctx: typer.Context, memory_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Pin a memory: always a candidate for the prompt, ranked higher in recall."""
    m = _store(ctx).pin(memory_id)
    typer.echo(f"pinned memory {m.id}: {sanitize(m.text)}")


@memories_app.command()
def unpin(ctx: typer.Context, memory_id: str = typer.Argument(..., metavar="ID")) -> None:
    """Unpin a memory."""
    m = _store(ctx).unpin(memory_id)
    typer.echo(f"unpinned memory {m.id}: {sanitize(m.text)}")


@memories_app.command()
def forget(
    ctx: typer.Context,
    memory_id: Optional[str] = typer.Argument(None, metavar="[ID]"),
    query: Optional[str] = typer.Option(None, "--query", "-q", help="Forget the memories that match this."),
    all_: bool = typer.Option(False, "--all", help="Forget every memory."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="With --query: at most this many."),
    purge_sources: bool = typer.Option(False, "--purge-sources", help="Also redact the messages they came from."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Forget memories for good: the text leaves the database, its index and its vectors."""
    from memchat import render, render_memory

    if sum(x is not None and x is not False for x in (memory_id, query, all_ or None)) != 1:
        raise UsageError("give one of: an ID, --query \"...\", or --all")
    store = _store(ctx)
    if memory_id is not None:
        targets = [store.get(memory_id)]
    elif all_:
        targets = store.list(status=("active", "pending", "superseded"))
    else:
        targets = _matching(ctx, store, query or "", limit)
    targets = [m for m in targets if m.status != "forgotten"]
    if not targets:
        render.note("nothing to forget" + (f" matches {query!r}" if query else ""))
        return
    render.err().print(render_memory.memories_table(targets))
    if not confirm(f"Forget {'these ' + str(len(targets)) + ' memories' if len(targets) > 1 else 'this memory'} "
                   "for good?", yes):
        render.note("nothing forgotten")
        raise typer.Exit(1)
    done = store.forget([m.id for m in targets], purge_sources=purge_sources)
    typer.echo(f"forgot {count(len(done), 'memory', 'memories')}: {', '.join(map(str, done))}")
    if store.summary_redactions:
        render.note(f"redacted {count(store.summary_redactions, 'sentence')} of session summaries that mentioned "
                    + ("it" if len(done) == 1 else "them"))
    sources = sorted({i for m in targets for i in m.source_message_ids})
    if sources and not purge_sources:
        render.note(f"the conversation they came from is kept (messages {', '.join(map(str, sources))}); "
                    "--purge-sources redacts it too")


def _matching(ctx: typer.Context, store: MemoryStore, query: str, limit: int) -> list:
    """Memories a query clearly matches: a shared word, or a close meaning (cosine >= 0.5)."""
    hits = store.search(query, embedder(state(ctx)), kinds=("fact", "event", "rule"),
                        statuses=("active", "pending", "superseded"), limit=limit)
    ids = [h.id for h in hits if h.bm25_rank is not None or (h.cosine or 0) >= 0.5]
    found = store.get_many(ids)
    return [found[i] for i in ids if i in found]


@memories_app.command()
def history(ctx: typer.Context, memory_id: str = typer.Argument(..., metavar="ID"),
            json_out: bool = typer.Option(False, "--json", help="JSON lines.")) -> None:
    """Show what happened to a memory: added, edited, pinned, superseded, forgotten."""
    from dataclasses import asdict

    from memchat import render_memory

    emit(_store(ctx).history(memory_id), json_out, asdict, render_memory.history_table, "no history")


@memories_app.command()
def export(
    ctx: typer.Context,
    fmt: str = typer.Option("json", "--format", "-f", help="json (re-importable) or md."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to FILE (created 0600)."),
) -> None:
    """Export memories as JSON or Markdown."""
    from memchat.files import write_private
    from memchat.memory.transfer import export_text

    text = export_text(_store(ctx), fmt)
    if output:
        write_private(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        typer.echo(text, nl=False)


@memories_app.command("import")
def import_(ctx: typer.Context, path: str = typer.Argument(..., metavar="FILE")) -> None:
    """Import memories from `memchat memories export` JSON (skips what is already there)."""
    from memchat.importer import read_file
    from memchat.memory.transfer import import_text

    text, name = read_file(path)
    result = import_text(_store(ctx), text, name)
    typer.echo(f"imported {count(result.added, 'memory', 'memories')} ({result.skipped} already present)")
    if result.pending:
        from memchat import render

        render.note(f"{count(result.pending, 'memory', 'memories')} {'waits' if result.pending == 1 else 'wait'} for your review "
                    "(pending, not used until confirmed): memchat memories review")


# --- memchat import / reindex -----------------------------------------------------------------

@app.command("import")
def import_conversations(
    ctx: typer.Context,
    path: str = typer.Argument(..., metavar="FILE"),
    embed: bool = typer.Option(True, "--embed/--no-embed", help="Embed the new messages now (else on the next recall)."),
) -> None:
    """Import past conversations: a memchat session export, or JSON lines of messages."""
    from memchat.importer import import_file

    st = state(ctx)
    db = st.db()
    result = import_file(db, path)
    typer.echo(f"imported {count(result.messages_added, 'message')} into {result.sessions_added} new and "
               f"{count(result.sessions_updated, 'updated session')} ({result.messages_skipped} already present)")
    if embed and (result.message_ids or result.messages_skipped):
        from memchat.memory.index import catch_up

        # Everything without a vector, not only this run's messages: an import that was
        # interrupted while embedding is finished by running it again.
        enc = embedder(st)
        with progress_bar("embedding messages", minimum=1) as progress:
            catch_up(db, enc, progress)


@app.command()
def reindex(ctx: typer.Context, full: bool = typer.Option(False, "--full", help="Re-embed everything.")) -> None:
    """Rebuild the search indexes; re-embed what is new, changed, or from another model."""
    from memchat.memory.index import reindex as rebuild

    st = state(ctx)
    db = st.db()
    enc = embedder(st)
    with progress_bar(f"embedding with {enc.model_name}", minimum=1) as progress:
        result = rebuild(db, enc, progress, full=full)
    typer.echo(f"reindexed with {enc.model_name}: {count(result.memories, 'memory', 'memories')} and "
               f"{count(result.messages, 'message')} embedded")
