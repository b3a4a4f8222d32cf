"""Hybrid retrieval: BM25 + cosine fused by RRF, filters, any text as a query, the lazy vector index."""

import sqlite3
from dataclasses import dataclass

import pytest
from conftest import FakeEmbedder, run_memchat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memchat import sessions
from memchat.db import open_db
from memchat.errors import UsageError
from memchat.memory.recall import index
from memchat.memory.recall.coverage import diversify, is_set_question
from memchat.memory.recall.search import fts_query, recall, with_tuning
from memchat.memory.store.memories import MemoryStore

CORPUS = [
    "The staging webhook fails its signature check with error code HX-4471",
    "I am allergic to peanuts and shellfish",
    "My sister Ana lives in Porto and works as a nurse",
    "We agreed to ship the billing migration after the audit",
    "Prefers short answers with code examples",
    "The team standup moved to 10:00 on Tuesdays",
    "I am training for the Lisbon half marathon in October",
    "The production database runs PostgreSQL 16 on two replicas",
    "My laptop is a ThinkPad X1 with 32 GB of memory",
    "Dinner with Marco is booked at Cervejaria Ramiro on Friday",
    "The error HX-4470 was a typo in the docs",
    "Peanut butter cookies are the team's favourite snack",
    "Grandma's lasagne recipe needs ricotta and fresh basil",
    "The bakery on Rua Augusta sells great pastel de nata",
    "Avoid the sushi place near the office, it was closed for hygiene",
]


@pytest.fixture
def corpus(db):
    store = MemoryStore(db)
    ids = {text: store.add(text).id for text in CORPUS}
    return db, ids


def ranked(db, query, embedder, **tuning):
    return [h.id for h in recall(db, query, embedder, kinds=("fact",), limit=20, tuning=with_tuning(**tuning))]


def test_fusion_finds_what_bm25_alone_and_cosine_alone_each_miss(corpus, embedder):
    db, ids = corpus
    query = "HX-4471, and which foods make me ill?"
    code, allergy = ids[CORPUS[0]], ids[CORPUS[1]]
    bm25 = ranked(db, query, None, rescore=False)  # the first stage's lists alone
    cosine = ranked(db, query, embedder, bm25_weight=0.0, rescore=False)
    fused = ranked(db, query, embedder)  # what recall ships: fusion, then the relevance re-score
    assert code in bm25[:3] and allergy not in bm25  # no word in common with the allergy
    assert allergy in cosine[:3] and code not in cosine[:3]  # an opaque code means little to the model
    assert {code, allergy} <= set(fused[:3])


def test_paraphrase_needs_the_vectors(corpus, embedder):
    db, ids = corpus
    assert ranked(db, "which foods make me sick?", None) == []
    assert ranked(db, "which foods make me sick?", embedder)[0] == ids[CORPUS[1]]


def test_each_hit_says_what_it_is_and_where_it_came_from(db, embedder):
    s = sessions.create_session(db)
    msg = sessions.add_message(db, s.id, "user", "the webhook retries three times before giving up")
    store = MemoryStore(db)
    m = store.add("Webhook retries are capped at three", kind="rule", source_message_ids=[msg.id])
    hits = recall(db, "how many webhook retries?", embedder)
    by_type = {h.type: h for h in hits}
    assert by_type["memory"].id == m.id and by_type["memory"].kind == "rule"
    assert by_type["memory"].source == f"memory #{m.id} · manual · from message {msg.id}"
    assert (by_type["message"].id, by_type["message"].session_id, by_type["message"].kind) == (msg.id, s.id, "message")
    assert by_type["message"].source == f"session {s.id} · message {msg.id}"
    assert all(0 < h.score <= 1.5 and h.when for h in hits)


def test_filters_kind_time_and_session(db, fake_embedder):
    store = MemoryStore(db)
    old = store.add("Kayak trip on the lake", kind="event", created_at="2025-06-01T10:00:00.000000Z")
    new = store.add("Kayak paddles are in the garage", kind="fact")
    s1, s2 = sessions.create_session(db), sessions.create_session(db)
    m1 = sessions.add_message(db, s1.id, "user", "kayak rental was cheap")
    m2 = sessions.add_message(db, s2.id, "user", "kayak lessons start soon")
    ids = lambda **kw: {(h.type, h.id) for h in recall(db, "kayak", fake_embedder, **kw)}  # noqa: E731
    assert ids(kinds=["event"]) == {("memory", old.id)}
    assert ids(kinds=["message"]) == {("message", m1.id), ("message", m2.id)}
    assert ("memory", old.id) not in ids(since="2026-01-01") and ("memory", new.id) in ids(since="2026-01-01")
    assert ids(until="2025-06-01") == {("memory", old.id)}
    assert ids(kinds=["message"], session_id=s2.id) == {("message", m2.id)}
    with pytest.raises(UsageError, match="not a date"):
        recall(db, "kayak", None, since="last tuesday")
    with pytest.raises(UsageError, match="kind must be one of"):
        recall(db, "kayak", None, kinds=["opinion"])


def test_undone_messages_and_superseded_memories_are_not_found(db, fake_embedder):
    s = sessions.create_session(db)
    gone = sessions.add_message(db, s.id, "user", "octopus recipe with paprika")
    kept = sessions.add_message(db, s.id, "user", "octopus salad for lunch")
    sessions.set_status(db, [gone.id], "undone")
    store = MemoryStore(db)
    store.add("Favourite dish is octopus", key="user.dish")
    current = store.add("Favourite dish is grilled sardines, no longer octopus", key="user.dish")
    hits = recall(db, "octopus", fake_embedder)
    assert {(h.type, h.id) for h in hits} == {("message", kept.id), ("memory", current.id)}


def test_a_pinned_memory_ranks_above_an_equal_one(db):
    store = MemoryStore(db)
    a = store.add("Espresso every morning at home")
    b = store.add("Espresso every morning at work")
    assert [h.id for h in recall(db, "espresso morning", None)][:2] == [a.id, b.id]
    store.pin(b.id)
    assert [h.id for h in recall(db, "espresso morning", None)][:2] == [b.id, a.id]


def test_the_speaker_name_is_indexed_with_the_words(db, fake_embedder):
    s = sessions.create_session(db)
    cur = db.conn.execute(
        "INSERT INTO messages (session_id, role, content, created_at, name) "
        "VALUES (?, 'user', 'I went to a support group yesterday', '2023-05-08T13:56:00Z', 'Caroline')",
        (s.id,),
    )
    db.conn.commit()
    hits = recall(db, "Caroline", fake_embedder, kinds=["message"])
    assert [(h.id, h.name) for h in hits] == [(cur.lastrowid, "Caroline")] and hits[0].bm25_rank == 1
    assert "Caroline: I went to a support group yesterday" in fake_embedder.calls[0]


def test_a_word_most_rows_have_is_not_searched_for_but_the_rare_one_still_finds(db, monkeypatch):
    """BM25 over a word in most rows ranks nothing and scans them all (2.2 s for "the" at 1,000,000
    memories): past search.POSTINGS rows the commonest words of a query are left out."""
    from memchat.memory.recall import search

    store = MemoryStore(db)
    common = [store.add(f"Note number {i} about the garden").id for i in range(12)]
    rare = store.add("A zebra finch sings in the garden at dawn").id
    monkeypatch.setattr(search, "POSTINGS", 10)
    assert [h.id for h in recall(db, "garden zebra", None)] == [rare]  # "garden" is in 13 rows: left out
    assert recall(db, "garden", None) == []  # nothing left to search for by words
    monkeypatch.setattr(search, "POSTINGS", 100)
    hits = [h.id for h in recall(db, "garden zebra", None, limit=20)]
    assert hits[0] == rare and set(common) <= set(hits)  # under the budget every word is searched


def test_a_query_of_stop_words_only_searches_its_rarer_ones_on_a_smaller_budget(db, monkeypatch):
    """ "what do I like?" keeps its stop words (it has nothing else), but "i" is in most of a
    person's memories: such a query's words share search.STOP_POSTINGS rows; content words keep
    the whole budget."""
    from memchat.memory.recall import search

    store = MemoryStore(db)
    mine = [store.add(f"I planted row {i} of the garden").id for i in range(12)]
    liked = store.add("What do you like most about autumn?").id
    monkeypatch.setattr(search, "POSTINGS", 100)
    monkeypatch.setattr(search, "STOP_POSTINGS", 5)
    assert [h.id for h in recall(db, "what do I like", None, limit=20)] == [liked]  # "i": 12 rows, left out
    hits = {h.id for h in recall(db, "what do I like about the garden", None, limit=20)}
    assert set(mine) <= hits  # "garden" in 12 rows: a content word, on the whole budget


def test_fts_query_quotes_every_word_and_drops_stopwords():
    assert fts_query('where did we leave the "webhook" bug*?') == '"leave" OR "webhook" OR "bug"'
    assert fts_query("NEAR(a b) OR c: -d") == '"near" OR "b" OR "c" OR "d"'
    assert fts_query("the and of") == '"the" OR "and" OR "of"'  # all stopwords: keep them
    assert fts_query("🙂 ✨ ---") is None and fts_query("") is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.text(min_size=1, max_size=80)
    | st.sampled_from(
        [
            '"',
            '"unbalanced',
            "a*",
            "-b",
            "NEAR(a b, 2)",
            "col:value",
            "(a OR",
            "AND",
            "^x",
            "\x00",
            "🙂🙂",
            "a\x00b",
            "'; DROP TABLE memories; --",
            "{text}: x",
            "x NOT y",
            "*",
            "\\",
            "\u202e",
            "\ud800",
        ]
    )
)
def test_any_text_is_a_valid_query(corpus, query):
    db, _ = corpus
    if not query.strip():
        with pytest.raises(UsageError):
            recall(db, query, None)
        return
    hits = recall(db, query, None)
    assert all(h.type == "memory" for h in hits)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=40).filter(lambda t: t.strip()))
def test_any_text_is_a_valid_query_with_the_model(corpus, embedder, query):
    db, _ = corpus
    assert len(recall(db, query, embedder, limit=3)) == 3  # the cosine half always has an answer


def test_vectors_are_made_lazily_once_and_only_for_what_is_new(db):
    enc = FakeEmbedder()
    s = sessions.create_session(db)
    sessions.add_message(db, s.id, "user", "first message about herons")
    store = MemoryStore(db)
    store.add("Herons nest by the river")
    assert db.conn.execute("SELECT count(*) FROM message_vectors").fetchone() == (0,)  # nothing on write
    recall(db, "herons", enc)
    assert sorted(t for call in enc.calls[:-1] for t in call) == [
        "Herons nest by the river",
        "first message about herons",
    ]
    before = len(enc.calls)
    recall(db, "herons again", enc)
    assert len(enc.calls) == before + 1  # only the query
    late = sessions.add_message(db, s.id, "assistant", "herons eat fish")
    hits = recall(db, "herons", enc)
    assert enc.calls[-2] == ["herons eat fish"] and late.id in {h.id for h in hits if h.vector_rank}


def test_a_write_from_another_connection_reaches_the_cached_vectors(tmp_path):
    enc = FakeEmbedder()
    first = open_db(tmp_path / "shared.db")
    MemoryStore(first).add("Owls hunt at night")
    recall(first, "owls", enc)
    second = open_db(tmp_path / "shared.db")
    added = MemoryStore(second).add("Owls can turn their heads far")
    index.catch_up(second, enc)
    hits = recall(first, "owls heads", enc, catch_up=False)
    assert added.id in {h.id for h in hits if h.vector_rank is not None}


def test_a_model_change_asks_for_reindex_which_re_embeds_everything(db):
    old, new = FakeEmbedder("model-a"), FakeEmbedder("model-b", dim=8)
    store = MemoryStore(db)
    m = store.add("Badgers are nocturnal")
    s = sessions.create_session(db)
    sessions.add_message(db, s.id, "user", "badger sighting in the garden")
    recall(db, "badgers", old)
    with pytest.raises(index.ReindexNeeded, match="model-a.*model-b.*memchat reindex"):
        recall(db, "badgers", new)
    result = index.reindex(db, new)
    assert (result.memories, result.messages) == (1, 1)
    assert db.conn.execute("SELECT DISTINCT model, dim FROM message_vectors").fetchall() == [("model-b", 8)]
    assert store.get(m.id).embedding_model == "model-b"
    assert {h.vector_rank is not None for h in recall(db, "badgers", new)} == {True}
    assert index.reindex(db, new) == index.ReindexResult(0, 0)  # nothing stale left


def test_forgetting_takes_a_memory_out_of_the_cached_matrix(db, fake_embedder):
    store = MemoryStore(db)
    m = store.add("Secret hideout under the bridge")
    store.add("Bridges need painting")
    assert m.id in {h.id for h in recall(db, "hideout bridge", fake_embedder)}
    store.forget([m.id])
    assert m.id not in {h.id for h in recall(db, "hideout bridge", fake_embedder)}


def test_storing_a_chat_turn_loads_no_model_and_help_imports_nothing_heavy(memchat_home):
    turn = run_memchat("--provider", "echo", "ask", "the pelican flew by", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert turn.returncode == 0 and not heavy_imports(turn)
    conn = sqlite3.connect(memchat_home / "default.db")
    assert conn.execute("SELECT count(*) FROM message_vectors").fetchone() == (0,)
    assert (
        conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'pelican'").fetchone()[0] == 2
    )  # and the echo
    conn.close()
    assert not heavy_imports(run_memchat("--help", env={"PYTHONPROFILEIMPORTTIME": "1"}))


def heavy_imports(result):
    modules = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    return modules & {"numpy", "torch", "sentence_transformers"}


def test_a_search_leaves_a_large_backlog_to_recall_and_import(db):
    enc = FakeEmbedder()
    s = sessions.create_session(db)
    for i in range(40):
        sessions.add_message(db, s.id, "user", f"note {i} about gulls")
    recall(db, "gulls", enc)  # the default: more than 32 waiting, so none is embedded here
    assert db.conn.execute("SELECT count(*) FROM message_vectors").fetchone() == (0,)
    recall(db, "gulls", enc, catch_up=True)
    assert db.conn.execute("SELECT count(*) FROM message_vectors").fetchone() == (40,)


# --- multi-part questions: every piece of the answer ---------------------------------------------

KATE_CLIMBS = [
    "saw kate on saturday, she's obsessed with climbing now",
    "kate climbing??",
    "yep bouldering at the wall, she goes three times a week",
    "kate always finds a new hobby",
    "she says climbing is the best hobby she's ever had",
    "kate's arms must be huge",
    "she wants me to try the climbing wall with her",
    "kate and her hobbies lol",
    "kate bought climbing shoes too",
    "kate is all in then",
    "kate even watches climbing videos",
    "classic kate",
]
KATE_POTTERY = ["work was long", "kate is doing a pottery class on thursdays now", "nice", "she made me a mug"]
KATE_UKULELE = ["ugh rain again", "kate started learning the ukulele", "oh no", "she plays riptide"]


def chat_session(db, day, lines):
    """One session of alternating jess/sam turns on 2026-03-<day>; their message ids."""
    s = sessions.create_session(db)
    ids = []
    for i, text in enumerate(lines):
        cur = db.conn.execute(
            "INSERT INTO messages (session_id, role, content, created_at, name) VALUES (?, ?, ?, ?, ?)",
            (s.id, ("user", "assistant")[i % 2], text, f"2026-03-{day:02d}T20:{i:02d}:00Z", ("jess", "sam")[i % 2]),
        )
        ids.append(cur.lastrowid)
    db.conn.commit()
    return ids


@pytest.fixture
def kates_hobbies(db):
    """One evening of climbing talk, then a pottery class and a ukulele a week apart each."""
    climbing = chat_session(db, 2, KATE_CLIMBS)
    return db, climbing, chat_session(db, 9, KATE_POTTERY)[1], chat_session(db, 16, KATE_UKULELE)[1]


def top_ids(db, query, embedder, **tuning):
    hits = recall(db, query, embedder, kinds=("message",), limit=10, catch_up=True, tuning=with_tuning(**tuning))
    return [h.id for h in hits]


def test_a_set_question_retrieves_each_part_from_its_own_day(kates_hobbies, embedder):
    db, climbing, pottery, ukulele = kates_hobbies
    shipped = top_ids(db, "What are Kate's hobbies?", embedder)
    assert {pottery, ukulele} <= set(shipped)
    assert set(shipped[:5]) <= set(climbing)  # the best matches keep their places
    # Without coverage one evening's talk fills the top ten.
    assert not {pottery, ukulele} <= set(top_ids(db, "What are Kate's hobbies?", embedder, set_discount=0.0))


def test_a_question_for_one_thing_keeps_its_ranking(kates_hobbies, embedder):
    db, *_ = kates_hobbies
    query = "Where does Kate go bouldering?"
    assert top_ids(db, query, embedder) == top_ids(db, query, embedder, set_discount=0.0)


@pytest.mark.parametrize(
    ("question", "is_set"),
    [
        ("What are Kate's hobbies?", True),
        ("Which cities has Sam lived in?", True),
        ("What has Sam tried to sleep better?", True),
        ("Where has Melanie camped?", True),
        ("What did Jessica and Sam each cook?", True),
        ("Did Jon and Gina both dance?", True),
        ("How many children does Melanie have?", True),
        ("Where does Kate go bouldering?", False),
        ("When did Jessica run the half marathon?", False),
        ("How many years ago did she move?", False),
        ("What is the name of Priya's dog?", False),
        ("What was her time this year?", False),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_which_questions_ask_for_a_set(question, is_set):
    assert is_set_question(question) is is_set


@dataclass
class Ranked:
    id: int
    session_id: int
    score: float
    type: str = "message"


def test_a_deeper_hit_joins_the_top_twenty_only_when_it_adds_a_session():
    # 30 hits, best first: sessions 1 and 2 fill the first twenty places; below them a hit of
    # session 1, one of a session not seen yet (3), and weaker ones of session 2.
    sessions_by_rank = [1, 2] * 10 + [1, 3] + [2] * 8
    hits = [Ranked(i, s, 1.0 - i / 100) for i, s in enumerate(sessions_by_rank)]
    top = [h.id for h in diversify(hits)][:20]
    assert top[:5] == [0, 1, 2, 3, 4]  # the best stay where relevance put them
    assert 21 in top  # session 3 is admitted from below the twenty
    assert 20 not in top and not {22, 23} & set(top)  # hits of sessions already in are not


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("What are Kate's hobbies?", "kat says hi, shes learning the ukulele now"),
        ("Where does Duncan work?", "dunc got a new job at the bike shop"),
        ("Is Samantha coming on Friday?", "sam said she'd come friday"),
    ],
)
def test_a_name_in_a_question_covers_the_short_form_people_type_in_chat(db, question, text):
    """Real chats shorten names ("kat", "dunc", "sam"); the re-score's coverage counts the short form
    as the name. Only a name: a short word inside an ordinary word of the question counts for nothing."""
    from memchat.memory.recall.relevance import query_terms
    from memchat.memory.text import content_stems

    terms = query_terms(db, question)
    name = next(iter(terms.names))
    assert terms.coverage(content_stems(text)) > terms.coverage(content_stems(text.replace(text.split()[0], "x")))
    assert terms.coverage(content_stems(text)) >= terms.stems[name] / sum(terms.stems.values())


def test_only_names_match_by_short_form(db):
    from memchat.memory.recall.relevance import query_terms
    from memchat.memory.text import content_stems

    terms = query_terms(db, "how do I reset the management console")  # no name: no short forms
    assert terms.names == frozenset()
    assert terms.coverage(content_stems("the man at the desk")) == 0.0
    named = query_terms(db, "What did Ann say about the annual budget?")
    assert named.coverage(content_stems("annie said nothing")) == 0.0  # a longer word is not a short form
