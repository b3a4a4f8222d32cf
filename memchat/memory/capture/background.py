"""Where capture runs: a thread of the chat's process, or a detached process, one at a time.

A chat never waits for capture. The REPL hands turns to its capture thread as it goes; at
quit, and after a one-shot `ask`, what is left goes to a detached `memchat memories capture
--background` process, so quitting is instant. Capture of one profile is serialised by a
lock file beside the database (`<db>.capture.lock`, flock): two processes never extract the
same turns twice. A capture that fails (or a process that dies) leaves its pointer where it
was; the next detached run (the next `ask`, REPL start or quit) picks the session up again.

A detached worker cannot be shadowed by the working directory (it starts with Python's -P, so
a folder named memchat there, such as a clone seen from its parent, is never imported), and it
never dies silently: whatever it would have printed, and a failure to start at all, is one line
of the log (memchat.log.worker_failed); each capture run that finishes is stamped in the profile
(turns.mark_run), so `memchat doctor` and `memchat consent` say when capture last ran.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat import usage
from memchat.db import open_db
from memchat.files import touch_private
from memchat.locks import capture_lock_path
from memchat.log import get_logger, log_path, worker_failed
from memchat.memory.capture.turns import capture_session, mark_run, save_pointer
from memchat.providers import get_provider

if TYPE_CHECKING:
    from memchat.config import Settings

IDLE_MINUTES = 10  # a session idle this long counts as ended: a background run captures it too


@contextlib.contextmanager
def capture_lock(db_path: Path, wait: float) -> Iterator[bool]:
    """Hold the profile's capture lock (True), or say after `wait` seconds that another holds it."""
    path = capture_lock_path(db_path)
    try:
        fd = os.open(touch_private(path), os.O_RDWR)
    except OSError:
        yield True  # a read-only directory: no lock to take, and no capture will write either
        return
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.1)
        with contextlib.suppress(OSError):  # who holds it, for stop_detached_capture
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield True
    finally:
        os.close(fd)  # closing releases the lock


class CaptureWorker:
    """One background thread per process; `submit` never blocks the chat."""

    def __init__(
        self,
        db_path: Path,
        settings: Settings,
        embedder: Callable[[], Any] | None = None,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.db_path = db_path
        self._on_idle = on_idle  # told, from this thread, when the last submitted session is done
        self.settings = settings
        self._embedder = embedder
        self._queue: queue.Queue[tuple[int, bool] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.errors = 0

    def submit(self, session_id: int, *, final: bool = False) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memchat-capture", daemon=True)
            self._thread.start()
        self._queue.put((session_id, final))

    @property
    def pending(self) -> int:
        return self._queue.unfinished_tasks

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until submitted work is done (True) or the timeout passes (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def _run(self) -> None:
        db = None
        provider = None
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                session_id, final = item
                try:
                    if db is None:
                        db = open_db(self.db_path)
                        provider = get_provider(self.settings.roles()[1].provider, self.settings)
                        provider.on_usage = _recorder(db)
                    self._capture(db, provider, session_id, final)
                except Exception as exc:  # noqa: BLE001 - logged and retried next time
                    self._failed(db, session_id, exc)
            finally:
                self._queue.task_done()
            if self._on_idle is not None and not self._queue.unfinished_tasks:
                try:
                    self._on_idle()
                except Exception:  # noqa: BLE001 - a redraw that fails must not stop capture
                    get_logger().warning("could not redraw after capture", exc_info=True)

    def _capture(self, db: Any, provider: Any, session_id: int, final: bool) -> None:
        with capture_lock(self.db_path, wait=60) as mine:
            if not mine:  # another process is capturing: it, or a later run, does this one
                return
            result = capture_session(db, self.settings, provider, session_id, final=final, embedder=self._embedder)
            mark_run(db)
        get_logger().info("capture session %s: %d turns, %d candidates", session_id, result.turns, len(result.outcomes))

    def _failed(self, db: Any, session_id: int, exc: Exception) -> None:
        """One line in the log (memchat doctor shows it); the session's pointer stays, so the next
        run retries it."""
        self.errors += 1
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        worker_failed("capture", self.db_path, f"session {session_id}: {message} (retried next time)")
        if db is None:
            return
        try:
            save_pointer(db, session_id, error=message[:500])
        except Exception:  # noqa: BLE001 - a database that refuses this too: the log has it
            pass


def _recorder(db: Any) -> Callable[..., None]:
    def record(request: Any, model: str, input_tokens: int, output_tokens: int) -> None:
        usage.record(db, model, request.purpose, input_tokens, output_tokens, request.session_id)

    return record


def spawn_capture(
    db_path: Path,
    session_id: int | None = None,
    *,
    config_path: str | None = None,
    env: dict[str, str] | None = None,
    only: list[int] | None = None,
) -> None:
    """Capture in a detached process (`memories capture --background`): this session, if any,
    and every session idle for IDLE_MINUTES with turns left; or `only` these sessions. The
    command returns at once."""
    args = ["memories", "capture", "--background"] + (["--session", str(session_id)] if session_id else [])
    if only:
        args += ["--only-sessions", ",".join(map(str, only))]
    spawn_detached(db_path, args, config_path=config_path, what="capture", env=env)


# What a detached worker runs, as `python -P -c WORKER WHAT DB LOG <memchat arguments>`. -P keeps
# the working directory off sys.path (PYTHONPATH still applies); the worker's stderr becomes lines
# of the log; a worker that cannot even import memchat writes that one line to the log itself.
WORKER = """\
import sys, time
what, db, log = sys.argv[1:4]
del sys.argv[1:4]
try:
    from memchat.log import WorkerStderr
    sys.stderr = WorkerStderr(what, db)
    from memchat.cli.main import main
except BaseException as exc:
    if log:
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
        with open(log, "a", encoding="utf-8") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M:%S,000") + f" ERROR background {what} failed ({db}): {reason}\\n")
    raise SystemExit(1)
main()
"""


def worker_command(db_path: Path, command: list[str], *, config_path: str | None = None, what: str = "") -> list[str]:
    """The command line of a detached `memchat --db DB COMMAND` (see WORKER)."""
    try:
        log = str(touch_private(log_path()))  # created private before the worker appends to it
    except OSError:
        log = ""  # no state directory to write in: the worker runs, and logs nothing
    args = [sys.executable, "-P", "-c", WORKER, what or command[0], str(db_path), log, "--db", str(db_path)]
    if config_path:
        args += ["--config", str(config_path)]
    return args + command


def spawn_detached(
    db_path: Path,
    command: list[str],
    *,
    config_path: str | None = None,
    what: str = "",
    env: dict[str, str] | None = None,
) -> None:
    """Run `memchat --db DB COMMAND` in a detached process (no terminal, no waiting); `what` names
    the work in the log (default: the command); `env`: settings given as flags
    (Settings.flags_as_environment), which the worker must use too."""
    try:
        worker = subprocess.Popen(
            worker_command(db_path, command, config_path=config_path, what=what),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env=dict(os.environ) | (env or {}),
        )
    except OSError as exc:  # the next run catches up; never fail the user's command for this
        worker_failed(what or command[0], db_path, f"could not start: {exc}")
        return
    # A chat that goes on after starting one reaps it when it ends (else it stays a zombie, <defunct>,
    # until the chat quits); a command that exits leaves it to init, as before.
    threading.Thread(target=worker.wait, name="memchat-reap", daemon=True).start()
