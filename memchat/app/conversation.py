"""The conversation's use cases: which session, send, retry, undo, pins, compaction, previews."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memchat import sessions, tokens, when
from memchat.app.profile import Notice, Profile, where_to
from memchat.db import immediate
from memchat.errors import MemchatError, NotFoundError, UsageError, parse_id_spans
from memchat.log import get_logger
from memchat.text import id_ranges
from memchat.usage import cost

if TYPE_CHECKING:
    from memchat.app.turn import TurnResult
    from memchat.attachments import Attachment
    from memchat.context import Compiled
    from memchat.memory.forget.erase import Forgotten
    from memchat.sessions import Exchange, Message, Session


class Conversation:
    """Sessions and turns."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def start_session(
        self,
        *,
        session_id: str | int | None = None,
        continue_: bool = False,
        system: str | None = None,
        create: bool = True,
    ) -> Session | None:
        """The session a conversation goes to: a given one, the latest, or a new one (create)."""
        if session_id is not None and continue_:
            raise UsageError("use either --session or --continue, not both")
        if session_id is not None:
            session: Session | None = sessions.get_session(self.profile.db, session_id)
        elif continue_:
            session = sessions.latest_session(self.profile.db)
            if session is None:
                raise UsageError("there is no session to continue yet")
        elif create:
            session = self.new_session(system=system)
        else:
            return None
        if session is not None and system and session.system != system:
            session = sessions.update_session(self.profile.db, session.id, system=system)
        return self.enter(session) if session is not None else None

    def new_session(self, system: str | None = None) -> Session:
        return sessions.create_session(
            self.profile.db,
            model=self.profile.provider.model_name(self.profile.settings.model),
            system=system,
            memory_off=not self.profile.use_memory,
        )

    def still_there(self, session: Session) -> bool:
        """Whether a session is still in the profile (`sessions delete` in another terminal removes it
        under a running chat)."""
        row = self.profile.db.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session.id,)).fetchone()
        return row is not None

    def discard_if_empty(self, session: Session) -> bool:
        """Remove a session this run created when a turn failed before storing anything in it (a
        full disk, Ctrl-C, a tokenizer that cannot load): a failed ask leaves no empty session.
        A session that holds a message (your words, kept unanswered) stays. True if removed."""

        try:
            with immediate(self.profile.db):
                gone = self.profile.db.conn.execute(
                    "DELETE FROM sessions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = ?)",
                    (session.id, session.id),
                ).rowcount
        except Exception as exc:  # noqa: BLE001 - on the way out of a failure: never hide that one
            get_logger().warning("could not remove empty session %s: %s", session.id, type(exc).__name__)
            return False
        return bool(gone)

    def enter(self, session: Session) -> Session:
        """Continue a session: one run with --no-memory keeps it out of long-term memory for good,
        and a session kept out turns memory off for this run."""
        if not self.profile.use_memory and not session.memory_off:
            return sessions.turn_memory_off(self.profile.db, session.id)
        if session.memory_off and self.profile.use_memory:
            self.profile.memory_off()
        return session

    def session(self, session_id: str | int) -> Session:
        return sessions.get_session(self.profile.db, session_id)

    def latest_session(self) -> Session | None:
        return sessions.latest_session(self.profile.db)

    def list_sessions(self, limit: int | None = 20) -> list[Session]:
        return sessions.list_sessions(self.profile.db, limit=limit)

    def exchanges(self, *, limit: int | None = 3, since: str | None = None, query: str | None = None) -> list[Exchange]:
        """The last exchanges across sessions, oldest first, each priced from the price table
        (`memchat log`); since: 7d, today, 2026-11-01 ..."""

        found = sessions.exchanges(
            self.profile.db, limit=limit, since=when.since(since) if since is not None else None, query=query
        )
        for e in found:
            if e.model and (e.input_tokens or e.output_tokens):
                e.cost_usd = cost(e.model, e.input_tokens or 0, e.output_tokens or 0, self.profile.settings.prices)
        return found

    def messages(self, session: Session) -> list[Message]:
        return sessions.messages(self.profile.db, session.id)

    def rename_session(self, session_id: str | int, title: str) -> Session:
        return sessions.rename_session(self.profile.db, session_id, title)

    def set_system(self, session: Session, text: str) -> Session:
        return sessions.update_session(self.profile.db, session.id, system=text)

    def system_prompt(self, session: Session | None) -> str:
        return (session.system if session else None) or self.profile.settings.system

    def sessions_named(self, specs: list[str]) -> list[Session]:
        """The sessions that ids and ranges name ("3", "7-9"), by id, each once. An unknown id, or a
        range with no session in it, is an error before anything is done (a typo deletes nothing)."""

        found: dict[int, Session] = {}
        for first, last in parse_id_spans(specs, "session"):
            if first == last:
                s = sessions.get_session(self.profile.db, first)
                found[s.id] = s
                continue
            within = sessions.sessions_between(self.profile.db, first, last)
            if not within:
                raise NotFoundError(f"no session in {first}-{last} (see `memchat sessions list`)")
            found.update((s.id, s) for s in within)
        return [found[i] for i in sorted(found)]

    def sessions_without_reply(self) -> list[Session]:
        """Sessions with no exchange (no reply that stands), as failed `ask`s leave them."""
        return sessions.sessions_without_reply(self.profile.db)

    def delete_sessions(self, session_ids: list[int]) -> Forgotten:
        """Delete sessions and everything drawn only from them, scrubbed like forget (one scrub for
        all of them); the input history loses the lines typed in them."""
        from memchat import history
        from memchat.memory.forget.erase import delete_sessions

        doomed = [sessions.get_session(self.profile.db, i) for i in dict.fromkeys(session_ids)]
        typed: set[str] = set()
        for session in doomed:
            typed |= self._typed_in(session)
        # the input history first: a kill or a full disk after it leaves nothing typed behind
        history.scrub(self.profile.history_to_scrub, lambda line: history.was_typed(line, typed))
        ids = [s.id for s in doomed]
        done = delete_sessions(self.profile.db, ids)
        which: dict[str, object] = {"session": ids[0]} if len(ids) == 1 else {"sessions": id_ranges(ids)}
        self.profile.record("delete session", {**which, "memories forgotten": len(done.ids)})
        return done

    def _typed_in(self, session: Session) -> set[str]:
        """What the user typed in a session (and the /title, /system and /attach lines that went
        with it): a message with files attached was typed as its prompt alone."""
        from memchat import history

        asked = [
            m.content for m in sessions.messages(self.profile.db, session.id, include_undone=True) if m.role == "user"
        ]
        return history.typed_lines(asked) | {
            f"/{command} {said.strip()}"
            for command, said in (("title", session.title), ("system", session.system))
            if said
        }

    def export_session(
        self,
        session_id: str | int,
        fmt: str = "md",
        *,
        around: str | int | None = None,
        context: int = 3,
        to: str | None = None,
    ) -> str:
        """A session as Markdown or memchat's JSON; `to` (where it is written) puts the export in
        the audit trail (showing it on the terminal does not)."""
        text = sessions.export_session(self.profile.db, session_id, fmt, around=around, context=context)
        if to is not None:
            self.profile.record("export session", {"session": int(str(session_id)), "format": fmt, "to": where_to(to)})
        return text

    def pin_message(self, session: Session, number: str | int | None, pinned: bool) -> Message:
        """Pin (or unpin) a message of the session by its id; by default your last message
        (pinning) or the last pinned one (unpinning)."""
        if number:
            message = sessions.message_in(self.profile.db, session.id, number)
        else:
            msgs = sessions.messages(self.profile.db, session.id)
            if pinned:
                found = next((m for m in reversed(msgs) if m.role == "user"), None)
                if found is None:
                    raise MemchatError("no message of yours to pin yet")
            else:
                found = next((m for m in reversed(msgs) if m.pinned), None)
                if found is None:
                    raise MemchatError("no pinned message")
            message = found
        return sessions.set_pinned(self.profile.db, message.id, pinned)

    # --- the conversation ---------------------------------------------------------------------
    def send(
        self,
        session: Session,
        text: str,
        on_text: Callable[[str], None] | None = None,
        on_notice: Notice | None = None,
        attached: list[Attachment] | None = None,
    ) -> TurnResult:
        """Store the message (with the files attached, see memchat.attachments), then stream and store the reply."""
        from memchat.app import turn

        return turn.send(self.profile, session, text, on_text, on_notice, attached)

    def retry(
        self, session: Session, on_text: Callable[[str], None] | None = None, on_notice: Notice | None = None
    ) -> TurnResult:
        """Resend the last unanswered message, or regenerate an interrupted or incomplete reply."""
        msgs = sessions.messages(self.profile.db, session.id)
        if not msgs:
            raise MemchatError("nothing to retry")
        last = msgs[-1]
        if last.role == "assistant" and last.status in ("interrupted", "incomplete"):
            sessions.set_status(self.profile.db, [last.id], "undone")
            user = next(m for m in reversed(msgs[:-1]) if m.role == "user")
        elif last.role == "user":
            user = last
        else:
            raise MemchatError("nothing to retry: the last reply is complete (use /undo, then ask again)")
        if on_notice:
            on_notice(f"retrying: {sessions.title_from(user.content)}")
        from memchat.app import turn

        return turn.answer(self.profile, session, user, on_text, on_notice)

    def undo(self, session: Session) -> list[Message]:
        """Drop the last exchange from the conversation (kept in the database, marked undone)."""
        msgs = sessions.messages(self.profile.db, session.id)
        if not msgs:
            raise MemchatError("nothing to undo")
        drop = [msgs[-1]]
        if msgs[-1].role == "assistant" and len(msgs) > 1 and msgs[-2].role == "user":
            drop.insert(0, msgs[-2])
        sessions.set_status(self.profile.db, [m.id for m in drop], "undone")
        return drop

    def last_reply(self, session: Session | None) -> str:
        if session is None:
            return ""
        for m in reversed(sessions.messages(self.profile.db, session.id)):
            if m.role == "assistant":
                return m.content
        return ""

    def compact(self, session: Session, on_notice: Notice | None = None) -> Session:
        """/compact: fold everything but the last turn into the summary now."""
        return self.profile.compactor.compact_now(session, on_notice)

    def preview(self, session: Session | None) -> Compiled:
        """What the next call of this session would send (budget, dispositions), without compacting
        or calling anything.

        The memory section is the one the session's last call carried (what /why lists); before
        any call, the part every call carries (pinned memories and rules).
        """
        from memchat.app.turn import compile_call
        from memchat.memory.judge import inject

        profile = self.profile
        db, settings, use_memory = profile.db, profile.settings, profile.use_memory
        factor = tokens.load_factor(db, settings.model)
        last = sessions.last_memory_sent(db, session.id) if session is not None and use_memory else None
        always = inject.Section()
        if last is None and use_memory:
            always = inject.build(
                db, "", embedder=None, budget=settings.get("memory.budget"), count=tokens.count, factor=factor
            )
        if session is None:
            session = sessions.Session(id=0, title=None, created_at="", updated_at="")  # none yet: nothing of its own
            history: list[Message] = []
        else:
            session = sessions.get_session(db, session.id)
            history = sessions.messages(db, session.id)
        _, compiled = compile_call(profile, session, history, None, factor, allow_compaction=False, memory=always.text)
        if last is not None:
            compiled.budget.memory = int(last.get("tokens", 0))
            compiled.budget.memory_counts = dict(last.get("counts", {}))
            compiled.budget.memory_source = "the last call"
        elif use_memory:
            compiled.budget.memory_counts = always.counts()
            compiled.budget.memory_source = "every call (pinned and rules; a message adds what is relevant to it)"
        return compiled

    def history_rows(self, session: Session) -> list[tuple[int, Message, int, str]]:
        """(number, message, estimated tokens, disposition) for every message of the session."""
        from memchat.context import message_cost

        compiled = self.preview(session)
        factor = tokens.load_factor(self.profile.db, self.profile.settings.model)
        return [
            (n, m, message_cost(m, tokens.count, factor), compiled.disposition.get(m.id, "sent"))
            for n, m in enumerate(sessions.messages(self.profile.db, session.id), 1)
        ]
