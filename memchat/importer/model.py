"""What every importer produces: sessions of messages, and what it skipped and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


@dataclass
class ImportedMessage:
    external_id: str
    role: str
    content: str
    created_at: str
    name: str | None = None
    status: str = "ok"
    pinned: int = 0
    model: str | None = None


@dataclass
class ImportedSession:
    source: str
    external_id: str
    title: str | None
    messages: list[ImportedMessage] = field(default_factory=list)
    model: str | None = None
    system: str | None = None
    summary: str | None = None
    native_id: int | None = None  # the id in the database it was exported from
    native_created_at: str | None = None
    memory_off: bool = False  # run with --no-memory where it came from: it stays out of memory here


@dataclass
class Skipped:
    """Conversations (or messages) a reader left out, by reason, with the first few examples."""

    counts: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def add(self, reason: str, example: str = "") -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if example and len(self.examples) < 3:
            self.examples.append(example)

    def __bool__(self) -> bool:
        return bool(self.counts)

    def describe(self) -> str:
        """'2 empty, 1 malformed'"""
        return ", ".join(f"{n} {reason}" for reason, n in sorted(self.counts.items()))


@dataclass
class ImportResult:
    sessions_added: int = 0
    sessions_updated: int = 0
    messages_added: int = 0
    messages_skipped: int = 0
    messages_cut: int = 0  # longer than one message may be (MAX_MESSAGE_CHARS): kept up to it
    message_ids: list[int] = field(default_factory=list)
    session_ids: list[int] = field(default_factory=list)  # every session of the file, new or already there
    format: str = ""  # what the file was read as: chatgpt, claude, llm, memchat, jsonl
    skipped: Skipped = field(default_factory=Skipped)  # conversations left out, and why


def one_per_id(sessions: list[ImportedSession], skipped: Skipped) -> list[ImportedSession]:
    """The conversations of one import, each once: two that share an id (a ChatGPT or Claude export
    can list one twice, or two files of it can) are
    - the same conversation when they share a message: one session, the copy said as a duplicate,
      and whatever only the copy holds (a later version's new turns) added to it, never lost;
    - else two conversations under one id: the later is imported as its own session, its id
      completed with its first message's, so that importing the file again finds it again.
    """
    kept: list[ImportedSession] = []
    by_id: dict[tuple[str, str], list[ImportedSession]] = {}
    for s in sessions:
        same_id = by_id.setdefault((s.source, s.external_id), [])
        ids = {m.external_id for m in s.messages}
        copy_of = next((e for e in same_id if ids & {m.external_id for m in e.messages}), None)
        if copy_of is not None:
            known = {m.external_id for m in copy_of.messages}
            copy_of.messages += [m for m in s.messages if m.external_id not in known]
            skipped.add("duplicate", f"conversation {s.external_id}: listed twice")
            continue
        if same_id and s.messages:
            s.external_id = f"{s.external_id}#{s.messages[0].external_id}"
        same_id.append(s)
        kept.append(s)
    return kept


def as_time(value: Any) -> str | None:
    """memchat's stored time (UTC, microseconds, Z) from epoch seconds or an ISO-8601 string with
    or without zone (naive is UTC) or a space for the T; None when absent or unreadable."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            when = datetime.fromtimestamp(value, UTC)
        elif isinstance(value, str) and value.strip():
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
