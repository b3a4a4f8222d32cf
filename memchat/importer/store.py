"""Storing imported sessions: batched, idempotent, hidden until complete, never captured unasked."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memchat.db import immediate, inserted_id, utcnow
from memchat.errors import MAX_MESSAGE_CHARS
from memchat.importer.model import ImportedSession, ImportResult

if TYPE_CHECKING:
    from memchat.db import Database

IMPORT_BATCH = 2000  # messages per transaction: each commits in a few milliseconds


def import_sessions(db: Database, sessions: list[ImportedSession], *, keep_system: bool = False) -> ImportResult:
    """Store sessions and their messages, skipping what is already there.

    Rows go in by IMPORT_BATCH per transaction, so a large file never holds the write lock for
    long; the sessions it creates stay hidden (importing = 1) until the whole file is in, and a
    run cut short is completed by running the same import again (it adds only what is missing).
    A session listed twice (the same source and id) is one session, counted once.
    """
    result = ImportResult()
    hidden: list[int] = []  # the sessions this run creates
    updated: set[int] = set()  # sessions that were there and got new messages
    seen: set[int] = set()
    tx = _Batches(db)
    try:
        for s in map(_well_formed, sessions):
            if _from_this_database(tx.conn(), s):
                result.messages_skipped += len(s.messages)  # exported from this very database
                continue
            session_id, added = _session_row(tx.conn(), s, keep_system)
            again = session_id in seen
            if not again:
                seen.add(session_id)
                result.session_ids.append(session_id)
                if added:
                    hidden.append(session_id)
            new = _add_messages(tx, session_id, s, result)
            if new and (again or not added):
                if not added:
                    updated.add(session_id)
                tx.conn().execute(
                    "UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?",
                    (max(m.created_at for m in s.messages), session_id),
                )
        conn = tx.conn()
        mark_captured(conn, result.session_ids)
        conn.executemany("UPDATE sessions SET importing = 0 WHERE id = ?", [(i,) for i in hidden])
        tx.commit()
    finally:
        tx.close()
    result.sessions_added = len(hidden)
    result.sessions_updated = len(updated)
    return result


def _from_this_database(conn: Any, s: ImportedSession) -> bool:
    """A memchat export of a session of this very database: nothing to import."""
    return s.native_id is not None and bool(
        conn.execute(
            "SELECT 1 FROM sessions WHERE id = ? AND created_at = ? AND external_id IS NULL",
            (s.native_id, s.native_created_at),
        ).fetchone()
    )


def _text(value: str | None) -> str | None:
    """Text SQLite can store: a lone surrogate (an export's broken emoji, "\ud800") becomes U+FFFD, as a
    JSON reader would show it, not an error that stops the whole import."""
    if value is None or value.isascii():
        return value
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _well_formed(s: ImportedSession) -> ImportedSession:
    messages = [
        replace(
            m,
            content=_text(m.content) or "",
            name=_text(m.name),
            model=_text(m.model),
            external_id=_text(m.external_id) or "",
        )
        for m in s.messages
    ]
    return replace(
        s,
        title=_text(s.title),
        model=_text(s.model),
        system=_text(s.system),
        summary=_text(s.summary),
        external_id=_text(s.external_id) or "",
        messages=messages,
    )


def _session_row(conn: Any, s: ImportedSession, keep_system: bool) -> tuple[int, bool]:
    """The session's id, found by its source and external id or created hidden; and whether it is
    new (an interrupted import's session still is)."""
    row = conn.execute(
        "SELECT id, importing FROM sessions WHERE source = ? AND external_id = ?", (s.source, s.external_id)
    ).fetchone()
    if row:
        if s.memory_off and not row[1]:  # out of memory for good: a later export of the same session says so too
            conn.execute("UPDATE sessions SET memory_off = 1 WHERE id = ?", (row[0],))
        return row[0], bool(row[1])
    times = [m.created_at for m in s.messages] or [utcnow()]
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
    return inserted_id(cursor), True


def _add_messages(tx: _Batches, session_id: int, s: ImportedSession, result: ImportResult) -> int:
    """Insert the session's messages that are not there yet, committing every IMPORT_BATCH; how many."""
    new = 0
    for m in s.messages:
        content = m.content
        if len(content) > MAX_MESSAGE_CHARS:  # a pasted log in an export: kept up to the limit, said
            content = content[:MAX_MESSAGE_CHARS] + f"\n[… cut by memchat's import: {len(m.content):,} characters]"
        cursor = tx.conn().execute(
            "INSERT OR IGNORE INTO messages (session_id, role, content, created_at, status, pinned, model, "
            "name, external_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, m.role, content, m.created_at, m.status, m.pinned, m.model, m.name, m.external_id),
        )
        if cursor.rowcount:
            result.messages_cut += content is not m.content
            new += 1
            result.message_ids.append(inserted_id(cursor))
            tx.written()
    result.messages_added += new
    result.messages_skipped += len(s.messages) - new
    return new


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
        self._pending = 0

    def written(self) -> None:
        """One more row in the open transaction: commit when the batch is full."""
        self._pending += 1
        if self._pending >= IMPORT_BATCH:
            self.commit()

    def conn(self) -> Any:
        if self._open is None:
            self._open = immediate(self.db)
            self._open.__enter__()
        return self.db.conn

    def commit(self) -> None:
        self._pending = 0
        if self._open is not None:
            opened, self._open = self._open, None
            opened.__exit__(None, None, None)

    def close(self) -> None:
        """On an error, roll back the batch in progress (committed batches stay; a re-run completes them)."""
        if self._open is not None:
            opened, self._open = self._open, None
            opened.__exit__(*sys.exc_info())
