"""simonw/llm's `logs.db`, read-only (opened with mode=ro: memchat never writes to it).

Two schema generations live in one file. llm up to 0.31 logs `responses` (one prompt and its
response per row, grouped by `conversation_id`, named by `conversations`); llm 0.32 and later
log a content-addressed store (`threads` whose `tip_message_hash` ends a chain of `messages`
with `parts`), and keep the old tables as history. Both are read; a response also written as
a turn (llm 0.32's release candidates) is read once, from the store. Prompts built from
fragments (`llm -f file`) are rebuilt from them; reasoning, tool calls, tool results and
attachments are skipped; a system prompt is kept as the session's (never sent, as data).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memchat.db import utcnow
from memchat.errors import UsageError
from memchat.importer.model import ImportedMessage, ImportedSession, Skipped, as_time

SOURCE = "llm"


def looks_like(conn: sqlite3.Connection) -> bool:
    return bool(_tables(conn) & {"responses", "threads"})


def open_readonly(path: Path) -> sqlite3.Connection:
    """The file opened read-only; never creates, migrates or checkpoints it."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        try:  # a WAL file whose -shm cannot be made (a read-only directory): read it as a snapshot
            conn = sqlite3.connect(uri + "&immutable=1", uri=True)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            raise UsageError(f"{path} is not a readable SQLite database ({exc}): not llm's logs.db") from None
    conn.row_factory = sqlite3.Row
    return conn


def parse(conn: sqlite3.Connection, name: str, skipped: Skipped) -> list[ImportedSession]:
    try:
        tables = _tables(conn)
        turn_ids = {r[0] for r in conn.execute("SELECT id FROM turns")} if "turns" in tables else set()
        sessions: dict[str, ImportedSession] = {}
        if "responses" in tables:
            _legacy(conn, tables, turn_ids, sessions)
        if {"threads", "messages", "parts"} <= tables:
            _store(conn, tables, sessions)
    except sqlite3.Error as exc:
        raise UsageError(f"{name}: llm's log could not be read ({exc}); nothing was imported") from None
    out = []
    for session in sessions.values():
        if session.messages:
            out.append(session)
        else:
            skipped.add("empty", f"conversation {session.external_id}: no prompt or response text")
    return out


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _fragments(conn: sqlite3.Connection, tables: set[str], table: str, response_id: str) -> list[str]:
    if table not in tables or "fragments" not in tables:
        return []
    rows = conn.execute(
        f'SELECT f.content FROM {table} x JOIN fragments f ON f.id = x.fragment_id WHERE x.response_id = ? ORDER BY x."order"',
        (response_id,),
    )
    return [str(r[0]) for r in rows if r[0] is not None]


def _legacy(conn: sqlite3.Connection, tables: set[str], turn_ids: set[str], sessions: dict) -> None:
    named = "conversations" in tables
    rows = conn.execute(
        "SELECT r.*"
        + (", c.name AS conversation_name, c.model AS conversation_model" if named else "")
        + " FROM responses r"
        + (" LEFT JOIN conversations c ON c.id = r.conversation_id" if named else "")
        + " ORDER BY r.id"
    )
    for r in rows:
        keys = r.keys()
        if r["id"] in turn_ids:
            continue  # also written to the new store: read there
        conversation = r["conversation_id"] or r["id"]
        session = sessions.get(conversation)
        if session is None:
            session = sessions[conversation] = ImportedSession(
                SOURCE,
                str(conversation),
                (r["conversation_name"] if "conversation_name" in keys else None) or None,
                model=(r["conversation_model"] if "conversation_model" in keys else None) or r["model"],
            )
        system = "\n\n".join(
            b.strip() for b in [*_fragments(conn, tables, "system_fragments", r["id"]), r["system"] or ""] if b.strip()
        )
        if system and session.system is None:
            session.system = system
        prompt = "\n".join(
            [*_fragments(conn, tables, "prompt_fragments", r["id"]), *([r["prompt"]] if r["prompt"] else [])]
        )
        when = as_time(r["datetime_utc"]) or (session.messages[-1].created_at if session.messages else utcnow())
        if prompt.strip():
            session.messages.append(ImportedMessage(f"{r['id']}:prompt", "user", prompt.strip(), when))
        if (r["response"] or "").strip():
            session.messages.append(
                ImportedMessage(f"{r['id']}:response", "assistant", r["response"].strip(), when, model=r["model"])
            )


def _store(conn: sqlite3.Connection, tables: set[str], sessions: dict) -> None:
    fragments = {r[0]: r[1] for r in conn.execute("SELECT id, content FROM fragments")} if "fragments" in tables else {}
    messages = {r["hash"]: dict(r) for r in conn.execute("SELECT hash, parent_hash, role FROM messages")}
    parts: dict[str, list[dict]] = {}
    for p in conn.execute("SELECT message_hash, type, text, payload FROM parts ORDER BY message_hash, position"):
        parts.setdefault(p["message_hash"], []).append(dict(p))
    first_seen = _first_seen(conn, tables, messages)

    def text_of(h: str) -> str:
        return _parts_text(parts.get(h, []), fragments)

    for thread in conn.execute("SELECT id, name, tip_message_hash, datetime_utc FROM threads ORDER BY id"):
        _add_session(sessions, _thread(thread, messages, text_of, first_seen))


def _first_seen(conn: sqlite3.Connection, tables: set[str], messages: dict[str, dict]) -> dict[str, tuple[Any, Any]]:
    """A message's time and model: those of the first turn that ends in it."""
    first_seen: dict[str, tuple[Any, Any]] = {}
    if "turns" in tables:
        for turn in conn.execute("SELECT tip_message_hash, datetime_utc, model FROM turns ORDER BY id"):
            for h in _chain(messages, turn["tip_message_hash"]):
                first_seen.setdefault(h, (turn["datetime_utc"], turn["model"]))
    return first_seen


def _parts_text(parts: list[dict], fragments: dict) -> str:
    """The text parts of a message, literal or put together from fragments (other parts are skipped)."""
    out = []
    for p in parts:
        if p["type"] != "text":
            continue
        if p["text"] is not None:
            out.append(str(p["text"]))
            continue
        try:
            refs = json.loads(p["payload"] or "{}").get("text_ref", [])
        except (ValueError, AttributeError):
            refs = []
        out.append(
            "".join(str(x.get("literal") or fragments.get(x.get("fragment"), "")) for x in refs if isinstance(x, dict))
        )
    return "".join(out).strip()


def _thread(
    thread: sqlite3.Row,
    messages: dict[str, dict],
    text_of: Callable[[str], str],
    first_seen: dict[str, tuple[Any, Any]],
) -> ImportedSession:
    """One thread, root to tip: its system prompt, and the user's and assistant's messages with text."""
    session = ImportedSession(SOURCE, str(thread["id"]), thread["name"] or None)
    when = as_time(thread["datetime_utc"]) or utcnow()
    for h in reversed(_chain(messages, thread["tip_message_hash"])):
        role, text = messages[h]["role"], text_of(h)
        if role == "system":
            session.system = session.system or text or None
            continue
        if role not in ("user", "assistant") or not text:
            continue  # tool results, reasoning-only or tool-call-only messages
        seen_at, model = first_seen.get(h, (None, None))
        when = as_time(seen_at) or when
        session.messages.append(ImportedMessage(h, role, text, when, model=model if role == "assistant" else None))
        if role == "assistant" and model:
            session.model = model
    return session


def _add_session(sessions: dict, session: ImportedSession) -> None:
    earlier = sessions.get(session.external_id)
    if earlier is None:
        sessions[session.external_id] = session
    else:  # a conversation begun before llm 0.32 and continued after: one session
        earlier.messages.extend(session.messages)
        earlier.model = session.model or earlier.model
        earlier.system = earlier.system or session.system


def _chain(messages: dict[str, dict], tip: Any) -> list[str]:
    """Hashes from the tip up to the root (a corrupt file may loop or dangle: stop there)."""
    out: list[str] = []
    seen: set[str] = set()
    while isinstance(tip, str) and tip in messages and tip not in seen:
        seen.add(tip)
        out.append(tip)
        tip = messages[tip]["parent_hash"]
    return out
