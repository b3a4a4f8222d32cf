"""Whether a past message may reach a prompt as it is: the memory it gave rise to may have moved on.

A message is the raw record; what memchat learnt from it has a state. Before a past message
goes into a call as a snippet, memchat.memory.judge.inject asks here:

- withheld: the user forgot what it said (forget marks every message that mentions the
  forgotten memory), a memory drawn from it waits for review (pending), the user marked
  that memory private, or it says what a private memory holds (however that memory was
  stored: `memories add --private` records no source) - it is not sent;
- replaced: a fact drawn from it, or a value it states, was superseded - it is sent only with
  the current value beside it ("earlier; now: ...") so the current value wins.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memchat.memory.forget.redact import Forgotten, Redactor, distinctive
from memchat.memory.text import TEXT_WINDOW, words

if TYPE_CHECKING:
    from memchat.db import Database


@dataclass
class MessageState:
    withheld: str | None = None  # forgotten | pending | private
    now: list[str] = field(default_factory=list)  # current memories that replaced what it said


def _current(db: Database, memory_id: int | None) -> str | None:
    """The text of the memory at the end of a supersede chain, if it is still active."""
    seen = set()
    while memory_id is not None and memory_id not in seen:
        seen.add(memory_id)
        row = db.conn.execute("SELECT status, superseded_by, text FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            return None
        if row[0] == "active":
            return str(row[2])
        memory_id = row[1]
    return None


def message_states(db: Database, message_ids: list[int], texts: dict[int, str]) -> dict[int, MessageState]:
    """The state of each message (only the ones that are not plainly current)."""
    states: dict[int, MessageState] = {}
    if not message_ids:
        return states
    marks = ", ".join("?" * len(message_ids))
    for mid, reason in db.conn.execute(
        f"SELECT message_id, reason FROM withheld_messages WHERE message_id IN ({marks})", message_ids
    ):
        states.setdefault(mid, MessageState()).withheld = reason
    _drawn_from(db, set(message_ids), states)
    asked = set(message_ids)
    for mid in saying_private(db, {i: t for i, t in texts.items() if i in asked}):
        state = states.setdefault(mid, MessageState())
        state.withheld = state.withheld or "private"
    _stating_old_values(db, message_ids, texts, states)
    return states


def _held_private(db: Database) -> tuple[tuple[str, str | None], ...]:
    rows = db.conn.execute("SELECT text, value FROM memories WHERE private = 1 AND status != 'forgotten'")
    return tuple((str(text), value) for text, value in rows)


def _private_redactor(db: Database) -> Redactor | None:
    held = _held_private(db)
    return Redactor(Forgotten(text, value) for text, value in held) if held else None


# What each message was found to say, for the private memories as they were: a chat reads its whole
# history at every turn (0.17 s for 2,000 messages), and neither changes between turns.
_SAID: dict[tuple[tuple[str, str | None], ...], dict[tuple[int, int], bool]] = {}


def saying_private(db: Database, texts: dict[int, str]) -> set[int]:
    """The messages among `texts` (id -> text) that say what a private memory holds, by the test
    forget uses for a mention (memchat.memory.forget.redact: its value, a name or number of it, or
    most of its words)."""
    held = _held_private(db) if texts else ()
    if not held:
        return set()
    if held not in _SAID:
        _SAID.clear()  # only the private memories as they are now
    said = _SAID.setdefault(held, {})
    redactor: Redactor | None = None
    out = set()
    for mid, text in texts.items():
        key = (mid, hash(text))
        if key not in said:
            redactor = redactor or Redactor(Forgotten(t, v) for t, v in held)
            said[key] = bool(redactor.redact(text)[1])
        if said[key]:
            out.add(mid)
    return out


PRIVATE_SENTENCE = "[private]"


def without_private(db: Database, text: str | None) -> str | None:
    """`text` (a session's running summary) with each sentence that says what a private memory
    holds replaced by [private]: a summary written before the user marked it private still carries it."""
    redactor = _private_redactor(db) if text else None
    return redactor.redact(text, PRIVATE_SENTENCE)[0] if redactor is not None and text else text


def not_to_send(db: Database, messages: dict[int, str]) -> set[int]:
    """The messages (id -> text) no call may carry, even in the history of their own session: those
    that mention something forgotten, those a private memory was drawn from (with their replies),
    and any that says what a private memory holds. A pending memory's source is not among them: the
    conversation it was said in goes on."""
    ids = sorted(messages)
    if not ids:
        return set()
    # one parameter however long the session: an imported chat may hold more messages than SQLite
    # takes variables in one statement
    out = {
        int(mid)
        for (mid,) in db.conn.execute(
            "SELECT message_id FROM withheld_messages WHERE message_id IN (SELECT value FROM json_each(?))",
            (json.dumps(ids),),
        )
    }
    # what a private memory was drawn from, with its reply: the few private rows (a partial index),
    # not every superseded memory's sources, which message_states reads for its "earlier; now"
    wanted = set(ids)
    sources = {
        int(mid)
        for (listed,) in db.conn.execute(
            "SELECT source_message_ids FROM memories WHERE private = 1 AND status != 'forgotten' "
            "AND source_message_ids != '[]'"
        )
        for mid in json.loads(listed or "[]")
    }
    out |= replies_of(db, sources & wanted) & wanted
    return out | saying_private(db, messages)


def _drawn_from(db: Database, wanted: set[int], states: dict[int, MessageState]) -> None:
    """The state of the messages memories were drawn from, where that memory is not plainly current:
    few (pending, superseded, private). The assistant's reply to a source message usually repeats
    it: it shares the source's state."""
    # Two indexed reads, not one OR (which reads every row of the table).
    for _, status, superseded_by, sources, private in db.conn.execute(
        "SELECT id, status, superseded_by, source_message_ids, private FROM memories "
        "WHERE status IN ('pending', 'superseded') AND source_message_ids != '[]' UNION ALL "
        "SELECT id, status, superseded_by, source_message_ids, private FROM memories "
        "WHERE private = 1 AND status NOT IN ('pending', 'superseded') AND source_message_ids != '[]' ORDER BY id"
    ):
        for mid in replies_of(db, set(json.loads(sources or "[]"))) & wanted:
            state = states.setdefault(mid, MessageState())
            if private and status != "forgotten":  # what a private memory was drawn from is private too
                state.withheld = state.withheld or "private"
            elif status == "pending":
                state.withheld = state.withheld or "pending"
            elif (current := _current(db, superseded_by)) and current not in state.now:
                state.now.append(current)


def _stating_old_values(db: Database, message_ids: list[int], texts: dict[int, str], states: dict) -> None:
    # A value that was superseded, stated again in any message ("I live in Berlin" after the move), or
    # in the message a reply answers ("Kreuzberg is lovely" after "I live in Berlin").
    replaced = db.conn.execute(
        "SELECT value, text, superseded_by FROM memories WHERE status = 'superseded' AND superseded_by IS NOT NULL"
    ).fetchall()
    if not replaced:  # most turns of most profiles: nothing to look up
        return
    answered = _answered(db, message_ids)
    said = {mid: f"{texts.get(mid, '')}\n{answered.get(mid, '')}" for mid in message_ids}
    present = set(words(" ".join(said.values())))  # a value none of them has a word of is skipped cheaply
    for value, text, superseded_by in replaced:
        # a fact kept without a value ("I work at Nordwind", key user.employer): its names are the value
        values = [value] if value else sorted(distinctive(text))
        for v in (v for v in values if len(v) >= 3 and set(words(v)[:1]) <= present):
            pattern = re.compile(rf"(?<!\w){re.escape(v)}(?!\w)", re.IGNORECASE)
            found = [mid for mid in message_ids if pattern.search(said[mid])]
            current = _current(db, superseded_by) if found else None
            if not current or v.lower() in current.lower():
                continue
            for mid in found:
                state = states.setdefault(mid, MessageState())
                if current not in state.now:
                    state.now.append(current)


def _answered(db: Database, message_ids: list[int]) -> dict[int, str]:
    """For each assistant message among these, the text of the message it answers."""
    marks = ", ".join("?" * len(message_ids))
    return dict(
        db.conn.execute(
            f"SELECT a.id, substr(q.content, 1, {TEXT_WINDOW}) FROM messages a JOIN messages q ON q.id = "
            "(SELECT max(id) FROM messages WHERE session_id = a.session_id AND id < a.id) "
            f"WHERE a.id IN ({marks}) AND a.role = 'assistant'",
            message_ids,
        ).fetchall()
    )


def replies_of(db: Database, message_ids: set[int]) -> set[int]:
    """The messages, and each user message's reply (the assistant message right after it)."""
    out = set(message_ids)
    for mid in message_ids:
        row = db.conn.execute(
            "SELECT n.id FROM messages m JOIN messages n ON n.session_id = m.session_id AND n.id = "
            "(SELECT min(id) FROM messages WHERE session_id = m.session_id AND id > m.id) "
            "WHERE m.id = ? AND m.role = 'user' AND n.role = 'assistant'",
            (mid,),
        ).fetchone()
        if row:
            out.add(row[0])
    return out


def withhold(db: Database, message_ids: list[int] | set[int], reason: str, at: str) -> None:
    """Mark messages never to be sent as snippets again (inside the caller's transaction)."""
    db.conn.executemany(
        "INSERT INTO withheld_messages (message_id, reason, at) VALUES (?, ?, ?) "
        "ON CONFLICT(message_id) DO UPDATE SET reason = excluded.reason, at = excluded.at",
        [(int(i), reason, at) for i in message_ids],
    )
