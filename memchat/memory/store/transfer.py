"""Memories in and out: `memchat memories export` (JSON or Markdown) and `memories import`.

The JSON export is memchat's own format, versioned: {"format": "memchat-memories",
"version": 1, "exported_at", "memories": [...]}. It holds active, pending and superseded
memories (forgotten ones have nothing left to export), without vectors or source message
ids (they mean nothing in another database). Importing skips memories already present,
so importing the same file twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from memchat.db import utcnow
from memchat.errors import StoreError, UsageError, require_unicode
from memchat.importer.memchat_formats import check_version, load_json
from memchat.memory.store.memories import KINDS, ORIGINS, Memory, MemoryStore, too_long_to_send
from memchat.memory.store.records import proposed_key
from memchat.text import shorten

FORMAT = "memchat-memories"
VERSION = 1
_EXPORTED = ("active", "pending", "superseded")
_DROPPED = {"embedding_model", "source_message_ids", "last_used_at", "use_count", "updated_at"}


@dataclass
class ImportResult:
    added: int
    skipped: int
    pending: int = 0  # added as pending: inferred sensitive facts wait for the user's review
    unsent: int = 0  # added active, but too long to send with a request unasked


def export_records(store: MemoryStore) -> list[Memory]:
    return store.find(status=_EXPORTED)


def export_text(store: MemoryStore, fmt: str = "json") -> str:
    memories = export_records(store)
    now = utcnow()
    if fmt in ("md", "markdown"):
        return export_markdown(memories, now)
    if fmt != "json":
        raise UsageError(f"unknown export format {fmt!r}: use json or md")
    records = [{k: v for k, v in asdict(m).items() if k not in _DROPPED} for m in memories]
    return (
        json.dumps(
            {"format": FORMAT, "version": VERSION, "exported_at": now, "memories": records},
            ensure_ascii=False,
            indent=2,
        )
        + "\n"
    )


def _parse(text: str, name: str) -> list[dict[str, Any]]:
    data = load_json(text, name, lambda exc: f" is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        hint = (
            " (conversations are imported with `memchat import`)"
            if found == "memchat-session" or isinstance(data, list)
            else ""
        )
        raise UsageError(
            f"{name} is not a memchat memories export (format {shorten(found)}, expected {FORMAT!r}){hint}"
        )
    check_version(data.get("version"), name, "memories", VERSION)
    records = data.get("memories")
    if not isinstance(records, list):
        raise UsageError(f"{name}: 'memories' must be a list")
    for i, r in enumerate(records, 1):
        _check_record(r, f"{name}: memory {i}")
    return records


def _check_record(r: Any, where: str) -> None:
    if not isinstance(r, dict):
        raise UsageError(f"{where} must be an object")
    if not isinstance(r.get("text"), str) or not r["text"].strip():
        raise UsageError(f"{where} needs a non-empty 'text'")
    _check_choices(r, where)
    _check_types(r, where)
    r["key"] = _imported_key(r.get("key"), where)


def _imported_key(raw: str | None, where: str) -> str | None:
    """A record's key as memchat keeps keys now: one from an export written before keys needed
    a dot ("city") or were kept in lower case restores as the user's attribute ("user.city")."""
    if raw is None or not raw.strip():
        return None
    key = proposed_key(raw)
    if key is None:
        raise UsageError(f"{where}: 'key' must be entity.attribute, words joined by dots (e.g. user.city)")
    return key


def _check_choices(r: dict[str, Any], where: str) -> None:
    """The fields that take one of a few words."""
    if r.get("kind", "fact") not in KINDS:
        raise UsageError(f"{where}: 'kind' must be one of {', '.join(KINDS)}")
    if r.get("status", "active") not in _EXPORTED:
        raise UsageError(f"{where}: 'status' must be one of {', '.join(_EXPORTED)}")
    if r.get("origin", "stated") not in ORIGINS:
        raise UsageError(f"{where}: 'origin' must be one of {', '.join(ORIGINS)}")


def _check_types(r: dict[str, Any], where: str) -> None:
    """The optional fields: strings (valid Unicode), numbers and ids, when given."""
    for field in ("key", "value", "created_at", "valid_from", "valid_to"):
        if r.get(field) is not None and not isinstance(r[field], str):
            raise UsageError(f"{where}: {field!r} must be a string")
    for field in ("text", "key", "value", "created_at", "valid_from", "valid_to"):
        if isinstance(r.get(field), str):
            require_unicode(r[field], f"{where}: {field!r}")
    _check_dates_and_flags(r, where)
    for field in ("confidence", "importance"):
        if r.get(field) is not None and (
            isinstance(r[field], bool) or not isinstance(r[field], (int, float)) or not 0 <= r[field] <= 1
        ):  # as `memories add --importance` takes them; NaN and Infinity (which json reads) are neither
            raise UsageError(f"{where}: {field!r} must be a number from 0 to 1")
    for field in ("id", "superseded_by"):
        if r.get(field) is not None and (isinstance(r[field], bool) or not isinstance(r[field], int)):
            raise UsageError(f"{where}: {field!r} must be a whole number")


def _check_dates_and_flags(r: dict[str, Any], where: str) -> None:
    """Dates that are dates ("garbage" would pass every --since), and flags that are true or false."""
    for field in ("created_at", "valid_from", "valid_to"):
        if isinstance(r.get(field), str) and _stamp(r[field]) is None:
            raise UsageError(
                f"{where}: {field!r} is not a date and time: {shorten(r[field])} (e.g. 2026-11-01T09:00:00Z)"
            )
    for field in ("pinned", "sensitive", "private"):
        if r.get(field) is not None and not isinstance(r[field], bool):
            raise UsageError(f"{where}: {field!r} must be true or false")


def _stamp(value: str | None) -> str | None:
    """A date-time as memchat stores them (UTC, ISO 8601 with a Z); a bare one is UTC. None for
    none, or for one that is no date ("garbage", "2026-02-30"), which the check refuses first."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (ValueError, OverflowError):
        return None


def _given(r: dict[str, Any], field: str, default: float) -> Any:
    """A field's value, the default when it is absent or null."""
    return default if r.get(field) is None else r[field]


def import_text(open_store: Callable[[], MemoryStore], text: str, name: str = "the file") -> ImportResult:
    """Restore an export, checked whole before the store is opened (a file that cannot be
    imported leaves no profile behind). Current and pending memories first (a newer key wins),
    then the superseded ones newest first, so each can point at its already restored successor."""
    records = _parse(text, name)
    store = open_store()
    before = {m.id for m in store.find(status=None)}
    new_ids: dict[int, int] = {}
    current = sorted(
        (r for r in records if r.get("status", "active") != "superseded"), key=lambda r: r.get("created_at") or ""
    )
    old = sorted(
        (r for r in records if r.get("status") == "superseded"), key=lambda r: r.get("created_at") or "", reverse=True
    )
    added = pending = unsent = 0
    try:
        for r in [*current, *old]:
            was_by = r.get("superseded_by")
            status, successor = r.get("status", "active"), new_ids.get(was_by) if isinstance(was_by, int) else None
            key = r.get("key")
            holder = store.find(key=key, status="active") if key and status == "active" else []
            if holder and holder[0].created_at > (r.get("created_at") or ""):
                status, successor = "superseded", holder[0].id  # what this database knows is newer
            memory = store.add(
                r["text"],
                kind=r.get("kind", "fact"),
                key=key,
                value=r.get("value"),
                origin=r.get("origin", "stated"),
                status=status,
                confidence=float(_given(r, "confidence", 1.0)),
                sensitive=bool(r.get("sensitive", False)),
                importance=float(_given(r, "importance", 0.5)),
                pinned=bool(r.get("pinned", False)),
                private=bool(r.get("private", False)),  # what the user kept private stays so, restored
                actor="import",
                created_at=_stamp(r.get("created_at")),
                valid_from=_stamp(r.get("valid_from")),
                valid_to=_stamp(r.get("valid_to")),
                superseded_by=successor,
            )
            if r.get("id") is not None:
                new_ids[r["id"]] = memory.id
            if memory.id not in before:
                added += 1
                pending += memory.status == "pending"
                unsent += memory.status == "active" and too_long_to_send(memory)
                before.add(memory.id)
    except StoreError as exc:  # a full disk part-way: each memory is its own transaction, so say what is in
        raise StoreError(
            f"{exc.message.rstrip('.')}. {added} of {len(records)} memories were imported before it; "
            "importing the file again adds the rest (those already in are recognised)"
        ) from None
    return ImportResult(added, len(records) - added, pending, unsent)


def _when(timestamp: str | None) -> str:
    return (timestamp or "")[:16].replace("T", " ")


def export_markdown(memories: list[Memory], exported_at: str) -> str:
    out = ["# memchat memories", "", f"Exported {_when(exported_at)} UTC · {len(memories)} memories", ""]
    titles = {"fact": "Facts", "event": "Events", "rule": "Rules"}
    for kind, title in titles.items():
        group = [m for m in memories if m.kind == kind]
        if not group:
            continue
        out += [f"## {title}", ""]
        for m in group:
            notes = [
                n
                for n in (
                    m.status if m.status != "active" else "",
                    "pinned" if m.pinned else "",
                    f"key {m.key}" if m.key else "",
                )
                if n
            ]
            out.append(
                f"- {m.text}" + (f" _({', '.join(notes)})_" if notes else "") + f" · #{m.id}, {_when(m.created_at)}"
            )
        out.append("")
    return "\n".join(out)
