"""SQL of the long-term memory migrations (m003_create_memories, m004_index_messages in db.py).

These statements are part of shipped migrations: never edit them; add a new migration.

- `memories` and `memory_history` (the audit trail), with FTS5 over text and key.
- `messages_fts` over the transcript (speaker name and content) and `message_vectors`,
  the lazily computed embeddings of messages.
- `index_state`: one counter per vector set, bumped by triggers on every change a cached
  matrix of vectors depends on, so a process keeps its matrix until the counter moves.
"""

from __future__ import annotations

# Porter stemming lets "painted" find "painting"; remove_diacritics lets "cafe" find "café".
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"


def _bump(name: str) -> str:
    return f"UPDATE index_state SET generation = generation + 1 WHERE name = '{name}';"


def _fts_triggers(table: str, columns: tuple[str, ...], on_update: str) -> tuple[str, ...]:
    """External-content FTS5 kept in step with its table by triggers."""
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    insert = f"INSERT INTO {table}_fts(rowid, {cols}) VALUES (new.id, {new});"
    delete = f"INSERT INTO {table}_fts({table}_fts, rowid, {cols}) VALUES ('delete', old.id, {old});"
    return (
        f"""CREATE VIRTUAL TABLE {table}_fts USING fts5(
            {cols}, content='{table}', content_rowid='id', tokenize='{FTS_TOKENIZE}')""",
        f"CREATE TRIGGER {table}_fts_ai AFTER INSERT ON {table} BEGIN {insert} END",
        f"CREATE TRIGGER {table}_fts_ad AFTER DELETE ON {table} BEGIN {delete} END",
        f"CREATE TRIGGER {table}_fts_au AFTER UPDATE OF {on_update} ON {table} BEGIN {delete} {insert} END",
    )


MEMORIES: tuple[str, ...] = (
    """
    CREATE TABLE memories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('fact', 'event', 'rule')),
        text TEXT NOT NULL,
        key TEXT,
        value TEXT,
        status TEXT NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'pending', 'superseded', 'forgotten')),
        pinned INTEGER NOT NULL DEFAULT 0,
        origin TEXT NOT NULL DEFAULT 'stated' CHECK (origin IN ('stated', 'inferred', 'manual')),
        confidence REAL NOT NULL DEFAULT 1.0,
        sensitive INTEGER NOT NULL DEFAULT 0,
        importance REAL NOT NULL DEFAULT 0.5,
        source_message_ids TEXT NOT NULL DEFAULT '[]',
        valid_from TEXT,
        valid_to TEXT,
        superseded_by INTEGER REFERENCES memories(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_used_at TEXT,
        use_count INTEGER NOT NULL DEFAULT 0,
        embedding BLOB,
        embedding_model TEXT
    )""",
    # One current value per key: a second active row with the same key is a bug, not data.
    "CREATE UNIQUE INDEX memories_active_key ON memories(key) WHERE status = 'active' AND key IS NOT NULL",
    "CREATE INDEX memories_status_kind ON memories(status, kind)",
    # Finding what still needs a vector, and vectors of another model, without a table scan.
    "CREATE INDEX memories_unembedded ON memories(id) WHERE embedding IS NULL AND status != 'forgotten'",
    "CREATE INDEX memories_embedding_model ON memories(embedding_model)",
    """
    CREATE TABLE memory_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        action TEXT NOT NULL CHECK (action IN
            ('add', 'update', 'supersede', 'pin', 'unpin', 'edit', 'confirm', 'reject', 'forget')),
        old_text TEXT,
        new_text TEXT,
        actor TEXT NOT NULL,
        source_message_id INTEGER,
        at TEXT NOT NULL
    )""",
    "CREATE INDEX memory_history_memory ON memory_history(memory_id, id)",
    *_fts_triggers("memories", ("text", "key"), "text, key"),
    "CREATE TABLE index_state (name TEXT PRIMARY KEY, generation INTEGER NOT NULL DEFAULT 0)",
    "INSERT INTO index_state (name, generation) VALUES ('memories', 0), ('messages', 0)",
    f"CREATE TRIGGER memories_gen_ai AFTER INSERT ON memories BEGIN {_bump('memories')} END",
    f"CREATE TRIGGER memories_gen_ad AFTER DELETE ON memories BEGIN {_bump('memories')} END",
    # Not on use_count/last_used_at: using a memory must not throw away every cached matrix.
    f"""CREATE TRIGGER memories_gen_au AFTER UPDATE OF embedding, embedding_model, status, kind, created_at
        ON memories BEGIN {_bump("memories")} END""",
)

MESSAGE_INDEX: tuple[str, ...] = (
    "ALTER TABLE messages ADD COLUMN name TEXT",  # the speaker, in imported conversations
    "ALTER TABLE messages ADD COLUMN external_id TEXT",
    "ALTER TABLE sessions ADD COLUMN source TEXT",
    "ALTER TABLE sessions ADD COLUMN external_id TEXT",
    "CREATE UNIQUE INDEX sessions_external ON sessions(source, external_id) WHERE external_id IS NOT NULL",
    "CREATE UNIQUE INDEX messages_external ON messages(session_id, external_id) WHERE external_id IS NOT NULL",
    *_fts_triggers("messages", ("name", "content"), "name, content"),
    # The transcript that existed before this migration.
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    # Embeddings of messages are computed lazily (never while a chat turn waits), so they
    # live in their own table; content_hash lets a reindex skip what has not changed.
    """
    CREATE TABLE message_vectors (
        message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL,
        content_hash TEXT NOT NULL
    )""",
    "CREATE INDEX message_vectors_model ON message_vectors(model)",
    f"CREATE TRIGGER message_vectors_gen_ai AFTER INSERT ON message_vectors BEGIN {_bump('messages')} END",
    f"CREATE TRIGGER message_vectors_gen_ad AFTER DELETE ON message_vectors BEGIN {_bump('messages')} END",
    f"CREATE TRIGGER message_vectors_gen_au AFTER UPDATE ON message_vectors BEGIN {_bump('messages')} END",
)

# How many changes of each vector set the log keeps: a copy older than that is rebuilt whole.
CHANGE_LOG_KEEP = 50_000


def _bump_and_log(name: str, row: str) -> str:
    """Bump the set's generation and log which row moved it (memchat.memory.recall.vector_file
    patches its on-disk copy with those rows instead of reading the whole set again)."""
    return (
        f"UPDATE index_state SET generation = generation + 1 WHERE name = '{name}';"
        f" INSERT INTO vector_changes (name, generation, row_id)"
        f" SELECT '{name}', generation, {row} FROM index_state WHERE name = '{name}';"
        f" DELETE FROM vector_changes WHERE name = '{name}' AND generation <="
        f" (SELECT generation FROM index_state WHERE name = '{name}') - {CHANGE_LOG_KEEP};"
    )


VECTOR_CHANGE_LOG: tuple[str, ...] = (
    # Row ids and counters only, never text: forgetting still deletes the copy outright.
    """
    CREATE TABLE vector_changes (
        name TEXT NOT NULL,
        generation INTEGER NOT NULL,
        row_id INTEGER NOT NULL,
        PRIMARY KEY (name, generation)
    ) WITHOUT ROWID""",
    "DROP TRIGGER memories_gen_ai",
    "DROP TRIGGER memories_gen_ad",
    "DROP TRIGGER memories_gen_au",
    "DROP TRIGGER message_vectors_gen_ai",
    "DROP TRIGGER message_vectors_gen_ad",
    "DROP TRIGGER message_vectors_gen_au",
    f"CREATE TRIGGER memories_gen_ai AFTER INSERT ON memories BEGIN {_bump_and_log('memories', 'new.id')} END",
    f"CREATE TRIGGER memories_gen_ad AFTER DELETE ON memories BEGIN {_bump_and_log('memories', 'old.id')} END",
    # Not on use_count/last_used_at: using a memory must not throw away every cached matrix.
    f"""CREATE TRIGGER memories_gen_au AFTER UPDATE OF embedding, embedding_model, status, kind, created_at
        ON memories BEGIN {_bump_and_log("memories", "new.id")} END""",
    f"""CREATE TRIGGER message_vectors_gen_ai AFTER INSERT ON message_vectors
        BEGIN {_bump_and_log("messages", "new.message_id")} END""",
    f"""CREATE TRIGGER message_vectors_gen_ad AFTER DELETE ON message_vectors
        BEGIN {_bump_and_log("messages", "old.message_id")} END""",
    f"""CREATE TRIGGER message_vectors_gen_au AFTER UPDATE ON message_vectors
        BEGIN {_bump_and_log("messages", "new.message_id")} END""",
)
