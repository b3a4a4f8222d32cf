"""One chat turn (memchat.app.turn): its inputs read once, its reply committed once."""

import pytest

from memchat import sessions
from memchat.app import Memchat
from memchat.db import immediate


def _transactions(app: Memchat) -> list[list[str]]:
    """The write transactions the profile's connection runs from now on, each its statements."""
    found: list[list[str]] = []

    def seen(sql: str) -> None:
        if sql.startswith("BEGIN IMMEDIATE"):
            found.append([])
        elif found and not sql.startswith("COMMIT"):
            found[-1].append(sql)

    app.db.conn.set_trace_callback(seen)
    return found


def test_a_turn_commits_the_message_then_the_reply_with_what_went_with_it():
    app = Memchat.load(provider="echo")
    try:
        app.memories.remember("My dentist is Dr Ruiz on Fridays", pinned=True)
        session = app.chat.start_session()
        writes = _transactions(app)
        result = app.chat.send(session, "When do I see my dentist?")
        assert result.status == "ok" and result.memory is not None and result.memory.memory_ids
        # the profile's card, kept for the next process (memchat.memory.judge.card_store): a cache, on its own
        cards = [t for t in writes if t and t[0].startswith("DELETE FROM profile_card")]
        card_writes = [s for t in cards for s in t if s.split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE")]
        assert all("profile_card" in s for s in card_writes), card_writes
        message, reply, *embedding = ["\n".join(t) for t in writes if t not in cards]
        assert "INSERT INTO messages" in message and "'user'" in message  # on disk before the model is called
        # the reply, the memory the call carried (for /why) and the memories' use counts: together
        assert "INSERT INTO messages" in reply and "SET memory =" in reply and "use_count = use_count + 1" in reply
        assert all("embedding" in t or "vectors" in t or "index_state" in t for t in embedding)  # then vectors only
        assert sessions.last_memory_sent(app.db, session.id) is not None
        assert app.store.get(result.memory.memory_ids[0]).use_count == 1
    finally:
        app.close()


def test_a_write_inside_another_joins_it_and_rolls_back_with_it(tmp_path):
    from memchat.db import open_db

    db = open_db(tmp_path / "joined.db")
    with pytest.raises(RuntimeError), immediate(db):
        sessions.create_session(db)  # its own transaction, joined to the outer one
        raise RuntimeError("cut short")
    assert sessions.list_sessions(db) == []
    sessions.create_session(db)  # and the connection writes again afterwards
    assert len(sessions.list_sessions(db)) == 1
    db.close()
