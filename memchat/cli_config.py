"""`memchat config` (effective settings and their sources) and `memchat doctor`."""

from __future__ import annotations

import os
import time
from typing import Any, Optional

import typer

from memchat.cli import app, state

config_app = typer.Typer(help="Show effective settings and where each came from.", invoke_without_command=True)
app.add_typer(config_app, name="config")


@config_app.callback()
def config_show(ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Show every effective setting and its source (default, file, env, flag)."""
    if ctx.invoked_subcommand is not None:
        return
    from memchat import render
    from memchat.config import SETTINGS

    settings = state(ctx).settings()
    if json_out:
        render.print_json({
            "config_file": str(settings.config_path),
            "database": str(settings.db_path),
            "settings": {s.name: {"value": settings.get(s.name), "source": settings.sources[s.name]}
                         for s in SETTINGS},
        })
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    table.add_column("source", overflow="fold")
    for s in SETTINGS:
        value = settings.get(s.name)
        table.add_row(s.name, Text(render.sanitize(repr(value) if isinstance(value, str) else str(value).lower()
                                                   if isinstance(value, bool) else str(value))),
                      Text(render.sanitize(settings.sources[s.name])))
    render.out().print(table)
    exists = "" if settings.config_path.exists() else " (not created; `memchat config init` writes one)"
    render.out().print(render.sanitize(f"\nconfig file: {settings.config_path}{exists}\ndatabase:    {settings.db_path}"),
                       highlight=False, markup=False)


@config_app.command("init")
def config_init(ctx: typer.Context) -> None:
    """Write a commented config file with every default, if there is none yet."""
    from memchat.config import default_config_path, example_config
    from memchat.errors import MemchatError
    from memchat.files import write_private

    path = state(ctx).config_path or default_config_path()
    from pathlib import Path

    path = Path(path).expanduser()
    if path.exists():
        raise MemchatError(f"{path} already exists; not overwriting it")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_private(path, example_config())
    typer.echo(f"wrote {path}")


@config_app.command("path")
def config_path(ctx: typer.Context) -> None:
    """Print the config file's path."""
    from memchat.config import default_config_path

    typer.echo(str(state(ctx).config_path or default_config_path()))


@app.command()
def doctor(ctx: typer.Context,
           quick: bool = typer.Option(False, "--quick", help="Skip loading the embedding model (~10 s).")) -> None:
    """Check the key, the database, the tokenizer and the embedding model, offline."""
    from memchat import render

    console = render.out()
    failures = 0

    def report(ok: bool | None, what: str, detail: str = "") -> None:
        nonlocal failures
        mark = {True: "[green]✓[/green]", False: "[red]✗[/red]", None: "[yellow]![/yellow]"}[ok]
        if ok is False:
            failures += 1
        console.print(f"{mark} {what}" + (f" [dim]— {render._escape(detail)}[/dim]" if detail else ""), soft_wrap=True)

    def check(what: str, fn: Any) -> None:
        started = time.monotonic()
        try:
            detail = fn()
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure in plain words
            report(False, what, getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
        else:
            report(True, what, f"{detail} ({time.monotonic() - started:.1f} s)" if detail else "")

    st = state(ctx)
    try:
        settings = st.settings()
    except Exception as exc:  # noqa: BLE001
        report(False, "configuration", getattr(exc, "message", str(exc)))
        raise typer.Exit(1) from None
    report(True, "configuration", f"{settings.config_path}" + ("" if settings.config_path.exists() else " (defaults; no file)"))

    if settings.provider == "anthropic":
        key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
        if key:
            report(True, "API key", "ANTHROPIC_API_KEY is set (not shown)")
        else:
            report(False, "API key", "ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=sk-ant-... "
                   "(or use --provider echo offline)")
    else:
        report(True, "provider", f"{settings.provider} needs no key")

    def database() -> str:
        from memchat import sessions

        db = st.db()
        ok = db.conn.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise RuntimeError(f"integrity check failed: {ok}")
        mode = oct(os.stat(settings.db_path).st_mode & 0o777)
        return f"{settings.db_path}, {len(sessions.list_sessions(db, None))} sessions, mode {mode}"

    check("database", database)

    def tokenizer() -> str:
        from memchat import tokens

        return f"{tokens.ENCODING}, 'hello world' = {tokens.count('hello world')} tokens"

    check("tokenizer (offline)", tokenizer)

    def embedder() -> str:
        from memchat.memory.embed import configured

        enc = configured(settings, note=lambda text: console.print(f"[dim]  {render._escape(text)}[/dim]"))
        vec = enc.encode(["hello world"])
        kind = "onnxruntime" if type(enc).__name__ == "OnnxEmbedder" else "sentence-transformers"
        return f"{enc.model_name} via {kind}, {vec.shape[1]} dimensions"

    if quick:
        report(None, "embedding model", "skipped (--quick)")
    else:
        console.print("[dim]  loading the embedding model (the first time it is also exported to ONNX, ~15 s)…[/dim]")
        check("embedding model (offline)", embedder)
    if failures:
        raise typer.Exit(1)


@app.command()
def context(
    ctx: typer.Context,
    session_id: Optional[str] = typer.Option(None, "--session", "-s", help="Session ID (default: the latest)."),
    json_out: bool = typer.Option(False, "--json", help="JSON output."),
) -> None:
    """Show the token budget of the next call: each part's tokens and share of the window."""
    from memchat import render, sessions
    from memchat.engine import Engine

    st = state(ctx)
    db = st.db()
    session = sessions.get_session(db, session_id) if session_id else sessions.latest_session(db)
    budget = Engine(db, st.settings()).preview(session).budget
    if json_out:
        render.print_json({"session_id": session.id if session else None, **budget.as_dict()})
        return
    render.out().print(render.budget_table(budget))
