"""Capture's use cases: when memories are extracted from conversations, and where (now, a thread, a process)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat import sessions
from memchat.app.profile import Profile
from memchat.errors import MemchatError

if TYPE_CHECKING:
    from memchat.engine import TurnResult
    from memchat.memory.capture.background import CaptureWorker
    from memchat.memory.capture.turns import CaptureResult
    from memchat.sessions import Session


PROMPT_TOKENS = 1500  # the extraction prompt and tool definition, per call
REPLY_TOKENS = 400  # a typical extraction reply


@dataclass
class CaptureEstimate:
    model: str
    calls: int = 0
    input_tokens: int = 0
    cost: float | None = None  # None: no price known for the model


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
        background: bool = False,
        on_result: Callable[[CaptureResult], None] | None = None,
    ) -> list[CaptureResult]:
        """Extract memories from turns not yet captured, now (one session, or every one that has some).

        background (a detached run): this session, if any, and every idle session with turns
        left, under the profile's capture lock (after 30 s of another holder: nothing, it is
        retried next time); a failure is logged against its session, never raised.
        """
        from memchat.memory.capture.background import IDLE_MINUTES, capture_lock
        from memchat.memory.capture.turns import capture_session, idle_sessions, pending_sessions, save_pointer

        given = [sessions.get_session(self.db, session_id).id] if session_id is not None else []
        provider = self.provider
        provider.ready()
        results: list[CaptureResult] = []
        with capture_lock(self.settings.db_path, wait=30 if background else 300) as mine:
            if not mine:
                return results
            if background:
                ids = list(dict.fromkeys(given + idle_sessions(self.db, IDLE_MINUTES)))
            else:
                ids = given or pending_sessions(self.db)
            for sid in ids:
                try:
                    result = capture_session(
                        self.db,
                        self.settings,
                        provider,
                        sid,
                        final=final or background or not given,
                        embedder=self.embedder,
                    )
                except MemchatError as exc:
                    if not background:
                        raise
                    save_pointer(self.db, sid, error=exc.message[:500])
                    continue
                results.append(result)
                if on_result:
                    on_result(result)
        return results

    def end_session(self, session: Session | None) -> bool:
        """A conversation ends (REPL quit): what is left to capture goes to a detached process,
        so quitting never waits. True if one was started."""
        if not self.can_capture:
            return False
        from memchat.memory.capture.turns import pending_sessions, unsummarised

        left = session is not None and (session.id in pending_sessions(self.db) or unsummarised(self.db, session.id))
        if not (left or self.capture_pending):
            return False
        self.capture_detached(session)
        return True

    def after_warm_up(self) -> None:
        self.resume_capture()

    def resume_capture(self) -> None:
        """Start a detached capture of sessions a dead process left uncaptured (at REPL start)."""
        from memchat.memory.capture.background import IDLE_MINUTES
        from memchat.memory.capture.turns import idle_sessions

        if not self.can_capture:
            return
        with self.side_connection() as own:  # the warm-up thread: never the chat's connection
            idle = idle_sessions(own, IDLE_MINUTES)
        if idle:
            self.capture_detached(None)

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

    def capture_detached(self, session: Session | None) -> None:
        """Capture a finished session (and any idle one left uncaptured) in a detached process,
        so the command returns at once."""
        if self.can_capture:
            from memchat.memory.capture.background import spawn_capture

            spawn_capture(self.settings.db_path, session.id if session else None, config_path=self.config_path)

    @property
    def worker(self) -> CaptureWorker:
        if self._worker is None:
            from memchat.memory.capture.background import CaptureWorker

            self._worker = CaptureWorker(self.settings.db_path, self.settings, embedder=self.embedder)
        return self._worker

    @property
    def capture_pending(self) -> int:
        return self._worker.pending if self._worker is not None else 0

    def wait_for_capture(self, timeout: float | None = None) -> bool:
        """Wait for background capture to finish (True), or the timeout to pass (False)."""
        return self._worker.drain(timeout) if self._worker is not None else True

    def capture_estimate(self, session_ids: list[int]) -> CaptureEstimate:
        """What capturing these sessions would cost: one call each to memory.model (none for a
        session with nothing worth keeping), its input about the text's tokens plus the prompt."""
        from memchat import usage
        from memchat.context import eligible
        from memchat.memory.capture.turns import worth_capturing

        model = self.settings.get("memory.model") or self.settings.model
        estimate = CaptureEstimate(model)
        for sid in session_ids:
            history = [m for m in sessions.messages(self.db, sid) if eligible(m)]
            if len(history) >= 1 and worth_capturing(history):
                estimate.calls += 1
                estimate.input_tokens += sum(len(m.content) for m in history) // 4 + PROMPT_TOKENS
        estimate.cost = usage.cost(model, estimate.input_tokens, estimate.calls * REPLY_TOKENS, self.settings.prices)
        return estimate

    def capture_imported(self, session_ids: list[int]) -> None:
        """Capture imported sessions into memory in a detached process (the command returns at
        once): asked for by the user, so it runs even with automatic capture turned off."""
        from memchat.db import immediate
        from memchat.errors import UsageError
        from memchat.importer import unmark_captured
        from memchat.memory.capture.background import spawn_capture

        self.provider.ready()
        if not self.provider.can_call_tools:
            raise UsageError(f"the {self.settings.provider} provider cannot extract memories; use anthropic")
        with immediate(self.db):
            unmark_captured(self.db.conn, session_ids)
        spawn_capture(self.settings.db_path, None, config_path=self.config_path)
