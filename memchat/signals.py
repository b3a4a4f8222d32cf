"""SIGTERM is handled like Ctrl-C: a reply being streamed is kept (marked interrupted), the chat
ends, and the exit code says which signal it was (143, not 130).

A `kill` from a script, a closing terminal multiplexer or a service manager sends SIGTERM; by
default Python dies on it at once and the partial reply is lost.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import Any

from memchat.errors import ExitCode

_received = False
_instead: Callable[[], bool] | None = None  # while an event loop runs: ends it gently instead of raising


class Terminated(KeyboardInterrupt):
    """Raised in the main thread on SIGTERM: every Ctrl-C path keeps what it keeps for Ctrl-C."""


def install() -> None:
    signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: Any) -> None:
    global _received
    _received = True
    if _instead is not None and _instead():
        return
    raise Terminated


@contextlib.contextmanager
def ending_with(end: Callable[[], bool]) -> Iterator[None]:
    """While inside, SIGTERM calls `end` (True: it ended what runs) instead of raising: an exception
    raised into prompt_toolkit's asyncio loop can leave its shutdown waiting on a thread."""
    global _instead
    previous, _instead = _instead, end
    try:
        yield
    finally:
        _instead = previous


def terminated() -> bool:
    """Whether SIGTERM arrived: a loop that survives a Ctrl-C must end."""
    return _received


def interrupted_exit_code() -> int:
    return ExitCode.TERMINATED if _received else ExitCode.INTERRUPTED
