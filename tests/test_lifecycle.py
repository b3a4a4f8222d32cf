"""The memory lifecycle end to end: capture by tool use, write policy, injection, against the local server."""

import os
import threading
import time

import pytest
from conftest import db_rows, run_memchat, wait_until

from memchat import sessions
from memchat.app import Memchat
from memchat.config import load_settings
from memchat.db import db_file, open_db
from memchat.memory.capture.background import CaptureWorker
from memchat.memory.capture.turns import capture_session
from memchat.memory.recall.embed import configured
from memchat.memory.store.memories import MemoryStore
from memchat.providers import get_provider


class Script:
    """The server's answers: extraction tool calls from a list, chat replies 'ok'."""

    def __init__(self):
        self.extractions = []
        self.decisions = []
        self.chat = []
        self.extractions_seen = 0
        self.decisions_asked = 0
        self.transcripts: list[str] = []  # what every memory call (extraction, summary) was shown
        self.meanwhile = None  # what another process does while the next extraction call runs

    def __call__(self, body):
        name = (body.get("tool_choice") or {}).get("name")
        if name or "Summarise this conversation" in str(body.get("messages")):
            self.transcripts.append(str(body.get("messages")))
        if name == "record_memories":
            self.extractions_seen += 1
            if self.meanwhile is not None:
                self.meanwhile, meanwhile = None, self.meanwhile
                meanwhile()
            answer = self.extractions.pop(0) if self.extractions else {"facts": [], "events": [], "rules": []}
            if "The conversation has ended" in str(body.get("messages")):  # one call: the summary too
                answer = {"summary": "The user shared contact preferences; nothing left open.", **answer}
            return {"tool_input": answer}
        if name == "decide_memory":
            self.decisions_asked += 1
            return {"tool_input": self.decisions.pop(0) if self.decisions else {"action": "add"}}
        if "tools" not in body and "Summarise this conversation" in str(body.get("messages")):
            return "The user shared contact preferences; nothing left open."
        self.chat.append(body)
        return "ok"


def fact(text, sources=(1,), **extra):
    return {"text": text, "origin": "stated", "sensitive": "none", "sources": list(sources), **extra}


def extraction(facts=(), events=(), rules=()):
    return {"facts": list(facts), "events": list(events), "rules": list(rules)}


@pytest.fixture
def script(fake):
    """The model's answers, in process (tests that are about the HTTP path use http_script)."""
    s = Script()
    fake.set_default(s)
    return s


@pytest.fixture
def http_script(api):
    """The same answers from the local Messages-API server, for memchat run as a process."""
    s = Script()
    api.set_default(s)
    return s


def open_world(tmp_path):
    db = open_db(tmp_path / "life.db")
    # capture on, as these tests capture: a turn said with it off is marked never to be learnt
    settings = load_settings(env={**os.environ, "MEMCHAT_MEMORY_CAPTURE": "true"})
    return db, settings, Memchat(settings, db=db).chat, get_provider(settings.provider, settings)


@pytest.fixture
def world(tmp_path, fake):
    return open_world(tmp_path)


@pytest.fixture
def http_world(tmp_path, api):
    return open_world(tmp_path)


@pytest.fixture(scope="module")
def encoder():
    from memchat.config import load_settings as ls

    return configured(ls(env={}))


def capture(world, session, encoder, final=False):
    db, settings, _, provider = world
    return capture_session(db, settings, provider, session.id, final=final, embedder=encoder)


def test_extracted_candidates_land_with_provenance(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    first = engine.send(s, "My claim number is CLM-4178; email me, never SMS.")
    script.extractions.append(
        extraction(
            facts=[fact("The user's claim number is CLM-4178.", key="user.claim_number", value="CLM-4178")],
            rules=[{"text": "Contact the user by email, never by SMS.", "sources": [1]}],
        )
    )
    result = capture(world, s, encoder)
    assert sorted(o.action for o in result.outcomes) == ["added", "added"]
    store = MemoryStore(db)
    claim = store.find(key="user.claim_number")[0]
    assert claim.source_message_ids == [first.user_message.id] and claim.origin == "stated"
    assert store.history(claim.id)[0].action == "add" and store.history(claim.id)[0].actor == "extractor"
    rule = store.find(kind="rule")[0]
    assert rule.text == "Contact the user by email, never by SMS."


def test_what_is_deleted_or_forgotten_while_capture_reads_it_is_never_stored(world, script, encoder, tmp_path):
    """The extraction call takes seconds; a session deleted, or a memory forgotten with its
    sources, in another terminal meanwhile must not come back as a new memory or summary."""
    from memchat.memory.forget import erase

    db, _, engine, _ = world
    elsewhere = open_db(tmp_path / "life.db")  # another process's connection to the profile
    s = sessions.create_session(db)
    engine.send(s, "My locker combination is 4471-QUILL")
    script.extractions.append(extraction(facts=[fact("The user's locker combination is 4471-QUILL.")]))
    script.meanwhile = lambda: erase.delete_sessions(elsewhere, [s.id])
    assert capture(world, s, encoder).outcomes == []
    assert not db_rows_like(db, "QUILL")

    s = sessions.create_session(db)
    engine.send(s, "My bike lock code is 2209-OTTER")
    script.extractions.append(extraction(facts=[fact("The user's bike lock code is 2209-OTTER.")]))
    (stored,) = capture(world, s, encoder).outcomes
    engine.send(s, "Thanks, that's all for today")
    script.extractions.append(extraction(facts=[fact("The user's bike lock code is 2209-OTTER.", sources=(1, 3))]))
    memory = MemoryStore(elsewhere).get_many([stored.memory_id])[stored.memory_id]
    script.meanwhile = lambda: erase.forget(elsewhere, [memory], purge_sources=True)
    result = capture(world, s, encoder, final=True)  # with the session's summary
    assert result.outcomes == [] and result.summary_id is None
    assert not db_rows_like(db, "OTTER")
    elsewhere.close()


def test_a_capture_killed_while_it_stores_is_checked_at_the_next_open(world, script, encoder, tmp_path, monkeypatch):
    """A kill -9 between the capture's store and its check kept what a forget in another terminal
    had taken back (a re-test found it): a record of what was read is left until the check, and
    the next open of the profile does the check: what was stored goes if what was read is gone,
    and stays if not."""
    from memchat.memory.capture import policy
    from memchat.memory.capture import turns as capture_turns
    from memchat.memory.forget import erase

    db, _, engine, _ = world
    elsewhere = open_db(tmp_path / "life.db")
    real_apply = policy.apply
    meanwhile = []

    def apply_then_die(*args, **kwargs):
        real_apply(*args, **kwargs)
        for step in meanwhile:
            step()
        raise KeyboardInterrupt  # the process ends here, before its check

    monkeypatch.setattr(policy, "apply", apply_then_die)

    s = sessions.create_session(db)
    engine.send(s, "My bike lock code is 2209-OTTER")
    script.extractions.append(extraction(facts=[fact("The user's bike lock code is 2209-OTTER.")]))
    # in another terminal: the user's own note of it, forgotten with its source (the message purged)
    own = MemoryStore(elsewhere).add("Bike lock: 2209-OTTER", source_message_ids=[1])
    meanwhile.append(lambda: erase.forget(elsewhere, [own], purge_sources=True))
    with pytest.raises(KeyboardInterrupt):
        capture(world, s, encoder)
    assert ("active",) in [(status,) for _, status, _ in db_rows_like(db, "OTTER")]  # the check never ran
    # the next memchat to open the profile does the check the killed one did not
    listed = run_memchat("--db", str(tmp_path / "life.db"), "memories", "list", env={"MEMCHAT_PROVIDER": "echo"})
    assert listed.returncode == 0, listed.stderr
    assert not db_rows_like(db, "OTTER")

    meanwhile.clear()  # killed the same way, but nothing was taken back: what it stored stands
    s = sessions.create_session(db)
    engine.send(s, "I keep bees at the allotment")
    script.extractions.append(extraction(facts=[fact("The user keeps bees at the allotment.", sources=(3,))]))
    with pytest.raises(KeyboardInterrupt):
        capture(world, s, encoder)
    assert capture_turns.finish_interrupted(elsewhere) == 0
    assert db_rows_like(db, "bees")[0][1] == "active"
    assert db.conn.execute("SELECT count(*) FROM profile_settings WHERE name LIKE 'capture.storing.%'").fetchone() == (
        0,
    )
    elsewhere.close()


def test_withdrawing_a_capture_forgets_only_what_it_stored_and_restores_what_it_replaced(world):
    """When what a capture read is taken back while it stores (the second check), what it stored
    goes for good; a memory it superseded is active again, and one it merged into is the user's."""
    from memchat.memory.capture.policy import Outcome
    from memchat.memory.capture.turns import CaptureResult, _withdraw

    db = world[0]
    store = MemoryStore(db)
    lyon = store.add("I live in Lyon", key="user.city", value="Lyon")
    kept = store.add("I play the cello")
    lisbon = store.supersede(lyon.id, "I live in Lisbon", value="Lisbon", actor="extractor")
    added = store.add("My locker code is 4471-QUILL", actor="extractor")
    result = CaptureResult(
        1,
        outcomes=[
            Outcome("updated", lisbon.id, lisbon.text, "fact"),
            Outcome("added", added.id, added.text, "fact"),
            Outcome("merged", kept.id, kept.text, "fact"),
        ],
    )
    _withdraw(db, result)
    status = dict(db.conn.execute("SELECT id, status FROM memories").fetchall())
    assert status[lisbon.id] == status[added.id] == "forgotten"
    assert status[lyon.id] == "active" and status[kept.id] == "active"
    assert store.find(key="user.city")[0].text == "I live in Lyon"
    assert not db_rows_like(db, "QUILL") and not db_rows_like(db, "Lisbon")


def db_rows_like(db, word):
    """Memories whose text holds `word`, whatever their status."""
    return db.conn.execute("SELECT id, status, text FROM memories WHERE text LIKE ?", (f"%{word}%",)).fetchall()


def test_a_duplicate_merges_instead_of_adding(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    engine.send(s, "I love hiking in the Alps.")
    script.extractions.append(extraction(facts=[fact("The user loves hiking in the Alps.")]))
    capture(world, s, encoder)
    engine.send(s, "Did I mention I love hiking in the Alps?")
    script.extractions.append(extraction(facts=[fact("The user loves hiking in the Alps")]))
    result = capture(world, s, encoder)
    assert [o.action for o in result.outcomes] == ["merged"]
    assert len(MemoryStore(db).find(kind="fact", status=None)) == 1


def test_moving_to_lisbon_supersedes_berlin_and_only_lisbon_is_injected(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    engine.send(s, "I live in Berlin.")
    script.extractions.append(extraction(facts=[fact("The user lives in Berlin.", key="user.city", value="Berlin")]))
    capture(world, s, encoder)
    engine.send(s, "I moved from Berlin to Lisbon.")
    script.extractions.append(extraction(facts=[fact("The user lives in Lisbon.", key="user.city", value="Lisbon")]))
    capture(world, s, encoder)
    later = sessions.create_session(db)
    engine.send(later, "Where do I live?")
    system = script.chat[-1]["system"]
    assert "The user lives in Lisbon." in system and "The user lives in Berlin." not in system
    assert [m.text for m in MemoryStore(db).find(kind="fact", status="superseded")] == ["The user lives in Berlin."]


def test_inferred_health_fact_is_pending_and_not_injected_until_confirmed(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    engine.send(s, "I've been so tired lately and always thirsty.")
    script.extractions.append(
        extraction(
            facts=[{"text": "The user may have diabetes.", "origin": "inferred", "sensitive": "health", "sources": [1]}]
        )
    )
    result = capture(world, s, encoder)
    assert [o.action for o in result.outcomes] == ["pending"]
    later = sessions.create_session(db)
    engine.send(later, "What do you know about my health and diabetes?")
    assert "diabetes" not in script.chat[-1]["system"]
    store = MemoryStore(db)
    store.confirm(result.outcomes[0].memory_id)
    engine.send(later, "And now, about my health and diabetes?")
    assert "The user may have diabetes." in script.chat[-1]["system"]


def test_rule_from_session_one_is_in_the_system_prompt_of_session_two(world, script, encoder):
    db, _, engine, _ = world
    s1 = sessions.create_session(db)
    engine.send(s1, "Please stop using bullet points, I hate them.")
    script.extractions.append(
        extraction(rules=[{"text": "Do not use bullet points.", "correction": True, "sources": [1]}])
    )
    capture(world, s1, encoder, final=True)
    s2 = sessions.create_session(db)
    engine.send(s2, "Give me three ideas for dinner.")
    system = script.chat[-1]["system"]
    assert "## How to work with you\n- Do not use bullet points." in system
    assert system.index("<memory>") < system.index("Do not use bullet points.") < system.index("</memory>")


def test_the_classic_cross_session_check(world, script, encoder):
    db, _, engine, _ = world
    s1 = sessions.create_session(db)
    engine.send(s1, "My claim number is CLM-4178; email me, never SMS.")
    # How to reach the user is an instruction for the assistant (a rule: always sent); the claim
    # number is a fact (sent when the message is about it).
    script.extractions.append(
        extraction(
            facts=[fact("The user's insurance claim number is CLM-4178.", key="user.claim_number", value="CLM-4178")],
            rules=[{"text": "Contact the user by email, never by SMS.", "sources": [1]}],
        )
    )
    capture(world, s1, encoder, final=True)
    s2 = sessions.create_session(db)
    engine.send(s2, "send me the status of my claim the way I asked")
    system = script.chat[-1]["system"]
    assert "CLM-4178" in system and "email, never by SMS" in system
    assert script.chat[-1]["messages"] == [
        {"role": "user", "content": "send me the status of my claim the way I asked"}
    ]
    # A message about something else gets the rule, and not the claim.
    engine.send(sessions.create_session(db), "Why is the sky blue?")
    system = script.chat[-1]["system"]
    assert "email, never by SMS" in system and "CLM-4178" not in system


def test_remember_that_is_stored_as_stated_in_the_users_words(world, script):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    result = engine.send(s, "Remember that my dentist is Dr. Okafor on Fridays.")
    memory = MemoryStore(db).get(result.remembered)
    assert memory.text == "My dentist is Dr. Okafor on Fridays." and memory.origin == "stated"
    assert memory.source_message_ids == [result.user_message.id]


@pytest.mark.parametrize(
    "asked",
    [
        "remember when we went to Paris?",
        "Remember what Ana said about the lease?",
        "Do you remember that I moved to Lisbon?",
        "remember if I paid the plumber",
        "Remember that my dentist is Dr. Okafor?",
        # a moment recalled, with no question mark: still not a fact
        "remember that time my sister visited",
        "Remember the summer we spent in Crete.",
        "remember the night Dad got locked out",
    ],
)
def test_a_question_about_the_past_is_not_a_request_to_remember(world, script, asked):
    db, _, engine, _ = world
    result = engine.send(sessions.create_session(db), asked)
    assert result.remembered is None and MemoryStore(db).find(status=None) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Remember the day the bins go out is Tuesday.", "The day the bins go out is Tuesday."),
        ("remember that the wedding is on 2027-05-22", "The wedding is on 2027-05-22"),
        ("Remember the day Ana starts school: 4 September", "The day Ana starts school: 4 September"),
    ],
)
def test_a_moment_with_a_fact_about_it_is_remembered(world, script, said, kept):
    db, _, engine, _ = world
    result = engine.send(sessions.create_session(db), said)
    assert result.remembered is not None
    assert [m.text for m in MemoryStore(db).find()] == [kept]


def test_no_memory_sends_no_memory_section_and_stores_nothing(api, http_script, memchat_home):
    MemoryStore(open_db(memchat_home / "default.db")).add("The user likes tea.", kind="fact", origin="stated")
    result = run_memchat("ask", "--no-memory", "remember that I like coffee")
    assert result.returncode == 0
    assert "<memory>" not in http_script.chat[-1].get("system", "")
    assert db_rows(memchat_home, "SELECT text FROM memories") == [("The user likes tea.",)]


@pytest.mark.parametrize("where", ["before the command", "after the command"])
def test_no_memory_anywhere_keeps_the_session_out_of_memory_for_good(api, http_script, memchat_home, where):
    """--no-memory as a global flag (where the README puts it) or the command's own: no memory
    section, no capture; and the session stays out of memory: resumed later without the flag,
    captured with everything else, searched by another conversation's turn."""
    MemoryStore(open_db(memchat_home / "default.db")).add("The user likes tea.", kind="fact", origin="stated")
    args = (
        ["--no-memory", "ask", "my locker code is 4417"]
        if where == "before the command"
        else ["ask", "--no-memory", "my locker code is 4417"]
    )
    env = {"MEMCHAT_MEMORY_CAPTURE": "true"}
    assert run_memchat(*args, env=env).returncode == 0
    assert "<memory>" not in http_script.chat[-1].get("system", "")
    assert db_rows(memchat_home, "SELECT memory_off FROM sessions") == [(1,)]
    assert run_memchat("ask", "-c", "and what do I like to drink?", env=env).returncode == 0
    assert "<memory>" not in http_script.chat[-1].get("system", "")  # still off in that session
    assert run_memchat("memories", "capture", env=env).returncode == 0
    assert not any("4417" in t for t in http_script.transcripts)  # nothing captured from it
    found = run_memchat("recall", "locker code", "--json", env=env)  # your own search shows it (and embeds it)
    assert "4417" in found.stdout.decode()
    # capture left off here: a detached capture would outlive the test and talk to the shared server
    assert run_memchat("ask", "what is my locker code?").returncode == 0
    assert "4417" not in http_script.chat[-1].get("system", "")  # not brought into another session
    assert db_rows(memchat_home, "SELECT text FROM memories") == [("The user likes tea.",)]


@pytest.mark.parametrize("failure", ["500", "malformed"])
def test_extraction_failure_never_disturbs_the_chat_and_is_retried(http_world, http_script, api, encoder, failure):
    db, settings, engine, _ = http_world
    s = sessions.create_session(db)
    engine.send(s, "I work at Initech.")
    if failure == "500":
        for _ in range(settings.max_retries + 1):
            api.enqueue_error(500, "boom", headers={"retry-after-ms": "1"})
    else:
        api.enqueue_tool_use("record_memories", {"facts": "not a list"}, raw_partial_json='{"facts": [')
    worker = CaptureWorker(db_file(db), settings, embedder=lambda: encoder)
    worker.submit(s.id)
    assert worker.drain(timeout=30)
    assert worker.errors == 1
    assert engine.send(s, "Still there?").status == "ok"  # the chat goes on
    assert MemoryStore(db).find() == []
    http_script.extractions.append(extraction(facts=[fact("The user works at Initech.")]))
    worker.submit(s.id)
    assert worker.drain(timeout=30)
    assert [m.text for m in MemoryStore(db).find()] == ["The user works at Initech."]


def test_chat_returns_while_extraction_is_still_running(http_world, api, encoder):
    db, settings, engine, _ = http_world
    release = threading.Event()
    order = []

    def server(body):
        if (body.get("tool_choice") or {}).get("name") == "record_memories":
            order.append("extraction started")
            release.wait(20)
            order.append("extraction answered")
            return {"tool_input": extraction(facts=[fact("The user has a cat named Ada.")])}
        order.append(f"chat: {body['messages'][-1]['content']}")
        return "ok"

    api.set_default(server)
    s = sessions.create_session(db)
    engine.send(s, "My cat is called Ada.")
    worker = CaptureWorker(db_file(db), settings, embedder=lambda: encoder)
    worker.submit(s.id)
    deadline = time.monotonic() + 30  # a capture that never starts fails here, never hangs the suite
    while "extraction started" not in order and time.monotonic() < deadline:
        threading.Event().wait(0.02)
    assert "extraction started" in order, worker.errors
    assert engine.send(s, "What should I feed her?").status == "ok"
    release.set()
    assert worker.drain(timeout=30)
    assert order == [
        "chat: My cat is called Ada.",
        "extraction started",
        "chat: What should I feed her?",
        "extraction answered",
    ]
    assert [m.text for m in MemoryStore(db).find()] == ["The user has a cat named Ada."]


def test_session_end_writes_an_episodic_summary(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    for said in ("Let's plan the migration.", "Start with the billing tables.", "Then the invoices."):
        engine.send(s, said)
    result = capture(world, s, encoder, final=True)
    summary = MemoryStore(db).get(result.summary_id)
    assert summary.kind == "event" and summary.key == f"session.{s.id}.summary"
    assert summary.text.startswith(f"Session {s.id} (") and "nothing left open" in summary.text


def test_a_one_shot_exchange_is_summarised_only_when_it_taught_something(world, script, encoder):
    db, _, engine, _ = world
    quiet = sessions.create_session(db)
    engine.send(quiet, "How do I reverse a list in Python, quickly and in place?")
    assert capture(world, quiet, encoder, final=True).summary_id is None  # nothing about the person
    taught = sessions.create_session(db)
    engine.send(taught, "I'm moving to Valencia in March for a new job at Cabify.")
    script.extractions.append(extraction(facts=[fact("The user is moving to Valencia in March.")]))
    assert capture(world, taught, encoder, final=True).summary_id is not None


def test_no_session_summary_outranks_the_fact_that_answers(world, encoder):
    db = world[0]
    store = MemoryStore(db)
    fact_id = store.add("The user's bike is a green Brompton with a dynamo light.", origin="stated").id
    for i in range(10):
        store.add(
            f'Session {i + 1} (2026-11-{i + 1:02d}, "bike"): the user asked about their bike and cycling; all answered.',
            kind="event",
            key=f"session.{i + 1}.summary",
            origin="inferred",
            actor="extractor",
        )
    from memchat.memory.recall import index
    from memchat.memory.recall.search import recall

    index.catch_up(db, encoder)
    hits = recall(db, "what bike do I have?", encoder, kinds=("fact", "event"))
    assert hits[0].id == fact_id


def test_ask_captures_in_the_background_after_returning(api, http_script, memchat_home, monkeypatch):
    import time

    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    http_script.extractions.append(extraction(facts=[fact("The user's favourite colour is teal.")]))
    result = run_memchat("ask", "My favourite colour is teal.")
    assert result.returncode == 0 and result.stdout == b"ok\n"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if db_rows(memchat_home, "SELECT text FROM memories WHERE kind = 'fact'"):
            break
        time.sleep(0.2)
    assert db_rows(memchat_home, "SELECT text, origin FROM memories WHERE kind = 'fact'") == [
        ("The user's favourite colour is teal.", "stated")
    ]


def test_repl_captures_at_exit_and_why_explains(api, http_script, memchat_home, monkeypatch):
    import os
    import sys

    import pexpect
    from conftest import ROOT

    MemoryStore(open_db(memchat_home / "default.db")).add("Answer in British English.", kind="rule", origin="stated")
    http_script.extractions.append(extraction(facts=[fact("The user is training for a marathon.")]))
    env = dict(os.environ, TERM="xterm-256color", MEMCHAT_MEMORY_CAPTURE="true")
    child = pexpect.spawn(
        sys.executable, ["-m", "memchat"], env=env, cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(30, 120)
    )
    child.expect_exact("›")
    child.sendline("I'm training for a marathon.")
    child.expect("ok")
    child.expect_exact("›")
    child.sendline("/why")
    child.expect("Answer in British English")
    child.expect_exact("›")
    child.sendcontrol("d")
    # Quitting does not wait for capture: a detached process does it.
    child.expect("saved in the background")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not db_rows(
        memchat_home, "SELECT 1 FROM memories WHERE kind = 'event' AND key = 'session.1.summary'"
    ):
        time.sleep(0.2)
    facts = db_rows(memchat_home, "SELECT text FROM memories WHERE kind = 'fact'")
    assert facts == [("The user is training for a marathon.",)]
    assert db_rows(
        memchat_home, "SELECT count(*) FROM memories WHERE kind = 'event' AND key = 'session.1.summary'"
    ) == [(1,)]
    assert http_script.extractions_seen == 1  # one call: the facts and the summary together


def test_the_chat_is_told_when_background_work_ends_so_its_toolbar_never_says_saving_for_long(
    http_world, api, encoder, monkeypatch
):
    # The REPL's toolbar says "saving…" while capture runs and "preparing the encoder" while that
    # runs; prompt_toolkit redraws only on a key, so the app tells the shell when either ends
    # (Profile.on_status_change: the REPL hands it the prompt's invalidate).
    release = threading.Event()

    def server(body):
        if (body.get("tool_choice") or {}).get("name") == "record_memories":
            release.wait(20)
            return {"tool_input": extraction(facts=[fact("The user has a cat named Ada.")])}
        return "ok"

    api.set_default(server)
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")  # a turn said with capture off is never learnt
    app = Memchat.load(None)
    db, engine = app.db, app.chat
    told: list[int] = []
    app.on_status_change = lambda: told.append(app.capture.capture_pending)
    s = sessions.create_session(db)
    engine.send(s, "My cat is called Ada.")
    app.capture.worker.submit(s.id)
    assert app.capture.capture_pending == 1 and told == []  # still saving: nothing to redraw yet
    release.set()
    deadline = time.monotonic() + 30
    while not told and time.monotonic() < deadline:
        time.sleep(0.02)
    assert told == [0], app.capture.worker.errors  # told once, when nothing is left to save
    assert app.capture.worker.errors == 0
    assert [m.text for m in MemoryStore(db).find()] == ["The user has a cat named Ada."]
    warmed = threading.Event()
    app.on_status_change = warmed.set
    app.warm_up()  # the encoder's preparation ends: told too
    assert warmed.wait(30)
    app.close()


def test_vectors_of_another_model_do_not_break_a_chat_turn(world, script, encoder):
    db, _, engine, _ = world
    MemoryStore(db).add("The user's dog is called Biscuit.", kind="fact", origin="stated")
    db.conn.execute("UPDATE memories SET embedding = zeroblob(16), embedding_model = 'some-old-model'")
    db.conn.commit()
    s = sessions.create_session(db)
    notices = []
    result = engine.send(s, "What is my dog called?", on_notice=notices.append)
    assert result.status == "ok"
    assert any("reindex" in n for n in notices)
    assert "Biscuit" in script.chat[-1]["system"]  # still found, by full text


def test_no_path_but_confirm_makes_an_inferred_sensitive_fact_active(
    world, script, encoder, tmp_path, cli, memchat_home, monkeypatch
):
    import json

    db, _, engine, _ = world
    monkeypatch.setenv("MEMCHAT_DB", str(db_file(db)))
    s = sessions.create_session(db)
    engine.send(s, "I keep forgetting my insulin pen.")
    script.extractions.append(
        extraction(
            facts=[
                {
                    "text": "The user may have diabetes.",
                    "origin": "inferred",
                    "sensitive": "health",
                    "sources": [1],
                    "key": "user.health",
                }
            ]
        )
    )
    mid = capture(world, s, encoder).outcomes[0].memory_id
    store = MemoryStore(db)
    pending = lambda: store.get(mid).status  # noqa: E731
    # Edit, metadata updates, pinning and a full reindex leave it pending.
    assert cli("memories", "edit", str(mid), "--text", "The user has type 1 diabetes.").exit_code == 0
    store.update(mid, importance=0.9, sensitive=True, key="user.health")
    store.pin(mid)
    assert cli("reindex", "--full").exit_code == 0
    assert pending() == "pending"
    # Re-importing its own export, or a file that claims it is active, adds it as pending.
    export = tmp_path / "mem.json"
    assert cli("memories", "export", "-o", str(export)).exit_code == 0
    data = json.loads(export.read_text())
    for record in data["memories"]:
        record["status"] = "active"
    export.write_text(json.dumps(data))
    monkeypatch.setenv("MEMCHAT_DB", str(tmp_path / "other.db"))
    result = cli("memories", "import", str(export))
    assert result.exit_code == 0 and "1 memory waits for your review" in result.stderr
    other = MemoryStore(open_db(tmp_path / "other.db"))
    assert [(m.text, m.status) for m in other.find(status=None)] == [("The user has type 1 diabetes.", "pending")]
    # Nothing pending reaches the model.
    engine.send(s, "What do you know about my diabetes?")
    assert "diabetes" not in script.chat[-1]["system"]
    assert store.confirm(mid).status == "active"


def _memory_calls(api) -> list[dict]:
    return [r for r in api.requests if r.get("tool_choice") or "Summarise" in str(r.get("messages"))]


def test_a_one_shot_ask_costs_one_background_call_on_the_memory_model(api, http_script, memchat_home):
    env = {"MEMCHAT_MEMORY_CAPTURE": "true", "MEMCHAT_MEMORY_MODEL": "claude-haiku-4-5"}
    http_script.extractions.append(extraction(facts=[fact("The user's locker code is 4417.")]))
    assert run_memchat("ask", "My locker code is 4417, please keep that in mind.", env=env).returncode == 0
    assert wait_until(lambda: db_rows(memchat_home, "SELECT 1 FROM memories WHERE key = 'session.1.summary'"))
    memory_calls = _memory_calls(api)
    assert len(memory_calls) == 1  # the facts and the session summary, together
    assert memory_calls[0]["model"] == "claude-haiku-4-5"
    chat = [r for r in api.requests if r not in memory_calls]
    assert [r["model"] for r in chat] == ["claude-sonnet-5-5"]
    rows = {
        (purpose, model): calls
        for model, purpose, calls in db_rows(memchat_home, "SELECT model, purpose, count(*) FROM usage GROUP BY 1, 2")
    }
    assert rows == {("chat", "claude-sonnet-5-5"): 1, ("memory", "claude-haiku-4-5"): 1}


@pytest.mark.parametrize("said", ["hi", "thanks!", "ok cool", "hello there"])
def test_small_talk_costs_no_memory_call(api, http_script, memchat_home, said):
    env = {"MEMCHAT_MEMORY_CAPTURE": "true"}
    assert run_memchat("ask", said, env=env).returncode == 0
    assert run_memchat("memories", "capture", env=env).returncode == 0  # whatever is pending, now
    assert _memory_calls(api) == []
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]


def test_an_update_the_extraction_marks_supersedes_without_a_second_call(world, script, encoder):
    db, _, engine, _ = world
    s = sessions.create_session(db)
    engine.send(s, "I drive a red Volvo.")
    script.extractions.append(extraction(facts=[fact("The user drives a red Volvo.")]))
    capture(world, s, encoder)
    engine.send(s, "I sold the Volvo, I drive a blue Tesla now.")
    script.extractions.append(extraction(facts=[fact("The user drives a blue Tesla.", updates=1)]))
    result = capture(world, s, encoder)
    assert [o.action for o in result.outcomes] == ["updated"]
    store = MemoryStore(db)
    assert [m.text for m in store.find(kind="fact")] == ["The user drives a blue Tesla."]
    assert [m.text for m in store.find(kind="fact", status="superseded")] == ["The user drives a red Volvo."]
    assert script.decisions_asked == 0


def test_background_capture_never_shows_the_memory_model_what_a_private_memory_says(world, script, encoder):
    # Said again in a chat, a private memory's words would be extracted and stored again, not private:
    # the message that says them is not in the transcript the memory model reads (nor its reply).
    db, _, engine, _ = world
    store = MemoryStore(db)
    store.add("My bank card PIN is 4471", kind="fact", origin="stated", private=True)
    s = sessions.create_session(db)
    engine.send(s, "Heads up: my bank card PIN is 4471 now.")
    engine.send(s, "Also, I'm thinking of moving to Monzo and learning to sail this summer.")
    capture(world, s, encoder, final=True)
    assert script.transcripts, "the extraction was called"
    assert "4471" not in script.transcripts[-1] and "Monzo" in script.transcripts[-1]


def test_background_capture_never_shows_the_memory_model_a_private_memory(world, script, encoder):
    # The extraction is shown the memories close to what was said, to decide what changed: one the
    # user marked private is never among them (it is sent to no model unasked), though it is the
    # closest; one that is not private still is.
    db, _, engine, _ = world
    store = MemoryStore(db)
    secret = store.add("My bank card PIN is 4471", kind="fact", origin="stated")
    store.update(secret.id, private=True, actor="user")
    store.add("My bank is Monzo", kind="fact", origin="stated")
    s = sessions.create_session(db)
    engine.send(s, "I went to the cash machine today, and I might switch bank.")
    capture(world, s, encoder)
    assert script.transcripts, "the extraction was called"
    assert "4471" not in script.transcripts[-1] and "Monzo" in script.transcripts[-1]
