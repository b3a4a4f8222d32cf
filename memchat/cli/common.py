"""What every `memchat` command shares: the open profile, confirmation, progress, output helpers."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from memchat.cli.completion import labelled
from memchat.cli.runner import CliState
from memchat.errors import MemchatError, UsageError
from memchat.text import sanitize
from memchat.ui import console, terminal
from memchat.ui.console import err, err_is_terminal, stdout_is_tty
from memchat.ui.terminal import spinner

if TYPE_CHECKING:
    from memchat.app import Memchat

PROGRESS_FROM = 64  # a bar for catch-ups of at least this many texts
SCRUB_PENDING = (
    "another memchat process is still reading an older copy of the database: the last traces leave the "
    "file when it lets go, and the next memchat command finishes the scrub"
)

COMPACT_OWED = (
    "the database is large, so it was not compacted on the way: old copies of what was deleted can "
    "stay in its unused space until `memchat profile compact` (which locks the profile while it runs)"
)


NO_ROOM = (
    "the disk has no room to compact the database: old copies of what was deleted can stay in its "
    "unused space until there is room, and the next memchat command tries again"
)


def scrub_notes(complete: bool, compacted: bool, no_room: bool = False, owed: str | None = None) -> None:
    """What a forget, delete or purge left to finish, if anything; `owed`: why its scrub could not
    run (a full disk), which fails the command after saying what was done."""
    if owed:
        raise MemchatError(
            f"{owed.rstrip('.')}: what was named is gone from memory, but its last traces (summaries, "
            "the search index, the file's unused space) are taken out by the next memchat command with room"
        )
    if not complete:
        console.note(NO_ROOM if no_room else SCRUB_PENDING)
    if not compacted:
        console.note(COMPACT_OWED)


def state(ctx: typer.Context) -> CliState:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = CliState()
    obj: CliState = root.obj
    return obj


def app(ctx: typer.Context, **overrides: Any) -> Memchat:
    return state(ctx).app(**overrides)


def can_confirm(yes: bool, *, refusing: str) -> None:
    """Refuse at once what `confirm` would refuse later (no --yes, nobody to ask): before a command
    does the part that needs no question."""
    if not yes and not terminal.stdin_is_tty():
        raise UsageError(f"refusing {refusing} without confirmation: pass --yes when not on a terminal")


def confirm(question: str, yes: bool, *, refusing: str) -> bool:
    """Ask on a terminal; refuse (not guess) when there is nobody to ask.

    `refusing` names what would happen ("to delete", "to forget") in the refusal.
    """
    if yes:
        return True
    can_confirm(yes, refusing=refusing)
    try:
        return typer.confirm(question, default=False)
    except (typer.Abort, EOFError, KeyboardInterrupt):
        return False


@contextlib.contextmanager
def progress_bar(label: str, minimum: int = PROGRESS_FROM) -> Iterator[Callable[[int, int], None]]:
    """A callback (done, total) that draws a Rich progress bar on stderr once total >= minimum."""
    bar: Any = None
    task: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            if total < minimum or not err_is_terminal():
                return
            console = err()
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            bar.start()
            task = bar.add_task(label, total=total)
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()


# Every --json prints ONE JSON document that `jq` reads whole (a list is an array, `[]` when
# empty, never nothing); JSON lines, one object per line as each is written, only under --jsonl,
# on the listings that can run long (sessions list, memories list, audit).
JSON_HELP = "One JSON array ([] when there is none)."
JSONL_HELP = "JSON lines: one object per line, written as they come (for long listings)."


def json_mode(json_out: bool, jsonl_out: bool = False) -> str | None:
    """'json', 'jsonl' or None (a table); both flags at once is a usage error."""
    if json_out and jsonl_out:
        raise UsageError("use either --json (one document) or --jsonl (one object per line), not both")
    return "json" if json_out else "jsonl" if jsonl_out else None


def emit(
    items: list, mode: str | None, to_json: Callable[[Any], dict], table: Callable[[list], Any], empty: str
) -> None:
    """One JSON array (`[]` when empty), JSON lines, or a table (a note on stderr when there is
    nothing to show). `mode` comes from `json_mode`."""
    if mode == "json":
        console.print_json([to_json(item) for item in items])
    elif mode == "jsonl":
        for item in items:
            console.print_json(to_json(item))
    elif not items:
        console.note(empty)
    else:
        console.out().print(table(items))


FORMATS = {"md": "md", "markdown": "md", "json": "json"}
_EXTENSIONS = {".md": "md", ".markdown": "md", ".json": "json", ".jsonl": "json"}


def export_format(fmt: str | None, output: str | None, default: str) -> str:
    """The export format: as given, else by the output file's extension, else the default."""
    if fmt is not None:
        if fmt.lower() not in FORMATS:
            raise UsageError(f"unknown export format {fmt!r}: use md or json")
        return FORMATS[fmt.lower()]

    if output and output != "-":
        suffix = Path(output).suffix.lower()
        if suffix and suffix not in _EXTENSIONS:  # Markdown in a file named .xml would be a lie
            raise UsageError(
                f"{output}: no export format for {suffix!r} files: name it .md or .json (.jsonl), or pass --format"
            )
        return _EXTENSIONS.get(suffix, default)
    return default


def may_overwrite(output: str | None, force: bool) -> None:
    """An existing file is replaced only when the user says so: on a terminal by answering, else --force."""
    from memchat.files import check_target

    if not output or output == "-":
        return
    check_target(Path(output).expanduser())  # a directory or a device: refused before any question
    if force or not Path(output).expanduser().exists():
        return
    if not terminal.stdin_is_tty():
        raise UsageError(f"{output} exists: pass --force to replace it")
    if not typer.confirm(f"{output} exists. Replace it?", default=False):
        raise typer.Exit(1)


def write_or_print(text: str, output: str | None) -> None:
    """Write to a private file (0600, atomically, regular files only), or to stdout (no -o, or -o -).

    On a terminal, escape sequences in stored text are stripped; a pipe gets the data as it is.
    """
    if output and output != "-":
        from memchat.files import write_private

        write_private(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        print_stored(text)


def print_stored(text: str) -> None:
    """Print stored text: sanitized on a terminal (a title can hold an escape sequence), raw in a pipe."""
    typer.echo(sanitize(text) if stdout_is_tty() else text, nl=False)


def load_encoder(app: Memchat, alongside: Callable[[], object] | None = None) -> None:
    """Load the embedding model now, with a spinner on a terminal (the first search of a process);
    `alongside` runs meanwhile (e.g. mapping the vectors)."""
    if app.embedder_loaded():
        return
    name = app.settings.get("memory.embedding_model")
    with spinner(f"loading the embedding model {name}…"):
        app.embedder_alongside(alongside or (lambda: None))


def complete_session_ids(incomplete: str) -> list[tuple[str, str]] | list[str]:
    """Session ids with their titles, most recent first (`sessions show <Tab>`, `--session <Tab>`)."""
    from memchat.app.completion import session_ids

    return labelled(session_ids(incomplete))


def complete_memory_ids(incomplete: str) -> list[tuple[str, str]] | list[str]:
    from memchat.app.completion import memory_ids

    return labelled(memory_ids(incomplete))
