"""What a slash command, the completer and the toolbar may use of the REPL they run in.

The loop's `Repl` provides it; the commands name this protocol instead of the loop, so the loop
can import the commands without the commands importing the loop back (no ring of imports, not
even for types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memchat.app import Memchat
    from memchat.app.turn import TurnResult
    from memchat.attachments import Attachment
    from memchat.sessions import Session


class ReplState(Protocol):
    app: Memchat
    session: Session | None
    interactive: bool
    running: bool
    attached: list[Attachment]  # files for the next message (/attach)
    last_result: TurnResult | None

    @property
    def settings(self) -> Any: ...

    def say(self, text: str) -> None: ...

    def info(self, text: str) -> None: ...

    def ensure_session(self) -> Session: ...

    def new_session(self) -> None: ...

    def resume(self, session_id: str | int) -> None: ...

    def retry(self) -> None: ...

    def undo(self) -> None: ...

    def context_tokens(self) -> int: ...

    def memory_status(self) -> str: ...
