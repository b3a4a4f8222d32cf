"""Sessions and messages: the transcript, memchat's raw episodic record.

Every write is one short IMMEDIATE transaction, so a message is on disk before the
model is called and a crash can never leave half a turn behind.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memchat import tokens
from memchat.db import immediate, inserted_id, utcnow
from memchat.errors import NotFoundError, UsageError, parse_id
from memchat.memory.text import words
from memchat.when import local_minute

if TYPE_CHECKING:
    from memchat.db import Database

TITLE_CHARS = 60


@dataclass
class Message:
    id: int
    session_id: int
    role: str
    content: str
    created_at: str
    status: str = "ok"
    tokens: int | None = None
    pinned: int = 0
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    stop_reason: str | None = None
    latency_ms: int | None = None
    error: str | None = None


@dataclass
class Session:
    id: int
    title: str | None
    created_at: str
    updated_at: str
    model: str | None = None
    system: str | None = None
    summary: str | None = None
    summary_through_message_id: int | None = None
    imported_system: str | None = None  # another tool's system prompt: kept as data, never sent
    memory_off: bool = False  # run with --no-memory: out of long-term memory for good
    message_count: int = 0


_MESSAGE_COLUMNS = [f.name for f in fields(Message)]
_SESSION_COLUMNS = [f.name for f in fields(Session) if f.name != "message_count"]


def _rows(db: Database, sql: str, params: tuple | list = ()) -> list[dict[str, Any]]:
    cursor = db.conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _session(row: dict[str, Any]) -> Session:
    return Session(**{**row, "memory_off": bool(row.get("memory_off"))})


def _message(row: dict[str, Any]) -> Message:
    return Message(**row)


def _session_select(where: str = "", order: str = "") -> str:
    cols = ", ".join(f"s.{c}" for c in _SESSION_COLUMNS)
    return (
        f"SELECT {cols}, (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.status != 'undone') "
        f"AS message_count FROM sessions s {where} {order}"
    )


def create_session(
    db: Database,
    *,
    model: str | None = None,
    system: str | None = None,
    title: str | None = None,
    memory_off: bool = False,
) -> Session:
    now = utcnow()
    with immediate(db):
        cur = db.conn.execute(
            "INSERT INTO sessions (title, created_at, updated_at, model, system, memory_off) VALUES (?, ?, ?, ?, ?, ?)",
            (title, now, now, model, system, int(memory_off)),
        )
    return get_session(db, inserted_id(cur))


def turn_memory_off(db: Database, session_id: int) -> Session:
    """Keep this session out of long-term memory from now on (--no-memory on a resumed session)."""
    with immediate(db):
        db.conn.execute("UPDATE sessions SET memory_off = 1 WHERE id = ?", (session_id,))
    return get_session(db, session_id)


def parse_session_id(value: str | int) -> int:
    return parse_id(value, "session")


def get_session(db: Database, session_id: int | str) -> Session:
    sid = parse_session_id(session_id)
    rows = _rows(db, _session_select("WHERE s.id = ?"), (sid,))
    if not rows:
        raise NotFoundError(f"no session {sid} (see `memchat sessions list`)")
    return _session(rows[0])


def sessions_between(db: Database, first: int, last: int) -> list[Session]:
    """The sessions whose ids lie in first..last (a range may have gaps: sessions deleted before)."""
    return [
        _session(r) for r in _rows(db, _session_select("WHERE s.id BETWEEN ? AND ?", "ORDER BY s.id"), (first, last))
    ]


# A session whose last message is this recent may be an `ask` still waiting for its reply (a slow
# model, retries after 429s): never "empty" yet.
SETTLED_MINUTES = 15


def sessions_without_reply(db: Database) -> list[Session]:
    """Sessions with no exchange: no assistant reply that stands (a failed `ask` leaves one, with
    your message kept unanswered), oldest first; never one an import is still writing, nor one
    written to in the last SETTLED_MINUTES (its reply may be on the way)."""
    settled = (datetime.now(UTC) - timedelta(minutes=SETTLED_MINUTES)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    where = (
        "WHERE s.importing = 0 AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id "
        "AND m.role = 'assistant' AND m.status != 'undone') "
        "AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.created_at > ?)"
    )
    return [_session(r) for r in _rows(db, _session_select(where, "ORDER BY s.id"), (settled,))]


def latest_session(db: Database) -> Session | None:
    rows = _rows(db, _session_select("WHERE s.importing = 0", "ORDER BY s.updated_at DESC, s.id DESC LIMIT 1"))
    return _session(rows[0]) if rows else None


def list_sessions(db: Database, limit: int | None = 20) -> list[Session]:
    limit = max(-1, min(int(limit), 2**62)) if limit else None  # past 64 bits SQLite errs; huge N: all
    order = "ORDER BY s.updated_at DESC, s.id DESC" + (f" LIMIT {limit}" if limit else "")
    return [_session(r) for r in _rows(db, _session_select("WHERE s.importing = 0", order))]


def update_session(db: Database, session_id: int, **changes: Any) -> Session:
    allowed = {"title", "model", "system", "summary", "summary_through_message_id"}
    bad = set(changes) - allowed
    if bad:
        raise ValueError(f"cannot update session fields {bad}")
    get_session(db, session_id)
    sets = ", ".join(f"{k} = ?" for k in changes)
    with immediate(db):
        db.conn.execute(
            f"UPDATE sessions SET {sets}, updated_at = ? WHERE id = ?",
            (*changes.values(), utcnow(), session_id),
        )
    return get_session(db, session_id)


def rename_session(db: Database, session_id: int | str, title: str) -> Session:
    title = " ".join(title.split())
    if not title:
        raise UsageError("a session title cannot be empty")
    return update_session(db, parse_session_id(session_id), title=title)


def add_message(db: Database, session_id: int, role: str, content: str, *, status: str = "ok", **extra: Any) -> Message:
    """Append a message and commit it before returning."""
    now = utcnow()
    columns = ["session_id", "role", "content", "created_at", "status", *extra]
    values = [session_id, role, content, now, status, *extra.values()]
    with immediate(db):
        cur = db.conn.execute(
            f"INSERT INTO messages ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})", values
        )
        db.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        if role == "user":
            # A new session is titled by its first message until the user renames it.
            db.conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ? AND title IS NULL",
                (title_from(content.split("\n\n<attachment name=", 1)[0]), session_id),
            )
    return get_message(db, inserted_id(cur))


def record_reply(
    db: Database, user_message_id: int, content: str, *, status: str = "ok", **extra: Any
) -> Message | None:
    """Store the assistant's reply and mark the user message answered, in one transaction.

    An empty partial reply (Ctrl-C or a drop before any text) stores nothing, and the user
    message stays unanswered so /retry can resend it.
    """
    user = get_message(db, user_message_id)
    now = utcnow()
    if not content:
        with immediate(db):
            db.conn.execute(
                "UPDATE messages SET status = 'unanswered', error = ? WHERE id = ?",
                (extra.get("error") or status, user.id),
            )
        return None
    columns = ["session_id", "role", "content", "created_at", "status", *extra]
    values = [user.session_id, "assistant", content, now, status, *extra.values()]
    with immediate(db):
        cur = db.conn.execute(
            f"INSERT INTO messages ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})", values
        )
        db.conn.execute("UPDATE messages SET status = 'ok', error = NULL WHERE id = ?", (user.id,))
        db.conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, user.session_id))
    return get_message(db, inserted_id(cur))


def mark_unanswered(db: Database, message_id: int, error: str) -> None:
    with immediate(db):
        db.conn.execute("UPDATE messages SET status = 'unanswered', error = ? WHERE id = ?", (error, message_id))


def set_status(db: Database, message_ids: list[int], status: str) -> None:
    with immediate(db):
        db.conn.executemany("UPDATE messages SET status = ? WHERE id = ?", [(status, i) for i in message_ids])


def set_tokens(db: Database, counts: dict[int, int]) -> None:
    """Cache raw token counts of messages (computed once, reused by every compile)."""
    if counts:
        with immediate(db):
            db.conn.executemany("UPDATE messages SET tokens = ? WHERE id = ?", [(n, i) for i, n in counts.items()])


def fill_token_counts(db: Database, history: list[Message]) -> None:
    """Count the raw tokens of messages that have no count yet, once: later compiles read them."""
    missing = {m.id: tokens.count(m.content) for m in history if m.tokens is None}
    set_tokens(db, missing)
    for m in history:
        if m.id in missing:
            m.tokens = missing[m.id]


def message_in(db: Database, session_id: int, ref: int | str) -> Message:
    """A message of this session by its id, as every command shows it ("message 15")."""
    mid = parse_id(ref, "message")
    found = _rows(db, f"SELECT {', '.join(_MESSAGE_COLUMNS)} FROM messages WHERE id = ?", (mid,))
    if not found or found[0]["session_id"] != session_id:
        ids = [m.id for m in messages(db, session_id)]
        where = f"its messages are {ids[0]}-{ids[-1]}" if ids else "it has no messages"
        raise NotFoundError(
            f"message {mid} is not in session {session_id} ({where}; see `memchat sessions show {session_id}`)"
        )
    return _message(found[0])


def set_pinned(db: Database, message_id: int, pinned: bool) -> Message:
    get_message(db, message_id)
    with immediate(db):
        db.conn.execute("UPDATE messages SET pinned = ? WHERE id = ?", (int(pinned), message_id))
    return get_message(db, message_id)


def get_message(db: Database, message_id: int) -> Message:
    rows = _rows(db, f"SELECT {', '.join(_MESSAGE_COLUMNS)} FROM messages WHERE id = ?", (message_id,))
    if not rows:
        raise NotFoundError(f"no message {message_id}")
    return _message(rows[0])


def messages(db: Database, session_id: int, *, include_undone: bool = False) -> list[Message]:
    where = "session_id = ?" + ("" if include_undone else " AND status != 'undone'")
    return [
        _message(r)
        for r in _rows(
            db, f"SELECT {', '.join(_MESSAGE_COLUMNS)} FROM messages WHERE {where} ORDER BY id", (session_id,)
        )
    ]


def has_other_messages(db: Database, session_id: int) -> bool:
    """Whether any session but this one has messages."""
    row = db.conn.execute("SELECT EXISTS(SELECT 1 FROM messages WHERE session_id != ?)", (session_id,)).fetchone()
    return bool(row[0])


def set_memory_sent(db: Database, message_id: int, summary: dict[str, Any]) -> None:
    """Record what memory section a call for this message carried (ids and reasons; never text)."""
    with immediate(db):
        db.conn.execute("UPDATE messages SET memory = ? WHERE id = ?", (json.dumps(summary), message_id))


def last_memory_sent(db: Database, session_id: int) -> dict[str, Any] | None:
    """The memory section the session's last call carried, as recorded by set_memory_sent."""
    row = db.conn.execute(
        "SELECT memory FROM messages WHERE session_id = ? AND role = 'user' AND status != 'undone' "
        "ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if row is None or not row[0]:
        return None
    data: dict[str, Any] = json.loads(row[0])
    return data


def title_from(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def export_session(
    db: Database, session_id: int | str, fmt: str = "md", *, around: int | str | None = None, context: int = 3
) -> str:
    """The whole session as Markdown or as memchat's JSON export format; with `around`, only
    that message and `context` messages on each side of it."""
    session = get_session(db, session_id)
    msgs = messages(db, session.id)
    if around is not None:
        target = message_in(db, session.id, around).id
        at = next((i for i, m in enumerate(msgs) if m.id == target), 0)
        msgs = msgs[max(0, at - context) : at + context + 1]
    if fmt == "json":
        return (
            json.dumps(
                {
                    "format": "memchat-session",
                    "version": 1,
                    "session": asdict(session),
                    "messages": [asdict(m) for m in msgs],
                },
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
    if fmt not in ("md", "markdown"):
        raise UsageError(f"unknown export format {fmt!r}: use md or json")
    out = [
        f"# {session.title or f'Session {session.id}'}",
        "",
        f"Session {session.id} · started {local_minute(session.created_at)} · model {session.model or '-'}",
        "",
    ]
    for m in msgs:
        who = "You" if m.role == "user" else "Assistant"
        note = ("" if m.status == "ok" else f" ({m.status})") + (" · pinned" if m.pinned else "")
        out += [f"## message {m.id} · {who}{note} · {local_minute(m.created_at)}", "", m.content, ""]
    return "\n".join(out)


@dataclass
class Exchange:
    """One prompt and the reply that answered it (none yet: unanswered), in whatever session."""

    session_id: int
    session_title: str | None
    prompt_id: int
    at: str  # when the prompt was sent (UTC, as stored)
    prompt: str
    reply_id: int | None
    reply: str | None
    status: str  # the reply's status (ok, interrupted, incomplete), or the prompt's (unanswered)
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: int | None
    cost_usd: float | None = None  # priced by the caller, from the settings' price table


# The reply to a prompt: the first live assistant message after it, before the next prompt.
_REPLY_OF = (
    "(SELECT r.id FROM messages r WHERE r.session_id = u.session_id AND r.id > u.id AND r.role = 'assistant' "
    "AND r.status != 'undone' AND NOT EXISTS (SELECT 1 FROM messages n WHERE n.session_id = u.session_id "
    "AND n.role = 'user' AND n.id > u.id AND n.id < r.id) ORDER BY r.id LIMIT 1)"
)


def exchanges(
    db: Database, *, limit: int | None = 3, since: str | None = None, query: str | None = None
) -> list[Exchange]:
    """The last `limit` exchanges across all sessions, oldest first (the newest is printed last,
    next to the prompt, as `llm logs` does). `since` is a stored timestamp; `query` keeps the
    exchanges whose prompt or reply holds every word of it (full text: case and accents aside).
    Undone exchanges and sessions still being imported are left out, as `sessions show` does."""
    where = ["u.role = 'user'", "u.status != 'undone'", "s.importing = 0"]
    params: list[Any] = []
    if since:
        where.append("u.created_at >= ?")
        params.append(since)
    if query is not None:
        match = _all_words(query)
        if match is None:
            return []
        found = "(SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)"
        where.append(f"(u.id IN {found} OR r.id IN {found})")
        params += [match, match]
    limit = max(1, min(int(limit), 2**62)) if limit else None
    rows = _rows(
        db,
        "SELECT u.session_id, s.title AS session_title, u.id AS prompt_id, u.created_at AS at, u.content AS prompt, "
        "r.id AS reply_id, r.content AS reply, coalesce(r.status, u.status) AS status, "
        "coalesce(r.model, s.model) AS model, r.input_tokens, r.output_tokens, r.latency_ms "
        f"FROM messages u JOIN sessions s ON s.id = u.session_id LEFT JOIN messages r ON r.id = {_REPLY_OF} "
        f"WHERE {' AND '.join(where)} ORDER BY u.created_at DESC, u.id DESC" + (f" LIMIT {limit}" if limit else ""),
        params,
    )
    return [Exchange(**row) for row in reversed(rows)]


def _all_words(text: str) -> str | None:
    """An FTS5 expression that needs every word of the text (each quoted: any text is safe)."""
    unique = list(dict.fromkeys(words(text)))
    return " AND ".join(f'"{w}"' for w in unique) if unique else None
