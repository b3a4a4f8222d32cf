"""Retention windows: how long transcripts, events and unconfirmed guesses are kept.

`expired` lists what the windows let go (what `memchat purge --dry-run` shows); `purge` deletes
it for good, in bounded batches, with the same scrubbing as forget: messages leave their rows,
the full-text index (merged) and the vectors (the vector copy is rewritten, the WAL
checkpointed); events and guesses are forgotten through memchat.memory.forget.erase (history,
summaries that quote them). A session whose every message went is deleted with its episodic
summary; a session that lost its oldest messages loses its title and compaction summary, which
quote them. Never expired: facts (stated, learnt or pinned), pinned events and pinned
messages. Superseded facts go only when asked (`--superseded`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from memchat.db import immediate, let_others_write, utcnow
from memchat.memory.forget import scrub
from memchat.memory.forget.erase import forget, live_memories

if TYPE_CHECKING:
    from memchat.db import Database

BATCH = 2000  # messages deleted per transaction


@dataclass
class Windows:
    """Days each kind of data is kept; 0 or None: forever."""

    transcripts: int | None = None
    events: int | None = None
    pending: int | None = None
    superseded: int | None = None  # only when asked

    def any(self) -> bool:
        return any((self.transcripts, self.events, self.pending, self.superseded))


@dataclass
class Expired:
    messages: list[int] = field(default_factory=list)
    sessions_emptied: list[int] = field(default_factory=list)
    sessions_trimmed: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    superseded: list[int] = field(default_factory=list)

    @property
    def memories(self) -> list[int]:
        return sorted({*self.events, *self.pending, *self.superseded})

    def __bool__(self) -> bool:
        return bool(self.messages or self.memories)


def cutoff(days: int | None, now: datetime | None = None) -> str | None:
    if not days:
        return None
    try:
        when = (now or datetime.now(UTC)) - timedelta(days=days)
    except OverflowError:  # before year 1 (a config's 10**9 days): nothing is that old
        return "0000"
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def expired(db: Database, windows: Windows, now: datetime | None = None) -> Expired:
    """What the windows let go, as of now."""
    out = Expired()
    conn = db.conn
    before = cutoff(windows.transcripts, now)
    if before:
        out.messages = [
            r[0]
            for r in conn.execute(
                "SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id AND s.importing = 0 "
                "WHERE m.created_at < ? AND m.pinned = 0 ORDER BY m.id",
                (before,),
            )
        ]
        if out.messages:
            touched = json.dumps(out.messages)
            for sid, left in conn.execute(
                "SELECT m.session_id, sum(m.id NOT IN (SELECT value FROM json_each(?))) FROM messages m "
                "WHERE m.session_id IN (SELECT session_id FROM messages WHERE id IN (SELECT value FROM json_each(?))) "
                "GROUP BY m.session_id ORDER BY m.session_id",
                (touched, touched),
            ):
                (out.sessions_trimmed if left else out.sessions_emptied).append(sid)
    kinds = (
        ("events", windows.events, "kind = 'event' AND status = 'active' AND pinned = 0 AND created_at < ?"),
        ("pending", windows.pending, "status = 'pending' AND created_at < ?"),
        ("superseded", windows.superseded, "status = 'superseded' AND coalesce(valid_to, updated_at) < ?"),
    )
    for name, days, where in kinds:
        limit = cutoff(days, now)
        if limit:
            setattr(out, name, [r[0] for r in conn.execute(f"SELECT id FROM memories WHERE {where}", (limit,))])
    if out.sessions_emptied:  # their episodic summaries quote them: they go with them
        keys = [f"session.{sid}.summary" for sid in out.sessions_emptied]
        out.events = sorted(
            {
                *out.events,
                *(
                    r[0]
                    for r in conn.execute(
                        "SELECT id FROM memories WHERE key IN (SELECT value FROM json_each(?)) "
                        "AND status != 'forgotten'",
                        (json.dumps(keys),),
                    )
                ),
            }
        )
    return out


def purge(db: Database, doomed: Expired, actor: str = "retention") -> scrub.ScrubResult:
    """Delete what `expired` listed, for good; the scrub's result says whether the files are done
    (a reader's old snapshot, or a disk with no room, leaves them to the next open)."""
    if doomed.memories:
        forget(db, live_memories(db, doomed.memories), actor=actor)  # history: forget by retention
    if doomed.messages:
        with immediate(db):
            db.conn.execute(
                "INSERT INTO pending_scrubs (created_at, purge_sources, items) VALUES (?, 0, '[]')", (utcnow(),)
            )
            # Titles quote a session's first message, compaction summaries its oldest turns.
            db.conn.execute(
                "UPDATE sessions SET title = NULL, summary = NULL WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(doomed.sessions_emptied + doomed.sessions_trimmed),),
            )
        for start in range(0, len(doomed.messages), BATCH):
            if start:
                let_others_write()
            with immediate(db):
                db.conn.execute(
                    "DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(doomed.messages[start : start + BATCH]),),
                )
        with immediate(db):
            emptied = json.dumps(doomed.sessions_emptied)
            db.conn.execute(
                "DELETE FROM capture_state WHERE session_id IN (SELECT value FROM json_each(?))", (emptied,)
            )
            db.conn.execute(
                "DELETE FROM sessions WHERE id IN (SELECT value FROM json_each(?)) "
                "AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = sessions.id)",
                (emptied,),
            )
    return scrub.finish(db) if doomed else scrub.ScrubResult()
