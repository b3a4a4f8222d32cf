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
