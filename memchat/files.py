"""Files memchat reads and writes, handled as a careful program run as root would handle them.

- Everything memchat writes about the user is created 0600, in directories created 0700.
- A file is written whole or not at all: a temporary file in the same directory, fsynced,
  then renamed over the target, so a kill or a full disk mid-write leaves the previous
  file intact (an export, the config file, the input history).
- Only regular files are written or read as files: a device, a pipe or a directory given
  as an export target, a database or an input is refused with one line, and the mode of a
  file memchat did not create is never changed.
- Every read is bounded: a file larger than the limit is refused, not read into memory.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memchat.errors import MemchatError, UsageError

MAX_INPUT_BYTES = 1 << 30  # 1 GiB: an export or an import file; larger is refused
MAX_CONFIG_BYTES = 1 << 20  # 1 MiB for the config file


def describe_os_error(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the file name is too long"
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    return exc.strerror or str(exc)


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Files and directories created inside (by memchat or a library) are the user's alone: 0600/0700.
    The cache holds a model and a tokenizer memchat runs: another user must not swap them."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def private_dir(path: Path) -> Path:
    """Create a directory (and its parents) 0700 whatever the umask; an existing one is left as it is."""
    path = Path(path).expanduser()
    if not path.is_dir():
        old = os.umask(0o077)
        try:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        finally:
            os.umask(old)
    return path


def touch_private(path: Path | str) -> Path:
    """Make sure path exists as a regular file: created 0600 (parent 0700) if it is new.

    An existing file is used as it is (its mode is the user's business). Raises OSError;
    callers decide whether that is fatal.
    """
    path = Path(path).expanduser()
    private_dir(path.parent)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file")
    finally:
        os.close(fd)
    return path


def check_target(path: Path) -> None:
    """Refuse, in one line, a target that is not a file memchat may replace (a directory, a device)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise MemchatError(f"cannot write {path}: {describe_os_error(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise MemchatError(f"cannot write {path}: it is a directory")
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        raise MemchatError(f"refusing to write {path}: it is not a regular file (use -o - for standard output)")


def write_private(path: Path | str, text: str) -> Path:
    """Write text to path, 0600, atomically: the old file stays whole until the new one is complete.

    A symbolic link is written through (its target replaced) only if that target is a regular
    file; a new file is created 0600, an existing one keeps its mode.
    """
    path = Path(path).expanduser()
    if "\x00" in str(path):
        raise MemchatError(f"cannot write {str(path)!r}: a file name cannot contain a NUL character")
    check_target(path)
    if path.is_symlink():
        try:
            path = path.resolve(strict=False)
        except (RuntimeError, OSError):  # a loop of links (RuntimeError on Python 3.11)
            raise MemchatError(f"cannot write {path}: it is a loop of symbolic links") from None
        check_target(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o600
    except OSError as exc:
        raise MemchatError(f"cannot write {path}: {describe_os_error(exc)}") from None
    # Left by a write that was killed (it held the data): exactly our names, whatever the file's name holds.
    ours = re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{8}}\.tmp")
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        if ours.fullmatch(stale.name):
            stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            data = text.encode("utf-8", "surrogateescape")
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise MemchatError(f"cannot write {path}: {describe_os_error(exc)}") from None
    return path


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_regular(path: Path | str, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, or a UsageError line saying why not.

    Devices, pipes and directories are refused before anything is read (a FIFO would block,
    /dev/zero would never end).
    """
    p = Path(path).expanduser()
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {describe_os_error(exc)}") from None
    except ValueError:
        raise UsageError(f"cannot read {str(path)!r}: a file name cannot contain a NUL character") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{path} is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{path} is not a regular file (a device or a pipe); {what} must be a file")
        if st.st_size > limit:
            raise UsageError(f"{path} is {st.st_size:,} bytes; {what} may be at most {limit:,}")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise UsageError(f"{path} is larger than {limit:,} bytes; {what} may be at most {limit:,}")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {describe_os_error(exc)}") from None
    finally:
        os.close(fd)


def open_access(path: Path) -> str | None:
    """A warning when others can reach what is private: a file they can read or write, or a directory
    they can write into (and so replace or remove the files in it). None when it is private."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None
    if path.is_dir():
        if mode & 0o022:
            return f"{path} is mode {oct(mode)}: others can add, replace or remove files in it (chmod 700 {path})"
        return None
    if mode & 0o066:
        who = "everyone" if mode & 0o006 else "its group"
        return f"{path} is mode {oct(mode)}: {who} can read it (chmod 600 {path})"
    return None


def bounded_lines(stream: Any, limit: int) -> Iterator[Any]:
    """The lines of a stream (text or bytes), each without its end of line; None for a line longer
    than `limit`, which is read past in pieces and never held whole (a piped `yes` is one endless
    stream of short lines, one huge line is a gigabyte held at once)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        newline = "\n" if isinstance(line, str) else b"\n"
        if len(line) > limit and not line.endswith(newline):
            while (rest := stream.readline(limit)) and not rest.endswith(newline):
                pass
            yield None
            continue
        yield line.rstrip(newline)
