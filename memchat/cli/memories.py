"""`memchat memories ...`: list, show, add, edit, pin, forget, history, export and import memories."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import typer

from memchat.cli.common import (
    JSON_HELP,
    JSONL_HELP,
    complete_memory_ids,
    confirm,
    emit,
    export_format,
    json_mode,
    load_encoder,
    may_overwrite,
    progress_bar,
    scrub_notes,
    write_or_print,
)
from memchat.cli.common import app as open_app
from memchat.errors import ExitCode, UsageError
from memchat.text import id_ranges, one_line, plural, sanitize
from memchat.ui import console
from memchat.ui.terminal import read_stdin, stdin_is_tty

if TYPE_CHECKING:
    from memchat.app import Memchat
    from memchat.memory.forget.erase import Forgotten
    from memchat.memory.store.memories import Memory

memories_app = typer.Typer(help="List, show, add, edit, pin, forget, export and import memories.", no_args_is_help=True)

FORGET_SURE = 0.3  # --query --yes forgets only memories at least this relevant to the query
LIST_AT_MOST = 50  # forget --all on 100,000 memories lists the first ones, not a 100,000-row table
_STATUS_HELP = "active, pending, superseded, forgotten or all (default: active and pending)."


@memories_app.command("list")
def list_(
    ctx: typer.Context,
    kind: str | None = typer.Option(None, "--kind", "-k", help="fact, event or rule."),
    status: str | None = typer.Option(None, "--status", help=_STATUS_HELP),
    pinned: bool = typer.Option(False, "--pinned", help="Only pinned memories."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jsonl_out: bool = typer.Option(False, "--jsonl", help=JSONL_HELP),
) -> None:
    """List memories."""
    from memchat.ui import memory as memory_ui

    mode = json_mode(json_out, jsonl_out)
    statuses: Any = ("active", "pending") if status is None else (None if status == "all" else status)
    memchat = open_app(ctx)
    rows = memchat.store.find(kind=kind, status=statuses, pinned=True if pinned else None)
    add = 'add one with `memchat memories add "..."` or /remember in a chat'
    empty = "" if rows or mode else memory_ui.no_memories(kind, status, pinned, memchat.store.counts(), add)
    emit(rows, mode, memory_ui.memory_json, memory_ui.memories_table, empty)


@memories_app.command()
def show(
    ctx: typer.Context,
    memory_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_memory_ids, help="The memory's id, as `memories list` shows it."
    ),
    json_out: bool = typer.Option(False, "--json", help="One JSON object."),
) -> None:
    """Show one memory with all its fields."""
    from memchat.ui import memory as memory_ui

    m = open_app(ctx).store.get(memory_id)
    if json_out:
        console.print_json(memory_ui.memory_json(m))
    else:
        console.out().print(memory_ui.memory_details(m), markup=False, highlight=False)


@memories_app.command()
def add(
    ctx: typer.Context,
    text: list[str] = typer.Argument(
        ..., metavar="TEXT", help="What to remember, in your words (- alone: read it from stdin)."
    ),
    kind: str | None = typer.Option(
        None, "--kind", "-k", help="fact, event or rule (default: rule for an instruction to the assistant, else fact)."
    ),
    key: str | None = typer.Option(
        None, "--key", help="entity.attribute, e.g. user.city: a new value supersedes the old."
    ),
    value: str | None = typer.Option(None, "--value", help="The value for --key, e.g. Lisbon."),
    importance: float = typer.Option(0.5, "--importance", min=0.0, max=1.0, help="0 to 1."),
    pin: bool = typer.Option(False, "--pin", help="Pin it."),
    private: bool = typer.Option(
        False, "--private", help="Never send it to a model unasked: only your own `recall` shows it."
    ),
    replaces: str | None = typer.Option(
        None,
        "--replaces",
        metavar="ID",
        autocompletion=complete_memory_ids,
        help="The memory this one changes (it is kept as history). On a terminal memchat asks when one is close.",
    ),
) -> None:
    """Add a memory (yours: origin manual)."""
    said = " ".join(text)
    if text == ["-"]:  # as `ask -` reads its prompt: `pbpaste | memchat memories add -`
        said = "" if stdin_is_tty() else read_stdin().strip()
        if not said:
            raise UsageError("nothing to remember on stdin (`memories add -` reads the memory from a pipe)")
    memchat = open_app(ctx)
    done = memchat.memories.remember(
        said,
        kind=kind,
        key=key,
        value=value,
        importance=importance,
        pinned=pin,
        private=private,
        replaces=replaces,
    )
    m = done.memory
    marks = f"{m.kind}, private" if m.private else m.kind
    if done.existed:
        typer.echo(f"already remembered as memory {m.id} ({marks}): {_said(m.text)}")
    else:
        typer.echo(f"memory {m.id} ({marks}): {_said(m.text)}")
    for old in done.replaced:
        typer.echo(f"  supersedes memory {old.id}: {sanitize(old.text)}")
    _note_if_unsent(m)
    _note_if_pinned_private_matter(m)
    if not (done.existed or done.replaced or key):
        _ask_what_it_replaces(memchat, m)


SAID_CHARS = 2_000  # of a memory echoed back after a write: `memories show ID` prints all of it


def _said(text: str) -> str:
    """A memory echoed after a write: whole, or its start and its length when long (a pasted 1 MB
    document was echoed whole to the terminal)."""
    if len(text) <= SAID_CHARS:
        return sanitize(text)
    return f"{sanitize(text[:SAID_CHARS])}… ({len(text):,} characters; `memchat memories show` prints it all)"


def _note_if_pinned_private_matter(m: Memory) -> None:
    from memchat.app.memories import pinned_note

    if note := pinned_note(m):
        console.err().print(note, markup=False, highlight=False, soft_wrap=True)


def _note_if_unsent(m: Memory) -> None:
    from memchat.app.memories import unsent_note

    note = unsent_note(m)
    if note:
        console.err().print(note, markup=False, highlight=False, soft_wrap=True)


def _ask_what_it_replaces(memchat: Memchat, m: Memory) -> None:
    """A new statement can change what memory holds ("I moved to York last month" and "I live in
    Leeds") in words a key would not catch: on a terminal, the close memories are listed and the user
    says which one it replaces, if any; a script is told on stderr how to say so."""

    def told(text: str) -> None:
        console.err().print(text, markup=False, highlight=False)

    asking = stdin_is_tty() and console.stdout_is_tty()
    close = memchat.memories.close_to(m, told, cheap_only=not asking)
    if not close:
        return
    if not asking:
        c = close[0]
        said = "private" if c.private else one_line(sanitize(c.text), 60)  # a script's stderr may be kept
        console.err().print(
            f"note: close to memory {c.id} ({said}); if memory {m.id} replaces it: "
            f"memchat memories edit {m.id} --replaces {c.id}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return
    typer.echo("close to what memchat holds:")
    for c in close:
        typer.echo(f"  {c.id:>5}  {sanitize(c.text)}{' (private)' if c.private else ''}")
    ids = {str(c.id): c for c in close}
    while True:
        try:
            answer = typer.prompt(
                f"does memory {m.id} replace one of them? its id, or Enter to keep them all",
                default="",
                show_default=False,
            ).strip()
        except (typer.Abort, EOFError, KeyboardInterrupt):
            answer = ""
        if not answer or answer.lower() in ("n", "no"):
            return
        if answer.lstrip("#") in ids:
            old = ids[answer.lstrip("#")]
            memchat.memories.replace(old.id, m.id)
            typer.echo(f"  supersedes memory {old.id}: {sanitize(old.text)}")
            return
        typer.echo(f"  not one of {', '.join(ids)}")


@memories_app.command()
def edit(
    ctx: typer.Context,
    memory_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_memory_ids, help="The memory's id, as `memories list` shows it."
    ),
    text: str | None = typer.Option(
        None, "--text", "-t", help="The new text (default: open $EDITOR; - reads it from a pipe, as add does)."
    ),
    value: str | None = typer.Option(None, "--value", help="A new value for its key."),
    private: bool | None = typer.Option(
        None, "--private/--no-private", help="Never send it to a model unasked (only `recall` shows it), or again."
    ),
    replaces: str | None = typer.Option(
        None,
        "--replaces",
        metavar="OLD",
        autocompletion=complete_memory_ids,
        help="An older memory this one changes: it becomes this one's history.",
    ),
) -> None:
    """Change a memory's text (opens $EDITOR without --text), whether it is private, or what it replaces."""
    from memchat.ui.editor import edit_in_editor

    if text == "-":  # as `memories add -` reads its text: `pbpaste | memchat memories edit 7 --text -`
        text = "" if stdin_is_tty() else read_stdin().strip()
        if not text:
            raise UsageError("nothing to change to on stdin (`--text -` reads the new text from a pipe)")
    memchat = open_app(ctx)
    m = memchat.store.get(memory_id)
    if private is not None:
        m = memchat.store.update(m.id, private=private)
        typer.echo(f"memory {m.id} is {'private' if private else 'no longer private'}: {_said(m.text)}")
    if replaces is not None:
        old = memchat.store.get(replaces)
        m = memchat.memories.replace(old.id, m.id)
        typer.echo(f"memory {m.id} replaces memory {old.id} ({sanitize(old.text)}), kept as history")
    if (private is not None or replaces is not None) and text is None and value is None:
        return
    if text is None and value is None:
        if not stdin_is_tty():
            raise UsageError("no terminal to open an editor on: pass --text")
        edited = edit_in_editor(m.text + "\n")
        if edited is None:
            typer.echo("no change")
            return
        text = edited
    updated = memchat.store.edit(m.id, text if text is not None else m.text, value=value)
    typer.echo(f"memory {updated.id}: {_said(updated.text)}" if updated.updated_at != m.updated_at else "no change")
    _note_if_unsent(updated)


@memories_app.command()
def pin(
    ctx: typer.Context,
    memory_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_memory_ids, help="The memory's id, as `memories list` shows it."
    ),
) -> None:
    """Pin a memory: sent with every message, whatever it asks, and ranked higher in recall."""
    m = open_app(ctx).store.pin(memory_id)
    typer.echo(f"pinned memory {m.id}: {_said(m.text)}")
    _note_if_pinned_private_matter(m)


@memories_app.command()
def unpin(
    ctx: typer.Context,
    memory_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_memory_ids, help="The memory's id, as `memories list` shows it."
    ),
) -> None:
    """Unpin a memory."""
    m = open_app(ctx).store.unpin(memory_id)
    typer.echo(f"unpinned memory {m.id}: {_said(m.text)}")


@memories_app.command()
def forget(
    ctx: typer.Context,
    memory_id: str | None = typer.Argument(
        None, metavar="[ID]", autocompletion=complete_memory_ids, help="The memory's id (or use --query or --all)."
    ),
    query: str | None = typer.Option(None, "--query", "-q", help="Forget the memories this is about."),
    all_: bool = typer.Option(False, "--all", help="Forget every memory."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="With --query: look at this many at most."),
    purge_sources: bool = typer.Option(
        False, "--purge-sources", help="Also redact the conversation they came from (and what quotes them)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be forgotten; forget nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (with --query: only clear matches)."),
) -> None:
    """Forget memories for good: the text leaves the database, its index and its vectors.

    With --query, the memories the query is about are listed with their relevance and you are
    asked; with --yes, only the clear matches (relevance 0.3 or more) are forgotten.
    Forgetting a memory also forgets the older versions it replaced.
    """
    from memchat.ui import memory as memory_ui

    if sum(x is not None and x is not False for x in (memory_id, query, all_ or None)) != 1:
        raise UsageError('give one of: an ID, --query "...", or --all')
    memchat = open_app(ctx)
    targets = _forget_targets(memchat, memory_id, query, all_, limit, yes)
    if not targets:
        console.note("nothing to forget" + (f": no memory is clearly about {query!r}" if query else ""))
        return
    if query is None:
        console.err().print(memory_ui.memories_table(targets[:LIST_AT_MOST]))
        if len(targets) > LIST_AT_MOST:
            console.note(f"... and {len(targets) - LIST_AT_MOST:,} more")
    if dry_run:
        console.note(
            f"--dry-run: would forget {plural(len(targets), 'memory', 'memories')}: "
            f"{id_ranges([m.id for m in targets])}"
        )
        return
    what = f"these {len(targets)} memories" if len(targets) > 1 else "this memory"
    if not confirm(f"Forget {what} for good?", yes, refusing="to forget"):
        console.note("nothing forgotten")
        raise typer.Exit(ExitCode.FAILURE)
    done = memchat.memories.forget([m.id for m in targets], purge_sources=purge_sources)
    _said_forgotten(targets, done, purge_sources)


def _forget_targets(
    memchat: Memchat, memory_id: str | None, query: str | None, all_: bool, limit: int, yes: bool
) -> list[Memory]:
    """The memories `forget` was pointed at (by ID, --all or --query), less those already forgotten."""
    if memory_id is not None:
        targets = [memchat.store.get(memory_id)]
    elif all_:
        targets = memchat.memories.forgettable()
    else:
        targets = _forget_matching(memchat, query or "", limit, yes)
    return [m for m in targets if m.status != "forgotten"]


def _forget_matching(memchat: Memchat, query: str, limit: int, yes: bool) -> list[Memory]:
    """The memories a query is about, shown with their relevance; with --yes only the clear matches."""
    from memchat.ui import memory as memory_ui

    load_encoder(memchat)
    found = memchat.memories.matching(query, limit)
    sure = [m for m, score in found if score >= FORGET_SURE]
    if found:
        console.err().print(memory_ui.relevance_table(found, FORGET_SURE))
    if yes and len(sure) < len(found):
        console.note(
            f"--yes forgets only the clear matches (relevance {FORGET_SURE:g} or more): "
            f"{plural(len(sure), 'memory', 'memories')}; the others need an ID or a question"
        )
    return sure if yes else [m for m, _ in found]


def _said_forgotten(targets: list[Memory], done: Forgotten, purge_sources: bool) -> None:
    """What was forgotten, and what of it is left to know: redacted summaries, kept sources, the scrub."""
    typer.echo(f"forgot {plural(len(done.ids), 'memory', 'memories')}: {id_ranges(done.ids)}")
    for m in targets[:LIST_AT_MOST]:
        typer.echo(f"  {m.id}: {sanitize(one_line(m.text, 100))}")
    if len(targets) > LIST_AT_MOST:
        typer.echo(f"  ... and {len(targets) - LIST_AT_MOST:,} more")
    if done.summary_redactions:
        console.note(
            f"redacted {plural(done.summary_redactions, 'sentence')} of session summaries that mentioned "
            + ("it" if len(done.ids) == 1 else "them")
        )
    if done.sources and not purge_sources:
        console.note(
            f"the conversation they came from is kept (messages {', '.join(map(str, done.sources))}) but never "
            "sent to the model again; --purge-sources redacts it too"
        )
    scrub_notes(done.complete, done.compacted, done.no_room, done.owed)


@memories_app.command()
def history(
    ctx: typer.Context,
    memory_id: str = typer.Argument(
        ..., metavar="ID", autocompletion=complete_memory_ids, help="The memory's id, as `memories list` shows it."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show what happened to a memory: added, edited, pinned, superseded, forgotten."""
    from memchat.ui import memory as memory_ui

    emit(open_app(ctx).store.history(memory_id), json_mode(json_out), asdict, memory_ui.history_table, "no history")


@memories_app.command()
def export(
    ctx: typer.Context,
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="json (re-importable) or md; default: by the file's extension, else json."
    ),
    output: str | None = typer.Option(None, "--output", "-o", help="Write to FILE (created 0600); - is stdout."),
    force: bool = typer.Option(False, "--force", help="Replace FILE if it exists, without asking."),
) -> None:
    """Export memories as JSON or Markdown."""
    chosen = export_format(fmt, output, "json")
    may_overwrite(output, force)
    memchat = open_app(ctx)
    with memchat.audit_if_done():  # a write that fails wrote nothing: it is not recorded
        write_or_print(memchat.memories.export_memories(chosen, to=output or "-"), output)


@memories_app.command("import")
def import_(
    ctx: typer.Context,
    path: str = typer.Argument(..., metavar="FILE", help="A JSON file, as `memories export -f json` writes."),
) -> None:
    """Import memories from `memchat memories export` JSON (skips what is already there)."""
    memchat = open_app(ctx)
    with progress_bar("embedding memories") as progress:
        result = memchat.memories.import_memories(path, progress=progress, on_prepare=console.note)
    typer.echo(f"imported {plural(result.added, 'memory', 'memories')} ({result.skipped} already present)")
    if result.unsent:
        console.note(
            f"{plural(result.unsent, 'memory', 'memories')} of them {'is' if result.unsent == 1 else 'are'} too long "
            "to send with a request unasked: recall finds them (pin one, or keep a short summary, to have it sent)"
        )
    if result.pending:
        console.note(
            f"{plural(result.pending, 'memory', 'memories')} {'waits' if result.pending == 1 else 'wait'} "
            "for your review (pending, not used until confirmed): memchat memories review"
        )
