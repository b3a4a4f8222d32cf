"""The on-disk copy of the vectors: used only while current, gone when anything is forgotten."""

import numpy as np
import pytest

from memchat.db import immediate, open_db, utcnow
from memchat.memory.recall import index, vector_file
from memchat.memory.store.memories import MemoryStore


def seed(db, n=1200, model="fake-embedder", dim=16):
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = utcnow()
    with immediate(db):
        db.conn.executemany(
            "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, embedding_model) "
            "VALUES ('fact', ?, 'active', ?, ?, ?, ?)",
            [(f"memory number {i}", now, now, vectors[i].astype("<f4").tobytes(), model) for i in range(n)],
        )
    return vectors


@pytest.fixture
def db(tmp_path):
    return open_db(tmp_path / "v.db")


def test_a_fresh_process_reads_the_vectors_from_the_disk_copy(db, monkeypatch):
    vectors = seed(db)
    first = index.vector_set(db, "memories", "fake-embedder")
    files = sorted(p.name for p in vector_file.disk_dir(db).iterdir())
    assert any(f.endswith(".npy") for f in files) and any(f.endswith(".json") for f in files)
    assert all((vector_file.disk_dir(db) / f).stat().st_mode & 0o077 == 0 for f in files)
    index.forget_cache()  # as a new process would start
    monkeypatch.setattr(index, "_load", lambda *a: pytest.fail("read SQLite instead of the disk copy"))
    again = index.vector_set(db, "memories", "fake-embedder")
    assert np.array_equal(again.ids, first.ids)
    assert np.allclose(np.asarray(again.matrix), vectors)


def test_a_change_makes_the_disk_copy_stale(db):
    seed(db)
    index.vector_set(db, "memories", "fake-embedder")
    index.forget_cache()
    with immediate(db):
        db.conn.execute(
            "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, "
            "embedding_model) VALUES ('fact', 'new one', 'active', ?, ?, ?, 'fake-embedder')",
            (utcnow(), utcnow(), np.ones(16, dtype="<f4").tobytes()),
        )
    fresh = index.vector_set(db, "memories", "fake-embedder")
    assert fresh.ids.shape[0] == 1201  # the stale copy was not served


def test_forgetting_deletes_the_disk_copy(db):
    seed(db)
    index.vector_set(db, "memories", "fake-embedder")
    assert vector_file.disk_dir(db).exists()
    MemoryStore(db).forget([5])
    assert not vector_file.disk_dir(db).exists()
    index.forget_cache()
    rebuilt = index.vector_set(db, "memories", "fake-embedder")
    assert 5 not in set(rebuilt.ids.tolist())


def test_a_database_put_in_the_place_of_another_is_not_served_its_copy(tmp_path):
    # Same path, same number of changes (so the same generation and row count): a backup restored
    # over the profile, or another profile's file copied in. Its own vectors are served.
    rng = np.random.default_rng(11)
    ours = rng.standard_normal((1200, 16)).astype(np.float32)
    ours /= np.linalg.norm(ours, axis=1, keepdims=True)
    for name, vectors, day in (("v.db", ours, "2026-01-01"), ("other.db", -ours, "2026-02-01")):
        db = open_db(tmp_path / name)
        with immediate(db):
            db.conn.executemany(
                "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, embedding_model) "
                "VALUES ('fact', ?, 'active', ?, ?, ?, 'fake-embedder')",
                [
                    (f"memory {i}", f"{day}T10:00:00.000000Z", day, v.astype("<f4").tobytes())
                    for i, v in enumerate(vectors)
                ],
            )
        if name == "v.db":
            index.vector_set(db, "memories", "fake-embedder")  # writes the copy beside v.db
        db.close()
    (tmp_path / "other.db").replace(tmp_path / "v.db")
    index.forget_cache()  # a new process
    served = index.vector_set(open_db(tmp_path / "v.db"), "memories", "fake-embedder")
    assert np.allclose(np.asarray(served.matrix), -ours)


def test_scores_kept_for_a_matrix_are_never_served_for_another():
    from memchat.memory.recall import scan

    rng = np.random.default_rng(5)
    vector = rng.standard_normal(16).astype(np.float32)
    one = rng.standard_normal((30, 16)).astype(np.float32)
    two = one.copy()
    two[0] *= -1
    assert np.array_equal(scan.similarities(one, vector), one @ vector)
    assert np.array_equal(scan.similarities(two, vector), two @ vector)  # same vector, other matrix
    again = scan.similarities(one, vector)
    assert np.array_equal(again, one @ vector) and not again.flags.writeable  # shared, so read-only


def _as_sqlite_has_it(db):
    """The set read whole from SQLite, as a process without a copy would."""
    return index._load(db, "memories", "fake-embedder", 0)


def _same_set(a, b):
    assert np.array_equal(a.ids, b.ids)
    assert np.array_equal(np.asarray(a.matrix), np.asarray(b.matrix))
    assert np.array_equal(np.asarray(a.group), np.asarray(b.group))
    assert list(np.asarray(a.created)) == list(np.asarray(b.created))
    assert a.codes == b.codes


def test_a_copy_a_few_changes_behind_is_patched_instead_of_read_whole(db, monkeypatch):
    # Every capture or `memories add` moves the set: the next command must not read every vector again.
    seed(db)
    index.vector_set(db, "memories", "fake-embedder")
    index.forget_cache()
    now = utcnow()
    with immediate(db):
        db.conn.execute(
            "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, embedding_model) "
            "VALUES ('event', 'a new one', 'active', ?, ?, ?, 'fake-embedder')",
            (now, now, np.full(16, 0.25, dtype="<f4").tobytes()),
        )
        db.conn.execute("UPDATE memories SET status = 'superseded' WHERE id = 7")  # an old row's state
        db.conn.execute("UPDATE memories SET embedding = ? WHERE id = 900", (np.ones(16, dtype="<f4").tobytes(),))
        db.conn.execute("UPDATE memories SET embedding_model = 'other-model' WHERE id = 3")  # leaves the set
        db.conn.execute("DELETE FROM memories WHERE id = 1100")
    expected = _as_sqlite_has_it(db)
    monkeypatch.setattr(vector_file, "_CHUNK", 100)  # a copy many chunks long
    monkeypatch.setattr(index, "_load", lambda *a: pytest.fail("read every vector from SQLite again"))
    patched = index.vector_set(db, "memories", "fake-embedder")
    _same_set(patched, expected)
    assert 1100 not in patched.ids and 3 not in patched.ids and patched.ids[-1] == 1201
    index.forget_cache()  # the next process is served the patched copy as it is
    _same_set(index.vector_set(db, "memories", "fake-embedder"), expected)
    assert len(list(vector_file.disk_dir(db).glob("*.json"))) == 1  # one copy, not one per patch


def test_a_copy_changed_in_too_many_rows_or_older_than_the_log_is_read_whole(db, monkeypatch):
    seed(db)
    index.vector_set(db, "memories", "fake-embedder")
    index.forget_cache()
    monkeypatch.setattr(vector_file, "PATCH_MIN", 10)
    monkeypatch.setattr(vector_file, "PATCH_SHARE", 0.01)
    with immediate(db):
        db.conn.execute("UPDATE memories SET status = 'pending' WHERE id <= 20")
    loads = []
    real = index._load
    monkeypatch.setattr(index, "_load", lambda *a: loads.append(1) or real(*a))
    served = index.vector_set(db, "memories", "fake-embedder")
    assert loads == [1]
    _same_set(served, real(db, "memories", "fake-embedder", 0))
    # A log pruned past the copy (or a database from before the log) cannot patch it either.
    index.forget_cache()
    with immediate(db):
        db.conn.execute("UPDATE memories SET status = 'active' WHERE id = 1")
        db.conn.execute("DELETE FROM vector_changes")
    index.vector_set(db, "memories", "fake-embedder")
    assert loads == [1, 1]


def test_a_copy_is_never_patched_into_another_databases_set(tmp_path):
    # Another profile's file put in this one's place, further along (so its log covers the copy's
    # generation): its vectors are served, never the copy's patched with a few of its rows.
    rng = np.random.default_rng(13)
    ours = rng.standard_normal((1200, 16)).astype(np.float32)
    for name, vectors, extra in (("v.db", ours, 0), ("other.db", -ours, 5)):
        db = open_db(tmp_path / name)
        with immediate(db):
            db.conn.executemany(
                "INSERT INTO memories (kind, text, status, created_at, updated_at, embedding, embedding_model) "
                "VALUES ('fact', ?, 'active', ?, ?, ?, 'fake-embedder')",
                [(f"m {i}", utcnow(), utcnow(), v.astype("<f4").tobytes()) for i, v in enumerate(vectors)],
            )
            db.conn.execute(f"UPDATE memories SET status = 'pending' WHERE id <= {extra}")
        if name == "v.db":
            index.vector_set(db, "memories", "fake-embedder")
        db.close()
    (tmp_path / "other.db").replace(tmp_path / "v.db")
    index.forget_cache()
    served = index.vector_set(open_db(tmp_path / "v.db"), "memories", "fake-embedder")
    assert np.allclose(np.asarray(served.matrix), -ours)


def test_the_encoder_export_in_the_cache_is_the_users_alone(shared_cache):
    # memchat runs the model it finds there: every file 0600, whatever the package's modes (the
    # tokenizer had been copied with its 0644)
    from memchat.memory.recall import onnx_embed
    from memchat.memory.recall.models import DEFAULT_MODEL

    files = [p for p in onnx_embed.export_dir(DEFAULT_MODEL).rglob("*") if p.is_file()]
    assert any(p.name == "tokenizer.json" for p in files)
    assert [p.name for p in files if p.stat().st_mode & 0o077] == []
