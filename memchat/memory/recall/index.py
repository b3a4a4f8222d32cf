"""The vector index: embeddings of memories and messages, computed lazily, cached per process.

Writers embed what they store (`embed_messages`: a chat turn after its reply, `remember`,
an import in batches), so a search does not wait for it; what a writer could not embed is
caught up in one batch (`catch_up`), and `reindex` rebuilds everything. Vectors carry the name of their model; a search refuses to
compare vectors of another model and asks for `memchat reindex` instead.

Searching scans a float32 matrix with numpy. The matrix is loaded once per process and
kept until the `index_state` counter of its set moves (triggers bump it on every change,
from any process); vectors this process adds are appended in place.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memchat.db import db_file, immediate, sql_errors
from memchat.errors import MemchatError
from memchat.memory.recall import scan
from memchat.memory.recall.embed import to_blob
from memchat.memory.recall.vector_file import Rows, patch_copy, read_copy, write_copy
from memchat.memory.recall.vectors import VectorSet, generation, kind_status_code
from memchat.memory.text import window
from memchat.patterns import pattern

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database
    from memchat.memory.recall.embed import Embedder

Progress = Callable[[int, int], None]
CHUNK = 256  # texts per encoder call and per write transaction


class ReindexNeeded(MemchatError):
    """Stored vectors were made by another model than the configured one."""


@dataclass
class ReindexResult:
    memories: int
    messages: int


_THIRD_PERSON = (
    (pattern(r"\bThe user's\b"), "My"),
    (pattern(r"\bthe user's\b"), "my"),
    (pattern(r"\bThe user\b"), "I"),
    (pattern(r"\bthe user\b"), "me"),
)


def memory_text(text: str) -> str:
    """What is embedded for a memory: in the user's own voice. Extracted facts say "The user lives in
    Lisbon"; people ask "where do I live?", and the model matches first person to first person
    (cosine 0.30 -> 0.46 for that pair, 0.26 -> 0.49 for "how should you contact me?")."""
    text = window(text)
    for third, replacement in _THIRD_PERSON:
        text = third.sub(replacement, text)
    return text


def message_text(name: str | None, content: str) -> str:
    """What is embedded for a message: the speaker's name travels with the words (a window of
    them: the encoder reads 256 tokens, and the tokenizer need not read a pasted 100 MB log)."""
    content = window(content)
    return f"{name}: {content}" if name else content


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


# --- per-process state ------------------------------------------------------------------------

_CACHE: dict[tuple, VectorSet] = {}
_CHECKED: dict[tuple, Any] = {}  # what has been verified already, per database
_LOCK = threading.RLock()


def _db_key(db: Database) -> tuple:
    path = str(db_file(db))
    if path in (":memory:", ""):
        return (path, id(db.conn))
    try:
        return (path, os.stat(path).st_ino)
    except OSError:
        return (path, id(db.conn))


def forget_cache() -> None:
    """Drop every cached matrix (tests, and after a reindex)."""
    with _LOCK:
        _CACHE.clear()
        _CHECKED.clear()


# --- model checks -----------------------------------------------------------------------------


def other_models(db: Database, model: str) -> list[str]:
    """Models, other than `model`, that stored vectors were made with."""
    found: set[str] = set()
    # One index lookup per distinct model (a skip scan): a DISTINCT reads the whole index.
    for table, column in (("memories", "embedding_model"), ("message_vectors", "model")):
        next_model = f"SELECT min({column}) FROM {table} WHERE {column} > ?"
        last = db.conn.execute(next_model, ("",)).fetchone()[0]
        while last is not None:
            if last != model:
                found.add(last)
            last = db.conn.execute(next_model, (last,)).fetchone()[0]
    return sorted(found)


def ensure_current(db: Database, model: str) -> None:
    """Raise ReindexNeeded when stored vectors come from another model (checked once per change)."""
    key = (_db_key(db), "model", model)
    gens = (generation(db, "memories"), generation(db, "messages"))
    with _LOCK:
        if _CHECKED.get(key) == gens:
            return
    others = other_models(db, model)
    if others:
        raise ReindexNeeded(
            f"the search index was built with the embedding model {others[0]!r} but memory.embedding_model is "
            f"{model!r}: run `memchat reindex` to re-embed with {model!r} (or set the old model back)"
        )
    with _LOCK:
        _CHECKED[key] = gens


# --- writing vectors --------------------------------------------------------------------------


def _embed_in_chunks(
    embedder: Embedder,
    rows: list[tuple],
    text_of: Callable[[tuple], str],
    write: Callable[[list[tuple], np.ndarray], None],
    progress: Progress | None,
    done: int,
    total: int,
) -> int:
    # Texts of similar length share a batch, so little of each batch is padding.
    rows = sorted(rows, key=lambda r: len(text_of(r)))
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        write(chunk, embedder.encode([text_of(r) for r in chunk]))
        done += len(chunk)
        if progress:
            progress(done, total)
    return done


def _memory_writer(db: Database, model: str) -> Callable[[list[tuple], np.ndarray], None]:
    def write(rows: list[tuple], vectors: np.ndarray) -> None:
        with immediate(db):
            # `AND text = ?`: a memory edited meanwhile keeps its NULL and is embedded next time.
            db.conn.executemany(
                "UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ? AND text = ?",
                [(to_blob(v), model, r[0], r[1]) for r, v in zip(rows, vectors, strict=True)],
            )

    return write


def _message_writer(db: Database, model: str) -> Callable[[list[tuple], np.ndarray], None]:
    """Rows are (id, session_id, created_at, name, content)."""

    def write(rows: list[tuple], vectors: np.ndarray) -> None:
        with immediate(db):
            before = generation(db, "messages")
            db.conn.executemany(
                "INSERT OR REPLACE INTO message_vectors (message_id, model, dim, vector, content_hash) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (r[0], model, int(vectors.shape[1]), to_blob(v), text_hash(message_text(r[3], r[4])))
                    for r, v in zip(rows, vectors, strict=True)
                ],
            )
            after = generation(db, "messages")
        _append_messages(db, model, before, after, rows, vectors)

    return write


def _missing_memories(db: Database) -> list[tuple]:
    return db.conn.execute(
        "SELECT id, text FROM memories WHERE embedding IS NULL AND status != 'forgotten' ORDER BY id"
    ).fetchall()


def _missing_messages(db: Database, after_id: int = 0) -> list[tuple]:
    return db.conn.execute(
        "SELECT m.id, m.session_id, m.created_at, m.name, m.content FROM messages m WHERE m.id > ? "
        "AND m.session_id NOT IN (SELECT id FROM sessions WHERE importing = 1) "
        "AND NOT EXISTS (SELECT 1 FROM message_vectors v WHERE v.message_id = m.id) ORDER BY m.id",
        (after_id,),
    ).fetchall()


def catch_up(db: Database, embedder: Embedder, progress: Progress | None = None, *, limit: int | None = None) -> int:
    """Embed memories and messages that have no vector yet, in one batch; returns how many.

    With a limit, nothing is embedded when more than `limit` texts wait (a caller that must
    stay fast leaves a large backlog to `memchat recall`, an import or a reindex).
    Messages are checked once per process and then only beyond the highest id seen, so a
    search over a large, fully indexed transcript pays for one `max(id)` lookup.
    """
    model = embedder.model_name
    key = (_db_key(db), "messages-through", model)
    top = db.conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0]
    with _LOCK:
        through = _CHECKED.get(key)
    memories = _missing_memories(db)
    messages = _missing_messages(db, through or 0) if through is None or top > through else []
    messages = [r for r in messages if r[0] <= top]
    total = len(memories) + len(messages)
    if limit is not None and total > limit:
        return 0
    if progress and total:
        progress(0, total)
    done = _embed_in_chunks(
        embedder, memories, lambda r: memory_text(r[1]), _memory_writer(db, model), progress, 0, total
    )
    _embed_in_chunks(
        embedder, messages, lambda r: message_text(r[3], r[4]), _message_writer(db, model), progress, done, total
    )
    with _LOCK:
        _CHECKED[key] = top
    return total


def catch_up_memories(
    db: Database,
    embedder: Embedder,
    *,
    limit: int | None = None,
    starting: Callable[[int], None] | None = None,
    progress: Progress | None = None,
) -> int:
    """Embed the memories that have no vector yet: those stored before the encoder was ever
    prepared (a script's `memories add`, an import, on a new machine). With a limit, none when
    more than `limit` wait; returns how many were embedded, or minus how many wait when that is
    too many. `starting(n)` is told before n are embedded. One partial-index lookup when none wait."""
    memories = _missing_memories(db)
    if not memories:
        return 0
    if limit is not None and len(memories) > limit:
        return -len(memories)
    if starting:
        starting(len(memories))
    if progress:
        progress(0, len(memories))
    return _embed_in_chunks(
        embedder,
        memories,
        lambda r: memory_text(r[1]),
        _memory_writer(db, embedder.model_name),
        progress,
        0,
        len(memories),
    )


def embed_messages(
    db: Database,
    embedder: Embedder,
    message_ids: list[int],
    progress: Progress | None = None,
    *,
    memory_ids: tuple[int, ...] | list[int] = (),
) -> int:
    """Embed these messages (and memories) now: what a writer just stored, or an import's batch."""
    done = 0
    for table, ids, columns, text_of, writer in (
        ("memories", list(memory_ids), "id, text", lambda r: memory_text(r[1]), _memory_writer),
        (
            "messages",
            list(message_ids),
            "id, session_id, created_at, name, content",
            lambda r: message_text(r[3], r[4]),
            _message_writer,
        ),
    ):
        rows: list[tuple] = []
        for start in range(0, len(ids), 500):
            rows += db.conn.execute(
                f"SELECT {columns} FROM {table} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                (json.dumps(ids[start : start + 500]),),
            ).fetchall()
        if progress and rows:
            progress(0, len(rows))
        done += _embed_in_chunks(embedder, rows, text_of, writer(db, embedder.model_name), progress, 0, len(rows))
    return done


def reindex(db: Database, embedder: Embedder, progress: Progress | None = None, *, full: bool = False) -> ReindexResult:
    """Re-embed what is missing, stale, or of another model (in transactions of CHUNK texts), and
    rebuild a full-text index that fails its integrity check.

    With full, every memory and message is embedded again and both indexes are rebuilt (one
    transaction each: the only step here that holds the write lock for the size of the index).
    """
    model = embedder.model_name
    for table in ("memories_fts", "messages_fts"):
        if full or not _fts_intact(db, table):
            with immediate(db):
                db.conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
    memories = db.conn.execute(
        "SELECT id, text FROM memories WHERE status != 'forgotten' AND (? OR embedding IS NULL "
        "OR embedding_model IS NOT ?) ORDER BY id",
        (int(full), model),
    ).fetchall()
    messages = [
        r[:5]
        for r in db.conn.execute(
            "SELECT m.id, m.session_id, m.created_at, m.name, m.content, v.model, v.content_hash FROM messages m "
            "LEFT JOIN message_vectors v ON v.message_id = m.id ORDER BY m.id"
        )
        if full or r[5] != model or r[6] != text_hash(message_text(r[3], r[4]))
    ]
    total = len(memories) + len(messages)
    if progress:
        progress(0, total)
    done = _embed_in_chunks(
        embedder, memories, lambda r: memory_text(r[1]), _memory_writer(db, model), progress, 0, total
    )
    _embed_in_chunks(
        embedder, messages, lambda r: message_text(r[3], r[4]), _message_writer(db, model), progress, done, total
    )
    forget_cache()
    return ReindexResult(len(memories), len(messages))


def _fts_intact(db: Database, table: str) -> bool:
    conn = db.conn
    conn.execute("BEGIN")  # a read: the check writes nothing, so no write lock is taken
    try:
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    except sql_errors():
        return False
    finally:
        conn.execute("ROLLBACK")
    return True


# --- reading vectors --------------------------------------------------------------------------


def vector_set(db: Database, which: str, model: str) -> VectorSet:
    """The cached matrix of `which` ('memories' or 'messages') for `model`, reloaded after changes."""
    key = (_db_key(db), which, model)
    gen = generation(db, which)  # read before the rows: a write in between only costs a reload
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is not None and cached.generation == gen:
            return cached
    loaded = read_copy(db, which, model, gen)
    if loaded is None:  # a few changes behind: the copy with the rows that changed, read again
        loaded = patch_copy(db, which, model, gen, lambda wanted: _rows_of(db, which, model, wanted))
    if loaded is None:
        loaded = _load(db, which, model, gen)
        write_copy(db, which, model, loaded)
    with _LOCK:
        _CACHE[key] = loaded
    return loaded


def _select(which: str) -> str:
    """The rows of a vector set: id, created_at, two columns for its group code, the vector."""
    if which == "memories":
        return (
            "SELECT id, created_at, kind, status, embedding FROM memories "
            "WHERE embedding_model = ? AND status != 'forgotten'"
        )
    return (
        "SELECT v.message_id, m.created_at, m.session_id, NULL, v.vector FROM message_vectors v "
        "JOIN messages m ON m.id = v.message_id WHERE v.model = ?"
    )


def _group(which: str, row: tuple) -> int:
    return kind_status_code(row[2], row[3]) if which == "memories" else int(row[2])


def _load(db: Database, which: str, model: str, gen: int) -> VectorSet:
    """The set read from SQLite in batches into arrays sized up front: a million vectors take their
    1.5 GB once, not again as a million Python byte strings and their join (3.6 GB at 1M)."""
    import numpy as np

    id_column = "id" if which == "memories" else "v.message_id"
    if which == "memories":
        count = "SELECT count(*) FROM memories WHERE embedding_model = ? AND status != 'forgotten'"
    else:
        count = "SELECT count(*) FROM message_vectors WHERE model = ?"
    conn = db.conn
    n = int(conn.execute(count, (model,)).fetchone()[0])  # rows written meanwhile grow the arrays below
    cursor = conn.execute(f"{_select(which)} ORDER BY {id_column}", (model,))
    rows = cursor.fetchmany(_LOAD_BATCH)
    dim = len(rows[0][4]) // 4 if rows else 0
    ids, matrix = np.empty(n, dtype=np.int64), np.empty((n, dim), dtype=np.float32)
    group, created = np.empty(n, dtype=np.int64), []
    done = 0
    while rows:
        k = len(rows)
        if done + k > ids.shape[0]:
            ids, group = np.resize(ids, done + k), np.resize(group, done + k)
            matrix = np.concatenate([matrix[:done], np.empty((k, dim), dtype=np.float32)])
        ids[done : done + k] = [r[0] for r in rows]
        matrix[done : done + k] = np.frombuffer(b"".join(r[4] for r in rows), dtype="<f4").reshape(k, dim)
        group[done : done + k] = [_group(which, r) for r in rows]
        created += [r[1] for r in rows]
        done += k
        rows = cursor.fetchmany(_LOAD_BATCH)
    return VectorSet(
        generation=gen,
        ids=ids[:done],
        matrix=matrix[:done],
        created=np.array(created, dtype=str),
        group=group[:done],
        codes=frozenset(int(c) for c in scan.distinct(group[:done])) if which == "memories" else frozenset(),
    )


def _rows_of(db: Database, which: str, model: str, wanted: list[int]) -> Rows:
    """The set's rows among `wanted` ids as they are now, by id (a forgotten one, or one of another
    model, is not among them): what patches an on-disk copy (memchat.memory.recall.vector_file)."""
    import numpy as np

    id_column = "id" if which == "memories" else "v.message_id"
    found: list[tuple] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found += db.conn.execute(
            f"{_select(which)} AND {id_column} IN ({', '.join('?' * len(chunk))})", (model, *chunk)
        ).fetchall()
    found.sort(key=lambda r: r[0])
    dim = len(found[0][4]) // 4 if found else 0
    return Rows(
        ids=np.array([r[0] for r in found], dtype=np.int64),
        created=np.array([r[1] for r in found], dtype=str),
        group=np.array([_group(which, r) for r in found], dtype=np.int64),
        matrix=np.frombuffer(b"".join(r[4] for r in found), dtype="<f4").reshape(len(found), dim),
    )


_LOAD_BATCH = 10_000


def _append_messages(db: Database, model: str, before: int, after: int, rows: list[tuple], vectors: np.ndarray) -> None:
    """Vectors this process just stored join its cached matrix, when nothing else changed."""
    import numpy as np

    key = (_db_key(db), "messages", model)
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is None or cached.generation != before or after - before != len(rows):
            return
        new_ids = np.array([r[0] for r in rows], dtype=np.int64)
        if (cached.matrix.shape[0] and cached.matrix.shape[1] != vectors.shape[1]) or np.isin(
            new_ids, cached.ids
        ).any():
            return
        matrix = vectors if cached.matrix.shape[0] == 0 else np.concatenate([cached.matrix, vectors])
        _CACHE[key] = VectorSet(
            generation=after,
            ids=np.concatenate([cached.ids, new_ids]),
            matrix=matrix,
            created=np.concatenate([cached.created, np.array([r[2] for r in rows], dtype=str)]),
            group=np.concatenate([cached.group, np.array([r[1] for r in rows], dtype=np.int64)]),
        )
