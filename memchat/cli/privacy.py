"""`memchat consent`, `memchat purge` and `memchat audit`: the user's controls over their data."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from memchat.cli.common import JSON_HELP, JSONL_HELP, confirm, emit, json_mode, scrub_notes
from memchat.cli.common import app as open_app
from memchat.cli.doctor import unasked
from memchat.errors import UsageError
from memchat.text import plural
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.app import Memchat

_AGE = re.compile(r"^\s*([0-9]+)\s*(d|days?|w|weeks?|m|months?|y|years?)\s*$", re.ASCII | re.IGNORECASE)
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}
MAX_DAYS = 365 * 1000  # older than any date a computer clock has stamped


def days_of(text: str) -> int:
    """'90d', '12w', '6m', '1y' (or '90 days') as days."""
    match = _AGE.match(text)
    if not match or int(match.group(1)) == 0:
        raise UsageError(f"--older-than {text!r}: give an age such as 90d, 12w, 6m or 1y")
    days = int(match.group(1)) * _DAYS[match.group(2)[0].lower()]
    if days > MAX_DAYS:
        raise UsageError(f"--older-than {text!r}: at most {MAX_DAYS // 365} years")
    return days


def consent(
    ctx: typer.Context,
    answer: str | None = typer.Argument(None, metavar="[yes|no]", help="Capture memories from your chats, or not."),
) -> None:
    """Show or change whether memchat learns memories from your chats (asked once, at the first chat).

    With no, conversations are still saved (to resume and search them) but nothing is learnt
    from them; what was learnt before stays until you forget it.
    """
    memchat = open_app(ctx)
    if answer is None:
        _consent_status(memchat)
        return
    if answer.lower() not in ("yes", "no", "y", "n"):
        raise UsageError(f"answer yes or no, not {answer!r}")
    capture = answer.lower().startswith("y")
    memchat.privacy.set_consent(capture)
    console.say(
        "capture: " + ("yes: memchat learns from your chats" if capture else "no: nothing is learnt from your chats")
    )


def _consent_status(memchat: Memchat) -> None:
    """The answer, and what capture has done: when it last ran, what waits, the last failure."""
    from memchat.ui.tables import capture_status_line

    said = memchat.privacy.consent()
    console.say(
        f"capture: {unasked(memchat)}"
        if said is None
        else f"capture: {'yes' if said.capture else 'no'} (since {said.at[:10]})"
    )
    console.say(f"memory capture: {capture_status_line(memchat.capture.capture_status())}")


def purge(
    ctx: typer.Context,
    older_than: str | None = typer.Option(
        None,
        "--older-than",
        help="Transcripts and events older than this (90d, 12w, 6m, 1y); default: the config's windows.",
    ),
    superseded: bool = typer.Option(
        False, "--superseded", help="Also superseded facts (old values), with their history."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would go; delete nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
    scheduled: bool = typer.Option(False, "--scheduled", hidden=True, help="The background run of the windows."),
) -> None:
    """Delete old data for good: transcripts, events and unconfirmed guesses past their retention
    window, scrubbed like forget (rows, search index, vectors, summaries that quote them).

    Facts (stated, learnt or pinned), pinned events and pinned messages are never expired; a
    superseded fact only with --superseded. Windows: history.retention_days,
    memory.event_retention_days and memory.pending_days in the config (applied in the background
    too); --older-than sets the transcript and event window for this run.
    """
    memchat = open_app(ctx)
    if scheduled:
        memchat.privacy.apply_retention()
        return
    windows = memchat.privacy.retention_windows(
        older_than=days_of(older_than) if older_than else None, superseded=superseded
    )
    if not windows.any():
        raise UsageError("every retention window is 'forever': give --older-than (e.g. 90d), or set them in the config")
    doomed = memchat.privacy.expired(windows)
    parts = [
        (len(doomed.messages), "message"),
        (len(doomed.sessions_emptied), "whole session"),
        (len(doomed.events), "event"),
        (len(doomed.pending), "unconfirmed guess"),
        (len(doomed.superseded), "superseded fact"),
    ]
    listing = ", ".join(
        plural(n, word, "unconfirmed guesses" if word == "unconfirmed guess" else None) for n, word in parts if n
    )
    if not doomed:
        console.say("nothing to purge")
        return
    if dry_run or not yes:
        console.say(f"{'would purge' if dry_run else 'to purge'}: {listing}")
    if dry_run:
        return
    if not confirm("Delete them for good?", yes, refusing="to purge"):
        console.note("nothing purged")
        return
    scrubbed = memchat.privacy.purge(doomed)
    console.say(f"purged {listing}")
    scrub_notes(scrubbed.complete, not memchat.privacy.compaction_owed(), scrubbed.no_room)


def audit(
    ctx: typer.Context,
    since: str | None = typer.Option(None, "--since", help="From then on: 7d, today, 2026-11-01 (default: all)."),
    limit: int = typer.Option(200, "--limit", "-n", min=0, help="The newest this many (0: all)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jsonl_out: bool = typer.Option(False, "--jsonl", help=JSONL_HELP),
) -> None:
    """Everything that happened to your data: each memory written, edited, pinned, confirmed,
    rejected or forgotten, and each export, import, purge, session delete and consent answer,
    with its origin (user, chat, import, mcp, retention). Never the memories' text."""
    from memchat.ui.tables import audit_table

    mode = json_mode(json_out, jsonl_out)
    entries = open_app(ctx).privacy.audit(since=since, limit=limit or None)
    emit(entries, mode, asdict, audit_table, "nothing recorded" + (f" since {since}" if since else ""))
