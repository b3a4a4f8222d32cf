"""Encryption at rest, per profile: the database and its WAL in SQLCipher (sqlcipher3).

A profile is encrypted when its file is not a plain SQLite file (SQLCipher's header is random).
The key comes from MEMCHAT_DB_KEY (for scripts and CI: a passphrase, or 64 hex digits used as
the raw key, which skips the ~90 ms key derivation of each connection), else from the OS keyring
(`keyring`, where `memchat profile encrypt` stores a random raw key); never from a file, never
printed. An encrypted profile writes no plaintext side file: no vector copy (vectors load from
the database), no REPL input history.

`encrypt_file` and `decrypt_file` convert a profile in place, safely: the new file is written
beside the old (sqlcipher_export), verified (row counts, full-text index), synced and swapped in;
the old file is then overwritten with zeros and removed. A crash leaves either the old file or
the new one, never neither. (Blocks a file system or an SSD copied elsewhere are beyond reach.)
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memchat.errors import StoreError, UsageError
from memchat.files import touch_private
from memchat.keys import secure_keyring
from memchat.locks import no_conversion_running, profile_alone

SQLITE_MAGIC = b"SQLite format 3\x00"
KEY_ENV = "MEMCHAT_DB_KEY"
KEYRING_SERVICE = "memchat"
NOT_A_DATABASE = 26  # SQLITE_NOTADB: what a wrong key reads as (the first page does not decrypt)
_RAW = re.compile(r"^[0-9a-fA-F]{64}$")
# Checked after a conversion: the same rows in the same tables, and an index that agrees.
_COUNTED = ("sessions", "messages", "memories", "memory_history", "usage", "audit_log")


# What each database file was found to be, read once per process. Reading the header means
# opening and closing the file, and closing any descriptor of a file drops every POSIX lock this
# process holds on it: done while one of this process's connections holds the database's locks,
# another process could write under them and corrupt it. So the file is read only before the
# process's first connection to it, and the answer is kept (a conversion updates it).
_KNOWN: dict[str, bool] = {}
CONVERTING_STALE_SECONDS = 60  # a copy untouched this long is a killed conversion's, not a running one's
PROBE = threading.Lock()  # a header read in one thread completes before another thread can connect


def is_encrypted(path: Path) -> bool:
    """True for what can be a SQLCipher file: not plain SQLite (its first bytes are a random salt)
    and whole pages long. Only its key can prove it; anything else is refused as not a database."""
    name = os.path.abspath(path)
    with PROBE:
        return _KNOWN[name] if name in _KNOWN else _probe(path, name)


def _probe(path: Path, name: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(16)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False  # not there (yet): nothing to remember
    _KNOWN[name] = bool(head) and head != SQLITE_MAGIC and size >= 1024 and size % 512 == 0
    return _KNOWN[name]


def known(path: Path, encrypted: bool) -> None:
    """Record what a file is without reading it (memchat just created or converted it)."""
    _KNOWN[os.path.abspath(path)] = encrypted


def driver() -> Any:
    """sqlcipher3's DB-API module, or a UsageError saying how to get it."""
    try:
        from sqlcipher3 import dbapi2
    except ImportError:
        raise UsageError(
            "encryption needs the sqlcipher3 package: pip install sqlcipher3 keyring (in a clone of memchat: pip install -e '.[encrypt]')"
        ) from None
    return dbapi2


def key_pragma(key: str) -> str:
    """`PRAGMA key` for a passphrase or a raw 64-hex key (a PRAGMA takes no bound parameter)."""
    if _RAW.match(key):
        return f"PRAGMA key = \"x'{key.lower()}'\""
    return "PRAGMA key = '" + key.replace("'", "''") + "'"


def _keyring() -> Any:
    """A keyring backend that really keeps secrets, or None (none installed, none usable, or one
    that would write the key to a plain file): the same check as for API keys."""
    return secure_keyring()


def _keyring_name(path: Path) -> str:
    return str(path.resolve())


def key_for(path: Path) -> tuple[str, str] | None:
    """(key, where it came from) for an encrypted profile, or None when there is none."""
    env = os.environ.get(KEY_ENV, "")
    if env:
        return env, KEY_ENV
    backend = _keyring()
    if backend is not None:
        try:
            stored = backend.get_password(KEYRING_SERVICE, _keyring_name(path))
        except Exception:  # noqa: BLE001 - locked, cancelled, D-Bus gone: no key from it
            stored = None
        if stored:
            return stored, "the OS keyring"
    return None


def has_keyring() -> bool:
    """Whether there is an OS keyring that can keep a profile's key."""
    return _keyring() is not None


def store_key(path: Path, key: str) -> bool:
    """Keep the key in the OS keyring; False when there is no usable keyring."""
    backend = _keyring()
    if backend is None:
        return False
    try:
        backend.set_password(KEYRING_SERVICE, _keyring_name(path), key)
        return backend.get_password(KEYRING_SERVICE, _keyring_name(path)) == key
    except Exception:  # noqa: BLE001
        return False


def forget_key(path: Path) -> None:
    backend = _keyring()
    if backend is not None:
        try:
            backend.delete_password(KEYRING_SERVICE, _keyring_name(path))
        except Exception:  # noqa: BLE001 - nothing stored there
            pass


def connect(path: Path, key: str, source: str, timeout: float) -> Any:
    """A keyed sqlcipher3 connection, proven to decrypt; a wrong key is one line and changes nothing."""
    sc = driver()
    conn = sc.connect(str(path), timeout=timeout, check_same_thread=False)
    conn.execute("PRAGMA cipher_log_level = NONE")  # else a wrong key prints ERROR lines on stderr
    conn.execute(key_pragma(key))
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sc.DatabaseError as exc:
        conn.close()
        if getattr(exc, "sqlite_errorcode", NOT_A_DATABASE) & 0xFF != NOT_A_DATABASE:
            raise  # locked, a full disk, an I/O error: said as what it is (memchat.db), not as a wrong key
        raise StoreError(
            f"cannot open the encrypted profile {path}: the key from {source} is wrong; nothing was changed"
        ) from None
    return conn


def _counts(conn: Any) -> dict[str, int]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _COUNTED if t in tables}


def convert(path: Path, *, key_in: str | None, key_out: str | None, before: Callable[[], None] | None = None) -> None:
    """Rewrite the database at path encrypted with key_out (None: plain), reading it with key_in
    (None: plain); verified, synced and swapped in, the old file zeroed and removed. `before` runs
    once the profile is held alone and is still what key_in says (encrypt keeps its key then)."""

    sc = driver()
    with profile_alone(path):  # from the check through the swap: no process opens it meanwhile
        users = other_users(path)
        if users:
            raise UsageError(
                f"another process ({', '.join(map(str, users[:3]))}) has {path} open: close every memchat "
                "(a chat, `memchat mcp`) first; nothing was changed"
            )
        # another memchat may have converted it since this one looked (two `profile encrypt` at once)
        if probe(path) != (key_in is not None):
            state = "already encrypted" if key_in is None else "no longer encrypted"
            raise UsageError(f"{path} is {state}: another memchat converted it meanwhile; nothing was changed")
        if before is not None:
            before()
        _convert_alone(sc, path, key_in, key_out)


def probe(path: Path) -> bool:
    """is_encrypted, read from the file now (not what this process knew of it)."""
    name = os.path.abspath(path)
    with PROBE:
        _KNOWN.pop(name, None)
        return _probe(path, name)


def _convert_alone(sc: Any, path: Path, key_in: str | None, key_out: str | None) -> None:
    tmp = path.with_name(path.name + ".converting")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal")):
        shred(leftover)
    try:
        _export(sc, path, tmp, key_in, key_out)
    except BaseException:
        shred(tmp)  # a half-written copy of the data must not stay behind
        raise
    _sync(tmp)
    old = path.with_name(path.name + ".old")
    os.replace(path, old)  # from here a crash leaves .old beside the new file, never neither
    os.replace(tmp, path)
    _sync_dir(path.parent)
    # The old file, and its WAL and index (emptied by the checkpoint), which must not be taken for
    # the new file's.
    for side in (old, Path(f"{path}-wal"), Path(f"{path}-shm")):
        shred(side)
    known(path, key_out is not None)


def _export(sc: Any, path: Path, tmp: Path, key_in: str | None, key_out: str | None) -> None:
    """Write the converted copy at tmp and check it against the original."""
    source = sc.connect(str(path), timeout=10, check_same_thread=False)
    try:
        source.execute("PRAGMA cipher_log_level = NONE")
        if key_in is not None:
            source.execute(key_pragma(key_in))
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()
        busy = source.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:
            raise UsageError(f"another memchat is using {path}: close it (and any `memchat mcp`) first")
        before = _counts(source)
        version = source.execute("PRAGMA user_version").fetchone()[0]
        touch_private(tmp)
        target_key = "''" if key_out is None else key_pragma(key_out).split(" = ", 1)[1]
        source.execute(f"ATTACH DATABASE ? AS converted KEY {target_key}", (str(tmp),))
        source.execute("SELECT sqlcipher_export('converted')")
        source.execute(f"PRAGMA converted.user_version = {int(version)}")
        source.execute("DETACH DATABASE converted")
    finally:
        source.close()
    check = sc.connect(str(tmp), timeout=10, check_same_thread=False)
    try:
        check.execute("PRAGMA cipher_log_level = NONE")
        if key_out is not None:
            check.execute(key_pragma(key_out))
        ok = _counts(check) == before
        for fts in ("memories_fts", "messages_fts"):
            try:
                check.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
            except sc.DatabaseError:
                ok = False
        check.rollback()  # the checks wrote nothing; WAL cannot be set inside a transaction
        check.execute("PRAGMA journal_mode = WAL")
        check.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        check.close()
    if not ok:
        raise StoreError(f"the converted copy of {path} did not match it; the profile was left as it was")


def recover(path: Path) -> None:
    """Finish a conversion a crash cut short (cheap: two stats when there was none): the old file
    without a new one goes back in place; beside a swapped-in new one it is shredded; a copy
    killed while being written is shredded."""
    old = path.with_name(path.name + ".old")
    if not old.exists():
        tmp = path.with_name(path.name + ".converting")
        # Killed while writing the copy (a plaintext half): gone when no one has it open and it is
        # no longer being written (a conversion running now writes it, checks it and renames it).
        leftovers = (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm"), Path(f"{tmp}-journal"))
        if tmp.exists():
            # Nothing writes it while this process shares the profile's lock (a conversion holds it
            # alone); without that lock (a read-only folder), only a copy untouched for a while.
            stale = no_conversion_running(path) or time.time() - tmp.stat().st_mtime > CONVERTING_STALE_SECONDS
            if stale and not other_users(tmp):
                for leftover in leftovers:
                    shred(leftover)
        elif leftovers[3].exists():  # the copy's rollback journal, left by a conversion cut short
            shred(leftovers[3])
        return
    if path.exists():
        shred(old)
    else:
        os.replace(old, path)
        tmp = path.with_name(path.name + ".converting")
        for leftover in (tmp, Path(f"{tmp}-journal")):
            shred(leftover)


def other_users(path: Path) -> list[int]:
    """Processes other than this one with the database open (Linux /proc; elsewhere: none known)."""
    target = str(path.resolve())
    found = []
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in (target, target + "-wal"):
                    found.append(int(entry.name))
                    break
        except OSError:
            continue
    return found


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_dir(path: Path) -> None:
    try:
        _sync(path)
    except OSError:
        pass


def shred(path: Path) -> None:
    """Overwrite a file with zeros, sync, remove (a missing file is fine)."""
    try:
        size = path.stat().st_size
    except OSError:
        return
    try:
        with open(path, "r+b") as f:
            chunk = b"\0" * min(size, 1 << 20)
            left = size
            while left > 0:
                left -= f.write(chunk[: min(left, len(chunk))])
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        pass
    path.unlink(missing_ok=True)
