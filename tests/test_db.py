import os
import sqlite3

import pytest

from memchat.db import open_db, schema_names
from memchat.errors import StoreError


def test_new_database_is_private_wal_with_foreign_keys(tmp_path):
    old = os.umask(0)
    try:
        path = tmp_path / "sub" / "x.db"
        db = open_db(path)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o600
    assert (path.parent.stat().st_mode & 0o777) == 0o700
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_migrations_are_recorded_and_reopening_applies_nothing(tmp_path):
    path = tmp_path / "x.db"
    open_db(path).conn.close()
    conn = sqlite3.connect(path)
    names = [
        r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set='memchat' ORDER BY id")
    ]
    assert names == schema_names()
    conn.close()
    db = open_db(path)
    tables = {r[0] for r in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sessions", "messages"} <= tables
    columns = {r[1]: r[2] for r in db.conn.execute("PRAGMA table_info(messages)")}
    assert columns["content"] == "TEXT"
    assert db.conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == len(schema_names())


def test_newer_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "x.db"
    open_db(path).conn.close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('memchat', 'm999_future', 'x')"
    )
    conn.commit()
    conn.execute("PRAGMA journal_mode=DELETE")  # a plain file, so any later write would show in its bytes
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer memchat"):
        open_db(path)
    assert path.read_bytes() == before


def test_corrupt_file_is_reported_and_not_overwritten(tmp_path):
    path = tmp_path / "x.db"
    path.write_bytes(b"this is not a database, it is my novel" * 200)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a memchat database or is corrupt"):
        open_db(path)
    assert path.read_bytes() == before


def test_directory_path_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        open_db(tmp_path)


def test_unwritable_location_is_a_clear_error(tmp_path):
    # CI runs as root, which ignores permission bits: a parent that is a file fails for anyone.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the database"):
        open_db(blocker / "x.db")


def test_keys_that_differed_only_by_case_become_one_key_with_its_history(tmp_path):
    # a database from before keys were kept in lower case: `User.City` and `user.city` both current
    path = tmp_path / "x.db"
    db = open_db(path)
    rows = [
        ("I live in Berlin", "User.City", 1, "2026-01-01T00:00:00Z"),
        ("My dog is Rex", "Pet.Dog", 0, "2026-01-02T00:00:00Z"),
        ("I live in Lisbon", "user.city", 0, "2026-02-01T00:00:00Z"),
    ]
    with db.conn:
        for text, key, pinned, at in rows:
            db.conn.execute(
                "INSERT INTO memories (kind, text, key, pinned, created_at, updated_at) VALUES ('fact', ?, ?, ?, ?, ?)",
                (text, key, pinned, at, at),
            )
        db.conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm020_keys_in_lower_case'")
    db.close()
    db = open_db(path)  # the migration runs
    got = db.conn.execute("SELECT id, key, status, superseded_by, pinned FROM memories ORDER BY id").fetchall()
    assert got == [
        (1, "user.city", "superseded", 3, 0),
        (2, "pet.dog", "active", None, 0),
        (3, "user.city", "active", None, 1),
    ]
    history = db.conn.execute("SELECT memory_id, action, old_text, new_text FROM memory_history").fetchall()
    assert history == [(1, "supersede", "I live in Berlin", "I live in Lisbon")]
