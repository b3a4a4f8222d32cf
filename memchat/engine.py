"""One chat turn, end to end: the only module that wires storage, context and provider.

1. the user's message is committed (status 'unanswered' until a reply lands);
2. working memory is compiled to fit the window (compacting older turns if needed);
3. the provider streams the reply through the on_text callback;
4. the reply is committed with its usage, and the user's message marked answered;
   the real input-token count recalibrates the model's token estimate.
A failure or Ctrl-C keeps what arrived, marked, and the user's message is never lost.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memchat import sessions, tokens
from memchat.compaction import Compactor
from memchat.context import Compiled, compile_context
from memchat.errors import MemchatError, ProviderError, UsageError, check_size
from memchat.memory.judge.inject import Section
from memchat.providers import ChatRequest, Provider, Reply, ToolCall, get_provider
from memchat.sessions import Message, Session

if TYPE_CHECKING:
    from memchat.attachments import Attachment
    from memchat.config import Settings
    from memchat.db import Database

Notice = Callable[[str], None]
# The encoder for this turn's memory search, or None for full text only (e.g. while it loads).
EmbedderFor = Callable[[Notice | None], Any]
# "Remember that ...", "please remember: ...", "remember, ..." at the start of a message.
REMEMBER = re.compile(r"^\s*(?:please\s+)?remember(?:\s+that)?\s*[:,]?\s+(?P<text>\S.*)", re.IGNORECASE | re.DOTALL)
# "remember when we went to Paris?", "remember what Ana said?": a question about the past, not
# something to keep (and a request never ends with a question mark).
_ASKS = re.compile(r"^(?:when|what|where|who|whom|whose|which|why|how|if|whether)\b", re.IGNORECASE)


@dataclass
class TurnResult:
    session: Session
    user_message: Message
    reply_message: Message | None
    reply: Reply
    status: str  # ok | interrupted | incomplete | failed
    latency_ms: int
    error: ProviderError | None = None
    compiled: Compiled | None = None
    memory: Section | None = None
    remembered: int | None = None  # id of a memory stored from "remember that ..."
    notes: list[str] = field(default_factory=list)  # lines for the user after the reply (the model's searches...)


class Engine:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        provider: Provider | None = None,
        *,
        use_memory: bool = True,
        embedder: EmbedderFor | None = None,
        memory_provider: Callable[[], Provider] | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self._provider = provider
        # Compaction is memory work: the memory role's provider (the chat's own unless configured).
        self._memory_provider = memory_provider
        self.compactor = Compactor(db, settings, self.memory_provider, self.system_prompt, self.factor)
        self.use_memory = use_memory
        self._embedder = embedder or self._load_embedder
        self.remembered_existed = False

    def _load_embedder(self, on_notice: Notice | None = None) -> Any:
        from memchat.memory.recall.embed import configured

        return configured(self.settings, note=on_notice)

    # --- long-term memory -----------------------------------------------------------------
    def memory_section(self, session: Session, user: Message, on_notice: Notice | None = None) -> Section:
        """Retrieve and lay out what long-term memory says about this message."""
        from memchat.memory.judge import inject

        if not self.use_memory:
            return Section()
        from memchat.memory.recall.dates import message_date
        from memchat.memory.recall.index import ReindexNeeded

        previous = [m for m in sessions.messages(self.db, session.id) if m.id < user.id][-2:]
        query = inject.retrieval_query(user.content, previous)

        embedder = self._embedder(on_notice) if self._has_memory(session.id) else None

        def build(enc: Any) -> Section:
            return inject.build(
                self.db,
                query,
                embedder=enc,
                budget=self.settings.get("memory.budget"),
                count=tokens.count,
                session_id=session.id,
                factor=self.factor(),
                bar=self.settings.get("memory.relevance"),
                today=message_date(user.created_at),
            )

        try:
            return build(embedder)
        except ReindexNeeded as exc:
            # Vectors of another model: still answer, by full text, and say what fixes it.
            if on_notice:
                on_notice(f"{exc.message}; this message searched memory by full text only")
            return build(None)

    def _has_memory(self, session_id: int) -> bool:
        """Anything for the encoder to search: memories, or messages of other sessions."""
        from memchat.memory.store.memories import MemoryStore

        return MemoryStore(self.db).has_active() or sessions.has_other_messages(self.db, session_id)

    def remember(self, user: Message, typed: str | None = None) -> int | None:
        """Store "remember that ..." directly, as stated, in the user's words (`typed`: what they
        typed, when files were attached to it; a file's content is never an instruction)."""
        from memchat.memory.store.memories import MemoryStore

        said = user.content if typed is None else typed
        match = REMEMBER.match(said)
        if not (self.use_memory and match) or _ASKS.match(match.group("text")) or said.rstrip().endswith("?"):
            return None
        from memchat.memory.store.kinds import kind_of

        kind, text = kind_of(match.group("text"))
        text = text[:1].upper() + text[1:]  # "remember that my dentist..." -> "My dentist..."
        store = MemoryStore(self.db)
        memory = store.add(text, kind=kind, origin="stated", importance=0.8, source_message_ids=[user.id], actor="user")
        self.remembered_existed = store.last_add_existed
        return memory.id

    def _reconcile(self, memory_id: int) -> list[str]:
        """After the reply: does what the user asked to remember change something memory holds?
        ("the Heron milestone moved to June 3"). The memory model decides; the old value becomes
        the new one's history. Nothing when the model cannot call tools or the call fails."""
        from memchat.memory.capture import policy
        from memchat.memory.store.memories import MemoryStore

        store = MemoryStore(self.db)
        try:
            provider, model = self.memory_provider(), self.settings.role("memory").model
            if not provider.can_call_tools:
                return []
            old = policy.reconcile(
                store, store.get(memory_id), self._embedder(None), policy.model_decider(provider, model)
            )
        except MemchatError as exc:
            from memchat.log import get_logger

            get_logger().warning("could not check memory %s against older ones: %s", memory_id, exc.message)
            return []
        if old is None:
            return []
        return [
            f"memory {memory_id} replaces memory {old.id} ({old.text}), kept as history (memchat memories history {old.id})"
        ]

    def _kind(self, memory_id: int) -> str:
        from memchat.memory.store.memories import MemoryStore

        return MemoryStore(self.db).get(memory_id).kind

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = get_provider(self.settings.provider, self.settings)
        return self._provider

    def memory_provider(self) -> Provider:
        if self._memory_provider is not None:
            return self._memory_provider()
        name = self.settings.roles()[1].provider
        return self.provider if name == self.settings.provider else get_provider(name, self.settings)

    def system_prompt(self, session: Session) -> str:
        return session.system or self.settings.system

    # --- working memory -------------------------------------------------------------------
    def factor(self) -> float:
        return tokens.load_factor(self.db, self.settings.model)

    def compile(
        self,
        session: Session,
        current: Message | None,
        on_notice: Notice | None = None,
        *,
        allow_compaction: bool = True,
        memory: str = "",
    ) -> Compiled:
        """What the next call will send: compacts first when the strategy says so."""
        session = sessions.get_session(self.db, session.id)  # the caller's copy may predate a compaction
        history = sessions.messages(self.db, session.id)
        sessions.fill_token_counts(self.db, history)
        factor = self.factor()
        if allow_compaction and self.settings.get("history.strategy") == "compact":
            session = self.compactor.maybe_compact(session, history, current, factor, on_notice, memory)
        compiled = compile_context(
            history=history,
            current=current,
            system=self.system_prompt(session),
            summary=session.summary,
            summary_through=session.summary_through_message_id,
            memory=memory,
            window=self.settings.context_window,
            reserve=self.settings.max_tokens,
            strategy=self.settings.get("history.strategy"),
            window_turns=self.settings.get("history.window_turns"),
            count=tokens.count,
            factor=factor,
        )
        for text in compiled.notices:
            if on_notice:
                on_notice(text)
        return compiled

    def compact_now(self, session: Session, on_notice: Notice | None = None) -> Session:
        """/compact: fold everything but the last turn into the summary now."""
        return self.compactor.compact_now(session, on_notice)

    def preview(self, session: Session | None) -> Compiled:
        """What the next call would send, without compacting or calling anything.

        The memory section is the one the session's last call carried (what /why lists); before
        any call, the part every call carries (pinned memories and rules).
        """
        last = sessions.last_memory_sent(self.db, session.id) if session is not None and self.use_memory else None
        always = Section() if last is not None or not self.use_memory else self._always_sent()
        if session is None:
            compiled = compile_context(
                history=[],
                current=None,
                system=self.settings.system,
                summary=None,
                summary_through=None,
                memory=always.text,
                window=self.settings.context_window,
                reserve=self.settings.max_tokens,
                strategy=self.settings.get("history.strategy"),
                window_turns=self.settings.get("history.window_turns"),
                count=tokens.count,
                factor=self.factor(),
            )
        else:
            compiled = self.compile(session, None, allow_compaction=False, memory=always.text)
        if last is not None:
            compiled.budget.memory = int(last.get("tokens", 0))
            compiled.budget.memory_counts = dict(last.get("counts", {}))
            compiled.budget.memory_source = "the last call"
        elif self.use_memory:
            compiled.budget.memory_counts = always.counts()
            compiled.budget.memory_source = "every call (pinned and rules; a message adds what is relevant to it)"
        return compiled

    def _always_sent(self) -> Section:
        from memchat.memory.judge import inject

        return inject.build(
            self.db,
            "",
            embedder=None,
            budget=self.settings.get("memory.budget"),
            count=tokens.count,
            factor=self.factor(),
        )

    def history_rows(self, session: Session) -> list[tuple[int, Message, int, str]]:
        """(number, message, estimated tokens, disposition) for every message of the session."""
        from memchat.context import message_cost

        compiled = self.preview(session)
        factor = self.factor()
        return [
            (n, m, message_cost(m, tokens.count, factor), compiled.disposition.get(m.id, "sent"))
            for n, m in enumerate(sessions.messages(self.db, session.id), 1)
        ]

    # --- the turn -------------------------------------------------------------------------
    def send(
        self,
        session: Session,
        text: str,
        on_text: Callable[[str], None] | None = None,
        on_notice: Notice | None = None,
        attached: list[Attachment] | None = None,
    ) -> TurnResult:
        """Store the user's message (with what is attached), then get and store the reply."""
        images = [a for a in attached or [] if a.is_image]
        typed = text
        if attached:
            text = self._with_attachments(text, attached, images)
        check_size(text)
        user = sessions.add_message(self.db, session.id, "user", text, status="unanswered", tokens=tokens.count(text))
        remembered = self.remember(user, typed)  # what was typed: "remember that" is said, not attached
        if remembered and on_notice:
            said = "already remembered" if self.remembered_existed else "remembered"
            on_notice(f"{said} (memory {remembered}{', a rule' if self._kind(remembered) == 'rule' else ''})")
        result = self.answer(session, user, on_text, on_notice, images=images)
        result.remembered = remembered
        if remembered and not self.remembered_existed and result.status == "ok":
            result.notes += self._reconcile(remembered)
        written = [user.id] + ([result.reply_message.id] if result.reply_message else [])
        self.index_written(written, [remembered] if remembered else [])
        return result

    def _with_attachments(self, text: str, attached: list[Attachment], images: list[Attachment]) -> str:
        """The message with its files, refused in one line (before anything is stored) when the
        provider cannot see images or the whole would not fit the window beside the reply."""
        from memchat.attachments import IMAGE_TOKENS, with_attachments

        if images and not self.provider.can_see_images:
            raise UsageError(
                f"the {self.provider.name} provider cannot take images ({', '.join(a.name for a in images)}): "
                "attach text files only, or use --provider anthropic"
            )
        whole = check_size(with_attachments(text, attached), "the message with its attachments")
        need = int(tokens.count(whole) * self.factor()) + IMAGE_TOKENS * len(images)
        room = self.settings.context_window - self.settings.max_tokens
        if need > room:
            raise UsageError(
                f"the message with its attachments is about {need:,} tokens; {self.settings.model}'s window of "
                f"{self.settings.context_window:,} holds {room:,} beside the {self.settings.max_tokens:,} kept for "
                "the reply: attach less, or a part of the file"
            )
        return whole

    def index_written(self, message_ids: list[int], memory_ids: list[int]) -> None:
        """After the reply, embed what the turn stored (and a small backlog other processes left),
        so that no search has to do it while someone waits. Only with the encoder loaded."""
        from memchat.memory.recall.embed import is_loaded

        if not self.use_memory or not is_loaded(self.settings.get("memory.embedding_model")):
            return
        from memchat.memory.recall import index
        from memchat.memory.recall.search import CATCH_UP

        embedder = self._embedder(None)
        try:
            index.embed_messages(self.db, embedder, message_ids, memory_ids=memory_ids)
            index.catch_up(self.db, embedder, limit=CATCH_UP)
        except MemchatError as exc:  # a full disk or a long lock: the next catch-up does it
            from memchat.log import get_logger

            get_logger().warning("could not embed the turn's messages: %s", exc.message)

    def answer(
        self,
        session: Session,
        user: Message,
        on_text: Callable[[str], None] | None = None,
        on_notice: Notice | None = None,
        *,
        images: list[Attachment] | None = None,
    ) -> TurnResult:
        """Call the model for a stored user message (also used by retry); images go with it, this call only."""
        try:
            provider = self.provider
            section = self.memory_section(session, user, on_notice)
            compiled = self.compile(session, user, on_notice, memory=section.text)
        except MemchatError as exc:
            sessions.mark_unanswered(self.db, user.id, exc.message)
            raise
        session = sessions.get_session(self.db, session.id)
        if section.items:  # what memory this call carries: ids and reasons (never text), for /why and /context
            sessions.set_memory_sent(self.db, user.id, section.summary())
        request = ChatRequest(
            model=self.settings.model,
            system=compiled.system,
            messages=_with_images(compiled.messages, images) if images else compiled.messages,
            max_tokens=self.settings.max_tokens,
            session_id=session.id,
        )
        request.tools = self._chat_tools(provider, session.id)
        reply = Reply()
        started = time.monotonic()
        searches: list[str] = []
        try:
            rounds = self._converse(provider, request, reply, section, searches, on_text)
        except KeyboardInterrupt:
            return self._finish(session, user, reply, started, "interrupted", None, compiled, section)
        except ProviderError as exc:
            status = "incomplete" if reply.text else "failed"
            return self._finish(session, user, reply, started, status, exc, compiled, section)
        except Exception as exc:  # a NeedsKeyError or ConfigError before any text
            sessions.mark_unanswered(self.db, user.id, str(exc))
            raise
        if searches:  # the model's own searches went with the call too: /why and /context list them
            sessions.set_memory_sent(self.db, user.id, section.summary())
        if reply.input_tokens and provider.real_usage and rounds == 1:  # the estimate was of one call
            tokens.record_usage(self.db, self.settings.model, compiled.estimate, reply.input_tokens)
        if section.memory_ids:
            from memchat.memory.store.memories import MemoryStore

            MemoryStore(self.db).mark_used(section.memory_ids)
        result = self._finish(session, user, reply, started, "ok", None, compiled)
        result.memory = section
        result.notes = searches
        return result

    # --- the model's own memory search ------------------------------------------------------
    def _chat_tools(self, provider: Provider, session_id: int) -> list[dict[str, Any]] | None:
        """The recall tool, when the model can call tools and there is a memory to search."""
        from memchat.memory.recall import tool

        wanted = (
            self.use_memory
            and provider.capabilities(self.settings.model).tools
            and self.settings.get("memory.recall_tool")
        )
        return [tool.TOOL] if wanted and self._has_memory(session_id) else None

    def _converse(
        self,
        provider: Provider,
        request: ChatRequest,
        reply: Reply,
        section: Section,
        searches: list[str],
        on_text: Callable[[str], None] | None,
    ) -> int:
        """Stream the reply into `reply`, answering the model's recall calls in between: at most
        tool.MAX_SEARCHES searches, then one last call that must answer in text. The text of every
        round is the reply; usage is their sum. Returns the number of calls made."""
        from memchat.memory.recall import tool

        rounds = 0
        while True:
            rounds += 1
            part = Reply()
            try:
                for chunk in provider.stream(request, part):
                    if reply.text and part.text == chunk and not reply.text.endswith("\n"):
                        chunk = "\n\n" + chunk  # a round's first text starts a new paragraph
                    reply.text += chunk
                    if on_text:
                        on_text(chunk)
            finally:
                _add_up(reply, part)
            if part.stop_reason != "tool_use" or not part.tool_calls:
                return rounds
            if request.tool_choice == "none":  # told to answer in text, it asked for tools again
                if reply.text.strip():
                    return rounds
                raise ProviderError("the model kept asking to search memory and gave no answer; /retry asks again")
            results = [self._tool_result(call, section, searches, request.session_id) for call in part.tool_calls]
            request.messages = [*request.messages, _assistant_turn(part), {"role": "user", "content": results}]
            if len(searches) >= tool.MAX_SEARCHES or rounds > tool.MAX_SEARCHES:
                request.tool_choice = "none"

    def _tool_result(self, call: ToolCall, section: Section, searches: list[str], session_id: int | None) -> dict:
        """Run one recall call (or refuse it past the bound) and record what it found in the section."""
        from memchat.memory.judge.inject import Item
        from memchat.memory.recall import tool

        query = tool.query_of(call.input)
        if call.name != tool.NAME or call.error or not query or len(searches) >= tool.MAX_SEARCHES:
            if call.name != tool.NAME:
                why = f"unknown tool call {call.name!r}"
            elif call.error or not query:
                why = 'the arguments were not read: call recall with {"query": "a few words"}'
            else:
                why = tool.NO_MORE
            return {"type": "tool_result", "tool_use_id": call.id, "content": why, "is_error": True}
        hits = tool.search(
            self.db, query, self._embedder(None), session_id=session_id, floor=self.settings.get("recall.weak")
        )
        searches.append(f"the model searched memory for {query!r}: {len(hits) or 'nothing'} found")
        known = {("memory", i.memory_id) for i in section.items} | {("message", i.message_id) for i in section.items}
        for h in hits:
            if (h.type, h.id) in known:  # sent already: /why lists it once
                continue
            section.items.append(
                Item(
                    "searched",
                    h.text,
                    f"searched {query!r} {h.score:.2f}",
                    kind=h.kind if h.type == "memory" else "message",
                    memory_id=h.id if h.type == "memory" else None,
                    message_id=h.id if h.type == "message" else None,
                    session_id=h.session_id,
                    score=h.score,
                )
            )
        return {"type": "tool_result", "tool_use_id": call.id, "content": tool.result_text(query, hits)}

    def _finish(
        self,
        session: Session,
        user: Message,
        reply: Reply,
        started: float,
        status: str,
        error: ProviderError | None,
        compiled: Compiled,
        section: Section | None = None,
    ) -> TurnResult:
        latency = int((time.monotonic() - started) * 1000)
        stored = sessions.record_reply(
            self.db,
            user.id,
            reply.text,
            status="ok" if status == "ok" else ("interrupted" if status == "interrupted" else "incomplete"),
            model=reply.model or self.provider.model_name(self.settings.model),
            tokens=tokens.count(reply.text) if reply.text else None,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            stop_reason=reply.stop_reason or (None if status == "ok" else status),
            latency_ms=latency,
            error=str(error) if error else None,
        )
        return TurnResult(
            sessions.get_session(self.db, session.id),
            sessions.get_message(self.db, user.id),
            stored,
            reply,
            status,
            latency,
            error,
            compiled,
            section,
        )


def _add_up(total: Reply, part: Reply) -> None:
    """Fold one call of a turn into the turn's reply: its model, stop, tool calls and usage."""
    total.model = part.model or total.model
    total.stop_reason = part.stop_reason
    total.tool_calls = part.tool_calls
    if part.input_tokens is not None:
        total.input_tokens = (total.input_tokens or 0) + part.input_tokens
    if part.output_tokens is not None:
        total.output_tokens = (total.output_tokens or 0) + part.output_tokens


def _assistant_turn(part: Reply) -> dict[str, Any]:
    """The model's turn that asked for tools, as the next call must repeat it."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": part.text}] if part.text.strip() else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in part.tool_calls]
    return {"role": "assistant", "content": blocks}


def _with_images(messages: list[dict[str, Any]], images: list[Attachment]) -> list[dict[str, Any]]:
    """The messages with the images put before the text of the last one (the message they came with)."""
    *before, last = messages
    text = last["content"]
    blocks = text if isinstance(text, list) else [{"type": "text", "text": text}]
    return [*before, {**last, "content": [*(a.block() for a in images), *blocks]}]
