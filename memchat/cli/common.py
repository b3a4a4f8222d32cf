"""What every `memchat` command shares: the open profile, confirmation, progress, output helpers."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer

from memchat.errors import UsageError
from memchat.ui import terminal

if TYPE_CHECKING:
    from memchat.app import Memchat

PROGRESS_FROM = 64  # a bar for catch-ups of at least this many texts


@dataclass
class CliState:
    """Global flags, turned into an open profile (`Memchat`) on first use."""

    flags: dict[str, Any] = field(default_factory=dict)
    config_path: str | None = None
    _app: Memchat | None = None

    def app(self, **overrides: Any) -> Memchat:
        """The profile, opened lazily; overrides are a subcommand's flags (--model, --provider ...)."""
        if self._app is None:
            from memchat.app import Memchat

            self._app = Memchat.load(self.config_path, **self.flags)
            OPEN.append(self._app)
        self._app.configure(**overrides)
        return self._app


OPEN: list[Memchat] = []  # closed by main() on the way out


def state(ctx: typer.Context) -> CliState:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = CliState()
    obj: CliState = root.obj
    return obj


def app(ctx: typer.Context, **overrides: Any) -> Memchat:
    return state(ctx).app(**overrides)


def confirm(question: str, yes: bool, *, refusing: str) -> bool:
    """Ask on a terminal; refuse (not guess) when there is nobody to ask.

    `refusing` names what would happen ("to delete", "to forget") in the refusal.
    """
    if yes:
        return True
    if not terminal.stdin_is_tty():
        raise UsageError(f"refusing {refusing} without confirmation: pass --yes when not on a terminal")
    try:
        return typer.confirm(question, default=False)
    except (typer.Abort, EOFError, KeyboardInterrupt):
        return False


@contextlib.contextmanager
def progress_bar(label: str, minimum: int = PROGRESS_FROM) -> Iterator[Callable[[int, int], None]]:
    """A callback (done, total) that draws a Rich progress bar on stderr once total >= minimum."""
    from memchat.ui.console import err

    console = err()
    bar: Any = None
    task: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            if total < minimum or not console.is_terminal:
                return
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


def emit(items: list, json_out: bool, to_json: Callable[[Any], dict], table: Callable[[list], Any], empty: str) -> None:
    """JSON lines, or a table (a note on stderr when there is nothing to show)."""
    from memchat.ui import console

    if json_out:
        for item in items:
            console.print_json(to_json(item))
    elif not items:
        console.note(empty)
    else:
        console.out().print(table(items))


def write_or_print(text: str, output: str | None) -> None:
    """Write to a private file (0600), or to stdout."""
    if output:
        from memchat.files import write_private

        write_private(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        typer.echo(text, nl=False)


def load_encoder(app: Memchat) -> None:
    """Load the embedding model now, with a spinner on a terminal (the first search of a process)."""
    from memchat.ui.terminal import spinner

    if app.embedder_loaded():
        return
    name = app.settings.get("memory.embedding_model")
    with spinner(f"loading the embedding model {name}…"):
        app.embedder()
