"""What a memory is: its fields, kinds, statuses and origins, and its audit-trail entry.

Plain dataclasses, shared by the store, search, forgetting and every shell; no SQL here
beyond turning a row into a `Memory`.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from memchat.errors import UsageError, check_size, parse_id, require_unicode
from memchat.text import is_blank, redact_secrets

KINDS = ("fact", "event", "rule")
STATUSES = ("active", "pending", "superseded", "forgotten")
ORIGINS = ("stated", "inferred", "manual", "mcp")  # mcp: written by another tool over `memchat mcp`
FORGOTTEN_MESSAGE = "[forgotten]"


@dataclass
class Memory:
    id: int
    kind: str
    text: str
    key: str | None = None
    value: str | None = None
    status: str = "active"
    pinned: bool = False
    origin: str = "stated"
    confidence: float = 1.0
    sensitive: bool = False
    importance: float = 0.5
    source_message_ids: list[int] = field(default_factory=list)
    valid_from: str | None = None
    valid_to: str | None = None
    superseded_by: int | None = None
    created_at: str = ""
    updated_at: str = ""
    last_used_at: str | None = None
    use_count: int = 0
    embedding_model: str | None = None
    private: bool = False  # never sent unasked: only the user's own recall shows it


@dataclass
class HistoryEntry:
    id: int
    memory_id: int
    action: str
    old_text: str | None
    new_text: str | None
    actor: str
    source_message_id: int | None
    at: str


COLUMNS = [f.name for f in fields(Memory)]
UPDATABLE = {
    "kind",
    "key",
    "value",
    "origin",
    "confidence",
    "sensitive",
    "importance",
    "valid_from",
    "valid_to",
    "private",
}


def parse_memory_id(value: str | int) -> int:
    return parse_id(value, "memory")


def check(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def clean_text(text: str) -> str:
    text = check_size(text.strip(), "a memory")
    if is_blank(text):
        raise UsageError("a memory needs some text (to remove one, forget it)")
    if "\x00" in text:
        raise UsageError("a memory cannot contain a NUL character")
    if redact_secrets(text) != text:  # added, edited, imported or written by another tool alike
        raise UsageError("that holds an API key, and memchat never keeps one in memory: use `memchat key set`")
    return require_unicode(text, "the memory text")


# Two parts at least (what, and which of its attributes), each starting with a letter or digit.
_KEY = re.compile(r"^[^\W_][\w-]*(?:\.[^\W_][\w-]*)+$")


def clean_key(key: str | None) -> str | None:
    """A key as `entity.attribute` (user.city, pet.dog.name): words joined by dots, at most 100
    characters; nothing else (no path, no spaces, no NUL). Empty: no key. Keys are kept in lower
    case: `User.City` is the same key as `user.city` (one current value, not two)."""
    if key is None or not key.strip():
        return None
    key = require_unicode(key.strip(), "the key")
    if len(key) > 100 or not _KEY.match(key):
        raise UsageError(f"a key is entity.attribute, words joined by dots (e.g. user.city); got {key[:100]!r}")
    return key.lower()


def proposed_key(raw: str | None) -> str | None:
    """A key a model proposed (or an export written before keys needed a dot), as a key, or
    None when it cannot be one: in lower case, spaces around its dots gone, other spaces as
    underscores, no part starting or ending with "_" or "-", and a bare attribute ("city",
    "user city") the user's ("user.city"). A model's answer is data, never an error that would
    lose the rest of what it extracted."""
    if not raw or not raw.strip():
        return None
    raw = re.sub(r"\s*\.\s*", ".", raw.strip()).lower()
    parts = raw.split()
    if "." not in raw and parts[0] == "user" and len(parts) > 1:
        parts = parts[1:]  # "user city": user.city
    key = "_".join(parts)
    if "." not in key:
        if key == "user":
            return None  # "user" names no attribute
        key = f"user.{key}"
    key = ".".join(part.strip("_-") for part in key.split("."))  # "user._city": user.city
    return key if len(key) <= 100 and _KEY.match(key) else None


def clean_value(value: str | None) -> str | None:
    if value is not None and "\x00" in value:
        raise UsageError("a value cannot contain a NUL character")
    return require_unicode(value, "the value") if value is not None else None


def memory_from_row(row: tuple, names: list[str]) -> Memory:
    data = dict(zip(names, row, strict=True))
    data["pinned"] = bool(data["pinned"])
    data["sensitive"] = bool(data["sensitive"])
    data["private"] = bool(data["private"])
    data["source_message_ids"] = json.loads(data["source_message_ids"] or "[]")
    return Memory(**data)


def log_history(
    conn: Any,
    memory_id: int,
    action: str,
    old: str | None,
    new: str | None,
    actor: str,
    at: str,
    source_message_id: int | None = None,
) -> None:
    """Append one audit-trail row (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO memory_history (memory_id, action, old_text, new_text, actor, source_message_id, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (memory_id, action, old, new, actor, source_message_id, at),
    )


def memory_json(memory: Memory) -> dict[str, Any]:
    """A memory as JSON (`memories list --json`, exports of one, the MCP server)."""
    return asdict(memory)
