"""`memchat import FILE`: past conversations in, as sessions, without duplicates.

Two formats:
- memchat's own session export (`memchat sessions export ID --format json`);
- JSON lines, one message a line: {"session", "role", "content", "timestamp"?, "name"?, "id"?}.
  `session` groups messages into sessions (matched by that label on a re-import), `role` is
  user or assistant, `name` is the speaker (indexed with the words), `id` is kept as the
  message's external id. Other fields are ignored.

Re-importing is idempotent: a message is known by its `id`, or else by a hash of its
fields (and its place among identical lines). The whole file is parsed and checked before
anything is stored (a bad line imports nothing); rows then go in by batches, the new
sessions hidden until the file is complete. Embedding happens after (memchat.memory.index).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.db import immediate, inserted_id, utcnow
from memchat.errors import MAX_ID, UsageError, require_unicode
from memchat.text import shorten

if TYPE_CHECKING:
    from memchat.db import Database

SESSION_FORMAT = "memchat-session"
SESSION_VERSION = 1
ROLES = ("user", "assistant")
STATUSES = ("ok", "unanswered", "interrupted", "incomplete")


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


@dataclass
class ImportResult:
    sessions_added: int = 0
    sessions_updated: int = 0
    messages_added: int = 0
    messages_skipped: int = 0
    message_ids: list[int] = field(default_factory=list)


def read_file(path: str | Path) -> tuple[str, str]:
    """(text, display name); invalid UTF-8 is reported with its line."""
    from memchat.files import read_regular

    data = read_regular(path, "an import file")
    if data.startswith(b"SQLite format 3\x00"):
        raise UsageError(
            f"{path} is a SQLite database, not an export; to use it as memchat's database, "
            "pass --db (it is refused there too if it is not a memchat database)"
        )
    try:
        return data.decode("utf-8-sig"), str(path)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageError(
            f"{path} is not valid UTF-8 (line {line}, byte {exc.start}); convert it first, e.g. with iconv"
        ) from None


def load_json(text: str, where: str, invalid: Callable[[json.JSONDecodeError], str]) -> Any:
    """json.loads, where every way it fails is one UsageError line: bad syntax (worded by
    `invalid`), a number of thousands of digits, nesting too deep for the parser."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(where + invalid(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{where}: unreadable JSON ({type(exc).__name__}: {str(exc)[:80]})") from None


def _timestamp(value: Any, where: str) -> str:
    if value is None:
        return utcnow()
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            when = datetime.fromtimestamp(value, UTC)
        elif isinstance(value, str):
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        else:
            raise ValueError
        if when.tzinfo is not None:
            when = when.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError, OSError):
        raise UsageError(
            f"{where}: 'timestamp' must be an ISO-8601 time (e.g. 2024-05-01T13:56:00), got {shorten(value)}"
        ) from None
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _required_text(obj: dict, name: str, where: str) -> str:
    value = _text_field(obj, name, where)
    assert value is not None  # required: a missing field raised
    return value


def _text_field(obj: dict, name: str, where: str, *, required: bool = True) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise UsageError(f"{where}: missing {name!r}")
        return None
    if not isinstance(value, str):
        raise UsageError(f"{where}: {name!r} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise UsageError(f"{where}: {name!r} contains a NUL character")
    return require_unicode(value, f"{where}: {name!r}")


def _role(obj: dict, where: str) -> str:
    role = _text_field(obj, "role", where)
    if role not in ROLES:
        raise UsageError(f"{where}: 'role' must be user or assistant, got {role!r}")
    return role


def parse(text: str, name: str) -> list[ImportedSession]:
    """Sessions from a memchat session export or from JSON lines."""
    stripped = text.strip()
    if not stripped:
        raise UsageError(f"{name} is empty: nothing to import")
    if stripped.startswith("{"):
        try:
            whole = json.loads(stripped)
        except (ValueError, RecursionError):
            whole = None  # JSON lines: each line parses, the whole does not
        if isinstance(whole, dict) and "format" in whole:
            return [_parse_export(whole, name)]
    return _parse_lines(text, name)


def _parse_export(data: dict, name: str) -> ImportedSession:
    fmt, version = data.get("format"), data.get("version")
    if fmt != SESSION_FORMAT:
        hint = " (use `memchat memories import` for it)" if fmt == "memchat-memories" else ""
        raise UsageError(f"{name} is a {shorten(fmt)} file, not a conversation{hint}")
    if not isinstance(version, int) or isinstance(version, bool):
        raise UsageError(f"{name}: 'version' must be a whole number")
    if version > SESSION_VERSION:
        raise UsageError(
            f"{name} was written by a newer memchat (session format version {version}; this "
            f"memchat reads up to {SESSION_VERSION}): upgrade memchat to import it"
        )
    session, messages = data.get("session"), data.get("messages")
    if not isinstance(session, dict) or not isinstance(messages, list):
        raise UsageError(f"{name}: a session export needs a 'session' object and a 'messages' list")
    sid, created = session.get("id"), session.get("created_at")
    if not isinstance(sid, int) or isinstance(sid, bool) or not 0 <= sid <= MAX_ID or not isinstance(created, str):
        raise UsageError(f"{name}: 'session' needs a numeric 'id' and a 'created_at'")
    out = ImportedSession(
        "memchat",
        f"{created}#{sid}",
        _text_field(session, "title", name, required=False),
        model=_text_field(session, "model", name, required=False),
        system=_text_field(session, "system", name, required=False),
        summary=_text_field(session, "summary", name, required=False),
        native_id=sid,
        native_created_at=created,
    )
    for i, m in enumerate(messages, 1):
        where = f"{name}: message {i}"
        if not isinstance(m, dict):
            raise UsageError(f"{where} must be an object")
        mid = m.get("id")
        if not isinstance(mid, int) or isinstance(mid, bool):
            raise UsageError(f"{where}: 'id' must be a whole number")
        status = m.get("status", "ok")
        out.messages.append(
            ImportedMessage(
                str(mid),
                _role(m, where),
                _required_text(m, "content", where),
                _timestamp(m.get("created_at"), where),
                status=status if status in STATUSES else "ok",
                pinned=int(bool(m.get("pinned"))),
                model=_text_field(m, "model", where, required=False),
            )
        )
    return out


def _lines(text: str, name: str) -> Iterator[tuple[int, dict]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        obj = load_json(line, where, lambda exc: f": invalid JSON ({exc.msg}, column {exc.colno})")
        if not isinstance(obj, dict):
            raise UsageError(
                f"{where}: expected an object like "
                '{"session": ..., "role": "user", "content": "...", "timestamp": "..."}'
            )
        yield number, obj


def _parse_lines(text: str, name: str) -> list[ImportedSession]:
    sessions: dict[str, ImportedSession] = {}
    seen: dict[tuple[str, str], int] = {}
    for number, obj in _lines(text, name):
        where = f"{name} line {number}"
        label = obj.get("session")
        if label is None:
            raise UsageError(f"{where}: missing 'session'")
        if isinstance(label, bool) or not isinstance(label, (str, int)) or not str(label).strip():
            raise UsageError(f"{where}: 'session' must be a non-empty string or a number")
        role, content = _role(obj, where), _required_text(obj, "content", where)
        speaker = _text_field(obj, "name", where, required=False)
        created = _timestamp(obj.get("timestamp"), where)
        ext = obj.get("id")
        if ext is not None and (isinstance(ext, bool) or not isinstance(ext, (str, int))):
            raise UsageError(f"{where}: 'id' must be a string or a number")
        label = require_unicode(str(label), f"{where}: 'session'")
        if isinstance(ext, str):
            require_unicode(ext, f"{where}: 'id'")
        if ext is None:
            digest = hashlib.sha1(
                json.dumps([role, speaker, content, obj.get("timestamp")], ensure_ascii=False).encode(
                    "utf-8", "surrogatepass"
                )
            ).hexdigest()[:20]
            nth = seen[(label, digest)] = seen.get((label, digest), 0) + 1
            ext = f"sha1:{digest}:{nth}"
        session = sessions.setdefault(label, ImportedSession("jsonl", label, label))
        session.messages.append(ImportedMessage(str(ext), role, content, created, name=speaker))
    if not sessions:
        raise UsageError(f"{name} has no messages to import")
    return list(sessions.values())


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
                    "source, external_id, importing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
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
                    ),
                )
                session_id, added_session = inserted_id(cursor), True
            if added_session:
                hidden.append(session_id)
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
            if added_session:
                result.sessions_added += 1
            elif new:
                result.sessions_updated += 1
                tx.conn().execute(
                    "UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?", (max(times), session_id)
                )
        conn = tx.conn()
        conn.executemany("UPDATE sessions SET importing = 0 WHERE id = ?", [(i,) for i in hidden])
        tx.commit()
    finally:
        tx.close()
    return result


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


def import_file(db: Database, path: str | Path, *, keep_system: bool = False) -> ImportResult:
    text, name = read_file(path)
    return import_sessions(db, parse(text, name), keep_system=keep_system)
