"""The memory store: typed memories, their audit trail, and forgetting that leaves nothing.

`MemoryStore` is the one door to long-term memory. Callers see `Memory` and `HistoryEntry`
dataclasses, never rows or SQL, so another backend could stand behind the same verbs:
add, get, find, update, edit, supersede, pin, unpin, confirm, reject, forget, history.

Rules kept here, whoever calls:
- every write is one IMMEDIATE transaction and leaves a history row (actor and time);
- a memory with the same `key` as an active one supersedes it: the old row gets
  `valid_to`, `superseded_by` and status `superseded`, and is never current again;
- forgetting removes the text from the row, the history, the FTS index, the vector and the
  sentences of session summaries that mention it (memchat.memory.forget.erase).

Vectors are not computed here: a written memory has no embedding until the vector index
catches up (memchat.memory.recall.index), so adding a memory never waits for the model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memchat.db import immediate, inserted_id, utcnow
from memchat.errors import NotFoundError, UsageError
from memchat.memory.forget import erase
from memchat.memory.forget.redact import Forgotten, Redactor
from memchat.memory.store.records import (
    COLUMNS,
    FORGOTTEN_MESSAGE,
    KINDS,
    ORIGINS,
    STATUSES,
    UPDATABLE,
    HistoryEntry,
    Memory,
    check,
    clean_key,
    clean_text,
    clean_value,
    log_history,
    memory_from_row,
    parse_memory_id,
)

if TYPE_CHECKING:
    from memchat.db import Database

__all__ = [
    "FORGOTTEN_MESSAGE",
    "LONGEST_SENT",
    "too_long_to_send",
    "KINDS",
    "ORIGINS",
    "STATUSES",
    "HistoryEntry",
    "Memory",
    "MemoryStore",
    "parse_memory_id",
]


# The longest memory sent with a request unasked (characters; about the whole default memory budget of
# 1,500 tokens, so one that could fit alone is still judged). A longer one (a pasted document kept as a
# memory) is found by `recall` and by the model's recall tool, but the memory section never judges it
# (unless it is pinned or a rule, which are sent as they are): every rule that reads a candidate would
# read all of it at every turn (three 100 kB memories made each later turn 1.6 s, not 0.05 s).
LONGEST_SENT = 6_000


def too_long_to_send(m: Memory) -> bool:
    """Whether recall finds this memory but the memory section never judges or sends it: longer than
    LONGEST_SENT characters, and neither pinned nor a rule (those are sent as they are, budget
    permitting) nor private (never sent unasked anyway)."""
    return len(m.text) > LONGEST_SENT and not (m.pinned or m.kind == "rule" or m.private)


class MemoryStore:
    """Long-term memory in the profile's SQLite database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.last_forget = erase.Forgotten()  # what the last forget did (ids, summary redactions, sources)
        self.last_add_existed = False  # the last add found the memory already there

    # --- reading ---------------------------------------------------------------------------
    def _select(self, where: str, params: tuple | list = (), order: str = "ORDER BY id") -> list[Memory]:
        cursor = self.db.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM memories {where} {order}", params)
        names = [d[0] for d in cursor.description]
        return [memory_from_row(row, names) for row in cursor.fetchall()]

    def get(self, memory_id: int | str) -> Memory:
        mid = parse_memory_id(memory_id)
        rows = self._select("WHERE id = ?", (mid,))
        if not rows:
            raise NotFoundError(f"no memory {mid} (see `memchat memories list`)")
        return rows[0]

    def get_many(self, ids: list[int], *, longest: int | None = None) -> dict[int, Memory]:
        """The memories of these ids that exist (and are at most `longest` characters, if given)."""
        if not ids:
            return {}
        where = "WHERE id IN (SELECT value FROM json_each(?))" + (
            f" AND length(text) <= {int(longest)}" if longest else ""
        )
        return {m.id: m for m in self._select(where, (json.dumps(ids),))}

    def find(
        self,
        *,
        kind: str | None = None,
        status: str | tuple[str, ...] | None = ("active", "pending"),
        pinned: bool | None = None,
        key: str | None = None,
        limit: int | None = None,
        newest_first: bool = False,
        private: bool | None = None,
    ) -> list[Memory]:
        """Memories in id order (or newest first); status None means every status; None for pinned
        or private means either."""
        where: list[str] = ["1"]
        params: list[Any] = []
        if kind:
            where.append("kind = ?")
            params.append(check("kind", kind, KINDS))
        if status:
            statuses = (status,) if isinstance(status, str) else tuple(status)
            for s in statuses:
                check("status", s, STATUSES)
            # Pinned rows are few: `+status` keeps SQLite on their index, not on every active row's.
            column = "+status" if pinned else "status"
            where.append(f"{column} IN ({', '.join('?' for _ in statuses)})")
            params += statuses
        if pinned is not None:
            where.append(f"pinned = {int(pinned)}")  # a literal: SQLite then reads the index of pinned rows
        if key:
            where.append("key = ?")
            params.append(key.lower())  # keys are stored in lower case
        if private is not None:
            where.append(f"private = {int(private)}")  # a literal, as for pinned
        order = "ORDER BY id" + (" DESC" if newest_first else "") + (f" LIMIT {int(limit)}" if limit else "")
        return self._select("WHERE " + " AND ".join(where), params, order)

    def history(self, memory_id: int | str) -> list[HistoryEntry]:
        mid = self.get(memory_id).id
        cursor = self.db.conn.execute(
            "SELECT id, memory_id, action, old_text, new_text, actor, source_message_id, at "
            "FROM memory_history WHERE memory_id = ? ORDER BY id",
            (mid,),
        )
        return [HistoryEntry(*row) for row in cursor.fetchall()]

    def replaced(self, memory_id: int) -> list[Memory]:
        """The memories this one superseded."""
        return self._select("WHERE superseded_by = ?", (memory_id,))

    def counts(self) -> dict[str, int]:
        return dict(self.db.conn.execute("SELECT status, count(*) FROM memories GROUP BY status").fetchall())

    def top(self, kind: str, limit: int) -> list[Memory]:
        """The most important active memories of a kind (by index, without reading them all)."""
        return self._select(
            "WHERE kind = ? AND status = 'active'",
            (check("kind", kind, KINDS),),
            f"ORDER BY importance DESC, id DESC LIMIT {int(limit)}",
        )

    def newest_matching(
        self,
        match: str,
        limit: int,
        kinds: tuple[str, ...] = ("fact",),
        *,
        with_private: bool = False,
        longest: int | None = None,
    ) -> list[tuple[int, str, str]]:
        """(id, text, created_at) of the newest active memories of `kinds` whose words match the FTS5
        query `match` (and of at most `longest` characters, if given), newest first. Not ranked by
        BM25: that scores every row a common word is in (0.75 s at 1,000,000 memories); newest first
        reads only `limit` of them."""
        kinds = tuple(check("kind", k, KINDS) for k in kinds)
        private = "" if with_private else "AND m.private = 0 "
        if longest:
            private += f"AND length(m.text) <= {int(longest)} "
        return self.db.conn.execute(
            "SELECT m.id, m.text, m.created_at FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
            f"WHERE memories_fts MATCH ? AND m.status = 'active' {private}"
            f"AND m.kind IN ({', '.join('?' * len(kinds))}) ORDER BY memories_fts.rowid DESC LIMIT ?",
            (match, *kinds, int(limit)),
        ).fetchall()

    def count_up_to(self, limit: int) -> int:
        """How many memories hold text (not forgotten), counted no further than `limit`."""
        return int(
            self.db.conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM memories WHERE status != 'forgotten' LIMIT ?)", (limit,)
            ).fetchone()[0]
        )

    def has_active(self, kind: str | None = None, *, besides: int | None = None) -> bool:
        """Whether any memory is active (of `kind`, other than `besides`)."""
        sql = "SELECT EXISTS(SELECT 1 FROM memories WHERE status = 'active'"
        args: list[object] = []
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if besides is not None:
            sql += " AND id != ?"
            args.append(besides)
        return bool(self.db.conn.execute(sql + ")", args).fetchone()[0])

    # --- writing ---------------------------------------------------------------------------
    def _log(
        self,
        memory_id: int,
        action: str,
        old: str | None,
        new: str | None,
        actor: str,
        at: str,
        source_message_id: int | None = None,
    ) -> None:
        log_history(self.db.conn, memory_id, action, old, new, actor, at, source_message_id)

    def _live(self, memory_id: int | str) -> Memory:
        memory = self.get(memory_id)
        if memory.status == "forgotten":
            raise UsageError(f"memory {memory.id} was forgotten; there is nothing left to change")
        return memory

    def add(
        self,
        text: str,
        *,
        kind: str = "fact",
        key: str | None = None,
        value: str | None = None,
        origin: str = "manual",
        status: str = "active",
        confidence: float = 1.0,
        sensitive: bool = False,
        importance: float = 0.5,
        pinned: bool = False,
        private: bool = False,
        source_message_ids: list[int] | tuple[int, ...] = (),
        actor: str = "user",
        created_at: str | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
        superseded_by: int | None = None,
    ) -> Memory:
        """Store a memory; an active one with the same key is superseded by it.

        Adding the text of a memory (whatever its case or final full stop) with the same kind,
        key and status returns that memory instead of a copy (and sets last_add_existed). Status `superseded` (with valid_to and superseded_by) is
        for restoring an export. An inferred sensitive memory is stored pending, whatever
        the caller asked: no path but `confirm` makes one active.
        """
        text = clean_text(text)
        check("kind", kind, KINDS)
        check("origin", origin, ORIGINS)
        check("status", status, ("active", "pending", "superseded"))
        key, value = clean_key(key), clean_value(value)
        if status == "active" and origin == "inferred" and sensitive:
            status = "pending"  # only the user's confirm makes an inferred sensitive fact current
        for same in self._select(
            "WHERE lower(rtrim(text, '.')) = lower(rtrim(?, '.')) AND kind = ? AND key IS ? AND status = ? "
            "AND (? IS NULL OR value IS ?)",
            (text, kind, key, status, value, value),
        ):
            self.last_add_existed = True
            return same
        self.last_add_existed = False
        now = utcnow()
        created = created_at or now
        sources = [int(i) for i in source_message_ids]
        with immediate(self.db):
            new_id = self._insert(
                actor,
                now,
                kind=kind,
                text=text,
                key=key,
                value=value,
                pinned=int(pinned),
                origin=origin,
                confidence=float(confidence),
                sensitive=int(sensitive),
                importance=float(importance),
                private=int(private),
                source_message_ids=json.dumps(sources),
                valid_from=valid_from or created,
                created_at=created,
            )
            if private:
                self._private_retold(text, value, actor, now)
            if status == "active":
                self._activate(new_id, key, text, actor, now)
            elif status == "superseded":
                self.db.conn.execute(
                    "UPDATE memories SET status = 'superseded', valid_to = ?, superseded_by = ? WHERE id = ?",
                    (valid_to or now, superseded_by, new_id),
                )
        return self.get(new_id)

    def _insert(self, actor: str, now: str, **row: Any) -> int:
        """Insert a memory as pending (inside a transaction) and log its addition.

        Activation is a second step: the old holder of the key must step aside first (one
        active row per key), and it needs the new id for superseded_by.
        """
        row.setdefault("created_at", now)
        row.setdefault("valid_from", now)
        row.update(status="pending", updated_at=now)
        cursor = self.db.conn.execute(
            f"INSERT INTO memories ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values())
        )
        sources = json.loads(row.get("source_message_ids") or "[]")
        new_id = inserted_id(cursor)
        self._log(new_id, "add", None, row["text"], actor, now, sources[0] if sources else None)
        return new_id

    def _activate(self, memory_id: int, key: str | None, text: str, actor: str, at: str) -> None:
        pinned = private = False
        if key:
            for old in self._select("WHERE key = ? AND status = 'active' AND id != ?", (key, memory_id)):
                self._retire(old, memory_id, text, actor, at)
                pinned = pinned or old.pinned  # a pin belongs to the fact, whatever its value
                private = private or old.private  # and so does the user's "private"
        self.db.conn.execute(
            "UPDATE memories SET status = 'active', valid_to = NULL, pinned = max(pinned, ?), "
            "private = max(private, ?) WHERE id = ?",
            (int(pinned), int(private), memory_id),
        )

    def _retire(self, old: Memory, new_id: int, new_text: str, actor: str, at: str) -> None:
        self.db.conn.execute(
            "UPDATE memories SET status = 'superseded', valid_to = ?, superseded_by = ?, pinned = 0, "
            "updated_at = ? WHERE id = ?",
            (at, new_id, at, old.id),
        )
        self._log(old.id, "supersede", old.text, new_text, actor, at)

    def supersede(
        self, memory_id: int | str, text: str, *, value: str | None = None, actor: str = "user", origin: str = "manual"
    ) -> Memory:
        """Replace an active memory by a new version (same kind and key); the old one becomes history."""
        old = self._live(memory_id)
        if old.status != "active":
            raise UsageError(f"memory {old.id} is {old.status}; only an active memory can be superseded")
        text = clean_text(text)
        now = utcnow()
        with immediate(self.db):
            new_id = self._insert(
                actor,
                now,
                kind=old.kind,
                text=text,
                value=value,
                pinned=int(old.pinned),
                private=int(old.private),
                origin=origin,
                sensitive=int(old.sensitive),
                importance=old.importance,
            )
            self._retire(old, new_id, text, actor, now)
            self.db.conn.execute("UPDATE memories SET status = 'active', key = ? WHERE id = ?", (old.key, new_id))
        return self.get(new_id)

    def replaced_by(self, old_id: int, new_id: int, *, actor: str = "user") -> Memory:
        """An active memory becomes the history of a newer one already stored (a statement that
        changes it); the newer one takes its key, its pin and its privacy."""
        old, new = self._live(old_id), self._live(new_id)
        if old.status != "active" or new.status != "active" or old.id == new.id:
            raise UsageError(f"memory {old.id} cannot be replaced by memory {new.id}")
        now = utcnow()
        with immediate(self.db):
            self._retire(old, new.id, new.text, actor, now)
            self.db.conn.execute(
                "UPDATE memories SET key = coalesce(key, ?), pinned = max(pinned, ?), private = max(private, ?), "
                "updated_at = ? WHERE id = ?",
                (old.key, int(old.pinned), int(old.private), now, new.id),
            )
        return self.get(new.id)

    def edit(self, memory_id: int | str, text: str, *, value: str | None = None, actor: str = "user") -> Memory:
        """Change a memory's text (its vector is recomputed on the next search)."""
        memory = self._live(memory_id)
        text, value = clean_text(text), clean_value(value)
        if text == memory.text and value in (None, memory.value):
            return memory
        now = utcnow()
        with immediate(self.db):
            self.db.conn.execute(
                "UPDATE memories SET text = ?, value = coalesce(?, value), embedding = NULL, embedding_model = NULL, "
                "updated_at = ? WHERE id = ?",
                (text, value, now, memory.id),
            )
            self._log(memory.id, "edit", memory.text, text, actor, now)
        return self.get(memory.id)

    def update(self, memory_id: int | str, *, actor: str = "user", **changes: Any) -> Memory:
        """Change a memory's metadata (kind, key, value, importance, confidence, ...)."""
        bad = set(changes) - UPDATABLE
        if bad:
            raise ValueError(f"cannot update memory fields {sorted(bad)}")
        memory = self._live(memory_id)
        if "kind" in changes:
            check("kind", changes["kind"], KINDS)
        if "origin" in changes:
            check("origin", changes["origin"], ORIGINS)
        if "key" in changes:
            changes["key"] = clean_key(changes["key"])
        if "value" in changes:
            changes["value"] = clean_value(changes["value"])
        now = utcnow()
        with immediate(self.db):
            if changes.get("key") and memory.status == "active":
                for old in self._select("WHERE key = ? AND status = 'active' AND id != ?", (changes["key"], memory.id)):
                    self._retire(old, memory.id, memory.text, actor, now)
            sets = ", ".join(f"{k} = ?" for k in changes)
            self.db.conn.execute(
                f"UPDATE memories SET {sets}, updated_at = ? WHERE id = ?", (*changes.values(), now, memory.id)
            )
            self._log(memory.id, "update", None, None, actor, now)
            if changes.get("private") and not memory.private:
                self._private_retold(memory.text, memory.value, actor, now)
        return self.get(memory.id)

    def _private_retold(self, text: str, value: str | None, actor: str, at: str) -> None:
        """A memory made private takes private with it the session summaries that retell it (its
        value, a name or number of it, or most of its words: forget's test of a mention), as the
        messages it was drawn from are withheld. They stay private if it is released again."""
        redactor = Redactor([Forgotten(text, value)])
        retold = [
            mid
            for mid, summary in self.db.conn.execute(
                "SELECT id, text FROM memories WHERE kind = 'event' AND key LIKE 'session.%.summary' "
                "AND private = 0 AND status != 'forgotten'"
            )
            if redactor.redact(summary)[1]
        ]
        for mid in retold:
            self.db.conn.execute("UPDATE memories SET private = 1, updated_at = ? WHERE id = ?", (at, mid))
            self._log(mid, "update", None, None, actor, at)

    def _set_flag(
        self, memory_id: int | str, sql: str, action: str, actor: str, allowed: tuple[str, ...] = ("active", "pending")
    ) -> Memory:
        memory = self._live(memory_id)
        if memory.status not in allowed:
            raise UsageError(
                f"memory {memory.id} is {memory.status}"
                + (f" (by memory {memory.superseded_by})" if memory.superseded_by else "")
            )
        now = utcnow()
        with immediate(self.db):
            self.db.conn.execute(f"UPDATE memories SET {sql}, updated_at = ? WHERE id = ?", (now, memory.id))
            self._log(memory.id, action, None, None, actor, now)
        return self.get(memory.id)

    def pin(self, memory_id: int | str, *, actor: str = "user") -> Memory:
        """A pinned memory is sent with every message (a private one never) and ranks higher in recall."""
        return self._set_flag(memory_id, "pinned = 1", "pin", actor)

    def unpin(self, memory_id: int | str, *, actor: str = "user") -> Memory:
        return self._set_flag(memory_id, "pinned = 0", "unpin", actor)

    def confirm(self, memory_id: int | str, *, actor: str = "user") -> Memory:
        """A pending memory becomes active (superseding the holder of its key)."""
        memory = self._live(memory_id)
        if memory.status != "pending":
            raise UsageError(f"memory {memory.id} is {memory.status}, not pending")
        now = utcnow()
        with immediate(self.db):
            self._activate(memory.id, memory.key, memory.text, actor, now)
            self.db.conn.execute("UPDATE memories SET updated_at = ? WHERE id = ?", (now, memory.id))
            self._log(memory.id, "confirm", None, None, actor, now)
        return self.get(memory.id)

    def reject(self, memory_id: int | str, *, actor: str = "user") -> None:
        """A pending memory the user does not want: forgotten, recorded as rejected."""
        memory = self._live(memory_id)
        if memory.status != "pending":
            raise UsageError(f"memory {memory.id} is {memory.status}, not pending")
        self.forget([memory.id], actor=actor, action="reject")

    def mark_used(self, memory_ids: list[int]) -> None:
        """Count a use (a memory sent to the model); recall ranks often-used memories a little higher."""
        if memory_ids:
            with immediate(self.db):
                self.db.conn.executemany(
                    "UPDATE memories SET use_count = use_count + 1, last_used_at = ? WHERE id = ?",
                    [(utcnow(), i) for i in memory_ids],
                )

    # --- forgetting ------------------------------------------------------------------------
    def forget(
        self,
        memory_ids: list[int] | list[str],
        *,
        actor: str = "user",
        purge_sources: bool = False,
        action: str = "forget",
    ) -> list[int]:
        """Forget memories for good; returns the ids that were forgotten now (see memchat.memory.forget.erase)."""
        found = self.get_many(wanted := [parse_memory_id(i) for i in memory_ids])
        if missing := [i for i in wanted if i not in found]:
            raise NotFoundError(f"no memory {missing[0]} (see `memchat memories list`)")
        targets = [found[i] for i in dict.fromkeys(wanted) if found[i].status != "forgotten"]
        self.last_forget = erase.forget(self.db, targets, actor=actor, purge_sources=purge_sources, action=action)
        return self.last_forget.ids

    def forget_all(self, *, actor: str = "user") -> list[int]:
        ids = [m.id for m in self.find(status=("active", "pending", "superseded"))]
        return self.forget(ids, actor=actor)
