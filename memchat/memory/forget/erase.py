"""Forgetting that leaves nothing: rows, audit trail, full-text index, vectors, summaries, free pages.

`forget` works in bounded batches, so that forgetting everything never holds the write lock
long enough to lock out a chat (each batch is one short transaction, ~BATCH memories):

1. In one transaction per batch: each memory (and the older versions it superseded: forget
   follows the whole chain) keeps only that it was forgotten, and when; every history row of
   the chain that quoted any text it ever had loses that text; and what remains to do
   (merging the FTS segments that still hold the deleted words, the summaries and past
   messages that mention it) is recorded as a pending scrub, with the texts it needs, in the
   same commit. Between batches forget pauses (db.let_others_write) so a chat gets the lock.
2. The pending scrubs are then carried out (memchat.memory.forget.scrub): the FTS index is merged,
   sentences of summaries that mention the memory are redacted, past messages that mention
   it are withheld from every prompt (or, with purge_sources, redacted), the on-disk copy of
   the vectors is deleted, and the WAL is checkpointed so that, with `secure_delete` on, no page image of
   the words is left in the database files.

A kill or a full disk between the two leaves the pending scrub on disk; the next time the
profile is opened (`finish_pending`) it is finished. Forget reports whether the bytes are
gone or, when another process still reads an older snapshot, that the scrub will finish
when it lets go.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memchat.db import immediate, let_others_write, utcnow
from memchat.errors import StoreError
from memchat.memory.forget import scrub
from memchat.memory.store.records import COLUMNS, Memory, log_history, memory_from_row

if TYPE_CHECKING:
    from memchat.db import Database

BATCH = 500  # memories per transaction: each commits in well under a second


@dataclass
class Forgotten:
    ids: list[int] = field(default_factory=list)
    summary_redactions: int = 0  # sentences taken out of summaries
    sources: list[int] = field(default_factory=list)  # the messages the memories came from
    withheld: int = 0  # past messages that mention them, never sent to the model again
    complete: bool = True  # False: another reader holds an old snapshot; the scrub finishes after it
    compacted: bool = True  # False: too large to compact on the way (`memchat profile compact` does it)
    no_room: bool = False  # True: not complete because the disk had no room to compact the file
    owed: str | None = None  # why the scrub could not run at all (a full disk): the next open carries it out
    said: list[tuple[str, str | None]] = field(default_factory=list, repr=False)  # (text, value): in memory only


def chain(db: Database, ids: list[int]) -> list[int]:
    """The ids and every older version they superseded, recursively (oldest last)."""
    if not ids:
        return []
    found = [
        r[0]
        for r in db.conn.execute(
            "WITH RECURSIVE older(id) AS (SELECT value FROM json_each(?) UNION "
            "SELECT m.id FROM memories m JOIN older o ON m.superseded_by = o.id) SELECT id FROM older",
            (json.dumps(ids),),
        )
    ]
    return list(dict.fromkeys([*ids, *found]))


def live_memories(db: Database, ids: list[int]) -> list[Memory]:
    cursor = db.conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM memories WHERE id IN (SELECT value FROM json_each(?)) "
        "AND status != 'forgotten' ORDER BY id",
        (json.dumps(ids),),
    )
    names = [d[0] for d in cursor.description]
    return [memory_from_row(row, names) for row in cursor.fetchall()]


def said_by(db: Database, ids: list[int]) -> list[tuple[str, str | None]]:
    """(text, value) of every version of these memories that forget would erase: what the input
    history must lose, found before the rows go (so a kill after them leaves nothing typed)."""
    every = chain(db, ids)
    said: list[tuple[str, str | None]] = []
    for start in range(0, len(every), BATCH):
        batch = live_memories(db, every[start : start + BATCH])
        texts = _texts(db, batch)
        said += [(t, m.value) for m in batch for t in sorted(texts[m.id])]
    return said


def forget(
    db: Database, targets: list[Memory], *, actor: str = "user", purge_sources: bool = False, action: str = "forget"
) -> Forgotten:
    """Forget these memories, and the versions they superseded, for good."""
    ids = chain(db, [m.id for m in targets])
    done = Forgotten()
    for start in range(0, len(ids), BATCH):
        batch = live_memories(db, ids[start : start + BATCH])
        if batch:
            texts = _erase(db, batch, actor, action, purge_sources)
            done.said += [(t, m.value) for m in batch for t in sorted(texts[m.id])]
            done.ids += [m.id for m in batch]
            done.sources += sorted({i for m in batch for i in m.source_message_ids})
            if start + BATCH < len(ids):
                let_others_write()
    if not done.ids:
        return done
    result = _finish(db, done)
    if result is not None:
        done.summary_redactions, done.withheld, done.complete = result.redactions, result.withheld, result.complete
        done.compacted, done.no_room = result.compacted, result.no_room
    return done


def _finish(db: Database, done: Forgotten) -> scrub.ScrubResult | None:
    """The pending scrub, now; None when the database refused its writes (a full disk) after the
    memories themselves were gone: it stays recorded, and the next open carries it out."""
    try:
        return scrub.finish(db)
    except StoreError as exc:
        done.complete, done.owed = False, exc.message
        return None


def _texts(db: Database, batch: list[Memory]) -> dict[int, set[str]]:
    """Every text each memory ever had: its own, and what its history rows quote (edits, updates)."""
    texts = {m.id: {m.text} for m in batch}
    for memory_id, old, new in db.conn.execute(
        "SELECT memory_id, old_text, new_text FROM memory_history WHERE memory_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(texts)),),
    ):
        texts[memory_id].update(t for t in (old, new) if t)
    return texts


def _erase(db: Database, batch: list[Memory], actor: str, action: str, purge_sources: bool) -> dict[int, set[str]]:
    """One batch: rows, history (the whole chain's), FTS, and the pending scrub, in one commit."""
    now = utcnow()
    texts = _texts(db, batch)
    every_text = sorted({t for ts in texts.values() for t in ts})
    ids = json.dumps([m.id for m in batch])
    with immediate(db):
        conn = db.conn
        conn.execute(
            "INSERT INTO pending_scrubs (created_at, purge_sources, items) VALUES (?, ?, ?)",
            (
                now,
                int(purge_sources),
                json.dumps(
                    [
                        {"text": t, "value": m.value, "sources": m.source_message_ids}
                        for m in batch
                        for t in sorted(texts[m.id])
                    ]
                ),
            ),
        )
        conn.execute(
            "UPDATE memory_history SET old_text = NULL, new_text = NULL "
            "WHERE memory_id IN (SELECT value FROM json_each(?))",
            (ids,),
        )
        # The neighbours in a supersede chain quote each other's text in their history rows.
        neighbours = json.dumps(
            [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM memories WHERE superseded_by IN (SELECT value FROM json_each(?)) "
                    "UNION SELECT superseded_by FROM memories WHERE id IN (SELECT value FROM json_each(?)) "
                    "AND superseded_by IS NOT NULL",
                    (ids, ids),
                )
            ]
        )
        quoted = json.dumps(every_text)
        conn.execute(
            "UPDATE memory_history SET old_text = NULL WHERE memory_id IN (SELECT value FROM json_each(?)) "
            "AND old_text IN (SELECT value FROM json_each(?))",
            (neighbours, quoted),
        )
        conn.execute(
            "UPDATE memory_history SET new_text = NULL WHERE memory_id IN (SELECT value FROM json_each(?)) "
            "AND new_text IN (SELECT value FROM json_each(?))",
            (neighbours, quoted),
        )
        conn.execute(
            "UPDATE memories SET text = '', key = NULL, value = NULL, status = 'forgotten', pinned = 0, "
            "embedding = NULL, embedding_model = NULL, source_message_ids = '[]', "
            "valid_to = coalesce(valid_to, ?), updated_at = ? WHERE id IN (SELECT value FROM json_each(?))",
            (now, now, ids),
        )
        for m in batch:
            log_history(conn, m.id, action, None, None, actor, now)
    return texts


def delete_sessions(db: Database, session_ids: list[int]) -> Forgotten:
    """Delete sessions: every memory drawn only from their messages (taken together: a fact
    drawn from two of them goes with both) and their episodic summaries (forgotten like any
    memory), then their messages (their full-text entries and vectors with them) and one scrub.

    The messages go through a pending scrub recorded first (with the titles, which quote the
    first message): a kill part-way is finished by the next open of the profile.
    """
    ids = sorted(set(session_ids))
    listed = json.dumps(ids)
    derived = [
        r[0]
        for r in db.conn.execute(
            "SELECT m.id FROM memories m WHERE m.status != 'forgotten' AND ("
            "m.key IN (SELECT 'session.' || value || '.summary' FROM json_each(?)) OR "
            "(m.source_message_ids != '[]' AND NOT EXISTS (SELECT 1 FROM json_each(m.source_message_ids) j "
            "WHERE j.value NOT IN (SELECT id FROM messages WHERE session_id IN (SELECT value FROM json_each(?))))))",
            (listed, listed),
        )
    ]
    done = forget(db, live_memories(db, derived), actor="user") if derived else Forgotten()
    with immediate(db):
        db.conn.execute(
            "INSERT INTO pending_scrubs (created_at, purge_sources, items) VALUES (?, 0, ?)",
            (utcnow(), json.dumps([{"session": i} for i in ids])),
        )
        db.conn.execute(
            "UPDATE sessions SET title = NULL, summary = NULL WHERE id IN (SELECT value FROM json_each(?))", (listed,)
        )
    result = _finish(db, done)
    if result is not None:
        done.complete, done.compacted, done.no_room = result.complete, result.compacted, result.no_room
    return done
