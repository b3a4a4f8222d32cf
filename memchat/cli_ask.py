"""`memchat ask`: one-shot prompts from arguments and/or stdin, plain or JSON output."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from memchat.cli import app, state
from memchat.errors import ProviderError, UsageError


def read_stdin() -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"stdin is not valid UTF-8 (bad byte at offset {exc.start}); convert it first, "
                         "e.g. with iconv") from None


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is None or sys.stdin.isatty()
    except (AttributeError, ValueError):
        return True


def gather_prompt(words: list[str] | None) -> str:
    """The prompt from arguments, stdin, or both (stdin is appended to the arguments).

    `-` alone means "read the prompt from stdin".
    """
    words = list(words or [])
    from_stdin = words == ["-"]
    if from_stdin:
        words = []
    piped = "" if stdin_is_tty() and not from_stdin else read_stdin()
    prompt = " ".join(words)
    if piped.strip():
        prompt = f"{prompt}\n\n{piped}" if prompt.strip() else piped
    if not prompt.strip():
        if not words and stdin_is_tty() and not from_stdin:
            raise UsageError('no prompt: give one as an argument (memchat ask "...") or pipe it on stdin')
        raise UsageError("the prompt is empty")
    return prompt.strip("\n")


@app.command()
def ask(
    ctx: typer.Context,
    prompt: Optional[list[str]] = typer.Argument(None, help="The prompt; '-' reads it from stdin. Piped stdin is appended."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object instead of streaming text."),
    system: Optional[str] = typer.Option(None, "--system", help="System prompt for this session."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model name."),
    provider: Optional[str] = typer.Option(None, "--provider", help="anthropic or echo (offline)."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="Most tokens in the reply."),
    session_id: Optional[str] = typer.Option(None, "--session", "-s", help="Continue session ID (its messages are sent)."),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Continue the latest session."),
    markdown: Optional[bool] = typer.Option(None, "--markdown/--plain", help="Render Markdown (default: when stdout is a terminal)."),
    no_memory: bool = typer.Option(False, "--no-memory", help="Neither read nor write long-term memory."),
    explain: bool = typer.Option(False, "--explain", help="Also show which memories were sent, and why."),
) -> None:
    """Send one prompt and print the reply; the exchange is stored as a session."""
    from memchat import render, sessions
    from memchat.engine import Engine

    if session_id and continue_:
        raise UsageError("use either --session or --continue, not both")
    text = gather_prompt(prompt)
    st = state(ctx)
    settings = st.settings(model=model, provider=provider, max_tokens=max_tokens)
    from memchat.providers import get_provider

    provider_obj = get_provider(settings.provider, settings)
    provider_obj.ready()  # a missing key fails before anything is stored
    db = st.db()
    if session_id:
        session = sessions.get_session(db, session_id)
    elif continue_:
        session = sessions.latest_session(db)
        if session is None:
            raise UsageError("there is no session to continue yet")
    else:
        session = sessions.create_session(db, model=settings.model, system=system)
    if system and session.system != system:
        session = sessions.update_session(db, session.id, system=system)

    engine = Engine(db, settings, provider_obj, use_memory=not no_memory)
    writer = None if json_out else render.ReplyWriter(markdown=settings.markdown if markdown is None else markdown)
    result = engine.send(session, text, on_text=writer.write if writer else None, on_notice=render.note)
    if writer:
        writer.close()
    if explain and not json_out:
        render.explain_memory(result.memory)
    if (not no_memory and settings.get("memory.capture") and result.reply_message is not None
            and getattr(provider_obj, "can_call_tools", False)):
        from memchat.memory.capture import spawn_capture

        spawn_capture(settings.db_path, session.id, config_path=st.config_path)
    if json_out:
        render.print_json({
            "session_id": result.session.id,
            "message_id": result.reply_message.id if result.reply_message else None,
            "model": result.reply.model or settings.model,
            "reply": result.reply.text,
            "input_tokens": result.reply.input_tokens,
            "output_tokens": result.reply.output_tokens,
            "stop_reason": result.reply.stop_reason,
            "status": result.status,
            **({"error": str(result.error)} if result.error else {}),
            **({"memory": render.memory_items(result.memory)} if explain else {}),
        })
    if result.status == "interrupted":
        render.note(f"[interrupted: the partial reply was kept in session {result.session.id}]")
        raise typer.Exit(130)
    if result.error is not None:
        kept = f" (your message is saved in session {result.session.id})"
        raise ProviderError(str(result.error).rstrip(".") + "." + kept)
