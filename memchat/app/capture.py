"""Capture's use cases: when memories are extracted from conversations, and where (now, a thread, a process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memchat import sessions
from memchat.app.profile import Profile

if TYPE_CHECKING:
    from memchat.engine import TurnResult
    from memchat.memory.capture import CaptureResult, CaptureWorker
    from memchat.sessions import Session


class Capture(Profile):
    """Memories from conversations: the policy, decided once for every shell."""

    @property
    def can_capture(self) -> bool:
        """Whether this run may extract memories: memory on, capture on, and a provider that can."""
        return self.capture_on and self.provider.can_call_tools

    def capture(
        self,
        session_id: str | int | None = None,
        *,
        final: bool = False,
        on_result: Callable[[CaptureResult], None] | None = None,
    ) -> list[CaptureResult]:
        """Extract memories from turns not yet captured, now (one session, or every one that has some)."""
        from memchat.memory.capture import capture_session, pending_sessions

        ids = [sessions.get_session(self.db, session_id).id] if session_id is not None else pending_sessions(self.db)
        provider = self.provider
        provider.ready()
        embedder = self.embedder()
        results = []
        for sid in ids:
            result = capture_session(
                self.db, self.settings, provider, sid, final=final or session_id is None, embedder=embedder
            )
            results.append(result)
            if on_result:
                on_result(result)
        return results

    def after_turn(self, session: Session, result: TurnResult) -> None:
        """Count an answered turn; every memory.capture_every turns, capture in the background."""
        if result.status in ("ok", "incomplete", "interrupted") and result.reply_message is not None:
            self.turns_since_capture += 1
            if self.turns_since_capture >= self.settings.get("memory.capture_every"):
                self.capture_in_background(session)

    def capture_in_background(self, session: Session | None, *, final: bool = False) -> None:
        """Hand a session's new turns to this process's capture thread (never waits)."""
        if self.can_capture and session is not None and (self.turns_since_capture or final):
            self.worker.submit(session.id, final=final)
            self.turns_since_capture = 0

    def capture_detached(self, session: Session) -> None:
        """Capture a finished one-shot session in a detached process, so the command returns at once."""
        if self.can_capture:
            from memchat.memory.capture import spawn_capture

            spawn_capture(self.settings.db_path, session.id, config_path=self.config_path)

    @property
    def worker(self) -> CaptureWorker:
        if self._worker is None:
            from memchat.memory.capture import CaptureWorker

            self._worker = CaptureWorker(self.settings.db_path, self.settings, embedder=self.embedder)
        return self._worker

    @property
    def capture_pending(self) -> int:
        return self._worker.pending if self._worker is not None else 0

    def wait_for_capture(self, timeout: float | None = None) -> bool:
        """Wait for background capture to finish (True), or the timeout to pass (False)."""
        return self._worker.drain(timeout) if self._worker is not None else True
