"""memchat's own formats: a session export (`memchat sessions export ID --format json`) and
JSON lines, one message a line: {"session", "role", "content", "timestamp"?, "name"?, "id"?}.

`session` groups JSON lines into sessions (matched by that label on a re-import), `role` is
user or assistant, `name` is the speaker (indexed with the words), `id` is kept as the
message's external id; other fields are ignored. A line without an `id` is known by a hash of
its fields (and its place among identical lines), so re-importing adds nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from memchat.db import utcnow
from memchat.errors import MAX_ID, UsageError, require_unicode
from memchat.importer.model import ImportedMessage, ImportedSession
from memchat.text import shorten

SESSION_FORMAT = "memchat-session"
SESSION_VERSION = 1
ROLES = ("user", "assistant")
STATUSES = ("ok", "unanswered", "interrupted", "incomplete")


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


def check_version(version: Any, name: str, kind: str, newest: int) -> None:
    """An export's format version: a whole number this memchat can read, or one line saying why not."""
    if not isinstance(version, int) or isinstance(version, bool):
        raise UsageError(f"{name}: 'version' must be a whole number")
    if version > newest:
        raise UsageError(
            f"{name} was written by a newer memchat ({kind} format version {version}; this "
            f"memchat reads up to {newest}): upgrade memchat to import it"
        )


def parse_export(data: dict, name: str) -> ImportedSession:
    fmt, version = data.get("format"), data.get("version")
    if fmt != SESSION_FORMAT:
        hint = " (use `memchat memories import` for it)" if fmt == "memchat-memories" else ""
        raise UsageError(f"{name} is a {shorten(fmt)} file, not a conversation{hint}")
    check_version(version, name, "session", SESSION_VERSION)
    session, messages = data.get("session"), data.get("messages")
    if not isinstance(session, dict) or not isinstance(messages, list):
        raise UsageError(f"{name}: a session export needs a 'session' object and a 'messages' list")
    sid, created = session.get("id"), session.get("created_at")
    if not isinstance(sid, int) or isinstance(sid, bool) or not 0 <= sid <= MAX_ID or not isinstance(created, str):
        raise UsageError(f"{name}: 'session' needs a numeric 'id' and a 'created_at'")
    created = _text_field(session, "created_at", f"{name}: session")  # no NUL, no lone surrogate
    out = ImportedSession(
        "memchat",
        f"{created}#{sid}",
        _text_field(session, "title", name, required=False),
        model=_text_field(session, "model", name, required=False),
        system=_text_field(session, "system", name, required=False),
        summary=_text_field(session, "summary", name, required=False),
        native_id=sid,
        native_created_at=created,
        memory_off=bool(session.get("memory_off")),
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


def parse_lines(text: str, name: str) -> list[ImportedSession]:
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
