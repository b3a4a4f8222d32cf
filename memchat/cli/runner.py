"""What every run of `memchat` goes through, without the command-line parser: the open
profile (`CliState`), known errors as one line and an exit code, and a fast exit.

Kept apart from memchat.cli.main so that bare `memchat` (memchat.cli.entry) opens the chat
without importing typer and the command modules (about a fifth of the REPL's start-up).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from memchat import signals
from memchat.errors import ConfigError, ExitCode, MemchatError, require_unicode
from memchat.text import error_text
from memchat.ui.console import note

if TYPE_CHECKING:
    from memchat.app import Memchat

# One OpenBLAS thread per call, set before numpy loads: the vector scan runs its own two threads,
# and OpenBLAS's pool would spin after each call and take the cores from the encoder.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@dataclass
class CliState:
    """Global flags, turned into an open profile (`Memchat`) on first use."""

    flags: dict[str, Any] = field(default_factory=dict)
    config_path: str | None = None
    no_memory: bool = False  # the global --no-memory: every command of this run
    session: str | None = None  # the global --session / --continue: for chat and ask
    continue_: bool = False
    _app: Memchat | None = None

    def app(self, **overrides: Any) -> Memchat:
        """The profile, opened lazily; overrides are a subcommand's flags (--model, --provider ...)."""
        if self._app is None:
            from memchat.app import Memchat

            self._app = Memchat.load(self.config_path, **self.flags)
            self._app.on_warning = lambda text: note(f"warning: {text}")
            if self.no_memory:
                self._app.memory_off()
            OPEN.append(self._app)
        self._app.configure(**overrides)
        return self._app


OPEN: list[Memchat] = []  # closed by run() on the way out


def open_chat(st: CliState, *, session: str | None, continue_: bool, no_memory: bool = False) -> int:
    """`memchat chat` and bare `memchat`: the REPL on the profile; its exit code."""
    from memchat.repl.loop import run_repl

    memchat = st.app()
    if no_memory:
        memchat.memory_off()
    return run_repl(memchat, session=session, continue_=continue_)


def _one_line_warning(
    message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None
) -> None:
    # Library warnings (e.g. the SDK's model deprecation notice) as one line, not source excerpts.
    sys.stderr.write(f"memchat: warning: {str(message).splitlines()[0]}\n")


def _log_unraisable(unraisable: Any) -> None:
    # "Exception ignored in ... __del__" (an SDK client half-built when Ctrl-C landed) is noise
    # for the user: it goes to the log file, not the terminal.
    from memchat.log import get_logger

    get_logger().debug("ignored in %r: %r", unraisable.object, unraisable.exc_value)


def _arguments_are_text() -> None:
    """Bytes that are not UTF-8 reach Python's argv (and environment) as lone surrogates, which no
    message, name or option can be stored or printed with: refused in one line, whatever the
    command. A path on disk may be named by such bytes, and is left to the command that opens it."""
    sys.argv[1:] = [_as_utf8(a) for a in sys.argv[1:]]
    for number, argument in enumerate(sys.argv[1:], 1):
        if not os.path.lexists(argument):
            require_unicode(argument, f"argument {number}")
    for name, value in os.environ.items():  # the settings memchat reads from the environment, likewise
        if name.startswith(_OUR_VARIABLES) and not os.path.lexists(value):
            require_unicode(value, f"the environment variable {name}")


_OUR_VARIABLES = ("MEMCHAT_", "ANTHROPIC_", "OPENAI_")


def _as_utf8(argument: str) -> str:
    """An argument as the UTF-8 it was typed in, whatever the locale (under LC_ALL=C with
    PYTHONUTF8=0, Python reads "café" as four characters and two lone surrogates)."""
    try:
        return os.fsencode(argument).decode("utf-8")
    except UnicodeDecodeError:
        return argument  # not UTF-8 at all: require_unicode says so


def run(body: Callable[[], object]) -> NoReturn:
    """Run a command: known errors are one line and an exit code, never a traceback."""
    sys.unraisablehook = _log_unraisable
    signals.install()
    _never_fail_to_encode()
    warnings.showwarning = _one_line_warning
    warnings.filterwarnings("default", message=r"The model .* is deprecated", category=DeprecationWarning)
    code, said = _outcome(body)
    if signals.terminated():  # a `kill` says so whatever the command was doing (click reports it as 130)
        code = ExitCode.TERMINATED
        if not said:  # one line, also in the log of a detached worker (its stderr), which never dies silently
            sys.stderr.write("\nmemchat: ended by SIGTERM\n")
    _fast_exit(code)


def _outcome(body: Callable[[], object]) -> tuple[int, bool]:
    """The command's exit code, and whether an interruption was said. A Ctrl-C from here to the exit
    is the command's end, not a traceback: SIGINT is ignored once the outcome is known."""
    code: int = ExitCode.OK
    said = False  # whether an interruption was said
    try:
        try:
            _arguments_are_text()
            body()  # standalone click: usage errors print and raise SystemExit
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (ExitCode.OK if exc.code is None else ExitCode.FAILURE)
        except MemchatError as exc:
            show_error(exc)
            code = exc.exit_code
        except KeyboardInterrupt:
            code, said = _interrupted(), True
        except Exception as exc:  # noqa: BLE001 - a bug is one line and a log entry, never a traceback
            if _by_interruption(exc):  # a Ctrl-C inside a lazy import comes out as its RuntimeError
                code, said = _interrupted(), True
            else:
                code = _failure(exc)
    except KeyboardInterrupt:  # a second Ctrl-C while the first or an error was being told
        code = signals.interrupted_exit_code()
    with contextlib.suppress(ValueError):  # (not the main thread: a test's runner)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command is over: a Ctrl-C would only cut the exit short
    return code, said


def _interrupted() -> int:
    sys.stderr.write("\nmemchat: interrupted\n")
    return signals.interrupted_exit_code()


def _by_interruption(exc: BaseException) -> bool:
    """Whether an error was raised by a Ctrl-C (its cause or context, at any depth)."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        if isinstance(at, KeyboardInterrupt):
            return True
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return False


def _failure(exc: Exception) -> int:
    from memchat.app.profile import known_failure
    from memchat.log import internal_error

    known = (
        known_failure(exc, OPEN[0].settings.db_path if OPEN else "of this profile")
        or _write_failure(exc)
        or _path_failure(exc)
    )
    if known is not None:  # a damaged, busy, full or read-only file: not a bug
        show_error(known)
        return known.exit_code
    sys.stderr.write(f"memchat: {internal_error(exc)}\n")
    return ExitCode.SOFTWARE


def show_error(exc: MemchatError) -> None:
    sys.stderr.write(f"memchat: {error_text(exc.message)}\n")
    sys.stderr.flush()


def _fast_exit(code: int) -> NoReturn:
    """Exit without the interpreter's teardown of thousands of SDK modules (~0.4-1.5 s).

    Everything that matters is already durable: every database write is committed when it
    happens. Close the database (checkpointing the WAL) and flush output, then leave.
    """
    for opened in OPEN:
        # Closing a connection a background thread is still using can crash the process (a SIGTERM
        # while the REPL warmed up ended in SIGSEGV): leave it to the exit, and SQLite recovers the
        # WAL on the next open. Every write is committed already.
        if not opened.busy():
            opened.close()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception as exc:  # noqa: BLE001 - a closed pipe must not turn exit into a traceback
            failed = _write_failure(exc) if stream is sys.stdout else None
            if failed is not None and code == ExitCode.OK:  # the output is lost: say so, never exit 0
                show_error(failed)
                code = failed.exit_code
    os._exit(code)


# What a full or failing disk says when the output (a redirect: `> file`) cannot be written
_WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _never_fail_to_encode() -> None:
    """Output in an encoding that cannot hold every character (PYTHONIOENCODING=ascii, a C locale)
    shows an escape for what it cannot: a memory's "é" had ended every listing in an internal error."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding and encoding != "utf8" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(Exception):
                stream.reconfigure(errors="backslashreplace")
    # what is typed or piped in is read as UTF-8 whatever the locale says (a piped chat under
    # PYTHONIOENCODING=ascii ended in an internal error at "ü", and latin-1 stored mojibake); bytes
    # that are not UTF-8 reach each line as lone surrogates, which the line's check refuses
    encoding = (getattr(sys.stdin, "encoding", None) or "").lower().replace("-", "")
    if encoding and encoding != "utf8" and hasattr(sys.stdin, "reconfigure"):
        with contextlib.suppress(Exception):
            sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")


def _path_failure(exc: BaseException) -> MemchatError | None:
    """A path the file system cannot take (a MEMCHAT_HOME or --db name too long), in one line."""
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        name = str(exc.filename or "")
        shown = name if len(name) <= 80 else f"{name[:40]}…{name[-30:]}"
        return ConfigError(f"the path {shown} is too long for the file system: choose a shorter MEMCHAT_HOME or --db")
    return None


def _write_failure(exc: BaseException) -> MemchatError | None:
    """A write the disk refused (full, over quota, too large, failing), in one line; None otherwise."""
    if isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS:
        return MemchatError(f"could not write the output: {exc.strerror or exc} (is the disk full?)")
    return None
