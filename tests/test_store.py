"""The memory store: typed memories, supersession by key, the audit trail, forgetting for good."""

import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memchat import sessions
from memchat.db import open_db
from memchat.errors import NotFoundError, UsageError
from memchat.memory.recall import index
from memchat.memory.recall.search import recall
from memchat.memory.store.memories import FORGOTTEN_MESSAGE, MemoryStore


def actions(store, memory_id):
    return [(h.action, h.old_text, h.new_text) for h in store.history(memory_id)]


def fts_ids(db, table, word):
    return [r[0] for r in db.conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (f'"{word}"',))]


def test_moving_city_supersedes_the_old_fact_and_keeps_it_as_history(db):
    store = MemoryStore(db)
    berlin = store.add("I live in Berlin", key="user.city", value="Berlin", origin="stated")
    lisbon = store.add("I moved from Berlin to Lisbon", key="user.city", value="Lisbon", origin="stated")
    old = store.get(berlin.id)
    assert (old.status, old.superseded_by) == ("superseded", lisbon.id)
    assert old.valid_to == lisbon.valid_from and old.valid_to is not None
    assert [m.text for m in store.find(key="user.city")] == ["I moved from Berlin to Lisbon"]
    assert [m.id for m in store.find(status="superseded")] == [berlin.id]
    assert actions(store, berlin.id) == [
        ("add", None, "I live in Berlin"),
        ("supersede", "I live in Berlin", "I moved from Berlin to Lisbon"),
    ]
    assert store.replaced(lisbon.id)[0].id == berlin.id
    # Never retrieved as current: recall over active memories does not see Berlin's row.
    hits = recall(store.db, "Berlin", None, kinds=("fact",))
    assert [h.id for h in hits] == [lisbon.id]


def test_one_active_memory_per_key_is_enforced_by_the_database(db):
    store = MemoryStore(db)
    store.add("Prefers email", key="user.contact")
    with pytest.raises(sqlite3.IntegrityError):
        db.conn.execute(
            "INSERT INTO memories (kind, text, key, status, created_at, updated_at) "
            "VALUES ('fact', 'x', 'user.contact', 'active', 'now', 'now')"
        )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a.x", "a.y", None]),
            st.sampled_from(["one", "two", "three"]),
            st.sampled_from(["active", "pending"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_any_sequence_of_adds_keeps_one_current_value_per_key(tmp_path_factory, ops):
    db = open_db(tmp_path_factory.mktemp("keys") / "k.db")
    store = MemoryStore(db)
    for key, text, status in ops:
        store.add(text, key=key, status=status)
    for key in ("a.x", "a.y"):
        active = store.find(key=key, status="active")
        assert len(active) <= 1
        for old in store.find(key=key, status="superseded"):
            assert old.superseded_by is not None and old.valid_to is not None
    assert all(h.action in ("add", "supersede") for m in store.find(status=None) for h in store.history(m.id))
    db.conn.close()


def test_adding_the_same_memory_twice_returns_the_first(db):
    store = MemoryStore(db)
    first = store.add("Uses vim", kind="fact")
    again = store.add("  Uses vim ", kind="fact")
    assert again.id == first.id and len(store.find()) == 1


def test_edit_pin_unpin_confirm_and_update_are_all_in_the_history(db):
    store = MemoryStore(db)
    m = store.add("Answer in British English", kind="rule", status="pending", actor="extractor", origin="inferred")
    assert store.find(status="active") == []
    store.confirm(m.id)
    store.edit(m.id, "Answer in British English, with metric units")
    store.pin(m.id)
    store.unpin(m.id)
    store.update(m.id, importance=0.9)
    got = store.get(m.id)
    assert (got.status, got.pinned, got.importance) == ("active", False, 0.9)
    assert [(h.action, h.actor) for h in store.history(m.id)] == [
        ("add", "extractor"),
        ("confirm", "user"),
        ("edit", "user"),
        ("pin", "user"),
        ("unpin", "user"),
        ("update", "user"),
    ]
    assert store.history(m.id)[2].old_text == "Answer in British English"


def test_a_pin_belongs_to_the_fact_and_survives_a_new_value(db):
    store = MemoryStore(db)
    old = store.pin(store.add("Works at Acme", key="user.employer").id)
    new = store.add("Works at Globex now", key="user.employer")
    assert new.pinned and not store.get(old.id).pinned


def test_explicit_supersede_keeps_kind_and_key(db):
    store = MemoryStore(db)
    old = store.add("Standup at 9:30", kind="event", key="team.standup")
    new = store.supersede(old.id, "Standup at 10:00")
    assert (new.kind, new.key, new.status) == ("event", "team.standup", "active")
    assert store.get(old.id).superseded_by == new.id
    with pytest.raises(UsageError, match="superseded"):
        store.pin(old.id)


def test_clear_errors_for_missing_empty_and_forgotten_memories(db):
    store = MemoryStore(db)
    with pytest.raises(NotFoundError, match="no memory 42"):
        store.get(42)
    with pytest.raises(UsageError, match="memory id must be a number"):
        store.get("abc")
    with pytest.raises(UsageError, match="needs some text"):
        store.add("   ")
    with pytest.raises(UsageError, match="kind must be one of"):
        store.add("x", kind="opinion")
    m = store.add("temporary")
    store.forget([m.id])
    with pytest.raises(UsageError, match="was forgotten"):
        store.edit(m.id, "back again")
    assert store.forget([m.id]) == []  # forgetting twice is a no-op


def test_forget_leaves_no_bytes_in_the_database_or_its_wal(tmp_path, fake_embedder):
    path = tmp_path / "secret.db"
    db = open_db(path)
    store = MemoryStore(db)
    for i in range(40):
        store.add(f"Filler memory {i} about tea, biscuits and the weather in spring")
    # Seven digits: timestamps hold six (microseconds), so a shorter number could be on disk by chance.
    secret = "My locker combination at the Quokkaville gym is 7731946"
    m = store.add(secret, key="user.locker", value="7731946")
    store.edit(m.id, secret + " since March")  # the old text now also sits in the history
    successor = store.add("The Quokkaville locker was emptied", key="user.locker")
    later = store.add("Zebrafinch lockers cost extra", kind="event")
    index.catch_up(db, fake_embedder)  # vectors exist before forgetting

    def raw() -> bytes:
        wal = path.with_name(path.name + "-wal")
        return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")

    assert b"Quokkaville gym" in raw() and b"zebrafinch" in raw()  # the check can see them

    store.forget([m.id, successor.id, later.id])

    data = raw()
    for needle in (b"Quokkaville", b"quokkavil", b"locker combination", b"Zebrafinch", b"zebrafinch", b"7731946"):
        assert data.find(needle) == -1, f"{needle!r} is still on disk"
    for row in (m, successor, later):
        gone = store.get(row.id)
        assert (gone.text, gone.key, gone.value, gone.status, gone.embedding_model) == (
            "",
            None,
            None,
            "forgotten",
            None,
        )
        assert [(h.old_text, h.new_text) for h in store.history(row.id)] == [(None, None)] * len(store.history(row.id))
        assert store.history(row.id)[-1].action == "forget"
    assert db.conn.execute(
        "SELECT count(*) FROM memories WHERE embedding IS NOT NULL AND status = 'forgotten'"
    ).fetchone() == (0,)
    assert fts_ids(db, "memories_fts", "quokkaville") == [] and fts_ids(db, "memories_fts", "tea")  # index still works
    assert recall(store.db, "locker combination Quokkaville", None) == []
    db.conn.close()
    assert b"Quokkaville" not in raw()


def test_forget_can_redact_the_source_messages_too(db):
    s = sessions.create_session(db)
    msg = sessions.add_message(db, s.id, "user", "remember my PIN is 4491 please")
    other = sessions.add_message(db, s.id, "user", "and the weather is nice")
    store = MemoryStore(db)
    kept = store.add("The user's PIN is 4491", source_message_ids=[msg.id])
    purged = store.add("The user's PIN ends in 91", source_message_ids=[other.id])
    store.forget([kept.id])
    assert sessions.get_message(db, msg.id).content == "remember my PIN is 4491 please"  # default: transcript kept
    store.forget([purged.id], purge_sources=True)
    assert sessions.get_message(db, other.id).content == FORGOTTEN_MESSAGE
    assert fts_ids(db, "messages_fts", "weather") == []


def test_migration_indexes_messages_written_before_it(tmp_path):
    from sqlite_utils import Database

    from memchat.schema import runner

    path = tmp_path / "old.db"
    old = Database(path)
    runner().apply(old, stop_before="m003_create_memories")
    old.execute("INSERT INTO sessions (created_at, updated_at) VALUES ('t', 't')")
    old.execute(
        "INSERT INTO messages (session_id, role, content, created_at) VALUES (1, 'user', 'ancient pelican', 't')"
    )
    old.conn.commit()
    old.conn.close()
    db = open_db(path)
    assert fts_ids(db, "messages_fts", "pelican") == [1]
    tables = {r[0] for r in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"memories", "message_vectors"} <= tables
    assert json.loads(db.conn.execute("SELECT json_array(name, external_id) FROM messages").fetchone()[0]) == [
        None,
        None,
    ]


def test_forget_redacts_the_session_summaries_that_mentioned_it(tmp_path, fake_embedder):
    path = tmp_path / "summaries.db"
    db = open_db(path)
    store = MemoryStore(db)
    s = sessions.create_session(db)
    msg = sessions.add_message(db, s.id, "user", "my sister Priyanka Vostrikova visits in May")
    sessions.update_session(
        db,
        s.id,
        summary=(
            "## Facts\n- The user's sister Priyanka visits in May. They like green tea.\n"
            '- Constraint: "answer in French".\n## Open threads\n- Vostrikova wedding plans'
        ),
        summary_through_message_id=msg.id,
    )
    fact = store.add("User's sister is named Priyanka Vostrikova", key="user.sister", source_message_ids=[msg.id])
    episode = store.add(
        'Session 1 (2026-11-29, "family"): the user talked about Priyanka\'s visit in May. '
        "They asked for tea recommendations.",
        kind="event",
        key=f"session.{s.id}.summary",
        origin="inferred",
    )
    index.catch_up(db, fake_embedder)
    store.forget([fact.id])

    summary = sessions.get_session(db, s.id).summary
    assert summary == (
        "## Facts\n- [forgotten] They like green tea.\n"
        '- Constraint: "answer in French".\n## Open threads\n- [forgotten]'
    )
    kept = store.get(episode.id)
    assert kept.status == "active" and "Priyanka" not in kept.text and "tea recommendations" in kept.text
    assert kept.embedding_model is None  # its vector is recomputed from the redacted text
    assert all("Priyanka" not in (h.old_text or "") + (h.new_text or "") for h in store.history(episode.id))
    assert store.last_forget.summary_redactions == 3
    assert fts_ids(db, "memories_fts", "priyanka") == [] and fts_ids(db, "memories_fts", "recommendations") == [
        episode.id
    ]
    db.conn.close()
    data = path.read_bytes()
    assert b"my sister Priyanka Vostrikova visits" in data  # the transcript is kept (no --purge-sources)
    for needle in (b"named Priyanka", b"sister Priyanka visits", b"Priyanka's visit", b"Vostrikova wedding"):
        assert needle not in data, f"{needle!r} is still on disk"


@pytest.mark.parametrize("room", ["for the merge, not the compaction", "for nothing"])
def test_forget_on_a_nearly_full_disk_leaves_no_words_in_the_wal_and_finishes_with_room(
    tmp_path, fake_embedder, monkeypatch, room
):
    """A compaction begun without room filled the disk, failed, and left a WAL as big as the free
    space with the forgotten words in it, which no checkpoint could copy back (an adversarial pass on
    a 4 MB disk). The file work now asks for room first: what fits is done, the WAL emptied; what
    does not is owed, and the next open with room does it."""
    from collections import namedtuple

    from memchat.memory.forget import scrub

    path = tmp_path / "secret.db"
    db = open_db(path)
    store = MemoryStore(db)
    for i in range(200):
        store.add(f"Filler memory {i} about tea, biscuits and the weather in spring")
    secret = store.add("My locker combination at the Quokkaville gym is 7731946")
    index.catch_up(db, fake_embedder)
    wal = path.with_name(path.name + "-wal")

    def raw() -> bytes:
        return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")

    size = path.stat().st_size
    free = size // 2 + scrub.COMPACT_MARGIN if room.startswith("for the merge") else 0
    real = scrub.shutil.disk_usage
    monkeypatch.setattr(scrub.shutil, "disk_usage", lambda p: namedtuple("U", "total used free")(free, 0, free))
    store.forget([secret.id])
    assert not wal.exists() or wal.stat().st_size == 0  # nothing left in the WAL to hold the words
    assert b"Quokkaville" not in wal.read_bytes() if wal.exists() else True
    if free:  # the merge had room: the words are gone though the file was not compacted
        assert b"Quokkaville" not in raw() and b"7731946" not in raw()
    assert scrub.pending(db)  # the compaction (and the merge, without room for it) is owed
    monkeypatch.setattr(scrub.shutil, "disk_usage", real)
    done = scrub.finish(db)  # what the next open does
    assert done.complete and not done.no_room and not scrub.pending(db)
    assert b"Quokkaville" not in raw() and b"7731946" not in raw()
    assert fts_ids(db, "memories_fts", "quokkaville") == [] and fts_ids(db, "memories_fts", "tea")
