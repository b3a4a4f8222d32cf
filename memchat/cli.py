"""The `memchat` command: parse arguments, call the core, render. No SQL, no prompts here."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

import typer
from typer.core import TyperGroup

from memchat import __version__
from memchat.errors import MemchatError, UsageError

if TYPE_CHECKING:
    from sqlite_utils import Database

    from memchat.config import Settings

class _Group(TyperGroup):
    """Every command runs inside this: a MemchatError becomes one line and an exit code."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemchatError as exc:
            exc.show()
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    name="memchat",
    cls=_Group,
    help="A terminal chat assistant that remembers. Run with no command to chat.",
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,  # plain help text starts ~40% faster
    pretty_exceptions_show_locals=False,  # an API key must never show up in a traceback
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class AppState:
    """Global flags, resolved into Settings and a database on first use."""

    flags: dict[str, Any] = field(default_factory=dict)
    config_path: str | None = None
    _settings: Settings | None = None
    _db: Database | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def settings(self, **overrides: Any) -> Settings:
        if self._settings is None:
            from memchat.config import load_settings

            self._settings = load_settings(self.config_path).with_overrides(**self.flags)
        if any(v is not None for v in overrides.values()):
            self._settings = self._settings.with_overrides(**overrides)
        return self._settings

    def db(self) -> Database:
        with self._lock:  # the REPL opens it in a background thread while the user types
            if self._db is None:
                from memchat.db import open_db

                self._db = open_db(self.settings().db_path)
                _OPEN_DATABASES.append(self._db)
        return self._db


def state(ctx: typer.Context) -> AppState:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = AppState()
    return root.obj


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memchat {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    profile: Optional[str] = typer.Option(None, "--profile", "-p", help="Profile: a separate database."),
    db: Optional[str] = typer.Option(None, "--db", help="Database file (overrides --profile)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model name."),
    provider: Optional[str] = typer.Option(None, "--provider", help="anthropic or echo (offline)."),
    config: Optional[str] = typer.Option(None, "--config", help="Config file (default: XDG config dir)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Chat: resume the latest session."),
    session: Optional[str] = typer.Option(None, "--session", "-s", help="Chat: resume session ID."),
    no_memory: bool = typer.Option(False, "--no-memory", help="Chat: neither read nor write long-term memory."),
) -> None:
    """A terminal chat assistant that remembers. Run with no command to chat."""
    st = state(ctx)
    st.flags = {"profile": profile, "db": db, "model": model, "provider": provider}
    st.config_path = config
    if ctx.invoked_subcommand is None:
        from memchat.cli_chat import run_chat

        run_chat(st, session=session, continue_=continue_, no_memory=no_memory)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ARG001
    # Library warnings (e.g. the SDK's model deprecation notice) as one line, not source excerpts.
    sys.stderr.write(f"memchat: warning: {str(message).splitlines()[0]}\n")


def main() -> None:
    """Console entry point: known errors are one line and an exit code, never a traceback."""
    import warnings

    warnings.showwarning = _one_line_warning
    warnings.filterwarnings("default", message=r"The model .* is deprecated", category=DeprecationWarning)
    code = 0
    try:
        app(prog_name="memchat")  # standalone: usage errors print and raise SystemExit
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except MemchatError as exc:
        exc.show()
        code = exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("\nmemchat: interrupted\n")
        code = 130
    except Exception as exc:  # noqa: BLE001 - a bug is one line and a log entry, never a traceback
        from memchat.log import internal_error

        sys.stderr.write(f"memchat: {internal_error(exc)}\n")
        code = 70  # EX_SOFTWARE
    _fast_exit(code)


def _fast_exit(code: int) -> None:
    """Exit without the interpreter's teardown of thousands of SDK modules (~0.4-1.5 s).

    Everything that matters is already durable: every database write is committed when it
    happens. Close the database (checkpointing the WAL) and flush output, then leave.
    """
    import os

    try:
        for obj in _OPEN_DATABASES:
            obj.conn.close()
    except Exception:  # noqa: BLE001 - exiting anyway; SQLite recovers the WAL on next open
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe must not turn exit into a traceback
            pass
    os._exit(code)


_OPEN_DATABASES: list[Any] = []


def _register() -> None:
    # Each command group lives in its own module; importing them registers the commands.
    from memchat import cli_ask, cli_chat, cli_config, cli_lifecycle, cli_memory, cli_sessions  # noqa: F401


__all__ = ["app", "main", "state", "AppState", "UsageError"]
_register()
