"""The profile lock: who may use a database file while a conversion swaps it for another.

A conversion (encrypt, decrypt: memchat.encryption) replaces the database file. A process that
had opened the old file would go on writing to it after the swap, and lose what it wrote. So
every process that uses a profile holds a shared lock on `<db>.lock` (flock: apart from
SQLite's own POSIX locks, which closing any descriptor of the database would drop) for as long
as it lives, and a conversion holds it exclusively from its check to its swap. Other processes
wait a little, then say the profile is being converted.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from memchat.errors import StoreError

_HELD: dict[str, list[int]] = {}  # lock file -> [this process's descriptor, how many hold it]
_ALONE: set[str] = set()  # lock files this process holds exclusively (a conversion running here)
CONVERSION_WAIT_SECONDS = 10.0


def _name(path: Path) -> str:
    return str(path.resolve()) + ".lock"


def _open(name: str) -> int | None:
    try:
        return os.open(name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except (OSError, ValueError):
        return None  # a read-only folder (where no conversion can run either), a NUL in the name


def hold_profile(path: Path) -> None:
    """Share the profile with other processes while this one has it open (release_profile when
    done), waiting a little while a conversion runs."""
    name = _name(path)
    if name in _HELD:
        _HELD[name][1] += 1
        return
    fd = _open(name)
    if fd is None:
        return
    deadline = time.monotonic() + CONVERSION_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise StoreError(
                    f"{path} is being encrypted or decrypted by another memchat; try again when it is done"
                ) from None
            time.sleep(0.05)
    _HELD[name] = [fd, 1]


def no_conversion_running(path: Path) -> bool:
    """Whether no encrypt or decrypt of the profile can be running: this process shares its lock,
    which no conversion could hold alongside (a conversion holds it alone)."""
    name = _name(path)
    return name in _HELD and name not in _ALONE


def release_profile(path: Path) -> None:
    """This process is done with one of its connections to the profile."""
    name = _name(path)
    held = _HELD.get(name)
    if held is None:
        return
    held[1] -= 1
    if held[1] <= 0:
        del _HELD[name]
        os.close(held[0])  # drops the lock


@contextlib.contextmanager
def profile_alone(path: Path) -> Iterator[None]:
    """Hold the profile exclusively (a conversion): no other process has it open, and none opens
    it until the block ends (this process's own connections, if any, share the one lock)."""
    name = _name(path)
    held = _HELD.get(name)
    fd = held[0] if held is not None else _open(name)
    if fd is None:
        raise StoreError(f"cannot lock {path} for its conversion: its folder is not writable; nothing was changed")
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(
                f"another process has {path} open: close every memchat (a chat, `memchat mcp`) first; "
                "nothing was changed"
            ) from None
        _ALONE.add(name)
        yield
    finally:
        _ALONE.discard(name)
        if held is not None:
            fcntl.flock(fd, fcntl.LOCK_SH)  # back to sharing it
        else:
            os.close(fd)


def capture_lock_path(db_path: Path | str) -> Path:
    """The file whose lock one capture at a time holds (memchat.memory.capture.background)."""
    return Path(f"{db_path}.capture.lock")


STOP_WAIT = 5.0  # seconds a stopped worker is given to let go of the profile


def stop_detached_capture(db_path: Path) -> bool:
    """End a detached capture worker at work on this profile (`consent no`, or a conversion that
    needs the profile alone: a worker whose model does not answer retries for minutes). Only a
    detached worker (`memories capture --background`), never a chat's own capture thread: True if
    one was stopped. What it had not stored is read again by the next capture."""
    path = capture_lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False  # nobody holds it
        except BlockingIOError:
            pass
        try:
            pid = int(os.pread(fd, 32, 0).decode() or 0)
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return False
        if pid <= 0 or pid == os.getpid() or b"capture" not in command or b"--background" not in command:
            return False
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        while time.monotonic() < deadline:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                time.sleep(0.05)
        return True
    finally:
        os.close(fd)
