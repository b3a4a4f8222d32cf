"""Open or create the database: mode 0600, WAL, busy timeout, foreign keys, migrations.

Order matters when opening an existing file: first prove it is a SQLite database and not
from a newer memchat, and only then set WAL or migrate, so that a corrupt or newer file
is reported and left byte-for-byte untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memchat import encryption, schema
from memchat.errors import StoreError
from memchat.files import describe_os_error, touch_private
from memchat.locks import hold_profile, release_profile

BUSY_TIMEOUT_MS = 10_000
# SQLite's automatic checkpoint (every 1000 pages, ~4 MB) copies the WAL into the database but can
# start the WAL over only at a moment when no reader is using it. With a few processes that always
# have someone reading, that moment never comes and the WAL grows without bound. Past this size a
# writer waits briefly for the readers and restarts it.
WAL_RESTART_BYTES = 8 * 1024 * 1024  # twice what the automatic checkpoint lets it reach
WAL_RESTART_WAIT_MS = 2_000


def utcnow() -> str:
    """Timestamps are ISO-8601 UTC with a Z, sortable as text."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Database:
    """The open database: a sqlite3 connection (`conn`) and `execute`.

    Plain sqlite3 on every path: sqlite-utils (and the click it imports, ~55 ms) is loaded
    only when a migration is pending, to apply it.
    """

    def __init__(self, conn: sqlite3.Connection, *, encrypted: bool = False, path: Path | None = None) -> None:
        self.conn = conn
        self.encrypted = encrypted  # SQLCipher: no plaintext side files (memchat.encryption)
        self.path = path  # set when open_db holds the profile lock for it
        self.writing = False  # inside `immediate`: a nested one joins it (a turn commits once)

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    def close(self) -> None:
        """Close the connection (SQLite checkpoints the WAL) and let go of the profile lock."""
        try:
            self.conn.close()
        finally:
            if self.path is not None:
                release_profile(self.path)
                self.path = None


def sql_errors() -> tuple[type[Exception], ...]:
    """The database errors of the drivers in use: sqlite3's, and sqlcipher3's once an encrypted
    profile loaded it (its classes do not derive from sqlite3's). Used as `except sql_errors():`."""
    cipher = sys.modules.get("sqlcipher3.dbapi2")
    return (sqlite3.Error,) if cipher is None else (sqlite3.Error, cipher.Error)


def _create_private_file(path: Path) -> None:
    """Create the database file 0600 whatever the umask, before SQLite touches it."""
    touch_private(path)


def _fail(path: Path, exc: BaseException) -> StoreError:
    text = str(exc)
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(f"{path} is not a memchat database or is corrupt; it was left untouched")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"cannot write to the database {path}: it is read-only")
    if "locked" in text or "busy" in text:
        return StoreError(f"the database {path} is busy: another memchat is writing to it; try again")
    if "disk is full" in text:
        return StoreError(f"cannot write to the database {path}: the disk is full")
    if "disk I/O" in text:  # e.g. a write past a file-size limit, or a failing disk
        return StoreError(f"cannot write to the database {path}: disk I/O error (is the disk full?)")
    return StoreError(f"cannot open the database {path}: {text}")


def runtime_failure(exc: BaseException, path: Path | str) -> StoreError | None:
    """A database error met while working (not on open), said in one line; None if it is a bug.

    A damaged page is found only when a command reads it: memchat stops there and says how to
    check and rescue the file, instead of reporting a bug.
    """
    if not isinstance(exc, sql_errors()):
        return None
    text = str(exc)
    if "malformed" in text or "corrupt" in text or "not a database" in text:
        return StoreError(
            f"the database {path} is damaged ({text}); memchat stopped. `memchat doctor` checks it; restore a "
            f"backup, or rescue what can be read: sqlite3 {path} .recover > rescue.sql"
        )
    if any(
        known in text
        for known in ("locked", "busy", "readonly", "read-only", "disk is full", "disk I/O", "unable to open")
    ):
        return _fail(Path(path), exc)
    return None


# SQLite's busy handler polls with back-off (up to every 100 ms): a long job that commits batch
# after batch without a pause would leave a waiting chat little chance to find the lock free.
YIELD_SECONDS = 0.05


def let_others_write() -> None:
    """Pause between the batches of a long job, so other writers get the lock (see YIELD_SECONDS)."""
    time.sleep(YIELD_SECONDS)


def open_db(path: Path | str) -> Database:
    """Open (creating if needed) and migrate the database at path, sharing the profile lock
    (memchat.locks) until `Database.close`."""
    path = Path(path)
    held = False
    with contextlib.suppress(ValueError, OSError):  # a NUL in the name, a directory: said below
        if not path.is_dir():
            hold_profile(path)
            held = True
    try:
        db = _open_held(path)
    except BaseException:
        if held:
            release_profile(path)
        raise
    if held:
        db.path = path
    return db


def _open_held(path: Path) -> Database:
    with contextlib.suppress(OSError, ValueError):
        encryption.recover(path)  # an encrypt or decrypt a crash cut short
    st = _stat_database(path)
    # The header is read (once per process, under encryption.PROBE) before this process holds any
    # lock on the file: see encryption.is_encrypted.
    encrypted = st is not None and encryption.is_encrypted(path)
    found = encryption.key_for(path) if encrypted else None
    if encrypted and found is None:
        raise StoreError(
            f"{path} is an encrypted profile and no key was found (set {encryption.KEY_ENV}, or unlock "
            "the OS keyring that `memchat profile encrypt` stored it in), or not a memchat database; "
            "it was left untouched"
        )
    try:
        if found is not None:
            conn = encryption.connect(path, found[0], found[1], BUSY_TIMEOUT_MS / 1000)
        else:
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = _prepare(path, conn, encrypted)
    except StoreError:
        raise
    except sql_errors() as exc:
        raise _fail(path, exc) from None
    for suffix in ("-wal", "-shm"):
        side = Path(str(path) + suffix)
        with contextlib.suppress(OSError):  # SQLite's own files, made for this database: private
            side_stat = os.lstat(side)
            if stat.S_ISREG(side_stat.st_mode) and side_stat.st_mode & 0o077:
                os.chmod(side, 0o600)
    return db


def _stat_database(path: Path) -> os.stat_result | None:
    """The file's stat (None: it did not exist, and was created 0600), or a StoreError that says
    why it cannot be the database (a directory, a device, a name with a NUL...)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        verb = "create" if exc.errno in (errno.ENOENT, errno.ENOTDIR) else "open"
        raise StoreError(f"cannot {verb} the database {path}: {describe_os_error(exc)}") from None
    except ValueError:  # a NUL in the name
        raise StoreError(
            f"cannot open the database {str(path)!r}: a file name cannot contain a NUL character"
        ) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise StoreError(f"database path {path} is a directory; give a file path with --db")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise StoreError(f"database path {path} is not a regular file (a device or a pipe); it was left untouched")
    try:
        if st is None:
            _create_private_file(path)  # a file memchat creates is 0600; an existing one keeps its mode
            encryption.known(path, False)
    except OSError as exc:
        raise StoreError(f"cannot create the database {path}: {describe_os_error(exc)}") from None
    return st


def _prepare(path: Path, conn: sqlite3.Connection, encrypted: bool) -> Database:
    """Settings of every connection, and the migrations this file lacks (refusing a newer file)."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # Reading the schema proves the file is a database before anything writes to it.
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    db = Database(conn, encrypted=encrypted)
    known = set(schema.names())
    # Tables first, then memchat's record of its migrations: another process creating this file
    # commits both at once, so read in this order, a file it set up in between is seen as memchat's
    # (the other order read no record, then its tables, and refused a new profile: 1 in 32 at once).
    has_tables = conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None
    applied = set(schema.applied(conn))
    if not applied and has_tables:
        conn.close()  # tables, none of them memchat's: another program's database (`--db` mistyped)
        raise StoreError(f"{path} is another program's SQLite database, not memchat's; it was left untouched")
    unknown = applied - known
    if unknown:
        conn.close()
        raise StoreError(
            f"{path} was written by a newer memchat (it has migration {sorted(unknown)[0]}); "
            "upgrade memchat to open it. The file was not changed."
        )
    _enable_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    # Forget means gone: deleted content is zeroed, not left in free pages.
    conn.execute("PRAGMA secure_delete = ON")
    if known - set(schema.applied(conn)):
        # The write lock is held for the whole migration, and what is pending is read again
        # once it is ours: another process may have migrated while this one waited.
        from sqlite_utils import Database as Migratable

        with immediate(db):
            if known - set(schema.applied(conn)):
                schema.runner().apply(Migratable(conn, execute_plugins=False))
    return db


def _enable_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. On a new file this needs an exclusive lock, and SQLite does not wait for
    it (no busy handler): retry while another process is setting the new file up."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() == "wal":
                return
        except sql_errors() as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError("database is locked")
        time.sleep(0.01)


@contextlib.contextmanager
def immediate(db: Database) -> Iterator[Database]:
    """A write transaction that takes the lock up front (BEGIN IMMEDIATE).

    A deferred BEGIN that later upgrades to a write can fail with "database is locked"
    without waiting; IMMEDIATE waits for busy_timeout instead. SQLite errors become
    StoreError with a plain message (read-only, disk full, locked). Inside another one, it
    joins it: the outer one commits, or rolls back everything.
    """
    if db.writing:
        yield db
        return
    conn = db.conn
    try:
        conn.execute("BEGIN IMMEDIATE")
        db.writing = True
        try:
            yield db
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            db.writing = False
        conn.execute("COMMIT")
    except sql_errors() as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise _fail(db_file(db), exc) from None
    _bound_wal(db)


_WAL_PATHS: dict[int, str] = {}  # connection id -> its WAL file


def _bound_wal(db: Database) -> None:
    """Restart a WAL that outgrew WAL_RESTART_BYTES; never fails the write that came before."""
    conn = db.conn
    try:
        wal = _WAL_PATHS.get(id(conn))
        if wal is None:  # looked up once per connection: this runs after every write
            wal = _WAL_PATHS[id(conn)] = str(db_file(db)) + "-wal"
        if os.path.getsize(wal) <= WAL_RESTART_BYTES:
            return
        conn.execute(f"PRAGMA busy_timeout = {WAL_RESTART_WAIT_MS}")
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except (OSError, *sql_errors()):  # type: ignore[misc]  # a tuple built at run time
        pass  # readers still busy, or no WAL file: a later write tries again


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (always set after a successful INSERT)."""
    rowid = cursor.lastrowid
    if rowid is None:
        raise StoreError("the database did not report the new row's id")
    return rowid


def db_file(db: Database) -> Path:
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return Path(row[2] or ":memory:")


def schema_names() -> list[str]:
    return schema.names()
