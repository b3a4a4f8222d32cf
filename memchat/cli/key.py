"""`memchat key set|show|remove`: API keys kept in the OS keyring, never in a file."""

from __future__ import annotations

import getpass

import typer

from memchat.errors import ExitCode, MemchatError, UsageError
from memchat.ui import console
from memchat.ui.terminal import read_stdin, stdin_is_tty

key_app = typer.Typer(help="Keep API keys in the OS keyring (set, show masked, remove).", no_args_is_help=True)

_PROVIDER_HELP = "anthropic (default) or openai."


def _complete_providers(incomplete: str) -> list[str]:
    from memchat.keys import KEY_ENV_VARS

    return [p for p in KEY_ENV_VARS if p.startswith(incomplete)]


@key_app.command("set")
def set_(
    provider: str = typer.Argument(
        "anthropic", metavar="[PROVIDER]", autocompletion=_complete_providers, help=_PROVIDER_HELP
    ),
) -> None:
    """Store a provider's key in the OS keyring: typed hidden on a terminal, else read from stdin.

    Used whenever the provider's environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY) is not
    set; the variable, when set, comes first. Where the only keyring would keep the key in a plain
    file (a headless machine with no secret service), nothing is stored: use the variable there.
    """
    from memchat import keys

    variable = keys.env_var(provider)
    if keys.secure_keyring() is None:  # say so before asking for a secret that cannot be kept
        raise MemchatError(f"not stored: {keys.keyring_status()}; set {variable} in your environment instead")
    key = _typed(provider) if stdin_is_tty() else read_stdin()
    where = keys.store(provider, key)
    typer.echo(f"stored the {provider} key ({keys.masked(keys.check_key(key))}) in {where.where}")
    source = keys.key_source(provider)
    if source is not None and source.kind == "env":
        console.note(f"{variable} is set, and comes first while it is")


def _typed(provider: str) -> str:
    try:
        return getpass.getpass(f"{provider} API key (not shown as you type): ")
    except (EOFError, KeyboardInterrupt):
        typer.echo("", err=True)
        raise UsageError("no key given: nothing stored") from None


@key_app.command()
def show(
    provider: str | None = typer.Argument(
        None, metavar="[PROVIDER]", autocompletion=_complete_providers, help="One provider (default: every one)."
    ),
) -> None:
    """Show each provider's key, masked, and where it comes from (environment variable or keyring)."""
    from memchat import keys

    chosen = [provider] if provider is not None else list(keys.KEY_ENV_VARS)
    missing = 0
    for name in chosen:
        variable = keys.env_var(name)
        source, key = keys.key_source(name), keys.stored_key(name)
        if source is None or key is None:
            missing += 1
            typer.echo(f"{name}: no key (set {variable}, or `memchat key set {name}`)")
        else:
            typer.echo(f"{name}: {keys.masked(key)} from {source.where}")
    status = keys.keyring_status()
    if status:
        console.note(f"keyring: {status}; keys come from the environment only")
    if provider is not None and missing:
        raise typer.Exit(ExitCode.FAILURE)


@key_app.command()
def remove(
    provider: str = typer.Argument(
        "anthropic", metavar="[PROVIDER]", autocompletion=_complete_providers, help=_PROVIDER_HELP
    ),
) -> None:
    """Delete a provider's key from the OS keyring (an environment variable is yours to unset)."""
    from memchat import keys

    variable = keys.env_var(provider)
    if not keys.remove(provider):
        raise MemchatError(f"the OS keyring holds no {provider} key")
    typer.echo(f"removed the {provider} key from the OS keyring")
    if keys.key_source(provider) is not None:
        console.note(f"{variable} is still set in this environment")
