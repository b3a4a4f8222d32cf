"""The `memchat` command: global flags, the command groups (registered here, explicitly), exit codes.

Each command module defines plain functions and sub-apps and imports nothing from here, so
the tree has no import cycle: this module imports them and registers them on `app`.
"""

from __future__ import annotations

import sys

import typer

from memchat import __version__
from memchat.cli import (
    ask,
    chat,
    config,
    context,
    doctor,
    imports,
    key,
    log,
    memories,
    models,
    privacy,
    profile,
    recall,
    review,
    serve,
    sessions,
    usage,
)
from memchat.cli.command import Group, only_the_command, use_everywhere
from memchat.cli.common import complete_session_ids, state
from memchat.cli.runner import run
from memchat.errors import UsageError

app = typer.Typer(
    name="memchat",
    cls=Group,  # plain values and help, errors as one line: memchat/cli/command.py
    help="A terminal chat assistant that remembers. Run with no command to chat.",
    no_args_is_help=False,
    add_completion=True,
    rich_markup_mode=None,  # plain help text starts ~40% faster
    pretty_exceptions_show_locals=False,  # an API key must never show up in a traceback
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memchat {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    profile: str | None = typer.Option(None, "--profile", "-p", help="Profile: a separate database."),
    db: str | None = typer.Option(None, "--db", help="Database file (overrides --profile)."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model name."),
    provider: str | None = typer.Option(
        None, "--provider", help="anthropic, openai (OpenAI-compatible: Ollama, vLLM...) or echo (offline)."
    ),
    config_file: str | None = typer.Option(None, "--config", help="Config file (default: XDG config dir)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Chat: resume the latest session."),
    session: str | None = typer.Option(
        None, "--session", "-s", autocompletion=complete_session_ids, help="Chat: resume session ID."
    ),
    no_memory: bool = typer.Option(
        False, "--no-memory", help="Neither read nor write long-term memory (the session stays out of it for good)."
    ),
) -> None:
    """A terminal chat assistant that remembers. Run with no command to chat."""
    st = state(ctx)
    st.flags = {"profile": profile, "db": db, "model": model, "provider": provider}
    st.config_path = config_file
    st.no_memory = no_memory
    st.session, st.continue_ = session, continue_
    if (session or continue_) and ctx.invoked_subcommand not in (None, "chat", "ask"):
        raise UsageError(f"--session and --continue go with a chat or `ask`, not `{ctx.invoked_subcommand}`")
    if ctx.invoked_subcommand is None:
        chat.run_chat(st, session=session, continue_=continue_, no_memory=no_memory)


# Top-level commands, in the order `--help` lists them.
app.command("chat")(chat.chat)
app.command("ask")(ask.ask)
app.command("recall")(recall.recall)
app.add_typer(memories.memories_app, name="memories")
memories.memories_app.command("capture")(review.capture)
memories.memories_app.command("review")(review.review)
app.add_typer(sessions.sessions_app, name="sessions")
app.command("import")(imports.import_conversations)
app.command("reindex")(recall.reindex)
app.command("context")(context.context)
app.command("usage")(usage.usage)
app.command("models")(models.models)
app.command("log")(log.log)
app.add_typer(config.config_app, name="config")
app.add_typer(key.key_app, name="key")
app.command("doctor")(doctor.doctor)
app.command("mcp")(serve.mcp)
app.command("consent")(privacy.consent)
app.command("purge")(privacy.purge)
app.command("audit")(privacy.audit)
app.add_typer(profile.profile_app, name="profile")
use_everywhere(app)


def main() -> None:
    """Run the command line (memchat.cli.runner: one-line errors, exit codes, a fast exit)."""
    run(lambda: only_the_command(app, sys.argv[1:])(prog_name="memchat"))
