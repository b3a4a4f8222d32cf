"""The profile card, kept in the database between processes, as memory ids only.

Working the card out reads the memories nearest each slot, who the household is and what changed
(about 70 ms at 100,000 memories), and every fresh `ask` did it again though nothing had changed.
The card is stored under a key that changes whenever anything it was worked out from does: the
memories' vector generation (bumped by triggers on every insert, delete, edit, status change), the
encoder, the memories the section holds already (pins, rules), and the judgement code and data
themselves. It holds ids, slots and whether a line is a memory's whole text, never text: the
memories are read again, and checked still active and not private, each time it is used.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat import __version__
from memchat.db import immediate
from memchat.errors import StoreError

if TYPE_CHECKING:
    from memchat.db import Database

CARD_FORMAT = 1


@functools.cache
def _code() -> str:
    """A fingerprint of the judgement code and data the card is worked out by."""
    digest = hashlib.sha1(f"{__version__}:{CARD_FORMAT}".encode())
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), *here.glob("*.json")]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def key(generation: int, model: str, exclude: set[int]) -> str:
    """What a stored card must have been worked out from to be used now."""
    held = hashlib.sha1(",".join(map(str, sorted(exclude))).encode()).hexdigest()[:16]
    return f"{_code()}:{generation}:{model}:{held}"


def load(db: Database, wanted: str) -> dict[str, Any] | None:
    """The stored card for this key, or None (none stored, another key, or unreadable)."""
    try:
        row = db.conn.execute("SELECT card FROM profile_card WHERE key = ?", (wanted,)).fetchone()
        return json.loads(row[0]) if row else None
    except (sqlite3.Error, ValueError):
        return None


def save(db: Database, new_key: str, card: dict[str, Any]) -> None:
    """Keep this card (only this one); a database that cannot be written now is left as it is:
    the card is worked out again next time."""
    try:
        with immediate(db):
            db.conn.execute("DELETE FROM profile_card")
            db.conn.execute("INSERT INTO profile_card (key, card) VALUES (?, ?)", (new_key, json.dumps(card)))
    except (sqlite3.Error, StoreError):
        pass
