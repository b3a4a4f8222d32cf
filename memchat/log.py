"""A private log file for background work (capture, warm-up): never the terminal, never memory text.

Background workers (the detached capture and purge processes, the REPL's capture thread) never
fail silently: each failure is one line here, `background WHAT failed (DB): why`, and
`last_worker_failure` reads the newest back for `memchat doctor` and `memchat consent`.
"""

from __future__ import annotations

import io
import logging
import re
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memchat.config import state_dir
from memchat.files import touch_private
from memchat.text import redact_secrets

_configured = False
_FAILED = "background {what} failed ({db}): "
_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[,.]\d+ \w+ background (\S+) failed \(")
TAIL_BYTES = 256 * 1024  # how much of the log's end is read for the newest failure


def log_path() -> Path:
    return state_dir() / "memchat.log"


class _QuietFileHandler(logging.FileHandler):
    """A log line that cannot be written (a full disk) is lost, never a traceback on the terminal
    (logging's default prints one to stderr, "--- Logging error ---")."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def get_logger() -> logging.Logger:
    global _configured
    logger = logging.getLogger("memchat")
    if not _configured:
        _configured = True
        logger.propagate = False
        try:
            path = touch_private(log_path())
            handler: logging.Handler = _QuietFileHandler(path, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        except OSError:
            handler = logging.NullHandler()
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return logger


def _one_line(text: str, limit: int = 500) -> str:
    return redact_secrets(" ".join(text.split()))[:limit]


def worker_failed(what: str, db: Path | str, reason: str) -> None:
    """One line in the log for a background worker's failure: what failed (capture, purge), for
    which profile, and why (an error message, never memory text)."""
    get_logger().error("%s", _FAILED.format(what=what, db=db) + _one_line(reason))


@dataclass
class WorkerFailure:
    at: str  # UTC, ISO-8601 with a Z, like the database's timestamps
    what: str  # capture, purge
    reason: str


def last_worker_failure(db: Path | str, path: Path | None = None) -> WorkerFailure | None:
    """The newest background failure logged for this profile's database, or None."""
    path = path or log_path()
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, io.SEEK_END) - TAIL_BYTES))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        head, found, reason = line.partition(f" failed ({db}): ")
        match = _LINE.match(head + " failed (") if found else None
        if match:
            when = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S").astimezone(UTC)
            return WorkerFailure(when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), match.group(2), reason)
    return None


class WorkerStderr(io.TextIOBase):
    """A detached worker's stderr (it has no terminal): each line it would have printed (an
    error such as a missing key, a database it cannot open) becomes one line of the log, so a
    worker never dies silently."""

    def __init__(self, what: str, db: str) -> None:
        self.what = what
        self.db = db
        self._held = ""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        *done, self._held = (self._held + text).split("\n")
        for line in done:
            self._line(line)
        return len(text)

    def flush(self) -> None:
        held, self._held = self._held, ""
        self._line(held)

    def _line(self, text: str) -> None:
        text = " ".join(text.split()).strip(" │╭╮╰╯─").removeprefix("memchat: ")
        if not text or text == "Error" or text.startswith(("Usage:", "Try '")):  # a usage error's frame
            return
        if text.startswith("warning: "):
            get_logger().warning("background %s (%s): %s", self.what, self.db, _one_line(text))
            return
        bug = re.match(r"internal error \((\w+)", text)
        if bug:  # its message may quote memory text: the type only (the frames are logged already)
            text = f"internal error ({bug.group(1)}), a bug: its frames are logged above"
        worker_failed(self.what, self.db, text)


def internal_error(exc: BaseException) -> str:
    """One line for the user about an unexpected exception (a bug); the frames go to the log.

    Only the frames and the exception type are logged: an exception's message may quote
    memory text, and the log never holds that.
    """
    frames = "".join(traceback.format_tb(exc.__traceback__))
    get_logger().error("internal error %s\n%s", type(exc).__name__, frames)

    said = redact_secrets(str(exc)).splitlines()[0][:200] if str(exc) else "no message"  # redacted before it is cut
    return (
        f"internal error ({type(exc).__name__}: {said}); "
        f"this is a bug: please report it with the frames logged in {log_path()}"
    )
