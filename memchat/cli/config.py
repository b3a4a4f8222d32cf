"""`memchat config`: every effective setting and where it came from; `config init`, `config path`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from memchat.cli.common import state
from memchat.errors import MemchatError
from memchat.text import sanitize
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.config import Role

config_app = typer.Typer(help="Show effective settings and where each came from.", invoke_without_command=True)


@config_app.callback()
def config_show(ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
    """Show every effective setting and its source (default, file, env, flag)."""
    if ctx.invoked_subcommand is not None:
        return
    from memchat.config import SETTINGS

    memchat = state(ctx).app()
    settings = memchat.settings
    said = memchat.privacy.consent() if settings.db_path.exists() else None  # never create a profile to show settings
    consent = "not asked yet" if said is None else f"{'yes' if said.capture else 'no'} (answered {said.at[:10]})"
    if json_out:
        console.print_json(
            {
                "config_file": str(settings.config_path),
                "database": str(settings.db_path),
                "consent": None if said is None else {"capture": said.capture, "at": said.at},
                "roles": {
                    r.name: {"provider": r.provider, "model": r.model or None, "url": r.url or None, "local": r.local}
                    for r in settings.roles()
                },
                "api_key": _key_json(settings.provider),
                "settings": {
                    s.name: {"value": settings.get(s.name), "source": settings.sources[s.name]} for s in SETTINGS
                },
            }
        )
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    table.add_column("source", overflow="fold")
    for s in SETTINGS:
        value = settings.get(s.name)
        if s.name == "base_url" and not value:
            value = "https://api.anthropic.com"  # what the SDK uses: say so, not ''
        if s.name == "openai.base_url" and not value:
            value = "https://api.openai.com/v1"
        table.add_row(
            s.name,
            Text(
                sanitize(
                    repr(value)
                    if isinstance(value, str)
                    else str(value).lower()
                    if isinstance(value, bool)
                    else str(value)
                )
            ),
            Text(sanitize(settings.sources[s.name])),
        )
    console.out().print(table)
    console.out().print(Text(sanitize("\n" + "\n".join(_role_line(r) for r in settings.roles()))))
    exists = "" if settings.config_path.exists() else " (not created; `memchat config init` writes one)"
    console.out().print(
        sanitize(
            f"\nconfig file: {settings.config_path}{exists}\ndatabase:    {settings.db_path}\n"
            f"consent: {consent} (learning memories from chats; `memchat consent yes|no`)\n"
            f"API key: {_key_line(settings.provider)}"
        ),
        highlight=False,
        markup=False,
    )


def _role_line(role: Role) -> str:
    """chat:   openai llama3.1:8b at http://localhost:11434/v1 (local: no key, no cost)"""
    model = role.model or "(no model: set memory.model)"
    where = f" at {role.url}" if role.url else ""
    local = " (local: no key, no cost)" if role.local else ""
    return f"{role.name + ':':<8}{role.provider} {model}{where}{local}"


def _key_json(provider: str) -> dict[str, str | None] | None:
    """Where the provider's key comes from (never the key): env or keyring; None for a provider without one."""
    from memchat.keys import KEY_ENV_VARS, key_source

    if provider not in KEY_ENV_VARS:
        return None
    source = key_source(provider)
    return {"provider": provider, "source": source.kind if source else None, "where": source.where if source else None}


def _key_line(provider: str) -> str:
    from memchat.keys import KEY_ENV_VARS, key_source

    if provider not in KEY_ENV_VARS:
        return f"{provider} needs none"
    source = key_source(provider)
    if source is None:
        return f"none for {provider} (set {KEY_ENV_VARS[provider]}, or `memchat key set {provider}`)"
    return f"{provider}'s from {source.where} (not shown)"


@config_app.command("init")
def config_init(ctx: typer.Context) -> None:
    """Write a commented config file with every default, if there is none yet."""
    from memchat.config import default_config_path, example_config
    from memchat.files import private_dir, write_private

    path = Path(state(ctx).config_path or default_config_path()).expanduser()
    if path.exists():
        raise MemchatError(f"{path} already exists; not overwriting it")
    private_dir(path.parent)
    write_private(path, example_config())
    typer.echo(f"wrote {path}")


@config_app.command("path")
def config_path(ctx: typer.Context) -> None:
    """Print the config file's path."""
    from memchat.config import default_config_path

    typer.echo(str(state(ctx).config_path or default_config_path()))
