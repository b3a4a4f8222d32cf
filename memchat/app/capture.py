"""Capture's use cases: when memories are extracted from conversations, and where (now, a thread, a process)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat import sessions, usage
from memchat.app.profile import Profile
from memchat.db import immediate
from memchat.errors import MemchatError, UsageError
from memchat.log import last_worker_failure, worker_failed

if TYPE_CHECKING:
    from memchat.app.turn import TurnResult
    from memchat.db import Database
    from memchat.log import WorkerFailure
    from memchat.memory.capture.background import CaptureWorker
    from memchat.memory.capture.turns import CaptureResult
    from memchat.sessions import Session
    from memchat.usage import Total


PROMPT_TOKENS = 1500  # the extraction prompt and tool definition, per call
REPLY_TOKENS = 400  # a typical extraction reply


@dataclass
class CaptureEstimate:
    model: str
    calls: int = 0
    input_tokens: int = 0
    cost: float | None = None  # None: no price known for the model


@dataclass
class CaptureStatus:
    """What `memchat doctor` and `memchat consent` say about capture."""

    on: bool  # whether chats of this profile are captured (consent, config, a provider that can)
    last_run: str | None  # when a capture run last finished without a failure (UTC); None: never
    waiting: int  # sessions with turns not yet read
    failure: WorkerFailure | None  # the newest background failure logged, when newer than last_run


class Capture:
    """Memories from conversations: the policy, decided once for every shell.

    No extraction call before the person said yes: capture runs only with their answer (asked
    once on a terminal, by the first chat or `ask`; or `memchat consent yes`), an explicit
    `memory.capture = true` (config file, environment), or `/capture on` in a chat. The default
    of memory.capture alone is not a yes: a script on a fresh profile learns nothing.
    """

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._chosen = False  # `/capture on` in this chat: a yes for its turns, whatever the profile's answer
        self._worker: CaptureWorker | None = None

    @property
    def can_capture(self) -> bool:
        """Whether this run may extract memories: memory on, capture on, the person agreed, and a
        provider that can."""
        return self.profile.capture_on and self.capture_agreed() and self.profile.memory_provider.can_call_tools

    @property
    def capture_configured(self) -> bool:
        """Whether memory.capture was set explicitly (config file, environment, a flag): a decision."""
        return self.profile.settings.sources.get("memory.capture", "default") != "default"

    def capture_agreed(self, db: Database | None = None) -> bool:
        """Whether the person agreed to learning from their chats (read through `db` when given:
        a background thread must not share the profile's connection). Read again each time: a
        `memchat consent no` in another terminal stops a chat that is running at its next turn."""
        if self._chosen or self.capture_configured:
            return True
        source = db or self.profile.db_if_open
        if source is None:  # not open yet (a toolbar drawn while it opens): nothing captures before it is
            return False
        from memchat.privacy import consent

        said = consent(source)
        return said is not None and said.capture

    def consent_unasked(self) -> bool:
        """Whether a terminal should ask (once) before anything is learnt: memory on, nothing
        decided in the config, and no answer stored."""
        from memchat.privacy import consent

        return self.profile.use_memory and not self.capture_configured and consent(self.profile.db) is None

    def choose_capture(self, on: bool) -> None:
        """`/capture on|off`: for the rest of this chat, whatever the profile's answer."""
        self.profile.capture_on = on and self.profile.use_memory
        self._chosen = on

    def run(
        self,
        session_id: str | int | None = None,
        *,
        final: bool = False,
        background: bool = False,
        only: list[int] | None = None,
        on_result: Callable[[CaptureResult], None] | None = None,
    ) -> list[CaptureResult]:
        """Extract memories from turns not yet captured, now (one session, or every one that has some).

        background (a detached run): this session, if any, and every idle session with turns
        left, under the profile's capture lock (after 30 s of another holder: nothing, it is
        retried next time); a failure is logged (one line) and kept against its session, never
        raised. A run that finishes without a failure is stamped (`memchat doctor` shows when).
        only: these sessions and no other (an import's, captured because the user asked).
        """
        from memchat.memory.capture.background import IDLE_MINUTES, capture_lock
        from memchat.memory.capture.turns import idle_sessions, mark_run, pending_sessions

        given = [sessions.get_session(self.profile.db, session_id).id] if session_id is not None else []
        self.profile.memory_provider.ready()
        results: list[CaptureResult] = []
        with capture_lock(self.profile.settings.db_path, wait=30 if background else 300) as mine:
            if not mine:
                return results
            if only:
                ids = list(dict.fromkeys(given + only))
            elif background:
                ids = list(dict.fromkeys(given + idle_sessions(self.profile.db, IDLE_MINUTES)))
            else:
                # a catch-up run names no session: what was said under no stays unlearnt, as
                # `consent` counts it ("0 sessions wait to be read"); `--session ID` names one
                ids = given or pending_sessions(self.profile.db)
            failed = False
            for sid in ids:
                # by hand for a session named (`memories capture --session ID`), or an import's on
                # request: asked for by name
                asked = bool(only) or (bool(given) and not background)
                result = self._capture_one(
                    sid, final=final or background or not given, background=background, asked=asked
                )
                failed = failed or result is None
                if result is not None:
                    results.append(result)
                    if on_result:
                        on_result(result)
            if not failed:
                mark_run(self.profile.db)
        return results

    def _capture_one(self, session_id: int, *, final: bool, background: bool, asked: bool) -> CaptureResult | None:
        """One session's capture; in the background a failure is logged and kept against the
        session (None), never raised."""
        from memchat.memory.capture.turns import capture_session, save_pointer

        try:
            return capture_session(
                self.profile.db,
                self.profile.settings,
                self.profile.memory_provider,
                session_id,
                final=final,
                embedder=self.profile.embedder,
                asked=asked,
            )
        except MemchatError as exc:
            if not background:
                raise
            worker_failed(
                "capture", self.profile.settings.db_path, f"session {session_id}: {exc.message} (retried next time)"
            )
            save_pointer(self.profile.db, session_id, error=exc.message[:500])
            return None

    def capture_status(self) -> CaptureStatus:
        """When capture last ran, how many sessions wait to be read, and the newest failure of a
        background worker since (from the log)."""
        from memchat.memory.capture.turns import last_run, pending_sessions

        ran = last_run(self.profile.db)
        failure = last_worker_failure(self.profile.settings.db_path)
        if failure is not None and ran is not None and failure.at < ran:
            failure = None  # a run finished since: it is behind us
        return CaptureStatus(self.can_capture, ran, len(pending_sessions(self.profile.db)), failure)

    def memory_spent(self, session: Session | None) -> list[Total]:
        """The session's memory calls so far (capture: extraction, decisions, its summary), by day
        and model: what learning from it cost, shown beside the chat's cost."""
        if session is None:
            return []
        return [t for t in self.profile.usage(session_id=session.id) if t.purpose == "memory"]

    def end_session(self, session: Session | None) -> bool:
        """A conversation ends (REPL quit): what is left to capture goes to a detached process,
        so quitting never waits. True if one was started."""
        if not self.can_capture:
            return False
        from memchat.memory.capture.turns import pending_sessions, unsummarised

        left = session is not None and (
            session.id in pending_sessions(self.profile.db) or unsummarised(self.profile.db, session.id)
        )
        if not (left or self.capture_pending):
            return False
        self.capture_detached(session)
        return True

    def resume_capture(self) -> None:
        """Start a detached capture of sessions a dead process left uncaptured (at REPL start)."""
        from memchat.memory.capture.background import IDLE_MINUTES
        from memchat.memory.capture.turns import idle_sessions

        if not (self.profile.capture_on and self.profile.memory_provider.can_call_tools):
            return
        with self.profile.side_connection() as own:  # the warm-up thread: never the chat's connection
            idle = self.capture_agreed(own) and idle_sessions(own, IDLE_MINUTES)
        if idle:
            self.capture_detached(None)

    def after_turn(self, session: Session, result: TurnResult) -> None:
        """Count an answered turn; every memory.capture_every turns, capture in the background. (A turn
        said while learning is not agreed was marked so as it was stored: memchat.app.turn.)"""
        if result.status in ("ok", "incomplete", "interrupted") and result.reply_message is not None:
            self.profile.turns_since_capture += 1
            if self.profile.turns_since_capture >= self.profile.settings.get("memory.capture_every"):
                self.capture_in_background(session)

    def capture_in_background(self, session: Session | None, *, final: bool = False) -> None:
        """Hand a session's new turns to this process's capture thread (never waits)."""
        if self.can_capture and session is not None and (self.profile.turns_since_capture or final):
            self.worker.submit(session.id, final=final)
            self.profile.turns_since_capture = 0

    def capture_detached(self, session: Session | None) -> None:
        """Capture a finished session (and any idle one left uncaptured) in a detached process,
        so the command returns at once."""
        if self.can_capture:
            from memchat.memory.capture.background import spawn_capture

            env = self.profile.settings.flags_as_environment()
            if self._chosen:  # this chat's `/capture on` goes with it (what it may learn was marked as said)
                env["MEMCHAT_MEMORY_CAPTURE"] = "true"
            spawn_capture(
                self.profile.settings.db_path,
                session.id if session else None,
                config_path=self.profile.config_path,
                env=env,
            )

    @property
    def worker(self) -> CaptureWorker:
        if self._worker is None:
            from memchat.memory.capture.background import CaptureWorker

            self._worker = CaptureWorker(
                self.profile.settings.db_path, self.profile.settings, embedder=self.profile.embedder, on_idle=self._idle
            )
        return self._worker

    def _idle(self) -> None:
        self.profile.status_changed()  # "saving…" is over

    @property
    def capture_pending(self) -> int:
        return self._worker.pending if self._worker is not None else 0

    def wait_for_capture(self, timeout: float | None = None) -> bool:
        """Wait for background capture to finish (True), or the timeout to pass (False)."""
        return self._worker.drain(timeout) if self._worker is not None else True

    def capture_estimate(self, session_ids: list[int]) -> CaptureEstimate:
        """What capturing these sessions would cost: one call each to memory.model (none for a
        session with nothing worth keeping), its input about the text's tokens plus the prompt."""
        from memchat.context import eligible
        from memchat.memory.capture.turns import worth_capturing

        model = self.profile.settings.roles()[1].model or self.profile.settings.model
        estimate = CaptureEstimate(model)
        for sid in session_ids:
            history = [m for m in sessions.messages(self.profile.db, sid) if eligible(m)]
            if len(history) >= 1 and worth_capturing(history):
                estimate.calls += 1
                estimate.input_tokens += sum(len(m.content) for m in history) // 4 + PROMPT_TOKENS
        estimate.cost = usage.cost(
            model, estimate.input_tokens, estimate.calls * REPLY_TOKENS, self.profile.settings.prices
        )
        return estimate

    def check_can_capture(self) -> None:
        """Raise, saying why, when capture asked for now could not run: memory is off for this
        run (--no-memory), or the memory model cannot be called (no key, a provider without
        tools). Checked before an import, so a refusal leaves the profile as it was."""
        if not self.profile.use_memory:
            raise UsageError("memory is off for this run (--no-memory): nothing can be captured into it")
        self.profile.memory_provider.ready()
        if not self.profile.memory_provider.can_call_tools:
            raise UsageError(
                f"the {self.profile.memory_provider.name} provider cannot extract memories; use anthropic or openai"
            )

    def capture_imported(self, session_ids: list[int]) -> None:
        """Capture imported sessions into memory in a detached process (the command returns at
        once): asked for by the user, so it runs even with automatic capture turned off."""
        from memchat.importer import unmark_captured
        from memchat.memory.capture.background import spawn_capture

        self.check_can_capture()
        with immediate(self.profile.db):
            unmark_captured(self.profile.db.conn, session_ids)
        # These sessions only: not the idle chats a background run would add, which the profile's
        # answer (a no) may have kept from being learnt.
        spawn_capture(
            self.profile.settings.db_path,
            config_path=self.profile.config_path,
            env=self.profile.settings.flags_as_environment(),
            only=session_ids,
        )
