"""The schema, as migrations in order: each runs once per database, recorded by name.

sqlite-utils' runner applies them (and records each in `_sqlite_migrations`); what a file
already has is read with plain SQL, so opening a migrated database never imports it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from memchat.memory.store.schema import MEMORIES, MESSAGE_INDEX, VECTOR_CHANGE_LOG


class Database(Protocol):
    """What a migration uses of the open database (memchat.db.Database, which imports this
    module to migrate: naming that class here would make the two a cycle)."""

    conn: sqlite3.Connection

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor: ...


MIGRATION_SET = "memchat"

MIGRATIONS: list[Callable[[Any], None]] = []  # in order; each runs once per database, by name


def _migration(fn: Callable[[Any], None]) -> Callable[[Any], None]:
    MIGRATIONS.append(fn)
    return fn


@_migration
def m001_create_sessions_messages(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            model TEXT,
            system TEXT,
            summary TEXT,
            summary_through_message_id INTEGER
        )"""
    )
    db.execute(
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'ok'
                CHECK (status IN ('ok', 'unanswered', 'interrupted', 'incomplete', 'undone')),
            tokens INTEGER,
            pinned INTEGER NOT NULL DEFAULT 0,
            model TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            stop_reason TEXT,
            latency_ms INTEGER,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX messages_session ON messages(session_id, id)")
    db.execute("CREATE INDEX sessions_updated ON sessions(updated_at)")


@_migration
def m002_create_token_calibration(db: Database) -> None:
    # Per-model ratio of the API's real input tokens to tiktoken's estimate.
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS token_calibration (
            model TEXT PRIMARY KEY,
            factor REAL NOT NULL,
            samples INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL
        )"""
    )


@_migration
def m003_create_memories(db: Database) -> None:
    for sql in MEMORIES:
        db.execute(sql)


@_migration
def m004_index_messages(db: Database) -> None:
    for sql in MESSAGE_INDEX:
        db.execute(sql)


@_migration
def m005_create_capture_state(db: Database) -> None:
    # How far background capture has read each session; it moves only after success.
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS capture_state (
            session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            through_message_id INTEGER NOT NULL DEFAULT 0,
            summarised_through INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            updated_at TEXT NOT NULL
        )"""
    )


@_migration
def m006_index_memories_by_importance(db: Database) -> None:
    # The memory section takes the most important active rules and facts: no full scan.
    db.execute(
        "CREATE INDEX IF NOT EXISTS memories_kind_importance ON memories(kind, status, importance DESC, id DESC)"
    )


@_migration
def m007_track_what_memory_sent(db: Database) -> None:
    # Past messages that must never reach a prompt again (they held what the user forgot), and
    # what memory section each call carried (ids, reasons, tokens; never text) for /why and /context.
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS withheld_messages (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            reason TEXT NOT NULL,
            at TEXT NOT NULL
        )"""
    )
    db.execute("ALTER TABLE messages ADD COLUMN memory TEXT")


@_migration
def m008_embed_memories_in_the_users_voice(db: Database) -> None:
    # Memories are now embedded in the first person ("My cat is Pixel", not "The user's cat is
    # Pixel"): the next search re-embeds them (memchat recall, import or reindex for a large set).
    db.execute("UPDATE memories SET embedding = NULL, embedding_model = NULL WHERE status != 'forgotten'")


@_migration
def m009_record_pending_scrubs(db: Database) -> None:
    # What a forget or a session delete still owes (summaries, mentions, files), recorded in the
    # same commit as the forgetting, and finished on the next open if the process died first.
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS pending_scrubs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            purge_sources INTEGER NOT NULL DEFAULT 0,
            items TEXT NOT NULL DEFAULT '[]'
        )"""
    )
    # Sessions imported from elsewhere keep the other tool's system prompt as data, not as theirs.
    db.execute("ALTER TABLE sessions ADD COLUMN imported_system TEXT")
    db.execute("UPDATE sessions SET imported_system = system, system = NULL WHERE source IS NOT NULL")


@_migration
def m010_hide_sessions_while_importing(db: Database) -> None:
    # An import commits in batches; its new sessions stay hidden until the whole file is in.
    db.execute("ALTER TABLE sessions ADD COLUMN importing INTEGER NOT NULL DEFAULT 0")
    db.execute("CREATE INDEX IF NOT EXISTS sessions_importing ON sessions(id) WHERE importing = 1")


@_migration
def m011_index_supersede_chains(db: Database) -> None:
    # Forget follows supersede chains batch by batch: without this, each batch scans the table.
    db.execute(
        "CREATE INDEX IF NOT EXISTS memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL"
    )


@_migration
def m012_index_embedded_memories(db: Database) -> None:
    # The vector copy is checked against the count of embedded memories on every recall: from
    # this index (~5 ms at 100,000) instead of reading every row (~70 ms).
    db.execute("CREATE INDEX IF NOT EXISTS memories_embedded ON memories(embedding_model) WHERE status != 'forgotten'")


@_migration
def m013_sessions_with_memory_off(db: Database) -> None:
    # A session run with --no-memory stays out of long-term memory for good: never captured,
    # never injected elsewhere, and later turns in it read no memory either.
    db.execute("ALTER TABLE sessions ADD COLUMN memory_off INTEGER NOT NULL DEFAULT 0")


@_migration
def m014_record_usage(db: Database) -> None:
    # Every model call's tokens, by purpose, for `memchat usage`, /cost and the line after a reply.
    db.execute(
        "CREATE TABLE usage (id INTEGER PRIMARY KEY, at TEXT NOT NULL, model TEXT NOT NULL, purpose TEXT NOT NULL, "
        "input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, session_id INTEGER)"
    )
    db.execute("CREATE INDEX usage_at ON usage(at)")


@_migration
def m015_profile_settings_and_audit(db: Database) -> None:
    # What belongs to the profile, not to the config file: the user's answer to the consent
    # question, when retention last ran. And one audit trail of what happened to the data beyond
    # memory writes (those are in memory_history): exports, imports, purges, deletes, consent.
    db.execute("CREATE TABLE profile_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)")
    db.execute(
        "CREATE TABLE audit_log (id INTEGER PRIMARY KEY, at TEXT NOT NULL, action TEXT NOT NULL, "
        "origin TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '')"
    )
    db.execute("CREATE INDEX audit_log_at ON audit_log(at)")


@_migration
def m016_private_memories(db: Database) -> None:
    # A memory the user marks private is never sent to a model unasked (nor to another tool over
    # MCP); only the user's own `recall` shows it.
    db.execute("ALTER TABLE memories ADD COLUMN private INTEGER NOT NULL DEFAULT 0")


@_migration
def m017_memories_from_other_tools(db: Database) -> None:
    # Memories written by another tool over MCP carry origin 'mcp'. The CHECK constraint only
    # widens (every row already satisfies the new one), so the stored schema is edited in place,
    # as SQLite documents for constraint changes that leave the file's format as it is.
    conn = db.conn
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'memories'").fetchone()[0]
    old = "CHECK (origin IN ('stated', 'inferred', 'manual'))"
    if old not in sql:
        return
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute(
            "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'memories'",
            (sql.replace(old, "CHECK (origin IN ('stated', 'inferred', 'manual', 'mcp'))"),),
        )
        conn.execute(f"PRAGMA schema_version = {int(version) + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


@_migration
def m018_index_pinned_and_private_memories(db: Database) -> None:
    # Every chat turn reads the pinned memories, and which memories are private: from these two
    # small indexes instead of reading every row of the table (100,000 memories: ~0.1 s each).
    db.execute("CREATE INDEX IF NOT EXISTS memories_pinned ON memories(id) WHERE pinned = 1")
    db.execute("CREATE INDEX IF NOT EXISTS memories_private ON memories(id) WHERE private = 1")


@_migration
def m019_log_vector_changes(db: Database) -> None:
    # Which rows each bump of a vector set's generation came from: a process whose on-disk copy is a
    # few changes old patches it with those rows (a `memories add` made the next `recall` read all
    # 100,000 vectors again: 5.3 s against 2.3 s).
    for sql in VECTOR_CHANGE_LOG:
        db.execute(sql)


@_migration
def m020_keys_in_lower_case(db: Database) -> None:
    # `User.City` and `user.city` were two keys, each with its own current value. Keys are kept
    # in lower case now; where two current memories had one key but for its case, the newest
    # stays current and the other becomes its history, as a new value of a key does.
    rows = db.execute(
        "SELECT id, key, text FROM memories WHERE key IS NOT NULL AND status = 'active' ORDER BY created_at, id"
    ).fetchall()
    current: dict[str, tuple[Any, ...]] = {}
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # as memchat.db.utcnow (which imports this)
    for row in rows:
        lower = row[1].lower()
        old = current.get(lower)
        current[lower] = row
        if old is None:
            continue
        db.execute(  # a pin and a "private" belong to the fact, whatever its value
            "UPDATE memories SET (pinned, private) = (SELECT max(new.pinned, old.pinned), max(new.private, old.private) "
            "FROM memories AS new, memories AS old WHERE new.id = ? AND old.id = ?) WHERE id = ?",
            (row[0], old[0], row[0]),
        )
        db.execute(
            "UPDATE memories SET status = 'superseded', valid_to = ?, superseded_by = ?, pinned = 0, "
            "updated_at = ? WHERE id = ?",
            (now, row[0], now, old[0]),
        )
        db.execute(
            "INSERT INTO memory_history (memory_id, action, old_text, new_text, actor, at) "
            "VALUES (?, 'supersede', ?, ?, 'migration', ?)",
            (old[0], old[2], row[2], now),
        )
    for memory_id, key in db.execute("SELECT id, key FROM memories WHERE key IS NOT NULL").fetchall():
        if key != key.lower():
            db.execute("UPDATE memories SET key = ? WHERE id = ?", (key.lower(), memory_id))


@_migration
def m021_keep_the_profile_card(db: Database) -> None:
    # The profile card between processes, as ids under the key of what it was worked out from
    # (memchat.memory.judge.card_store): a fresh `ask` spent 70 ms at 100,000 memories on it.
    db.execute("CREATE TABLE IF NOT EXISTS profile_card (key TEXT PRIMARY KEY, card TEXT NOT NULL)")


@_migration
def m022_turns_said_under_no(db: Database) -> None:
    # The last message of a session said while the person's answer was no (or capture was off for
    # that chat): capture never reads it, nor anything before it (memchat.memory.capture.turns).
    db.execute("ALTER TABLE capture_state ADD COLUMN unlearnt_through INTEGER NOT NULL DEFAULT 0")


def runner() -> Any:
    """sqlite-utils' runner over MIGRATIONS (it records each in `_sqlite_migrations`)."""
    from sqlite_utils.migrations import Migrations

    migrations = Migrations(MIGRATION_SET)
    for fn in MIGRATIONS:
        migrations()(fn)
    return migrations


def applied(conn: sqlite3.Connection) -> list[str]:
    """The migrations this file has, read with plain SQL (what sqlite-utils' runner wrote)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlite_migrations'").fetchone():
        return []
    return [
        r[0]
        for r in conn.execute(
            "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,)
        )
    ]


def names() -> list[str]:
    return [fn.__name__ for fn in MIGRATIONS]
