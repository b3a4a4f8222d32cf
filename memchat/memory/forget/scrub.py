"""The second half of forgetting: everything that still mentions what was forgotten, and the files.

`finish` carries out the pending scrubs that memchat.memory.forget.erase (and deleting a session)
recorded, in bounded transactions:

- sentences of session summaries and of episodic summary memories that mention a forgotten
  memory become "[forgotten]" (memchat.memory.forget.redact decides what "mentions" means);
- past messages that mention it are withheld from every prompt; with purge_sources, the
  turns it came from become "[forgotten]", and the sentences of other messages and the
  session titles that mention it are redacted;
- the on-disk copy of the vectors is deleted, the file compacted (VACUUM: SQLite leaves old
  copies of a row in the unused space of live pages when rows grow or move, which secure_delete
  never reaches) and the WAL checkpointed (TRUNCATE), so the old page images leave the files.
  If another process still reads an old snapshot the checkpoint cannot finish: the scrub stays
  pending, and the next open of the profile finishes it. Compaction rewrites the whole file
  under the write lock (0.9 s for 225 MB here, 22 s for 2.2 GB): above COMPACT_MAX_BYTES it is
  left to `memchat profile compact`, which the command that forgot says.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memchat.db import (
    BUSY_TIMEOUT_MS,
    WAL_RESTART_WAIT_MS,
    db_file,
    immediate,
    inserted_id,
    let_others_write,
    sql_errors,
    utcnow,
)
from memchat.errors import StoreError
from memchat.memory.forget.redact import Forgotten as Target
from memchat.memory.forget.redact import Redactor
from memchat.memory.judge.state import replies_of, withhold
from memchat.memory.recall.vector_file import drop_disk_cache
from memchat.memory.store.records import FORGOTTEN_MESSAGE, log_history
from memchat.memory.text import fts_query

if TYPE_CHECKING:
    from memchat.db import Database
    from memchat.memory.forget.redact import Redactor

SUMMARY_BATCH = 200  # summaries redacted per transaction
MESSAGE_BATCH = 2000  # messages read per step when the whole transcript must be read
FTS_LOOKUP_MAX = 50  # up to this many forgotten memories, their mentions are looked up by full text
MENTION_CANDIDATES = 2000
DELETE_BATCH = 2000  # messages deleted per transaction


COMPACT_MAX_BYTES = 256 << 20  # compacted by forget itself up to here (about a second of write lock)
COMPACT_MARGIN = 1 << 20  # free space a compaction needs beyond the file's size and a quarter


@dataclass
class ScrubResult:
    redactions: int = 0
    withheld: int = 0
    complete: bool = True
    compacted: bool = True  # False: the file is too large to compact on the way; `profile compact` does
    no_room: bool = False  # True: the disk had no room to compact it (not a reader holding it back)


def pending(db: Database) -> int:
    return int(db.conn.execute("SELECT count(*) FROM pending_scrubs").fetchone()[0])


def finish(db: Database) -> ScrubResult:
    """Carry out every pending scrub; idempotent, so a second process doing it too does no harm."""
    result = ScrubResult()
    rows: list[tuple[int, int, list[dict[str, Any]]]] = [
        (row_id, purged, json.loads(items or "[]"))
        for row_id, purged, items in db.conn.execute("SELECT id, purge_sources, items FROM pending_scrubs ORDER BY id")
    ]
    entries = [entry for _, _, row_items in rows for entry in row_items]
    for gone in sorted({int(e["session"]) for e in entries if "session" in e}):
        _delete_session_rows(db, gone)  # a session delete, also one a kill cut short
    items = [e for e in entries if "text" in e]
    if items:
        redactor = Redactor(Target(i["text"], i.get("value")) for i in items)
        result.redactions = _summaries(db, redactor)
        sources = {int(s) for i in items for s in i.get("sources") or []}
        # a reply goes with the message it answers: "Congratulations to your sister!" after "Ana is pregnant"
        mentioning = replies_of(db, _mentioning(db, redactor, items) | sources)
        result.withheld = len(mentioning)
        purged_items = [i for _, purged, row_items in rows if purged for i in row_items if "text" in i]
        purge = {int(s) for i in purged_items for s in i.get("sources") or []}
        # --purge-sources redacts what mentions the memory even when no source was recorded (a
        # memory added by hand, or /remember'ed after it was said): the user asked for the words gone
        redact = Redactor(Target(i["text"], i.get("value")) for i in purged_items) if purged_items else None
        _withhold_and_purge(db, redact, mentioning, replies_of(db, purge))
    work = [row for row in rows if not _marker(row[2])]
    # The file work owed: compaction after new deletions (or one a busy lock put off), else only
    # the checkpoint a reader's old snapshot held back - never a VACUUM on every open for that.
    compact_owed = bool(work) or any(_marker(row[2]) == "compact" for row in rows)
    if rows:
        # FTS5 keeps the tokens of deleted rows in old segments until they are merged: merge the
        # memories' index once here (not per batch: each merge reads the whole index), and the
        # messages' when messages were deleted (a session delete, recorded with no items) or purged;
        # and any merge a full disk put off.
        messages_changed = any(
            purged or not row_items or any("session" in e for e in row_items) for _, purged, row_items in work
        )
        wanted = (["memories_fts"] if items else []) + (["messages_fts"] if messages_changed else [])
        wanted += [t for _, _, row_items in rows if _marker(row_items) for t in row_items[0].get("merge", [])]
        merge = [t for t in _INDEXES if t in wanted]
        # A merge writes its index again: with the WAL copied back first, it needs room for that alone.
        # Without the room it is put off (said as no room), never begun: a merge that fills the
        # disk leaves a WAL no checkpoint can copy back, with the old pages in it (an adversarial pass).
        _checkpoint(db)
        room = _room_for(db, 2 * _index_bytes(db, merge))
        with immediate(db):
            for table in merge if room else []:
                db.conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
            db.conn.execute("DELETE FROM pending_scrubs WHERE id <= ?", (rows[-1][0],))
            # Until the vector copy is gone, the indexes merged, the file compacted and the WAL
            # checkpointed, a record says so: a kill, a busy reader or a full disk leaves it for the
            # next open (which finishes it).
            owed = _owe(db, "compact" if compact_owed else "checkpoint", [] if room else merge)
        result.no_room = not room
    result.compacted = not compact_owed or _size(db) <= COMPACT_MAX_BYTES
    vacuumed, checkpointed, no_room = _files(db, compact=compact_owed and result.compacted and not result.no_room)
    merged = not result.no_room
    result.no_room = result.no_room or no_room
    result.complete = merged and checkpointed and (vacuumed or not (compact_owed and result.compacted))
    if rows and result.complete:
        with immediate(db):
            db.conn.execute("DELETE FROM pending_scrubs WHERE id = ?", (owed,))
    elif rows and vacuumed:
        with immediate(db):  # compacted: only the checkpoint is left for the next open
            db.conn.execute("UPDATE pending_scrubs SET items = ? WHERE id = ?", (_FILES["checkpoint"], owed))
    elif not rows and not result.complete:
        with immediate(db):
            _owe(db, "checkpoint")
    return result


_INDEXES = ("memories_fts", "messages_fts")


def _index_bytes(db: Database, tables: list[str]) -> int:
    """What the full-text indexes named hold, in bytes (their segments)."""
    return sum(
        int(db.conn.execute(f"SELECT coalesce(sum(length(block)), 0) FROM {table}_data").fetchone()[0])
        for table in tables
    )


def _checkpoint(db: Database) -> None:
    """Copy the WAL back without waiting on anyone (PASSIVE), so the writes after it reuse the WAL
    from its start rather than grow it: best effort (a reader or a full disk may hold some back)."""
    try:
        db.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sql_errors():
        pass


_FILES = {what: json.dumps([{"files": what}]) for what in ("compact", "checkpoint")}


def _marker(items: list[dict[str, Any]]) -> str | None:
    """ "compact" or "checkpoint" for a record of owed file work, None for a scrub to carry out."""
    return str(items[0]["files"]) if len(items) == 1 and "files" in items[0] else None


def _owe(db: Database, what: str, merge: list[str] | None = None) -> int:
    items = json.dumps([{"files": what, "merge": merge}]) if merge else _FILES[what]
    return inserted_id(
        db.conn.execute(
            "INSERT INTO pending_scrubs (created_at, purge_sources, items) VALUES (?, 0, ?)", (utcnow(), items)
        )
    )


def _delete_session_rows(db: Database, session_id: int) -> None:
    """The messages of a session being deleted, in batches (FTS entries and vectors go with them by
    trigger), then the session itself."""
    while ids := [
        r[0]
        for r in db.conn.execute(
            "SELECT id FROM messages WHERE session_id = ? ORDER BY id LIMIT ?", (session_id, DELETE_BATCH)
        )
    ]:
        with immediate(db):
            db.conn.execute("DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
        let_others_write()
    with immediate(db):
        db.conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))


def _summaries(db: Database, redactor: Redactor) -> int:
    """Redact session summaries and episodic summary memories (and their history), in batches."""
    conn, total, last = db.conn, 0, 0
    while batch := conn.execute(
        "SELECT id, summary FROM sessions WHERE id > ? AND summary != '' ORDER BY id LIMIT ?", (last, SUMMARY_BATCH)
    ).fetchall():
        last = batch[-1][0]
        changes = []
        for sid, summary in batch:
            text, n = redactor.redact(summary)
            if n:
                changes.append((text, sid))
                total += n
        if changes:
            with immediate(db):
                conn.executemany("UPDATE sessions SET summary = ? WHERE id = ?", changes)
    last = 0
    while batch := conn.execute(
        "SELECT id, text FROM memories WHERE id > ? AND kind = 'event' AND key LIKE 'session.%.summary' "
        "AND status != 'forgotten' ORDER BY id LIMIT ?",
        (last, SUMMARY_BATCH),
    ).fetchall():
        last = batch[-1][0]
        now = utcnow()
        with immediate(db):
            for mid, text in batch:
                redacted, n = redactor.redact(text)
                if not n:
                    continue
                total += n
                conn.execute(
                    "UPDATE memories SET text = ?, embedding = NULL, embedding_model = NULL, "
                    "updated_at = ? WHERE id = ?",
                    (redacted, now, mid),
                )
                for hid, old, new in conn.execute(
                    "SELECT id, old_text, new_text FROM memory_history WHERE memory_id = ?", (mid,)
                ).fetchall():
                    conn.execute(
                        "UPDATE memory_history SET old_text = ?, new_text = ? WHERE id = ?",
                        (redactor.redact(old or "")[0] or None, redactor.redact(new or "")[0] or None, hid),
                    )
                log_history(conn, mid, "edit", None, redacted, "user", now)
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
    return total


def _mentioning(db: Database, redactor: Redactor, items: list[dict[str, Any]]) -> set[int]:
    """Messages that mention a forgotten memory: looked up by full text for a few memories, else read."""
    found: set[int] = set()
    if len(items) <= FTS_LOOKUP_MAX:
        for item in items:
            query = fts_query(f"{item['text']} {item.get('value') or ''}")
            if query:
                found.update(
                    mid
                    for mid, content in db.conn.execute(
                        "SELECT g.id, g.content FROM messages_fts JOIN messages g ON g.id = messages_fts.rowid "
                        "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
                        (query, MENTION_CANDIDATES),
                    )
                    if redactor.redact(content)[1]
                )
        return found
    last = 0
    while rows := db.conn.execute(
        "SELECT id, content FROM messages WHERE id > ? ORDER BY id LIMIT ?", (last, MESSAGE_BATCH)
    ).fetchall():
        found.update(mid for mid, content in rows if redactor.redact(content)[1])
        last = rows[-1][0]
    return found


def _withhold_and_purge(db: Database, redactor: Redactor | None, mentioning: set[int], purge: set[int]) -> None:
    """Withhold the messages that mention forgotten memories; with `redactor` (the memories whose
    sources are purged), also redact their mentions, and replace the sources themselves."""
    now = utcnow()
    ordered = sorted(mentioning | purge)
    for start in range(0, len(ordered), MESSAGE_BATCH):
        part = ordered[start : start + MESSAGE_BATCH]
        with immediate(db):
            withhold(db, part, "forgotten", now)
            if redactor is None:
                continue
            conn = db.conn
            for mid, content, session_id in conn.execute(
                "SELECT id, content, session_id FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(part),),
            ).fetchall():
                text = FORGOTTEN_MESSAGE if mid in purge else redactor.redact(content)[0]
                if text != content:
                    conn.execute("UPDATE messages SET content = ?, tokens = NULL WHERE id = ?", (text, mid))
                    conn.execute("DELETE FROM message_vectors WHERE message_id = ?", (mid,))
                title = conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()[0]
                if title and (new_title := redactor.redact(title)[0]) != title:
                    conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (new_title, session_id))


def _size(db: Database) -> int:
    try:
        return os.stat(db_file(db)).st_size
    except OSError:
        return 0  # in memory


def _room_to_compact(db: Database) -> bool:
    """Whether the disk has room for a compaction: VACUUM writes the whole file again into the WAL.
    Begun without it, it fills the disk, fails, and leaves the WAL at the size of the free space it
    took, with old page images in it that no checkpoint can then copy back (the file cannot grow):
    the forgotten words stayed on a full disk (an adversarial pass)."""
    size = _size(db)
    return not size or _room_for(db, size + size // 4)


def _room_for(db: Database, size: int) -> bool:
    """Whether the disk beside the database has `size` bytes free, and a margin."""
    if not size or _size(db) == 0:
        return True
    try:
        free = shutil.disk_usage(db_file(db).parent).free
    except OSError:
        return True  # unknown: let SQLite try, and say so if it fails
    return free >= size + COMPACT_MARGIN


def compact(db: Database) -> bool:
    """Rewrite the file without the unused space of its pages, then checkpoint; False if another
    process keeps it from finishing (a writer, or a reader of an old snapshot)."""
    vacuumed, checkpointed, no_room = _files(db, compact=True)
    if no_room:
        raise StoreError("the disk has no room to compact the database (it needs about the file's size free)")
    return vacuumed and checkpointed


def _files(db: Database, *, compact: bool) -> tuple[bool, bool, bool]:
    """Delete the vector copy, compact, then checkpoint the WAL: (compacted, no old page image left
    in the WAL, the compaction failed for want of room). A compaction that fails (busy, no room for
    its copy) still lets the checkpoint run."""
    drop_disk_cache(db)
    conn = db.conn
    conn.execute(f"PRAGMA busy_timeout = {WAL_RESTART_WAIT_MS}")
    vacuumed = no_room = False
    if compact and not _room_to_compact(db):
        compact, no_room = False, True  # checkpoint only: the next command with room compacts
    try:
        if compact:
            try:
                conn.execute("VACUUM")
                vacuumed = True
            except sql_errors() as exc:  # owed: the next open tries again
                no_room = any(word in str(exc).lower() for word in ("full", "disk i/o"))
        # Copy the pages back first without the write lock; TRUNCATE then holds it only briefly.
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            busy, log, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sql_errors() as exc:  # the file cannot grow to take the pages back: owed, said as no room
            if not any(word in str(exc).lower() for word in ("full", "disk i/o")):
                raise
            return vacuumed, False, True
    finally:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return vacuumed, not busy and (log in (-1, 0) or log == done), no_room
