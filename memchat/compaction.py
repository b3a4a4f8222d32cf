"""Compaction: older turns folded into a rolling, structured session summary by the model.

When the unsummarised history passes `history.compact_at` of its budget, the oldest turns
are summarised (user identity, project context, constraints in the user's exact words,
decisions, current state, open questions) and the summary replaces them in the system
prompt; about half the budget of recent turns stays verbatim. Without a model that can
summarise, or when the call fails, the turn trims instead and says so once per session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memchat import sessions, tokens
from memchat.context import compaction_slice, history_budget_for, needs_compaction, summary_block
from memchat.errors import MemchatError, ProviderError
from memchat.memory.judge.state import not_to_send, without_private
from memchat.providers import ChatRequest, Provider
from memchat.sessions import Message, Session
from memchat.text import fence, turns_block

if TYPE_CHECKING:
    from memchat.config import Settings
    from memchat.db import Database

Notice = Callable[[str], None]

SUMMARY_SYSTEM = "You write faithful, compact summaries of conversations. You never invent facts."
SUMMARY_PROMPT = """Update the running summary of the conversation below between a user and an assistant.
The summary replaces these turns in the assistant's memory, so keep everything needed to continue.

Write these sections, each a few short bullet points (write "none" if empty):
## User identity: names, roles, anything the user said about themselves.
## Project context: what the user is working on.
## Constraints: every rule or preference the user stated, quoted in the user's exact words (e.g. "NEVER suggest X").
## Decisions: what was decided, with the reasons.
## Current state: where things stand now.
## Open questions: what is unresolved.

Keep identifiers verbatim (names, numbers, claim or ticket ids, file paths, URLs). Fold the previous
summary in; drop nothing from it that still holds. At most {limit} tokens. End with the line
"(covers messages {first}-{last})".

<previous_summary>
{previous}
</previous_summary>

{transcript}"""


class Compactor:
    """Summarises a session's older turns through the provider."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        provider: Callable[[], Provider],
        system_prompt: Callable[[Session], str],
        factor: Callable[[], float],
    ) -> None:
        self.db = db
        self.settings = settings
        self._provider = provider
        self._system_prompt = system_prompt
        self._factor = factor
        self._told_no_summary: set[int] = set()

    @property
    def provider(self) -> Provider:
        return self._provider()

    def maybe_compact(
        self,
        session: Session,
        history: list[Message],
        current: Message | None,
        factor: float,
        on_notice: Notice | None,
        memory: str,
        force: bool = False,
    ) -> Session:
        fixed = tokens.count(self._system_prompt(session) + memory + summary_block(session.summary))
        budget = history_budget_for(
            window=self.settings.context_window,
            reserve=self.settings.max_tokens,
            fixed_tokens=int(fixed * factor) + self.settings.get("history.summary_tokens"),
        )
        over = needs_compaction(
            history,
            current,
            summary_through=session.summary_through_message_id,
            budget_tokens=budget,
            threshold_pct=self.settings.get("history.compact_at"),
            count=tokens.count,
            factor=factor,
        )
        if not (over or force):
            return session
        # Keep the newest turns in about half the budget, so compaction is not needed every turn.
        chunk = compaction_slice(
            history,
            current,
            summary_through=session.summary_through_message_id,
            keep_tokens=budget // 2 if not force else 0,
            count=tokens.count,
            factor=factor,
        )
        if not chunk:
            return session
        if not self.provider.can_summarise:
            self._no_summary(session, on_notice, f"the {self.provider.name} provider cannot summarise")
            return session
        if on_notice:
            on_notice(f"compacting {len(chunk)} older messages into the session summary…")
        try:
            summary = self.summarise(session, chunk)
        except MemchatError as exc:
            self._no_summary(session, on_notice, f"summarising failed ({exc.message})")
            return session
        return sessions.update_session(self.db, session.id, summary=summary, summary_through_message_id=chunk[-1].id)

    def _no_summary(self, session: Session, on_notice: Notice | None, why: str) -> None:
        if session.id not in self._told_no_summary and on_notice:
            on_notice(f"{why}: dropping the oldest turns instead")
        self._told_no_summary.add(session.id)

    def summarise(self, session: Session, chunk: list[Message]) -> str:
        numbers = {m.id: i for i, m in enumerate(sessions.messages(self.db, session.id), 1)}
        # What memory took back (forgotten, private) is not shown to the model that summarises
        kept_out = not_to_send(self.db, {m.id: m.content for m in chunk})
        shown = [(str(numbers.get(m.id, "?")), m.role, m.content) for m in chunk if m.id not in kept_out]
        transcript = turns_block("transcript", shown)
        limit = self.settings.get("history.summary_tokens")
        previous = without_private(self.db, session.summary)
        prompt = SUMMARY_PROMPT.format(
            limit=limit,
            previous=fence(previous) if previous else "(none yet)",
            transcript=transcript,
            first=1 if not session.summary else numbers.get(chunk[0].id, "?"),
            last=numbers.get(chunk[-1].id, "?"),
        )
        request = ChatRequest(
            model=self.settings.role("memory").model,
            system=SUMMARY_SYSTEM,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=int(limit * 1.5),
            purpose="summary",
            session_id=session.id,
        )
        reply = self.provider.complete(request)
        if not reply.text.strip():
            raise ProviderError("the model returned an empty summary")
        return reply.text.strip()

    def compact_now(self, session: Session, on_notice: Notice | None = None) -> Session:
        """/compact: fold everything but the last turn into the summary now."""
        session = sessions.get_session(self.db, session.id)  # a forget may have redacted it since
        history = sessions.messages(self.db, session.id)
        sessions.fill_token_counts(self.db, history)
        if not self.provider.can_summarise:
            raise MemchatError(f"the {self.provider.name} provider cannot summarise")
        live = [m for m in history if m.id > (session.summary_through_message_id or 0)]
        if len(live) < 2:
            raise MemchatError("nothing to compact yet")
        chunk = compaction_slice(
            history,
            None,
            summary_through=session.summary_through_message_id,
            keep_tokens=0,
            count=tokens.count,
            factor=self._factor(),
        )
        last_turn_start = max((m.id for m in live if m.role == "user"), default=None)
        chunk = [m for m in chunk if last_turn_start is None or m.id < last_turn_start]
        if not chunk:
            raise MemchatError("nothing to compact yet")
        if on_notice:
            on_notice(f"compacting {len(chunk)} messages…")
        summary = self.summarise(session, chunk)
        return sessions.update_session(self.db, session.id, summary=summary, summary_through_message_id=chunk[-1].id)
