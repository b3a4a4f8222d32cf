"""`memchat import`: past conversations from ChatGPT, Claude, llm, memchat or JSON lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from memchat.cli.common import app as open_app
from memchat.cli.common import can_confirm, confirm, load_encoder, progress_bar
from memchat.errors import MAX_MESSAGE_CHARS, MemchatError
from memchat.text import plural
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.app import Memchat


CAPTURE_REFUSAL = "to import with --capture (it spends model calls)"


def import_conversations(
    ctx: typer.Context,
    path: str = typer.Argument(
        ..., metavar="FILE", help="An export file, its folder or its .zip, or llm's logs.db (never written)."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="chatgpt, claude, llm, memchat or jsonl (default: detected from the content)."
    ),
    embed: bool = typer.Option(
        True, "--embed/--no-embed", help="Embed the new messages now (else on the next recall)."
    ),
    keep_system: bool = typer.Option(
        False, "--keep-system", help="Use the file's system prompts for its sessions (default: kept as data only)."
    ),
    capture: bool = typer.Option(
        False, "--capture", help="Also extract memories from the imported sessions (asks first: it costs calls)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="With --capture: do not ask."),
) -> None:
    """Import past conversations as sessions: searchable by recall and by the memory of every chat.

    Reads ChatGPT's data export (conversations.json, or conversations-000.json… of a large one),
    Claude.ai's data export (conversations.json), llm's logs.db (read-only), a memchat session
    export, or JSON lines of messages. A folder or a .zip of an export works too. Only the branch
    you last saw of an edited conversation is imported; titles, times and models are kept; tool
    calls, reasoning and images are skipped. Importing again adds only what is new. Imported
    sessions are not read into memory unless you ask (--capture).
    """

    memchat = open_app(ctx)
    if capture:  # asked before anything is imported: a refusal leaves the profile as it was
        can_confirm(yes, refusing=CAPTURE_REFUSAL)
        memchat.capture.check_can_capture()
    result = memchat.memories.import_conversations(path, keep_system=keep_system, fmt=fmt)
    skipped = f"; skipped {plural(sum(result.skipped.counts.values()), 'conversation')} ({result.skipped.describe()})"
    typer.echo(
        f"{result.format}: imported {plural(result.messages_added, 'message')} into {result.sessions_added} new and "
        f"{plural(result.sessions_updated, 'updated session')} ({result.messages_skipped} already present)"
        + (skipped if result.skipped else "")
        + (
            f"; cut {plural(result.messages_cut, 'message')} to {MAX_MESSAGE_CHARS:,} characters"
            if result.messages_cut
            else ""
        )
    )
    if embed and (result.message_ids or result.messages_skipped):
        # Everything without a vector, not only this run's messages: an import that was
        # interrupted while embedding is finished by running it again.
        load_encoder(memchat)
        try:
            with progress_bar("embedding messages", minimum=1) as progress:
                memchat.memories.embed_backlog(progress)
        except Exception as exc:  # the messages are in (said above): only their vectors are owed
            from memchat.app.profile import known_failure

            failed = exc if isinstance(exc, MemchatError) else known_failure(exc, memchat.settings.db_path)
            if failed is None:
                raise
            raise MemchatError(
                f"the messages are imported, but embedding them failed: {failed.message.rstrip('.')}; "
                "`memchat reindex` (or the next recall) embeds them"
            ) from None
    if capture:
        _capture(memchat, result.session_ids, yes)


def _capture(memchat: Memchat, session_ids: list[int], yes: bool) -> None:
    from memchat.usage import dollars

    estimate = memchat.capture.capture_estimate(session_ids)
    if not estimate.calls:
        console.note("nothing to capture: no imported session has anything worth remembering")
        return
    cost = f", about {dollars(estimate.cost)}" if estimate.cost is not None else " (no price known for it)"
    console.note(
        f"capture: memories from {plural(len(session_ids), 'imported session')} take "
        f"{plural(estimate.calls, 'call')} to {estimate.model}, ~{estimate.input_tokens:,} input tokens{cost}"
    )
    if not confirm("Go on?", yes, refusing=CAPTURE_REFUSAL):
        console.note("not captured; `memchat import FILE --capture` again when you want it")
        return
    memchat.capture.capture_imported(session_ids)
    console.note(f"capturing in the background ({plural(estimate.calls, 'call')}); see `memchat memories list`")
    said = memchat.privacy.consent()
    if said is not None and not said.capture:
        console.note("your profile's answer is still no: only these imported sessions are learnt from, no chat")
