"""Capture: what a conversation's new turns give long-term memory, in one call to memory.model.

A session's capture pointer (capture_state.through_message_id) moves only after its
candidates are stored, so a failed or interrupted extraction is simply retried next time.
At a session's end the same call also writes its episodic summary (what was done, decided,
left open), stored as an event linked to the session. Small talk costs no call at all.
Where capture runs (a thread, a detached process) is memchat.memory.capture.background.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memchat import sessions
from memchat.context import eligible
from memchat.db import immediate, utcnow
from memchat.memory.capture import policy
from memchat.memory.capture.extract import extract
from memchat.memory.forget import erase
from memchat.memory.judge.state import not_to_send, saying_private
from memchat.memory.recall.index import embed_messages
from memchat.memory.recall.search import recall
from memchat.memory.store.memories import MemoryStore
from memchat.memory.text import words
from memchat.patterns import pattern
from memchat.privacy import get_setting, set_setting

if TYPE_CHECKING:
    from memchat.config import Settings
    from memchat.db import Database
    from memchat.memory.capture.policy import Outcome
    from memchat.sessions import Message

LAST_RUN = "capture.last_run"  # profile_settings: when a capture run last finished
MIN_WORDS = 4  # fewer words from the user in all: nothing to capture
# Messages that carry nothing to keep: greetings, thanks, acknowledgements.
_SMALL_TALK = pattern(
    r"^\W*(?:hi|hello|hey|yo|good (?:morning|afternoon|evening|night)|thanks?(?: you)?|thx|ty|ok(?:ay)?|"
    r"cool|great|nice|bye|goodbye|see you|cheers|sure|yes|no|yep|nope|got it|sounds good|perfect)"
    r"(?:[\s,!.?]+(?:so much|a lot|again|there|memchat|claude|everyone|all))*\W*$",
    re.IGNORECASE,
)


@dataclass
class CaptureResult:
    session_id: int
    turns: int = 0
    outcomes: list[Outcome] = field(default_factory=list)
    summary_id: int | None = None


def pointer(db: Database, session_id: int) -> tuple[int, int]:
    row = db.conn.execute(
        "SELECT through_message_id, summarised_through FROM capture_state WHERE session_id = ?", (session_id,)
    ).fetchone()
    return (row[0] or 0, row[1] or 0) if row else (0, 0)


def save_pointer(
    db: Database,
    session_id: int,
    *,
    through: int | None = None,
    summarised: int | None = None,
    error: str | None = None,
) -> None:
    with immediate(db):
        db.conn.execute(
            "INSERT INTO capture_state (session_id, through_message_id, summarised_through, attempts, last_error, "
            "updated_at) VALUES (?, coalesce(?, 0), coalesce(?, 0), ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
            "through_message_id = coalesce(?, through_message_id), "
            "summarised_through = coalesce(?, summarised_through), "
            "attempts = CASE WHEN ? IS NULL THEN 0 ELSE attempts + 1 END, last_error = ?, updated_at = ?",
            (
                session_id,
                through,
                summarised,
                1 if error else 0,
                error,
                utcnow(),
                through,
                summarised,
                error,
                error,
                utcnow(),
            ),
        )


def said_under_no(db: Database, session_id: int, through: int) -> None:
    """The session's messages up to `through` were said while capture was not agreed (the person's
    no, `/capture off`, memory.capture = false): automatic capture never reads them, nor what came
    before them in the session, not even for its summary, whatever is agreed later. Only a capture
    the user asks for by name (`memories capture --session ID`) does."""
    with immediate(db):
        db.conn.execute(
            "INSERT INTO capture_state (session_id, unlearnt_through, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(session_id) DO UPDATE SET "
            "unlearnt_through = max(unlearnt_through, excluded.unlearnt_through), updated_at = excluded.updated_at",
            (session_id, through, utcnow()),
        )


def _unlearnt(db: Database, session_id: int) -> int:
    row = db.conn.execute("SELECT unlearnt_through FROM capture_state WHERE session_id = ?", (session_id,)).fetchone()
    return int(row[0]) if row else 0


def mark_run(db: Database) -> None:
    """Stamp the profile: capture read its sessions now (`memchat doctor` says when it last did)."""
    set_setting(db, LAST_RUN, utcnow())


def last_run(db: Database) -> str | None:
    """When a capture run last finished without a failure (UTC), or None if none ever did."""
    found = get_setting(db, LAST_RUN)
    return found[0] if found else None


def pending_sessions(db: Database, *, asked: bool = False) -> list[int]:
    """Sessions with answered messages past their capture pointer (never one run with memory off:
    only `memchat memories capture --session N`, by hand, captures such a session); past what was
    said under no too, unless the user `asked` for it by name."""
    bound = "c.through_message_id" if asked else "max(coalesce(c.through_message_id, 0), c.unlearnt_through)"
    rows = db.conn.execute(
        "SELECT m.session_id FROM messages m LEFT JOIN capture_state c ON c.session_id = m.session_id "
        "JOIN sessions s ON s.id = m.session_id AND s.importing = 0 AND s.memory_off = 0 "
        f"WHERE m.status = 'ok' AND m.id > coalesce({bound}, 0) GROUP BY m.session_id ORDER BY m.session_id"
    )
    return [r[0] for r in rows]


def unsummarised(db: Database, session_id: int) -> bool:
    """Whether the session has answered turns past its episodic summary (none yet, or older)."""
    row = db.conn.execute(
        "SELECT max(m.id) > coalesce((SELECT summarised_through FROM capture_state WHERE session_id = ?), 0) "
        "FROM messages m JOIN sessions s ON s.id = m.session_id AND s.memory_off = 0 "
        "WHERE m.session_id = ? AND m.status = 'ok'",
        (session_id, session_id),
    ).fetchone()
    return bool(row and row[0])


def idle_sessions(db: Database, minutes: float) -> list[int]:
    """Pending sessions nobody has written to (or tried to capture) for `minutes`: ended ones."""
    since = (datetime.now(UTC) - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    pending = pending_sessions(db)
    if not pending:
        return []
    rows = db.conn.execute(
        "SELECT s.id FROM sessions s LEFT JOIN capture_state c ON c.session_id = s.id "
        "WHERE s.id IN (SELECT value FROM json_each(?)) AND coalesce(c.updated_at, '') < ? "
        "AND (SELECT max(created_at) FROM messages m WHERE m.session_id = s.id) < ?",
        (json.dumps(pending), since, since),
    )
    return sorted(r[0] for r in rows)


def worth_capturing(turns: list[Message]) -> bool:
    """Whether the user said anything worth a model call: not only greetings, thanks and
    acknowledgements, and at least MIN_WORDS words in all."""
    said = [m.content for m in turns if m.role == "user"]
    count = sum(len(words(text)) for text in said)
    return count >= MIN_WORDS and not all(_SMALL_TALK.match(text) for text in said)


SUMMARY_MIN_TURNS = 3  # a session with this many messages from the user gets a summary, whatever it taught


def capture_session(
    db: Database,
    settings: Settings,
    provider: Any,
    session_id: int,
    *,
    final: bool = False,
    embedder: Any = None,
    asked: bool = False,
) -> CaptureResult:
    """Extract and store memories from the session's uncaptured turns, with its episodic summary
    when final: one call to memory.model (none for small talk); raises on failure. `asked`: the
    user asked for it by name (`memories capture`): what was said under no is read too."""
    result = CaptureResult(session_id)
    through, summarised = pointer(db, session_id)
    unlearnt = 0 if asked else _unlearnt(db, session_id)  # said under no: never read, not even for the summary
    history = [m for m in sessions.messages(db, session_id) if eligible(m) and m.id > unlearnt]
    new = [m for m in history if m.id > through]
    summarise = final and bool(history) and history[-1].id > summarised and len(history) >= 2
    # The memory model never reads what memory took back: a private memory's words (it would store
    # them again, not private) or something forgotten.
    kept_out = not_to_send(db, {m.id: m.content for m in history})
    shown, new_shown = [m for m in history if m.id not in kept_out], [m for m in new if m.id not in kept_out]
    if not worth_capturing(shown if summarise else new_shown):
        if new or summarise:  # read, and found nothing to keep: no call, never again
            save_pointer(db, session_id, through=history[-1].id, summarised=history[-1].id if summarise else None)
        result.turns = len(new)
        return result
    store = MemoryStore(db)
    model = settings.role("memory").model
    if callable(embedder) and not hasattr(embedder, "encode"):
        embedder = embedder()  # loaded only when there is something to capture
    query = " ".join(m.content for m in new_shown if m.role == "user")[:2000]
    related: list[Any] = []
    if query.strip():
        hits = recall(db, query, embedder, kinds=("fact", "event", "rule"), limit=12, catch_up=False)
        near = store.get_many([h.id for h in hits if h.type == "memory"]).values()
        related = [m for m in near if not m.private]  # shown to the memory model: never a private one
    earlier = [m for m in shown if m.id <= through]
    read = _hashes({m.id: m.content for m in history})
    found = extract(provider, model, new_shown, related, earlier, summarise=summarise, session_id=session_id)
    if _taken_back(db, session_id, read, kept_out):
        return result  # forgotten or deleted while the model read it: nothing of it is kept, read again next time
    # until the check after storing, a record of what was read: a kill in between is finished at the
    # next open (finish_interrupted), which withdraws what was stored if what was read is gone
    marker = f"{STORING}{session_id}"
    set_setting(db, marker, json.dumps({"since": utcnow(), "read": read, "kept_out": sorted(kept_out)}))
    result.outcomes = policy.apply(
        store,
        found.candidates,
        embedder=embedder,
        decide=policy.model_decider(provider, model),
        shown={m.id for m in related},
    )
    result.turns = len(new)
    _embed_new(db, embedder, [o.memory_id for o in result.outcomes if o.memory_id is not None])
    if new:
        save_pointer(db, session_id, through=new[-1].id)
    if summarise:
        # A one-shot exchange that taught nothing about the person is no episode worth keeping
        # (ten `ask`s' summaries once outranked the fact that answered); a longer session is.
        turns_of_theirs = sum(1 for m in shown if m.role == "user")
        if found.summary and (found.candidates or turns_of_theirs >= SUMMARY_MIN_TURNS):
            session = sessions.get_session(db, session_id)
            # The title is the first message's words: not when that message is kept out
            title = session.title if session.title and not kept_out & {m.id for m in history[:1]} else None
            if title and saying_private(db, {0: title}):
                title = None
            text = f'Session {session_id} ({session.created_at[:10]}, "{title or "untitled"}"): {found.summary}'
            memory = store.add(
                text,
                kind="event",
                key=f"session.{session_id}.summary",
                origin="inferred",
                confidence=0.8,
                importance=0.4,
                source_message_ids=[history[0].id, history[-1].id],
                actor="extractor",
                private=bool(saying_private(db, {0: text})),  # it retells what the user keeps private
            )
            result.summary_id = memory.id
            _embed_new(db, embedder, [memory.id])
        save_pointer(db, session_id, summarised=history[-1].id)
    if _taken_back(db, session_id, read, kept_out):  # ... or while what it found was stored
        _withdraw(db, result)
    _done_storing(db, marker)
    return result


# profile_settings names of the captures that were storing, one a session (memchat.app.profile reads
# them at open: interrupted_capture)
STORING = "capture.storing."


def _hashes(read: dict[int, str]) -> dict[str, str]:
    """What was read, as ids and digests of their text (the record holds no text)."""
    return {str(i): hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32] for i, text in read.items()}


def _done_storing(db: Database, marker: str) -> None:
    with immediate(db):
        db.conn.execute("DELETE FROM profile_settings WHERE name = ?", (marker,))


def interrupted(db: Database) -> bool:
    """Whether a capture was killed while it stored (cheap: read at every open)."""
    return (
        db.conn.execute("SELECT 1 FROM profile_settings WHERE name LIKE ? LIMIT 1", (f"{STORING}%",)).fetchone()
        is not None
    )


def finish_interrupted(db: Database) -> int:
    """For each capture killed while it stored: if what it had read was taken back meanwhile (a
    forget, a delete), forget what it stored, as its own check would have. The memories withdrawn."""
    withdrawn = 0
    for name, value in db.conn.execute(
        "SELECT name, value FROM profile_settings WHERE name LIKE ?", (f"{STORING}%",)
    ).fetchall():
        record = json.loads(value)
        session_id = int(name.removeprefix(STORING))
        if _taken_back(db, session_id, record["read"], set(record["kept_out"])):
            ids = _stored_since(db, record["since"], {int(i) for i in record["read"]}, session_id)
            _withdraw_ids(db, ids)
            withdrawn += len(ids)
        _done_storing(db, name)
    return withdrawn


def _stored_since(db: Database, since: str, read: set[int], session_id: int) -> list[int]:
    """The memories the extractor added since `since` from these messages, or as this session's summary."""
    rows = db.conn.execute(
        "SELECT m.id, m.source_message_ids, m.key FROM memories m WHERE m.created_at >= ? AND m.status != 'forgotten' "
        "AND EXISTS (SELECT 1 FROM memory_history h WHERE h.memory_id = m.id AND h.action = 'add' "
        "AND h.actor = 'extractor')",
        (since,),
    ).fetchall()
    return [
        i
        for i, sources, key in rows
        if set(json.loads(sources or "[]")) & read or key == f"session.{session_id}.summary"
    ]


def _taken_back(db: Database, session_id: int, read: dict[str, str], kept_out: set[int]) -> bool:
    """Whether what a capture read (`read`: _hashes of it) was taken back since: a message deleted
    or redacted (its session deleted, a forget with its sources), or one more withheld (a forget, a
    private memory)."""
    now = {m.id: m.content for m in sessions.messages(db, session_id) if str(m.id) in read}
    return _hashes(now) != read or bool(not_to_send(db, now) - kept_out)


_NEW = ("added", "pending", "updated", "superseded")  # outcomes that stored a new memory (not a merge)


def _withdraw(db: Database, result: CaptureResult) -> None:
    """Forget for good what this capture stored (a forget that ran meanwhile must not be undone by
    it). A memory it merged into is the user's and stays; one it superseded is active again."""
    ids = [o.memory_id for o in result.outcomes if o.memory_id is not None and o.action in _NEW]
    ids += [result.summary_id] if result.summary_id is not None else []
    _withdraw_ids(db, ids)
    result.outcomes, result.summary_id = [], None


def _withdraw_ids(db: Database, ids: list[int]) -> None:
    replaced: list[int] = []
    with immediate(db):  # unlinked first, so forget's chain of older versions leaves them out
        for new in ids:
            found = db.conn.execute("SELECT id FROM memories WHERE superseded_by = ?", (new,)).fetchall()
            replaced += [r[0] for r in found]
            db.conn.execute("UPDATE memories SET superseded_by = NULL WHERE superseded_by = ?", (new,))
    stored = erase.live_memories(db, ids)
    if stored:
        erase.forget(db, stored, actor="extractor")
    with immediate(db):
        for old in replaced:
            db.conn.execute(
                "UPDATE memories SET status = 'active', valid_to = NULL WHERE id = ? AND status = 'superseded'", (old,)
            )


def _embed_new(db: Database, embedder: Any, memory_ids: list[int]) -> None:
    """The writer embeds what it stored, so no search has to (see memory.index)."""
    if callable(embedder) and not hasattr(embedder, "encode"):
        embedder = embedder()
    if embedder is not None and memory_ids:
        embed_messages(db, embedder, [], memory_ids=memory_ids)
