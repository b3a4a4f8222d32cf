"""One chat turn, end to end: the only module that wires storage, context and provider.

1. the user's message is committed (status 'unanswered' until a reply lands);
2. the context is compiled from the stored transcript;
3. the provider streams the reply through the on_text callback;
4. the reply is committed with its usage, and the user's message marked answered.
A failure or Ctrl-C keeps what arrived, marked, and the user's message is never lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat import sessions
from memchat.context import build_messages
from memchat.errors import ProviderError
from memchat.providers import ChatRequest, Provider, Reply, get_provider
from memchat.sessions import Message, Session

if TYPE_CHECKING:
    from sqlite_utils import Database

    from memchat.config import Settings


@dataclass
class TurnResult:
    session: Session
    user_message: Message
    reply_message: Message | None
    reply: Reply
    status: str  # ok | interrupted | incomplete | failed
    latency_ms: int
    error: ProviderError | None = None


class Engine:
    def __init__(self, db: Database, settings: Settings, provider: Provider | None = None) -> None:
        self.db = db
        self.settings = settings
        self._provider = provider

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = get_provider(self.settings.provider, self.settings)
        return self._provider

    def system_prompt(self, session: Session) -> str:
        return session.system or self.settings.system

    def send(self, session: Session, text: str, on_text: Callable[[str], None] | None = None) -> TurnResult:
        """Store the user's message, then get and store the reply."""
        user = sessions.add_message(self.db, session.id, "user", text, status="unanswered")
        return self.answer(session, user, on_text)

    def answer(self, session: Session, user: Message, on_text: Callable[[str], None] | None = None) -> TurnResult:
        """Call the model for a stored user message (also used by retry)."""
        history = sessions.messages(self.db, session.id)
        request = ChatRequest(
            model=self.settings.model,
            system=self.system_prompt(session),
            messages=build_messages(history, user),
            max_tokens=self.settings.max_tokens,
        )
        reply = Reply()
        started = time.monotonic()
        try:
            provider = self.provider
            for chunk in provider.stream(request, reply):
                if on_text:
                    on_text(chunk)
        except KeyboardInterrupt:
            return self._finish(session, user, reply, started, "interrupted", None)
        except ProviderError as exc:
            status = "incomplete" if reply.text else "failed"
            return self._finish(session, user, reply, started, status, exc)
        except Exception as exc:  # a NeedsKeyError or ConfigError before any text
            sessions.mark_unanswered(self.db, user.id, str(exc))
            raise
        return self._finish(session, user, reply, started, "ok", None)

    def _finish(self, session: Session, user: Message, reply: Reply, started: float, status: str,
                error: ProviderError | None) -> TurnResult:
        latency = int((time.monotonic() - started) * 1000)
        stored = sessions.record_reply(
            self.db, user.id, reply.text,
            status="ok" if status == "ok" else ("interrupted" if status == "interrupted" else "incomplete"),
            model=reply.model or self.settings.model,
            input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
            stop_reason=reply.stop_reason or (None if status == "ok" else status),
            latency_ms=latency, error=str(error) if error else None,
        )
        return TurnResult(sessions.get_session(self.db, session.id), sessions.get_message(self.db, user.id),
                          stored, reply, status, latency, error)
