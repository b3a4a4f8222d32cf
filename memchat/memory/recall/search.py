"""Hybrid retrieval over memories and the transcript: FTS5 BM25 + cosine, fused by RRF.

1. Each corpus (memories, messages) is ranked twice: BM25 over its FTS5 index and cosine
   similarity over its cached vector matrix (numpy), each list cut to `pool` candidates
   after the filters (kind, status, time range, session).
2. Reciprocal rank fusion: score = sum over lists of weight / (rrf_k + rank).
3. A light boost for recency, importance, pins and use (memories), recency (messages).

Any user text is a valid query: the FTS query is built from the word tokens of the text,
each quoted, OR-ed, so FTS5 syntax (quotes, *, -, NEAR, :, parentheses) is never parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from memchat.errors import UsageError
from memchat.memory.recall import index, scan
from memchat.memory.recall.dates import Period, period_in
from memchat.memory.recall.rank import TUNING, Hit, Query, Tuning, rank, with_tuning
from memchat.memory.recall.vectors import VectorSet, kind_status_code
from memchat.memory.store.memories import KINDS, STATUSES
from memchat.memory.text import STOPWORDS, fts_match, fts_query, fts_words

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database
    from memchat.memory.recall.embed import Embedder

ALL_KINDS = (*KINDS, "message")
CATCH_UP = 32  # texts a search embeds on its own; a larger backlog waits for recall/import/reindex
PERIOD_POOL = 20  # candidates from the date or period the query names
# BM25 scores every row that has one of the query's words, so a word most rows have ranks nothing
# and costs a pass over them all: at 1,000,000 memories "the" took 2.2 s, "what do I like?" (stop
# words only, so all kept) 0.62 s. The query's commonest words are left out until the rows the
# rest are in add up to POSTINGS at most (counted by the index, up to POSTINGS: ~1 ms for a common
# word at 1,000,000); a table of fewer rows than that never loses a word.
POSTINGS = 30_000
# A query of stop words only ("what do I like?") keeps them all, and at 100,000 memories "i" alone
# is in 14,000 rows: 70 ms of BM25 for words that rank next to nothing. Such a query's words share
# a smaller budget (the vectors carry its meaning).
STOP_POSTINGS = 5_000


def parse_time(value: str | None, *, end: bool = False) -> str | None:
    """A --since/--until value as a stored timestamp; a bare date means its start (or end). An empty
    one (a script's unset "$SINCE") is refused, not read as no filter."""
    if value is None:
        return None
    text = value.strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if end and len(text) <= 10:
            when = when.replace(hour=23, minute=59, second=59, microsecond=999999)
        if when.tzinfo is not None:
            when = when.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        raise UsageError(f"not a date or time: {value!r} (use e.g. 2026-01-31 or 2026-01-31T09:00)") from None
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class _Query:
    text: str
    words: tuple[str, ...]  # what BM25 searches for (memchat.memory.text.fts_words)
    vector: np.ndarray | None
    kinds: tuple[str, ...]
    statuses: tuple[str, ...]
    since: str | None
    until: str | None
    session_id: int | None
    tuning: Tuning
    period: Period | None = None
    exclude_sessions: tuple[int, ...] = ()

    def time_sql(self, column: str) -> tuple[str, list[str]]:
        sql, params = "", []
        if self.since:
            sql += f" AND {column} >= ?"
            params.append(self.since)
        if self.until:
            sql += f" AND {column} <= ?"
            params.append(self.until)
        return sql, params


def recall(
    db: Database,
    query: str,
    embedder: Embedder | None = None,
    *,
    kinds: tuple[str, ...] | list[str] | None = None,
    statuses: tuple[str, ...] = ("active",),
    limit: int = 10,
    since: str | None = None,
    until: str | None = None,
    session_id: int | None = None,
    exclude_session: int | None = None,
    exclude_private: bool = False,
    tuning: Tuning = TUNING,
    catch_up: bool | int = CATCH_UP,
    progress: index.Progress | None = None,
    today: date | None = None,
    vector: np.ndarray | None = None,
) -> list[Hit]:
    """Search memories and messages; best first.

    Args:
        embedder: the encoder for the cosine half; None searches with BM25 alone.
        kinds: any of fact, event, rule, message (default: all).
        statuses: memory statuses to search (default: active only).
        catch_up: embed what has no vector yet before searching, in one batch: True for
            all of it, False for none, a number for all of it only when no more than that
            wait (the default: a chat turn embeds the few new messages, never a backlog).
        progress: called as (done, total) while catching up.
        today: the date relative periods in the query ("last week") count from (default: today).
        vector: the query's embedding, when the caller has it already (else it is computed).
        exclude_session: leave out this session's messages (a chat turn searches the *other* sessions:
            its own are in the context already, and would crowd out the rest).
        exclude_private: leave out the messages of sessions run with memory off (--no-memory):
            nothing of them reaches another conversation.
    """
    if not query or not query.strip():
        raise UsageError("recall needs a query")
    kinds = tuple(kinds or ALL_KINDS)
    for k in kinds:
        if k not in ALL_KINDS:
            raise UsageError(f"kind must be one of {', '.join(ALL_KINDS)}; got {k!r}")
    for s in statuses:
        if s not in STATUSES:
            raise UsageError(f"status must be one of {', '.join(STATUSES)}; got {s!r}")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    q = _Query(
        query,
        tuple(fts_words(query, stopwords=tuning.stopwords)),
        None,
        kinds,
        tuple(statuses),
        parse_time(since),
        parse_time(until, end=True),
        session_id,
        tuning,
        period_in(query, today),
        _excluded(db, exclude_session, exclude_private),
    )
    memories, messages = any(k in KINDS for k in kinds), "message" in kinds
    if embedder is None:
        return rank(db, _bm25_lists(db, q, memories, messages), Query(query, None, q.period), q.tuning, limit)
    model = embedder.model_name
    index.ensure_current(db, model)
    if catch_up is not False:
        index.catch_up(db, embedder, progress, limit=None if catch_up is True else int(catch_up))
    # The encoder runs alone: on two cores, SQLite beside it stalls every one of its parallel
    # regions (measured: 5x slower). The BM25 queries then run on a worker thread during the
    # scan of the vectors, which waits on memory more than on the cores. The connection is
    # left to that thread until it is done: what the scan needs is read before.
    # Any text is a query, but the tokenizer takes only valid Unicode: lone surrogates (undecodable
    # argv bytes, \ud800 escapes) become "?" for the encoder; BM25 never sees them as words.
    q.vector = vector if vector is not None else embedder.encode([query.encode("utf-8", "replace").decode("utf-8")])[0]
    scans, vectors = _vector_scans(db, q, model, memories, messages)
    bm25 = scan.workers().submit(_bm25_lists, db, q, memories, messages)
    try:
        nearest = [
            (typ, how, scan.nearest(vs, q.vector, mask, n, since, until))
            for typ, how, vs, mask, n, since, until in scans
        ]
    finally:
        lists = bm25.result()
    for typ, how, ranked in nearest:
        lists.append((typ, how, _drop_undone(db, ranked)[: q.tuning.pool] if typ == "message" else ranked))
    return rank(db, lists, Query(query, q.vector, q.period, vectors), q.tuning, limit)


def _vector_scans(db: Database, q: _Query, model: str, memories: bool, messages: bool) -> tuple[list, dict]:
    """What to scan for the cosine half, [(type, how, vectors, mask, n, since, until)], and the
    vector sets by type (the second stage reads cosines from them)."""
    scans: list[tuple] = []
    vectors: dict[str, VectorSet] = {}
    if memories:
        vectors["memory"], mask = _memory_scan(db, q, model)
        scans.append(("memory", "vector", vectors["memory"], mask, q.tuning.pool, q.since, q.until))
    if messages:
        vs = vectors["message"] = index.vector_set(db, "messages", model)
        in_session = None if q.session_id is None else vs.group == q.session_id
        if q.exclude_sessions:
            import numpy as np

            others = ~np.isin(vs.group, q.exclude_sessions)
            in_session = others if in_session is None else in_session & others
        # Undone messages are few and change every turn: over-fetch a little, drop them after.
        scans.append(("message", "vector", vs, in_session, q.tuning.pool + 20, q.since, q.until))
        if q.period is not None:  # what happened in the period the query names joins the candidates
            start, end = q.period.bounds()
            scans.append(
                ("message", "period", vs, in_session, PERIOD_POOL, max(start, q.since or ""), min(end, q.until or end))
            )
    return scans, vectors


def _bm25_lists(db: Database, q: _Query, memories: bool, messages: bool) -> list[tuple[str, str, list]]:
    lists: list[tuple[str, str, list]] = []
    if memories:
        lists.append(("memory", "bm25", _bm25_memories(db, q)))
    if messages:
        match = _affordable(db, "messages_fts", q.words)  # once for both lists: it counts rows
        lists.append(("message", "bm25", _bm25_messages(db, q, match)))
        if q.period is not None:
            start, end = q.period.bounds()
            within = replace(q, since=max(start, q.since or ""), until=min(end, q.until or end))
            lists.append(("message", "period", _bm25_messages(db, within, match)[:PERIOD_POOL]))
    return lists


# --- candidate lists: [(id, raw score)] best first -------------------------------------------------


def _memory_filter_sql(q: _Query) -> tuple[str, list]:
    mem_kinds = [k for k in q.kinds if k in KINDS]
    sql = f" AND m.kind IN ({', '.join('?' * len(mem_kinds))}) AND m.status IN ({', '.join('?' * len(q.statuses))})"
    params: list = [*mem_kinds, *q.statuses]
    time_sql, time_params = q.time_sql("m.created_at")
    sql += time_sql
    params += time_params
    if q.session_id is not None:
        sql += (
            " AND EXISTS (SELECT 1 FROM json_each(m.source_message_ids) j JOIN messages g ON g.id = j.value"
            " WHERE g.session_id = ?)"
        )
        params.append(q.session_id)
    return sql, params


def _bm25_memories(db: Database, q: _Query) -> list[tuple[int, float]]:
    match = _affordable(db, "memories_fts", q.words)
    if not match:
        return []
    where, params = _memory_filter_sql(q)
    return db.conn.execute(
        "SELECT m.id, bm25(memories_fts) AS s FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
        f"WHERE memories_fts MATCH ? {where} ORDER BY s LIMIT ?",
        (match, *params, q.tuning.pool),
    ).fetchall()


def _affordable(db: Database, table: str, words: tuple[str, ...]) -> str | None:
    """The MATCH expression for the words, without the commonest ones past POSTINGS rows."""
    if not words:
        return None
    # Each word's rows counted by the index itself (so as its tokenizer reads the word), up to the budget.
    rows = {
        w: db.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
            (fts_match([w]), POSTINGS + 1),
        ).fetchone()[0]
        for w in words
    }
    kept = sorted(words, key=lambda w: rows[w])
    budget = POSTINGS if any(w not in STOPWORDS for w in words) else STOP_POSTINGS
    while kept and sum(rows[w] for w in kept) > budget:
        kept.pop()  # the commonest
    return fts_match([w for w in words if w in kept])


def _excluded(db: Database, session: int | None, private: bool) -> tuple[int, ...]:
    ids = [session] if session is not None else []
    if private:
        ids += [r[0] for r in db.conn.execute("SELECT id FROM sessions WHERE memory_off = 1")]
    return tuple(ids)


# Sessions of an import still under way are not there yet.
NOT_IMPORTING = " AND m.session_id NOT IN (SELECT id FROM sessions WHERE importing = 1)"


def _message_filter_sql(q: _Query) -> tuple[str, list]:
    sql, times = q.time_sql("m.created_at")
    params: list[Any] = list(times)
    if q.session_id is not None:
        sql += " AND m.session_id = ?"
        params.append(q.session_id)
    if q.exclude_sessions:
        sql += " AND m.session_id NOT IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(q.exclude_sessions))
    return " AND m.status != 'undone'" + NOT_IMPORTING + sql, params


def _bm25_messages(db: Database, q: _Query, match: str | None) -> list[tuple[int, float]]:
    if not match:
        return []
    where, params = _message_filter_sql(q)
    return db.conn.execute(
        f"SELECT m.id, bm25(messages_fts, {float(q.tuning.name_weight)}, 1.0) AS s FROM messages_fts "
        f"JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? {where} ORDER BY s LIMIT ?",
        (match, *params, q.tuning.pool),
    ).fetchall()


def _memory_scan(db: Database, q: _Query, model: str) -> tuple[VectorSet, np.ndarray | None]:
    """The memories' matrix and the mask of rows the filters allow (None: all)."""
    import numpy as np

    vs = index.vector_set(db, "memories", model)
    codes = {kind_status_code(k, s) for k in q.kinds if k in KINDS for s in q.statuses}
    mask = None if vs.codes <= codes else np.isin(vs.group, list(codes))
    if q.session_id is not None:
        allowed = [
            r[0]
            for r in db.conn.execute(
                "SELECT DISTINCT m.id FROM memories m, json_each(m.source_message_ids) j JOIN messages g ON g.id = j.value "
                "WHERE g.session_id = ?",
                (q.session_id,),
            )
        ]
        in_session = np.isin(vs.ids, allowed)
        mask = in_session if mask is None else mask & in_session
    return vs, mask


def _drop_undone(db: Database, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if not ranked:
        return ranked
    ids = [i for i, _ in ranked]
    undone = {
        r[0]
        for r in db.conn.execute(
            f"SELECT id FROM messages WHERE status = 'undone' AND id IN ({', '.join('?' * len(ids))})", ids
        )
    }
    return [t for t in ranked if t[0] not in undone]


__all__ = ["ALL_KINDS", "TUNING", "Hit", "Tuning", "fts_query", "parse_time", "recall", "with_tuning"]
