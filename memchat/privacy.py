"""The user's controls over their data that are not memory edits: consent to capture (asked once,
stored in the profile) and the audit trail of everything that happened to the data.

The audit trail is two tables read as one: memory_history (every memory write, edit, pin,
confirm, reject, forget, with its actor) and audit_log (exports, imports, purges, session
deletes, consent). Neither holds memory text: what was said is in the memory itself, and a
forgotten memory's history keeps only that it was forgotten.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memchat.db import immediate, utcnow
from memchat.errors import MAX_ID

if TYPE_CHECKING:
    from memchat.db import Database

CONSENT = "consent.capture"
# memory_history's actors, as the origins a user reads: who or what caused the change.
ORIGINS = {
    "user": "user",
    "extractor": "chat",
    "policy": "chat",
    "import": "import",
    "mcp": "mcp",
    "retention": "retention",
}


@dataclass
class Consent:
    capture: bool
    at: str  # when the user answered


def get_setting(db: Database, name: str) -> tuple[str, str] | None:
    row = db.conn.execute("SELECT value, updated_at FROM profile_settings WHERE name = ?", (name,)).fetchone()
    return (row[0], row[1]) if row else None


def set_setting(db: Database, name: str, value: str) -> None:
    with immediate(db):
        db.conn.execute(
            "INSERT INTO profile_settings (name, value, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (name, value, utcnow()),
        )


def consent(db: Database) -> Consent | None:
    """The user's answer to "capture memories from your chats?", or None if never asked."""
    found = get_setting(db, CONSENT)
    return None if found is None else Consent(found[0] == "yes", found[1])


def set_consent(db: Database, capture: bool, origin: str = "user") -> None:
    set_setting(db, CONSENT, "yes" if capture else "no")
    record(db, "consent", origin, "capture memories: " + ("yes" if capture else "no"))


def record(db: Database, action: str, origin: str, detail: Any = "") -> None:
    """Add one line to the audit trail (its own small transaction)."""
    text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False, sort_keys=True)
    with immediate(db):
        db.conn.execute(
            "INSERT INTO audit_log (at, action, origin, detail) VALUES (?, ?, ?, ?)", (utcnow(), action, origin, text)
        )


@dataclass
class AuditEntry:
    at: str
    action: str
    origin: str
    memory_id: int | None
    detail: str


def audit(db: Database, *, since: str | None = None, limit: int | None = None) -> list[AuditEntry]:
    """Every memory write and every data event, oldest first (the newest `limit` when given)."""
    rows = db.conn.execute(
        "SELECT at, action, actor, memory_id, '' FROM memory_history WHERE at >= ? "
        "UNION ALL SELECT at, action, origin, NULL, detail FROM audit_log WHERE at >= ? "
        "ORDER BY 1 DESC" + (" LIMIT ?" if limit else ""),
        (since or "", since or "", *([min(limit, MAX_ID)] if limit else [])),  # past SQLite's integers: all
    ).fetchall()
    return [AuditEntry(at, action, ORIGINS.get(actor, actor), mid, detail) for at, action, actor, mid, detail in rows][
        ::-1
    ]
