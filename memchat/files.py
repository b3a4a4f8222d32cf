"""Private files: everything memchat writes about the user is created 0600."""

from __future__ import annotations

import os
from pathlib import Path

from memchat.errors import MemchatError


def touch_private(path: Path | str) -> Path:
    """Make sure path exists as a file only its owner can read: parent 0700, file 0600.

    Raises OSError; callers decide whether that is fatal.
    """
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600))  # never truncates
    os.chmod(path, 0o600)  # the umask, or an older file, may have left it wider
    return path


def write_private(path: Path | str, text: str) -> Path:
    """Write text to path with mode 0600, whatever the umask; replaces an existing file."""
    path = Path(path).expanduser()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(text)
    except OSError as exc:
        raise MemchatError(f"cannot write {path}: {exc.strerror}") from None
    except ValueError:  # a NUL in the name
        raise MemchatError(f"cannot write {str(path)!r}: a file name cannot contain a NUL character") from None
    return path
