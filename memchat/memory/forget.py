"""Forgetting that leaves nothing: rows, audit trail, full-text index, vectors, summaries, free pages.

`forget` is called by the store (the one door to memories) inside its own transaction:
- the memory row keeps only that it was forgotten, and when; every history row that quoted
  its text loses that text;
- sentences of session summaries and episodic summaries that mention it are redacted
  (memchat.memory.redact);
- with purge_sources, the messages it came from are redacted and their vectors deleted;
- then the FTS segments are merged (FTS5 keeps deleted tokens in old segments until a
  merge), the on-disk vector copy is deleted, and the WAL is checkpointed, so with
  `secure_delete` on no page image of the words is left in the database files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memchat.db import immediate, utcnow
from memchat.memory.records import COLUMNS, FORGOTTEN_MESSAGE, Memory, log_history, memory_from_row
from memchat.memory.state import withhold
from memchat.memory.terms import fts_query

if TYPE_CHECKING:
    from sqlite_utils import Database


@dataclass
class Forgotten:
    ids: list[int] = field(default_factory=list)
    summary_redactions: int = 0  # sentences taken out of summaries
    sources: list[int] = field(default_factory=list)  # the messages the memories came from


def forget(
    db: Database, targets: list[Memory], *, actor: str = "user", purge_sources: bool = False, action: str = "forget"
) -> Forgotten:
    """Forget these memories for good (they must not be forgotten already)."""
    if not targets:
        return Forgotten()
    now = utcnow()
    sources: set[int] = set()
    with immediate(db):
        conn = db.conn
        for m in targets:
            sources.update(m.source_message_ids)
            conn.execute("UPDATE memory_history SET old_text = NULL, new_text = NULL WHERE memory_id = ?", (m.id,))
            # A supersede row of a neighbour quotes this text too.
            conn.execute("UPDATE memory_history SET old_text = NULL WHERE old_text = ?", (m.text,))
            conn.execute("UPDATE memory_history SET new_text = NULL WHERE new_text = ?", (m.text,))
            conn.execute(
                "UPDATE memories SET text = '', key = NULL, value = NULL, status = 'forgotten', pinned = 0, "
                "embedding = NULL, embedding_model = NULL, source_message_ids = '[]', "
                "valid_to = coalesce(valid_to, ?), updated_at = ? WHERE id = ?",
                (now, now, m.id),
            )
            log_history(conn, m.id, action, None, None, actor, now)
        redactions = _redact_summaries(db, targets, actor, now)
        # The transcript is kept (unless purged), but what mentions the forgotten memory never
        # reaches a prompt again as a snippet.
        withhold(db, messages_mentioning(db, targets) | sources, "forgotten", now)
        if purge_sources and sources:
            marks = ", ".join("?" for _ in sources)
            conn.execute(f"UPDATE messages SET content = ? WHERE id IN ({marks})", (FORGOTTEN_MESSAGE, *sources))
            conn.execute(f"DELETE FROM message_vectors WHERE message_id IN ({marks})", tuple(sources))
    scrub(db, messages=purge_sources and bool(sources))
    return Forgotten([m.id for m in targets], redactions, sorted(sources))


FTS_LOOKUP_MAX = 50  # forgetting more memories than this reads the whole transcript once instead
MENTION_CANDIDATES = 2000


def messages_mentioning(db: Database, forgotten: list[Memory]) -> set[int]:
    """Messages that mention a forgotten memory: its value, a name or number from it, or most of
    its words (memchat.memory.redact's test, sentence by sentence)."""
    from memchat.memory.redact import Forgotten as Target
    from memchat.memory.redact import Redactor

    redactor = Redactor(Target(m.text, m.value) for m in forgotten)
    found: set[int] = set()
    if len(forgotten) <= FTS_LOOKUP_MAX:
        for m in forgotten:
            query = fts_query(f"{m.text} {m.value or ''}")
            if not query:
                continue
            matches = db.conn.execute(
                "SELECT g.id, g.content FROM messages_fts JOIN messages g ON g.id = messages_fts.rowid "
                "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
                (query, MENTION_CANDIDATES),
            )
            found.update(mid for mid, content in matches if redactor.redact(content)[1])
        return found
    last = 0
    while rows := db.conn.execute(
        "SELECT id, content FROM messages WHERE id > ? ORDER BY id LIMIT 5000", (last,)
    ).fetchall():
        found.update(mid for mid, content in rows if redactor.redact(content)[1])
        last = rows[-1][0]
    return found


def _redact_summaries(db: Database, forgotten: list[Memory], actor: str, now: str) -> int:
    """Summaries paraphrase what they cover: take the sentences that mention a forgotten
    memory out of every session summary and episodic summary (and their history)."""
    from memchat.memory.redact import Forgotten as Target
    from memchat.memory.redact import Redactor

    redactor = Redactor(Target(m.text, m.value) for m in forgotten)
    conn, total = db.conn, 0
    for sid, summary in conn.execute("SELECT id, summary FROM sessions WHERE summary != ''").fetchall():
        text, n = redactor.redact(summary)
        if n:
            conn.execute("UPDATE sessions SET summary = ? WHERE id = ?", (text, sid))
            total += n
    gone = {m.id for m in forgotten}
    cursor = conn.execute(
        f"SELECT {', '.join(COLUMNS)} FROM memories WHERE kind = 'event' "
        "AND key LIKE 'session.%.summary' AND status != 'forgotten' ORDER BY id"
    )
    names = [d[0] for d in cursor.description]
    for m in [memory_from_row(row, names) for row in cursor.fetchall()]:
        if m.id in gone:
            continue
        text, n = redactor.redact(m.text)
        if not n:
            continue
        total += n
        conn.execute(
            "UPDATE memories SET text = ?, embedding = NULL, embedding_model = NULL, updated_at = ? WHERE id = ?",
            (text, now, m.id),
        )
        for hid, old_text, new_text in conn.execute(
            "SELECT id, old_text, new_text FROM memory_history WHERE memory_id = ?", (m.id,)
        ).fetchall():
            conn.execute(
                "UPDATE memory_history SET old_text = ?, new_text = ? WHERE id = ?",
                (redactor.redact(old_text or "")[0] or None, redactor.redact(new_text or "")[0] or None, hid),
            )
        log_history(conn, m.id, "edit", None, text, actor, now)
    return total


def scrub(db: Database, *, messages: bool = False) -> None:
    """Make deleted words physically gone: FTS5 keeps them in old segments until a merge,
    and old page images live in the WAL until a checkpoint."""
    from memchat.memory.vector_file import drop_disk_cache

    with immediate(db):
        db.conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        if messages:
            db.conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
    drop_disk_cache(db)  # the on-disk copy of the vectors held the forgotten ones
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
