"""One chat turn, top to bottom: `send` stores the message, `answer` gets and stores the reply.

1. the user's message is committed (status 'unanswered' until a reply lands), before anything
   can fail, and "remember that ..." is kept as the user said it;
2. the inputs are gathered once: the session, its history, the token factor, whether there is a
   memory to search, and the memory section (the message plus the last turn as the query);
3. working memory is compiled to fit the window (compacting older turns if needed);
4. the provider streams the reply through the shell's `on_text` callback, answering the model's
   recall calls in between;
5. the reply is committed once, with what went with it: the memory the call carried (for /why),
   the memories' use counts and the token estimate's calibration;
6. what the turn wrote is embedded (Profile.embed_written), so no search has to.
A failure or Ctrl-C keeps what arrived, marked, and the user's message is never lost. Every
decision about the profile (provider, encoder, whether memory is on) is the Profile's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from memchat import sessions, tokens
from memchat.app.memories import unsent_note
from memchat.app.profile import Notice, Profile
from memchat.attachments import IMAGE_TOKENS, with_attachments
from memchat.context import Compiled, compile_context
from memchat.db import immediate
from memchat.errors import MemchatError, ProviderError, StoreError, UnsavedMessageError, UsageError, check_size
from memchat.log import get_logger
from memchat.memory.capture import policy
from memchat.memory.capture.turns import said_under_no
from memchat.memory.judge import inject, sensitive
from memchat.memory.judge.inject import Item, Section
from memchat.memory.judge.state import not_to_send, without_private
from memchat.memory.recall import index, tool
from memchat.memory.recall.dates import message_date
from memchat.memory.recall.index import ReindexNeeded
from memchat.memory.recall.search import CATCH_UP
from memchat.memory.store.kinds import kind_of
from memchat.memory.store.memories import Memory
from memchat.patterns import pattern
from memchat.providers import ChatRequest, Provider, Reply, ToolCall
from memchat.sessions import Message, Session
from memchat.text import REDACTED, may_hold_key, redact_secrets

if TYPE_CHECKING:
    from memchat.attachments import Attachment

OnText = Callable[[str], None]
# "Remember that ...", "please remember: ...", "remember, ..." at the start of a message.
REMEMBER = pattern(r"^\s*(?:please\s+)?remember(?:\s+that)?\s*[:,]?\s+(?P<text>\S.*)", re.IGNORECASE | re.DOTALL)
# "remember when we went to Paris?", "remember what Ana said?": a question about the past, not
# something to keep (and a request never ends with a question mark).
_ASKS = pattern(r"^(?:when|what|where|who|whom|whose|which|why|how|if|whether)\b", re.IGNORECASE)
# "remember that time my sister visited", "remember the night we met": a moment recalled, not a fact
# to keep. "Remember the day the bins go out is Tuesday" states one: it has a verb of its own.
_MOMENT = pattern(
    r"^(?i:(?:the|that|this|our)\s+)?(?i:times?|days?|night|evening|morning|afternoon|weekend|week|summer|"
    r"winter|spring|autumn|holiday|trip|party|wedding)\s+(?i:when\s+|that\s+)?"
    r"(?:(?i:I|we|you|he|she|it|they|my|our|his|her|their|mum|mom|dad)|\p{Lu}[\w'’-]*)\b"
)
# Says something, or names when: "the day Ana starts school: 4 September", "the week we'll be away".
_STATES = pattern(r"\b(?:is|are|isn't|aren't|will|won't|going\s+to)\b|['’]ll\b|\d", re.IGNORECASE)


def recalls_a_moment(text: str) -> bool:
    """What follows "remember (that)" names a moment of the past rather than saying something to
    keep: "that time my sister visited", "the summer we spent in Crete"."""
    return _MOMENT.match(text) is not None and _STATES.search(text) is None


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


@dataclass
class _Inputs:
    """What one call is built from, read once."""

    session: Session
    history: list[Message]
    factor: float
    searchable: bool  # memory is on and there is something to search
    section: Section
    compiled: Compiled


def send(
    profile: Profile,
    session: Session,
    text: str,
    on_text: OnText | None = None,
    on_notice: Notice | None = None,
    attached: list[Attachment] | None = None,
) -> TurnResult:
    """Store the user's message (with what is attached), then get and store the reply."""
    images = [a for a in attached or [] if a.is_image]
    message = _with_attachments(profile, text, attached, images) if attached else text
    check_size(message)
    if "\x00" in message:  # SQLite and every reader would cut the text there: said, not stored cut
        raise UsageError(
            "the message contains a NUL character (binary data?): remove it first, e.g. with tr -d '\\000'"
        )
    if may_hold_key(message) and (cleaned := redact_secrets(message)) != message:
        # a pasted key never reaches the disk nor a model: memchat keeps keys in the keyring alone
        message, text = cleaned, redact_secrets(text)
        if on_notice:
            on_notice(f"an API key in your message was replaced with {REDACTED} before it was saved or sent")
    try:
        unlearnt = not profile.learning_agreed()
        # said under no (never learnt, not by a later yes) is stored with the words, and with the reply
        # in _commit: no crash, Ctrl-C or full disk leaves a turn stored and unmarked
        with immediate(profile.db):
            user = sessions.add_message(
                profile.db, session.id, "user", message, status="unanswered", tokens=tokens.count(message)
            )
            if unlearnt:
                said_under_no(profile.db, session.id, user.id)
    except StoreError as exc:  # locked, read-only, a full disk: the shells keep the words and say so
        raise UnsavedMessageError(exc) from None
    remembered, existed = _remember(profile, user, text)  # what was typed: "remember that" is said, not attached
    if remembered is not None and on_notice:
        said = "already remembered" if existed else "remembered"
        on_notice(f"{said} (memory {remembered.id}{', a rule' if remembered.kind == 'rule' else ''})")
        if note := unsent_note(remembered):
            on_notice(note)
    result = answer(profile, session, user, on_text, on_notice, images=images)
    memory_ids = [remembered.id] if remembered is not None else []
    result.remembered = remembered.id if remembered is not None else None
    if remembered is not None and not existed and result.status == "ok":
        result.notes += _reconcile(profile, remembered)
    written = [user.id] + ([result.reply_message.id] if result.reply_message else [])
    profile.embed_written(memory_ids, written, after_turn=True)
    return result


def answer(
    profile: Profile,
    session: Session,
    user: Message,
    on_text: OnText | None = None,
    on_notice: Notice | None = None,
    *,
    images: list[Attachment] | None = None,
) -> TurnResult:
    """Call the model for a stored user message (also used by retry); images go with it, this call only."""
    try:
        provider = profile.provider
        inputs = _gather(profile, session, user, on_notice)
    except MemchatError as exc:
        sessions.mark_unanswered(profile.db, user.id, exc.message)
        raise
    request = ChatRequest(
        model=profile.settings.model,
        system=inputs.compiled.system,
        messages=_with_images(inputs.compiled.messages, images) if images else inputs.compiled.messages,
        max_tokens=profile.settings.max_tokens,
        session_id=inputs.session.id,
    )
    request.tools = _chat_tools(profile, provider, inputs.searchable)
    reply = Reply()
    started = time.monotonic()
    searches: list[str] = []
    rounds = 0
    status, error = "ok", None
    try:
        rounds = _converse(profile, provider, request, reply, inputs.section, searches, on_text)
    except KeyboardInterrupt:
        status = "interrupted"
    except ProviderError as exc:
        status, error = ("incomplete" if reply.text else "failed"), exc
    except Exception as exc:  # a NeedsKeyError or ConfigError before any text
        sessions.mark_unanswered(profile.db, user.id, str(exc))
        raise
    calibrate = status == "ok" and bool(reply.input_tokens) and provider.real_usage and rounds == 1
    result = _commit(profile, inputs, user, reply, started, status, error, calibrate=calibrate, searched=bool(searches))
    if status == "ok":
        result.notes = searches
    return result


def _gather(profile: Profile, session: Session, user: Message, on_notice: Notice | None) -> _Inputs:
    """The session, its history, the memory section and the compiled call, each read once."""
    db, settings = profile.db, profile.settings
    session = sessions.get_session(db, session.id)  # the caller's copy may predate a compaction
    history = sessions.messages(db, session.id)
    factor = tokens.load_factor(db, settings.model)
    searchable = profile.use_memory and _has_memory(profile, session.id)
    section = _memory_section(profile, session, user, history, factor, searchable, on_notice)
    session, compiled = compile_call(profile, session, history, user, factor, on_notice, memory=section.text)
    return _Inputs(session, history, factor, searchable, section, compiled)


def _has_memory(profile: Profile, session_id: int) -> bool:
    """Anything for the encoder to search: memories, or messages of other sessions."""
    return profile.store.has_active() or sessions.has_other_messages(profile.db, session_id)


def memory_section(profile: Profile, session: Session, user: Message, on_notice: Notice | None = None) -> Section:
    """What long-term memory would put in the call for a stored message, its inputs read here
    (benchmarks and evaluations; a turn reads them once for everything it does)."""
    db = profile.db
    searchable = profile.use_memory and _has_memory(profile, session.id)
    history = sessions.messages(db, session.id)
    factor = tokens.load_factor(db, profile.settings.model)
    return _memory_section(profile, session, user, history, factor, searchable, on_notice)


# Memories without a vector that a turn embeds before it searches (~3 ms each here: 2,000 is
# seconds, once); more wait for `memchat reindex`, and the turn says so.
MEMORY_BACKLOG = 2_000


def _embed_unembedded_memories(profile: Profile, embedder: Any, on_notice: Notice | None) -> None:
    """Memories stored before the encoder was ever prepared (a script's `memories add` or a
    `memories import` on a new machine) have no vector: the profile card and search by meaning
    cannot see them, so a turn embeds them first: all of them, up to MEMORY_BACKLOG (memory
    judgement cannot see sends nothing). Writers embed what they store, so this is usually one
    index lookup."""

    def starting(n: int) -> None:
        if n > CATCH_UP and on_notice:
            on_notice(f"embedding {n:,} memories stored before the encoder was ready (once)…")

    try:
        waiting = index.catch_up_memories(profile.db, embedder, limit=MEMORY_BACKLOG, starting=starting)
    except ReindexNeeded:
        return  # vectors of another model: inject.build says so and searches by full text
    except MemchatError as exc:  # a full disk or a long lock: this turn searches what has vectors
        get_logger().warning("could not embed the memories that wait: %s", exc.message)
        return
    if waiting < 0:
        profile.tell_once(
            on_notice,
            f"{-waiting:,} memories have no vector yet, so only their words were searched and none is on "
            "your profile card: `memchat reindex` embeds them",
        )


def _memory_section(
    profile: Profile,
    session: Session,
    user: Message,
    history: list[Message],
    factor: float,
    searchable: bool,
    on_notice: Notice | None,
) -> Section:
    """Retrieve and lay out what long-term memory says about this message (nothing with memory off)."""
    if not profile.use_memory:
        return Section()
    previous = [m for m in history if m.id < user.id][-2:]  # the last turn is part of the query
    query = inject.retrieval_query(user.content, previous)
    embedder = profile.turn_embedder(on_notice) if searchable else None
    if embedder is not None:
        _embed_unembedded_memories(profile, embedder, on_notice)

    def build(encoder: Any) -> Section:
        return inject.build(
            profile.db,
            query,
            embedder=encoder,
            budget=profile.settings.get("memory.budget"),
            count=tokens.count,
            session_id=session.id,
            factor=factor,
            bar=profile.settings.get("memory.relevance"),
            today=message_date(user.created_at),
        )

    try:
        return build(embedder)
    except ReindexNeeded as exc:
        # Vectors of another model: still answer, by full text, and say what fixes it.
        if on_notice:
            on_notice(f"{exc.message}; this message searched memory by full text only")
        return build(None)


def compile_call(
    profile: Profile,
    session: Session,
    history: list[Message],
    current: Message | None,
    factor: float,
    on_notice: Notice | None = None,
    *,
    allow_compaction: bool = True,
    memory: str = "",
) -> tuple[Session, Compiled]:
    """What the next call will send (and the session, changed when it compacts first)."""
    settings = profile.settings
    sessions.fill_token_counts(profile.db, history)
    # What memory took back (a forget, a memory made private) stays out of its own session too,
    # and out of the summary a compaction writes of it: every earlier message that says what a
    # private memory holds, not only the one it was drawn from ("the gym locker 77-12-90 sticks",
    # said before "My locker code is 77-12-90" was added as private). What is typed now is sent.
    said_before = {m.id: m.content for m in history if current is None or m.id != current.id}
    withheld = not_to_send(profile.db, said_before)
    if allow_compaction and settings.get("history.strategy") == "compact":
        sendable = [m for m in history if m.id not in withheld]
        session = profile.compactor.maybe_compact(session, sendable, current, factor, on_notice, memory)
    compiled = compile_context(
        history=history,
        current=current,
        system=session.system or settings.system,
        summary=without_private(profile.db, session.summary),
        summary_through=session.summary_through_message_id,
        memory=memory,
        window=settings.context_window,
        reserve=settings.max_tokens,
        strategy=settings.get("history.strategy"),
        window_turns=settings.get("history.window_turns"),
        count=tokens.count,
        factor=factor,
        withheld=withheld,
    )
    for text in compiled.notices:
        if on_notice:
            on_notice(text)
    return session, compiled


def _remember(profile: Profile, user: Message, typed: str) -> tuple[Memory | None, bool]:
    """Store "remember that ..." directly, as stated, in the user's words (`typed`: what they
    typed, when files were attached to it; a file's content is never an instruction). Returns
    the memory (None: not a request to remember) and whether it was there already."""
    match = REMEMBER.match(typed)
    said = match.group("text") if match else ""
    if (
        not (profile.use_memory and match)
        or _ASKS.match(said)
        or recalls_a_moment(said)
        or typed.rstrip().endswith("?")
    ):
        return None, False
    kind, text = kind_of(said)
    if not text.strip():  # "remember that rule:" labels nothing: a message, not a memory
        return None, False
    text = text[:1].upper() + text[1:]  # "remember that my dentist..." -> "My dentist..."
    store = profile.store
    memory = store.add(text, kind=kind, origin="stated", importance=0.8, source_message_ids=[user.id], actor="user")
    return memory, store.last_add_existed


def _reconcile(profile: Profile, memory: Memory) -> list[str]:
    """After the reply: does what the user asked to remember change something memory holds?
    ("the Heron milestone moved to June 3"). The memory model decides; the old value becomes
    the new one's history. Nothing when the model cannot call tools or the call fails."""
    try:
        provider, model = profile.memory_provider, profile.settings.role("memory").model
        if not provider.can_call_tools:
            return []
        old = policy.reconcile(profile.store, memory, profile.turn_embedder(), policy.model_decider(provider, model))
    except MemchatError as exc:
        get_logger().warning("could not check memory %s against older ones: %s", memory.id, exc.message)
        return []
    if old is None:
        return []
    return [
        f"memory {memory.id} replaces memory {old.id} ({old.text}), kept as history (memchat memories history {old.id})"
    ]


def _with_attachments(profile: Profile, text: str, attached: list[Attachment], images: list[Attachment]) -> str:
    """The message with its files, refused in one line (before anything is stored) when the
    provider cannot see images or the whole would not fit the window beside the reply."""

    provider, settings = profile.provider, profile.settings
    if images and not provider.can_see_images:
        raise UsageError(
            f"the {provider.name} provider cannot take images ({', '.join(a.name for a in images)}): "
            "attach text files only, or use --provider anthropic"
        )
    whole = check_size(with_attachments(text, attached), "the message with its attachments")
    need = int(tokens.count(whole) * tokens.load_factor(profile.db, settings.model)) + IMAGE_TOKENS * len(images)
    room = settings.context_window - settings.max_tokens
    if need > room:
        raise UsageError(
            f"the message with its attachments is about {need:,} tokens; {settings.model}'s window of "
            f"{settings.context_window:,} holds {room:,} beside the {settings.max_tokens:,} kept for "
            "the reply: attach less, or a part of the file"
        )
    return whole


# --- the model's own memory search -----------------------------------------------------------
def _chat_tools(profile: Profile, provider: Provider, searchable: bool) -> list[dict[str, Any]] | None:
    """The recall tool, when the model can call tools and there is a memory to search."""
    settings = profile.settings
    wanted = searchable and provider.capabilities(settings.model).tools and settings.get("memory.recall_tool")
    return [tool.TOOL] if wanted else None


def _converse(
    profile: Profile,
    provider: Provider,
    request: ChatRequest,
    reply: Reply,
    section: Section,
    searches: list[str],
    on_text: OnText | None,
) -> int:
    """Stream the reply into `reply`, answering the model's recall calls in between: at most
    tool.MAX_SEARCHES searches, then one last call that must answer in text. The text of every
    round is the reply; usage is their sum. Returns the number of calls made."""
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
        results = [_tool_result(profile, call, section, searches, request.session_id) for call in part.tool_calls]
        request.messages = [*request.messages, _assistant_turn(part), {"role": "user", "content": results}]
        if len(searches) >= tool.MAX_SEARCHES or rounds > tool.MAX_SEARCHES:
            request.tool_choice = "none"


def _tool_result(
    profile: Profile, call: ToolCall, section: Section, searches: list[str], session_id: int | None
) -> dict[str, Any]:
    """Run one recall call (or refuse it past the bound) and record what it found in the section."""
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
        profile.db, query, profile.turn_embedder(), session_id=session_id, floor=profile.settings.get("recall.weak")
    )
    if not section.about_the_user:
        # a message about no one, the world or someone else: the model's search finds nothing of the
        # user's health, money or faith for it ("What is bipolar II?" and recall("bipolar"))
        hits = [h for h in hits if not sensitive.reads_private(h.text, h.memory is not None and h.memory.sensitive)]
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


# --- the one commit ----------------------------------------------------------------------------
def _commit(
    profile: Profile,
    inputs: _Inputs,
    user: Message,
    reply: Reply,
    started: float,
    status: str,
    error: ProviderError | None,
    *,
    calibrate: bool,
    searched: bool,
) -> TurnResult:
    """Store the reply (what arrived, when cut short) and what went with the call, in one transaction."""
    db, settings, section = profile.db, profile.settings, inputs.section
    latency = int((time.monotonic() - started) * 1000)
    with immediate(db):
        if db.conn.execute("SELECT 1 FROM messages WHERE id = ?", (user.id,)).fetchone() is None:
            # `sessions delete` in another terminal while the reply came: it was shown, and goes with them
            # (not a StoreError: there is nothing to retry)
            raise MemchatError(
                f"session {inputs.session.id} was deleted while the reply came: the reply was shown but not saved"
            )
        if section.items or searched:  # what memory the call carried (ids and reasons, never text) and the
            # model's own searches: for /why and /context
            sessions.set_memory_sent(db, user.id, section.summary())
        if status == "ok" and section.memory_ids:
            profile.store.mark_used(section.memory_ids)
        if calibrate:  # the estimate was of one call
            tokens.record_usage(db, settings.model, inputs.compiled.estimate, reply.input_tokens)
        stored = sessions.record_reply(
            db,
            user.id,
            reply.text,
            status="ok" if status == "ok" else ("interrupted" if status == "interrupted" else "incomplete"),
            model=reply.model or profile.provider.model_name(settings.model),
            tokens=tokens.count(reply.text) if reply.text else None,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            stop_reason=reply.stop_reason or (None if status == "ok" else status),
            latency_ms=latency,
            error=str(error) if error else None,
        )
        if stored is not None and not profile.learning_agreed():
            said_under_no(db, inputs.session.id, stored.id)  # the reply with the turn it answers
    answered = sessions.get_message(db, user.id)
    session = inputs.session if stored is None else replace(inputs.session, updated_at=stored.created_at)
    return TurnResult(session, answered, stored, reply, status, latency, error, inputs.compiled, section)


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
