"""`memchat ask`: one-shot prompts from arguments and/or stdin, plain or JSON output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import complete_session_ids, state
from memchat.errors import ProviderError, StoreError, UnsavedMessageError, UsageError
from memchat.signals import interrupted_exit_code
from memchat.text import is_blank
from memchat.ui import console
from memchat.ui.terminal import read_stdin, stdin_is_tty

if TYPE_CHECKING:
    from memchat.app import Memchat
    from memchat.app.turn import TurnResult
    from memchat.attachments import Attachment
    from memchat.sessions import Session


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
    if not is_blank(piped):
        prompt = f"{prompt}\n\n{piped}" if not is_blank(prompt) else piped
    if is_blank(prompt):
        if not words and stdin_is_tty() and not from_stdin:
            raise UsageError('no prompt: give one as an argument (memchat ask "...") or pipe it on stdin')
        raise UsageError("the prompt is empty")
    return prompt.strip("\n")


def reply_cost(reply: Any, settings: Any, *, billed: bool = True) -> float | None:
    """The reply's cost in dollars from the price table; None when the model has no price, 0 for a
    provider that bills nothing (echo)."""
    from memchat.usage import cost

    if not billed:
        return 0.0
    if not (reply.input_tokens or reply.output_tokens):
        return None
    return cost(reply.model or settings.model, reply.input_tokens or 0, reply.output_tokens or 0, settings.prices)


def ask(
    ctx: typer.Context,
    prompt: list[str] | None = typer.Argument(
        None, help="The prompt; '-' reads it from stdin. Piped stdin is appended."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Print one JSON object (reply, tokens, cost, the memory sent) instead of streaming text."
    ),
    system: str | None = typer.Option(None, "--system", help="System prompt for this session."),
    model: str | None = typer.Option(None, "--model", "-m", help="Model name."),
    provider: str | None = typer.Option(None, "--provider", help="anthropic, openai or echo (offline)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", help="Most tokens in the reply."),
    session_id: str | None = typer.Option(
        None,
        "--session",
        "-s",
        autocompletion=complete_session_ids,
        help="Continue session ID (its messages are sent).",
    ),
    continue_: bool = typer.Option(False, "--continue", "-c", help="Continue the latest session."),
    markdown: bool | None = typer.Option(
        None, "--markdown/--plain", help="Render Markdown (default: when stdout is a terminal)."
    ),
    no_memory: bool = typer.Option(False, "--no-memory", help="Neither read nor write long-term memory."),
    explain: bool = typer.Option(False, "--explain", help="Also show which memories were sent, and why."),
    attach: list[str] | None = typer.Option(
        None,
        "--attach",
        "-a",
        metavar="FILE",
        help="Send a text file (or a PNG, JPEG, GIF, WebP image) too; repeatable.",
    ),
) -> None:
    """Send one prompt and print the reply; the exchange is stored as a session.

    On a terminal, the first time (nothing decided yet), it asks once whether memchat may learn
    memories from your chats; piped or in a script it never asks, and learns nothing until
    `memchat consent yes` (or memory.capture = true in the config)."""
    st = state(ctx)  # `memchat -c ask ...`: the global flags, where the README puts global flags
    # "" is an id a script forgot to fill in: refused (sessions.parse_id), never read as "no session"
    session_id, continue_ = session_id if session_id is not None else st.session, continue_ or st.continue_
    if session_id is not None and continue_:
        raise UsageError("use either --session or --continue, not both")
    text = gather_prompt(prompt)
    attached = _read_attachments(attach)  # a missing or binary file is said before anything is stored
    memchat = open_app(ctx, model=model, provider=provider, max_tokens=max_tokens)
    if no_memory:
        memchat.memory_off()
    memchat.provider.ready()  # a missing key fails before anything is stored
    try:  # the database opens here: locked, read-only, a full disk: nothing of the prompt was stored
        if stdin_is_tty() and console.stdout_is_tty() and memchat.capture.consent_unasked():
            from memchat.repl.loop import ask_consent

            # the first chat or ask on a terminal asks, once, before anything is learnt; Ctrl-C cancels the ask
            # (asked before the models load: a loading thread that holds the interpreter must not delay Ctrl-C)
            ask_consent(memchat, interruptible=True)
        memchat.load_in_background()  # the tokenizer and the encoder load while the session opens
        session = memchat.chat.start_session(session_id=session_id, continue_=continue_, system=system)
    except StoreError as exc:
        raise UnsavedMessageError(exc) from None
    assert session is not None
    try:
        result = _send_kept(memchat, session, text, attached, json_out=json_out, markdown=markdown)
    except BaseException:
        if session_id is None and not continue_:  # a new session that never got your message
            memchat.chat.discard_if_empty(session)
        raise
    if not json_out:
        _notes_after_reply(result, explain)
    if result.reply_message is not None:
        memchat.capture.capture_detached(session)  # only with the person's yes (app.capture.can_capture)
    if json_out:
        console.print_json(_json_reply(memchat, result, explain))
    if result.status == "interrupted":
        console.note(f"[interrupted: the partial reply was kept in session {result.session.id}]")
        raise typer.Exit(interrupted_exit_code())
    if result.error is not None:
        kept = f" (your message is saved in session {result.session.id})"
        raise ProviderError(str(result.error).rstrip(".") + "." + kept)


def _notes_after_reply(result: TurnResult, explain: bool) -> None:
    """The model's memory searches, then with --explain what memory was sent: after the reply,
    never inside its stream."""
    from memchat.ui import tables

    for line in result.notes:
        console.note(line)
    if explain:
        tables.explain_memory(result.memory)


def _read_attachments(paths: list[str] | None) -> list[Attachment]:
    from memchat.attachments import read

    return [read(path) for path in paths or []]


def _send_kept(
    memchat: Memchat, session: Session, text: str, attached: list[Attachment], *, json_out: bool, markdown: bool | None
) -> TurnResult:
    """The turn; a failure to store after the message was stored (the reply, on a disk that filled)
    says which session holds the message, so that a script does not send it twice."""
    try:
        return _send(memchat, session, text, attached, json_out=json_out, markdown=markdown)
    except UnsavedMessageError:
        raise
    except StoreError as exc:
        raise StoreError(
            f"{exc.message.rstrip('.')}. Your message is saved in session {session.id}, without a reply kept; "
            f"`memchat ask --session {session.id} ...` goes on from it once the database is writable"
        ) from None


def _send(
    memchat: Memchat, session: Session, text: str, attached: list[Attachment], *, json_out: bool, markdown: bool | None
) -> TurnResult:
    """The turn, its reply streamed to the terminal (or kept for --json)."""
    from memchat.ui.stream import ReplyWriter

    settings = memchat.settings
    writer = None if json_out else ReplyWriter(markdown=settings.markdown if markdown is None else markdown)
    if writer:
        writer.waiting()
    try:
        return memchat.chat.send(
            session, text, on_text=writer.write if writer else None, on_notice=console.note, attached=attached
        )
    finally:
        if writer:
            writer.close()


def _json_reply(memchat: Memchat, result: TurnResult, explain: bool) -> dict[str, Any]:
    from memchat.ui import tables

    settings = memchat.settings
    return {
        "session_id": result.session.id,
        "message_id": result.reply_message.id if result.reply_message else None,
        "model": result.reply.model or memchat.provider.model_name(settings.model),
        "reply": result.reply.text,
        "input_tokens": result.reply.input_tokens,
        "output_tokens": result.reply.output_tokens,
        "cost_usd": reply_cost(result.reply, settings, billed=memchat.provider.real_usage),
        "stop_reason": result.reply.stop_reason,
        "status": result.status,
        **({"error": str(result.error)} if result.error else {}),
        "memory": tables.memory_sent(result.memory, explain),
    }
