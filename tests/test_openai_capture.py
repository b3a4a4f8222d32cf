"""Memory through the openai provider: capture (tool calls, or a JSON answer from a model that
has none or botches them), its decisions, compaction, and memory on another provider than chat.
Every malformed answer either becomes the same memories or a visible failed capture, retried."""

import json

import pytest
from conftest import db_rows, run_memchat

from memchat import sessions
from memchat.app import Memchat
from memchat.config import load_settings
from memchat.db import open_db
from memchat.errors import ProviderError
from memchat.memory.capture.policy import DECIDE_TOOL
from memchat.memory.capture.turns import capture_session, pointer
from memchat.memory.store.memories import MemoryStore
from memchat.providers import ChatRequest, get_provider

DOG = {
    "facts": [{"text": "The user's dog is called Rex.", "origin": "stated", "sources": [1]}],
    "events": [],
    "rules": [],
}
DOG_JSON = json.dumps(DOG)


@pytest.fixture
def world(tmp_path, local_api, fake_embedder, monkeypatch):
    db = open_db(tmp_path / "local.db")
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")  # a turn said with capture off is never learnt
    settings = load_settings()
    engine = Memchat(settings, db=db).chat
    session = sessions.create_session(db)
    local_api.enqueue_text("What a lovely name.")
    engine.send(session, "My dog is called Rex, he is three years old.")
    yield db, settings, session, fake_embedder
    db.close()


def capture(world):
    """Capture the session's new turns, with the settings as they are now (a test may declare the model)."""
    db, _, session, embedder = world
    settings = load_settings()
    return capture_session(db, settings, get_provider("openai", settings), session.id, embedder=embedder)


def facts(db):
    return [m.text for m in MemoryStore(db).find(kind="fact")]


def test_capture_by_a_tool_call(world, local_api):
    local_api.enqueue_tool_call("record_memories", DOG)
    result = capture(world)
    assert [o.action for o in result.outcomes] == ["added"]
    assert facts(world[0]) == ["The user's dog is called Rex."]
    sent = local_api.requests[-1]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "record_memories"}}
    assert (
        sent["messages"][0]["role"] == "system" and "memory of a personal assistant" in sent["messages"][0]["content"]
    )
    assert sent["model"] == "llama3.1:8b"  # memory.model is Claude's by default: the chat model serves here


def db_rows_of(world, sql):
    return world[0].conn.execute(sql).fetchall()


def test_an_update_supersedes_through_the_provider(world, local_api):
    local_api.enqueue_tool_call("record_memories", DOG)
    capture(world)
    db, settings, session, _ = world
    local_api.enqueue_text("Noted.")
    Memchat(settings, db=db).chat.send(session, "Sorry, I misspoke: my dog is called Rocky, not Rex.")
    renamed = {"text": "The user's dog is called Rocky.", "origin": "stated", "sources": [1], "updates": 1}
    local_api.enqueue_tool_call("record_memories", {"facts": [renamed], "events": [], "rules": []})
    assert [o.action for o in capture(world).outcomes] == ["updated"]
    assert facts(db) == ["The user's dog is called Rocky."]
    assert [m.text for m in MemoryStore(db).find(kind="fact", status="superseded")] == ["The user's dog is called Rex."]


def test_the_write_policy_decision_is_a_tool_call_too(local_api):
    local_api.enqueue_tool_call("decide_memory", {"action": "update", "target": 1, "text": "Lives in Porto."})
    req = ChatRequest(model="llama3.1:8b", system="s", messages=[{"role": "user", "content": "x"}], max_tokens=50)
    assert get_provider("openai", load_settings()).call_tool(req, DECIDE_TOOL) == {
        "action": "update",
        "target": 1,
        "text": "Lives in Porto.",
    }


# --- item 5: weak models -------------------------------------------------------------------------

FENCED = f"```json\n{DOG_JSON}\n```"
PROSE = f"Sure! Here is what I found:\n{DOG_JSON}\nLet me know if you need anything else."
SINGLE_QUOTES = "{'facts': [{'text': \"The user's dog is called Rex.\", 'origin': 'stated', 'sources': [1]}], 'events': [], 'rules': []}"
TRAILING_COMMAS = '{"facts": [{"text": "The user\'s dog is called Rex.", "origin": "stated", "sources": [1,],},], "events": [], "rules": [],}'
PYTHON_LITERALS = "{'facts': [{'text': \"The user's dog is called Rex.\", 'origin': 'stated', 'sources': [1]}], 'events': [{'type': 'other', 'description': 'Adopted a dog.', 'resolved': True, 'sources': [1]}], 'rules': []}"


@pytest.mark.parametrize(
    "answer",
    [DOG_JSON, FENCED, PROSE, SINGLE_QUOTES, TRAILING_COMMAS, PYTHON_LITERALS],
    ids=["plain", "code-fences", "trailing-prose", "single-quotes", "trailing-commas", "python-literals"],
)
def test_a_model_without_tool_calls_answers_in_json_repaired_once(world, local_api, memchat_home, answer):
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    local_api.enqueue_text(answer)
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]
    sent = local_api.requests[-1]
    assert "tools" not in sent and "response_format" not in sent  # json_mode not declared
    assert "Answer with one JSON object and nothing else" in sent["messages"][0]["content"]
    assert '"name":"record_memories"' not in sent["messages"][0]["content"]  # the schema, not the tool, is shown
    assert '"facts":{"type":"array"' in sent["messages"][0]["content"]


def test_json_mode_is_asked_for_when_the_model_declares_it(world, local_api, memchat_home):
    (memchat_home / "config.toml").write_text('[models."llama3*"]\ntools = false\njson_mode = true\n')
    local_api.enqueue_text(DOG_JSON)
    capture(world)
    assert local_api.requests[-1]["response_format"] == {"type": "json_object"}
    assert facts(world[0]) == ["The user's dog is called Rex."]


def test_no_tool_call_falls_back_to_a_json_answer(world, local_api):
    local_api.enqueue_text("I would remember that the dog is Rex.")  # the forced call, ignored
    local_api.enqueue_text(FENCED)
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]
    assert "tool_choice" in local_api.requests[-2] and "tool_choice" not in local_api.requests[-1]


def test_malformed_tool_arguments_fall_back_to_a_json_answer(world, local_api):
    local_api.enqueue_tool_call("record_memories", '{"facts": [{"text": "The user\'s dog')
    local_api.enqueue_text(DOG_JSON)
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]


def test_close_tool_arguments_are_repaired_without_another_call(world, local_api):
    local_api.enqueue_tool_call("record_memories", TRAILING_COMMAS)
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]
    assert local_api.pending == 0 and sum("tool_choice" in r for r in local_api.requests) == 1


def test_null_optional_fields_in_a_tool_call_are_fields_not_given(world, local_api):
    rex = {"text": "The user's dog is called Rex.", "origin": "stated", "sources": [1], "key": None, "updates": None}
    local_api.enqueue_tool_call("record_memories", {"facts": [rex], "events": [], "rules": []})
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]
    assert sum("tool_choice" in r for r in local_api.requests) == 1


def test_a_server_that_refuses_tools_gets_the_json_question(world, local_api):
    local_api.enqueue_error(400, "registry.ollama.ai/library/llama3.1:8b does not support tools")
    local_api.enqueue_text(DOG_JSON)
    capture(world)
    assert facts(world[0]) == ["The user's dog is called Rex."]


@pytest.mark.parametrize(
    "answer, said",
    [
        ("I'm sorry, I can't help with that.", "was not JSON, even repaired"),
        (
            # a value the model filled with what the user said: never quoted (the log would hold it)
            '{"facts": [{"text": "The user\'s dog is called Rex.", "origin": "my PIN is 4471", "sources": [1]}], "events": [], "rules": []}',
            "facts[0].origin is not one of stated, inferred",
        ),
        ('{"facts": "Rex", "events": [], "rules": []}', "facts should be array, got str"),
        (
            '{"facts": [{"text": "The user\'s dog is called Rex.", "origin": "stated", "sources": [1]}], "events": []}',
            "the answer lacks rules",
        ),
    ],
    ids=["prose-only", "bad-enum", "wrong-type", "missing-key"],
)
def test_an_answer_beyond_repair_fails_the_capture_and_stores_nothing(world, local_api, memchat_home, answer, said):
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    local_api.enqueue_text(answer)
    with pytest.raises(ProviderError) as exc:
        capture(world)
    assert said in exc.value.message and "nothing was stored" in exc.value.message
    assert "4471" not in exc.value.message and "Rex" not in exc.value.message
    assert "asked for JSON because model llama3.1:8b declares no tool calls" in exc.value.message
    db, _, session, _ = world
    assert facts(db) == [] and pointer(db, session.id) == (0, 0)  # not half-stored; retried next time


def test_a_failed_capture_is_logged_shown_by_doctor_and_retried(local_api, memchat_home):
    """A background capture of a weak model's unusable answer: one log line, doctor's warning,
    the session kept for the next run, which stores the memory once the answer is usable."""
    env = {"MEMCHAT_MEMORY_CAPTURE": "true"}
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    # said with capture agreed (what is said under no, a background run never reads), to the offline
    # echo model, which starts no capture of its own
    said = run_memchat("ask", "My dog is called Rex, he is three years old.", env={**env, "MEMCHAT_PROVIDER": "echo"})
    assert said.returncode == 0
    local_api.enqueue_text("Sure, the dog is Rex!")  # no JSON at all
    background = run_memchat("memories", "capture", "--background", "--session", "1", env=env)
    assert background.returncode == 0
    log = (memchat_home / "memchat.log").read_text()
    assert "background capture failed" in log and "was not JSON, even repaired" in log
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]
    assert db_rows(memchat_home, "SELECT attempts, last_error IS NOT NULL FROM capture_state") == [(1, 1)]
    doctor = run_memchat("doctor", "--quick", env=env)
    assert "! capture" in doctor.stdout.decode() and "was not JSON" in doctor.stdout.decode()
    local_api.enqueue_text(DOG_JSON)
    retried = run_memchat("memories", "capture", env=env)
    assert retried.returncode == 0, retried.stderr
    assert db_rows(memchat_home, "SELECT text FROM memories WHERE kind = 'fact'") == [
        ("The user's dog is called Rex.",)
    ]


def test_a_failed_capture_run_by_hand_is_one_line(local_api, memchat_home):
    env = {"MEMCHAT_MEMORY_CAPTURE": "true"}
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    local_api.enqueue_text("ok")
    assert run_memchat("ask", "My dog is called Rex, he is three years old.").returncode == 0
    local_api.enqueue_text("{'facts': [oops")
    # (the ask was never asked whether to learn: only the session named is learnt from by hand)
    result = run_memchat("memories", "capture", "--session", "1", env=env)
    assert result.returncode == 1
    err = result.stderr.decode().strip()
    assert err.startswith("memchat: the model's JSON answer for record_memories was not JSON, even repaired")
    assert "\n" not in err and "Traceback" not in err


# --- compaction and roles --------------------------------------------------------------------------


def test_compaction_summarises_through_the_provider(world, local_api):
    db, settings, session, _ = world
    local_api.enqueue_text("Fine.")
    engine = Memchat(settings, db=db).chat
    engine.send(session, "Let's plan the vet visit for Rex next Tuesday.")
    local_api.enqueue_text("## User identity: owns a dog, Rex.\n(covers messages 1-2)")
    compacted = engine.compact(session)
    assert compacted.summary.startswith("## User identity: owns a dog, Rex.")
    sent = local_api.requests[-1]
    assert "stream" not in sent and sent["model"] == "llama3.1:8b"
    assert "compacting" not in sent["messages"][0]["content"] and "running summary" in sent["messages"][1]["content"]


def test_chat_on_claude_memory_on_a_local_model(api, local_api, tmp_path, monkeypatch, fake_embedder):
    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    monkeypatch.setenv("MEMCHAT_MODEL", "claude-sonnet-5-5")
    monkeypatch.setenv("MEMCHAT_MEMORY_PROVIDER", "openai")
    monkeypatch.setenv("MEMCHAT_MEMORY_MODEL", "qwen2.5:7b")
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    from memchat.app import Memchat

    app = Memchat.load(db=str(tmp_path / "roles.db"))
    app.embedder = lambda on_prepare=None: fake_embedder
    session = app.chat.start_session()
    api.enqueue_text("A fine name.")
    app.chat.send(session, "My dog is called Rex, he is three years old.")
    local_api.enqueue_tool_call("record_memories", DOG)
    app.capture.run(session.id)
    assert [m.text for m in app.store.find(kind="fact")] == ["The user's dog is called Rex."]
    assert [r["model"] for r in api.requests] == ["claude-sonnet-5-5"]
    assert [r["model"] for r in local_api.requests] == ["qwen2.5:7b"]
    app.close()


@pytest.mark.parametrize(
    "near, fixed",
    [
        ("{'a': 'it\\'s'}", {"a": "it's"}),
        ('{"a": "don\'t, stop",}', {"a": "don't, stop"}),
        ("{'a': 'say \"hi\"'}", {"a": 'say "hi"'}),
        ('```\n{"a": [1, 2,]}\n```', {"a": [1, 2]}),
        ("{'a': True, 'b': None}", {"a": True, "b": None}),
        ('{"a": "True story, None of it",}', {"a": "True story, None of it"}),
    ],
    ids=[
        "escaped-apostrophe",
        "apostrophe-in-double",
        "quotes-in-single",
        "fenced-array",
        "literals",
        "words-in-strings",
    ],
)
def test_repair_changes_the_syntax_never_what_strings_say(near, fixed):
    from memchat.providers.structured import repair

    assert json.loads(repair(near)) == fixed
