"""Storing imported sessions: batched, idempotent, hidden until complete, never captured unasked."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memchat.db import immediate, inserted_id, utcnow
from memchat.importer.model import ImportedSession, ImportResult

if TYPE_CHECKING:
    from memchat.db import Database

IMPORT_BATCH = 2000  # messages per transaction: each commits in a few milliseconds


def import_sessions(db: Database, sessions: list[ImportedSession], *, keep_system: bool = False) -> ImportResult:
    """Store sessions and their messages, skipping what is already there.

    Rows go in by IMPORT_BATCH per transaction, so a large file never holds the write lock for
    long; the sessions it creates stay hidden (importing = 1) until the whole file is in, and a
    run cut short is completed by running the same import again (it adds only what is missing).
    """
    result = ImportResult()
    hidden: list[int] = []
    pending = 0
    tx = _Batches(db)
    try:
        for s in sessions:
            conn = tx.conn()
            if (
                s.native_id is not None
                and conn.execute(
                    "SELECT 1 FROM sessions WHERE id = ? AND created_at = ? AND external_id IS NULL",
                    (s.native_id, s.native_created_at),
                ).fetchone()
            ):
                result.messages_skipped += len(s.messages)  # exported from this very database
                continue
            times = [m.created_at for m in s.messages] or [utcnow()]
            row = conn.execute(
                "SELECT id, importing FROM sessions WHERE source = ? AND external_id = ?", (s.source, s.external_id)
            ).fetchone()
            if row:
                session_id, added_session = row[0], bool(row[1])  # an interrupted import's session: still new
            else:
                cursor = conn.execute(
                    "INSERT INTO sessions (title, created_at, updated_at, model, system, imported_system, summary, "
                    "source, external_id, memory_off, importing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
                    (
                        s.title,
                        s.native_created_at or min(times),
                        max(times),
                        s.model,
                        s.system if keep_system else None,  # another tool's prompt is data unless asked
                        s.system,
                        s.summary,
                        s.source,
                        s.external_id,
                        int(s.memory_off),
                    ),
                )
                session_id, added_session = inserted_id(cursor), True
            if added_session:
                hidden.append(session_id)
            elif s.memory_off:  # out of memory for good: a later export of the same session says so too
                conn.execute("UPDATE sessions SET memory_off = 1 WHERE id = ?", (session_id,))
            new = 0
            for m in s.messages:
                cursor = tx.conn().execute(
                    "INSERT OR IGNORE INTO messages (session_id, role, content, created_at, status, pinned, model, "
                    "name, external_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, m.role, m.content, m.created_at, m.status, m.pinned, m.model, m.name, m.external_id),
                )
                if cursor.rowcount:
                    new += 1
                    result.message_ids.append(inserted_id(cursor))
                    pending += 1
                    if pending >= IMPORT_BATCH:
                        tx.commit()
                        pending = 0
            result.messages_added += new
            result.messages_skipped += len(s.messages) - new
            result.session_ids.append(session_id)
            if added_session:
                result.sessions_added += 1
            elif new:
                result.sessions_updated += 1
                tx.conn().execute(
                    "UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?", (max(times), session_id)
                )
        conn = tx.conn()
        mark_captured(conn, result.session_ids)
        conn.executemany("UPDATE sessions SET importing = 0 WHERE id = ?", [(i,) for i in hidden])
        tx.commit()
    finally:
        tx.close()
    return result


def mark_captured(conn: Any, session_ids: list[int]) -> None:
    """Imported turns count as read by capture: memory is never filled from an import (at the
    memory model's cost) unless the user asks, with `memchat import --capture`."""
    conn.execute(
        "INSERT INTO capture_state (session_id, through_message_id, summarised_through, attempts, updated_at) "
        "SELECT session_id, max(id), max(id), 0, ? FROM messages WHERE session_id IN (SELECT value FROM json_each(?)) "
        "GROUP BY session_id ON CONFLICT(session_id) DO UPDATE SET "
        "through_message_id = excluded.through_message_id, summarised_through = excluded.summarised_through",
        (utcnow(), json.dumps(session_ids)),
    )


def unmark_captured(conn: Any, session_ids: list[int]) -> None:
    """Let capture read these sessions from their first message (`import --capture`)."""
    conn.execute(
        "DELETE FROM capture_state WHERE session_id IN (SELECT value FROM json_each(?))", (json.dumps(session_ids),)
    )


class _Batches:
    """A run of IMMEDIATE transactions: `conn()` opens one when none is open, `commit()` ends it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._open: Any = None

    def conn(self) -> Any:
        if self._open is None:
            self._open = immediate(self.db)
            self._open.__enter__()
        return self.db.conn

    def commit(self) -> None:
        if self._open is not None:
            opened, self._open = self._open, None
            opened.__exit__(None, None, None)

    def close(self) -> None:
        """On an error, roll back the batch in progress (committed batches stay; a re-run completes them)."""
        if self._open is not None:
            import sys

            opened, self._open = self._open, None
            opened.__exit__(*sys.exc_info())
