"""Working memory: budget, pins, strategies and compaction, checked on what the server receives."""

import json

import pytest
from conftest import db_rows, run_memchat

from memchat import sessions, tokens
from memchat.app import Memchat
from memchat.compaction import SUMMARY_SYSTEM
from memchat.config import load_settings
from memchat.context import ContextError, compile_context
from memchat.db import open_db

WINDOW = 4000
MAX_TOKENS = 500


def engine_for(monkeypatch, tmp_path, strategy, **env):
    monkeypatch.setenv("MEMCHAT_CONTEXT_WINDOW", str(WINDOW))
    monkeypatch.setenv("MEMCHAT_MAX_TOKENS", str(MAX_TOKENS))
    monkeypatch.setenv("MEMCHAT_HISTORY_STRATEGY", strategy)
    for key, value in env.items():
        monkeypatch.setenv(key, str(value))
    db = open_db(tmp_path / "ctx.db")
    return Memchat(load_settings(), db=db).chat, db


def filler(i: int) -> str:
    base = f"Turn {i}: here is a long message about the migration plan, step {i}, with details. "
    return (base * 10)[:500]


def short_summaries(body):
    """The server's answers: a fixed short summary for compaction requests, an ack otherwise."""
    if body.get("system") == SUMMARY_SYSTEM:
        return '## User identity\n- The user is Ada Lovelace.\n## Constraints\n- "NEVER suggest MongoDB"'
    return "ok, noted."


def fits(model, request):
    return model.count_input_tokens(request) + request["max_tokens"] <= WINDOW


@pytest.mark.parametrize("strategy", ["tokens", "window", "compact"])
def test_two_hundred_long_turns_always_fit_a_small_window(fake, monkeypatch, tmp_path, strategy):
    fake.input_tokenizer = tokens.count  # the "real" tokenizer of this server
    fake.set_default(short_summaries)
    engine, db = engine_for(monkeypatch, tmp_path, strategy)
    session = sessions.create_session(db)
    for i in range(200):
        result = engine.send(session, filler(i))
        assert result.status == "ok", result.error
    chat_requests = [r for r in fake.requests if r.get("system") != SUMMARY_SYSTEM]
    assert len(chat_requests) == 200
    assert all(fits(fake, r) for r in fake.requests)
    last = chat_requests[-1]["messages"]
    assert last[-1]["content"] == filler(199)
    assert 2 < len(last) < 60  # recent turns, not everything (400 messages) and not nothing
    if strategy == "compact":
        assert any(r.get("system") == SUMMARY_SYSTEM for r in fake.requests)
        assert "NEVER suggest MongoDB" in chat_requests[-1]["system"]


@pytest.mark.parametrize("strategy", ["tokens", "window", "compact"])
def test_pinned_name_and_constraint_survive_fifty_turns_in_every_strategy(fake, monkeypatch, tmp_path, strategy):
    fake.input_tokenizer = tokens.count
    fake.set_default(lambda body: "Summary without the details." if body.get("system") == SUMMARY_SYSTEM else "ok")
    engine, db = engine_for(monkeypatch, tmp_path, strategy, MEMCHAT_HISTORY_WINDOW_TURNS=3)
    session = sessions.create_session(db)
    first = engine.send(session, "Hi, my name is Ada Lovelace.").user_message
    engine.send(session, "We are migrating a billing system.")
    third = engine.send(session, "NEVER suggest MongoDB, whatever happens.").user_message
    sessions.set_pinned(db, first.id, True)
    sessions.set_pinned(db, third.id, True)
    for i in range(50):
        engine.send(session, filler(i))
    sent = [m["content"] for m in fake.requests[-1]["messages"]]
    joined = "\n".join(sent)
    assert "Hi, my name is Ada Lovelace." in joined
    assert "NEVER suggest MongoDB, whatever happens." in joined
    assert joined.index("Ada Lovelace") < joined.index("NEVER suggest")  # in their original order
    assert "We are migrating a billing system." not in joined
    assert all(fits(fake, r) for r in fake.requests)


def test_compaction_keeps_name_and_constraint_through_the_summary(fake, monkeypatch, tmp_path):
    fake.input_tokenizer = tokens.count
    summary = (
        '## User identity\n- Name: Ada Lovelace\n## Constraints\n- "NEVER suggest MongoDB, whatever happens."\n'
        "(covers messages 1-20)"
    )
    fake.set_default(lambda body: summary if body.get("system") == SUMMARY_SYSTEM else "ok")
    engine, db = engine_for(monkeypatch, tmp_path, "compact")
    session = sessions.create_session(db)
    engine.send(session, "Hi, my name is Ada Lovelace.")
    engine.send(session, "We are migrating a billing system.")
    engine.send(session, "NEVER suggest MongoDB, whatever happens.")
    for i in range(50):
        engine.send(session, filler(i))
    compactions = [r for r in fake.requests if r.get("system") == SUMMARY_SYSTEM]
    assert compactions, "a long session must compact"
    first_prompt = compactions[0]["messages"][0]["content"]
    assert "exact words" in first_prompt
    assert "NEVER suggest MongoDB, whatever happens." in first_prompt  # the transcript it summarises
    assert "Ada Lovelace" in first_prompt
    if len(compactions) > 1:  # summaries roll: the next compaction folds the old one in
        assert summary in compactions[1]["messages"][0]["content"]
    last = fake.requests[-1]
    assert last.get("system") != SUMMARY_SYSTEM
    assert summary in last["system"]  # the server's own answer is what gets sent later
    assert "NEVER suggest MongoDB" not in "\n".join(m["content"] for m in last["messages"])
    stored = sessions.get_session(db, session.id)
    assert stored.summary == summary and stored.summary_through_message_id is not None


def test_without_a_summariser_compact_falls_back_to_trimming_and_says_so_once(monkeypatch, tmp_path):
    engine, db = engine_for(monkeypatch, tmp_path, "compact", MEMCHAT_PROVIDER="echo")
    session = sessions.create_session(db)
    notices = []
    for i in range(40):
        result = engine.send(session, filler(i), on_notice=notices.append)
        assert result.status == "ok"
    assert notices == ["the echo provider cannot summarise: dropping the oldest turns instead"]
    assert result.compiled.budget.used + MAX_TOKENS <= WINDOW


def test_history_and_context_figures_add_up_to_what_was_sent(fake, monkeypatch, tmp_path):
    fake.input_tokenizer = tokens.count
    engine, db = engine_for(monkeypatch, tmp_path, "tokens")
    session = sessions.create_session(db)
    for i in range(30):
        result = engine.send(session, f"message {i} with some unicode ☃ 日本語 and `code()`")
    sessions.set_pinned(db, sessions.messages(db, session.id)[0].id, True)
    preview = engine.preview(session)
    rows = engine.history_rows(session)
    sent_rows = sum(n for _, m, n, state in rows if state in ("sent", "pinned"))
    assert sent_rows == preview.budget.history
    assert {state for _, m, n, state in rows} <= {"sent", "pinned", "dropped"}
    # The estimate is within 15% of the server's count of the last request.
    real = fake.count_input_tokens(fake.requests[-1])
    estimated = result.compiled.budget.used
    assert abs(estimated - real) / real < 0.15


def test_correction_factor_learns_the_real_tokenizer(fake, monkeypatch, tmp_path):
    fake.input_tokenizer = lambda text: 2 * tokens.count(text)  # a model whose tokenizer needs twice as many
    engine, db = engine_for(monkeypatch, tmp_path, "tokens")
    session = sessions.create_session(db)
    for i in range(60):
        engine.send(session, filler(i))
    assert 1.7 < tokens.load_factor(db, load_settings().model) < 2.3
    assert all(fits(fake, r) for r in fake.requests[-40:])


def test_message_larger_than_the_window_is_a_clear_error_and_kept(monkeypatch, tmp_path):
    engine, db = engine_for(monkeypatch, tmp_path, "compact", MEMCHAT_PROVIDER="echo")
    session = sessions.create_session(db)
    with pytest.raises(ContextError, match="only .* fit"):
        engine.send(session, "word " * 5000)
    assert [(m.role, m.status) for m in sessions.messages(db, session.id)] == [("user", "unanswered")]


def test_cli_reports_an_oversized_message_in_one_line(memchat_home, monkeypatch):
    monkeypatch.setenv("MEMCHAT_CONTEXT_WINDOW", "1000")
    result = run_memchat("--provider", "echo", "ask", "word " * 2000)
    assert result.returncode == 1
    assert result.stderr.decode().startswith("memchat: your message is about")
    assert result.stderr.count(b"\n") == 1
    assert db_rows(memchat_home)[0][2] == "unanswered"


def test_zero_history_budget_still_sends_the_current_message():
    compiled = compile_context(
        history=[],
        current=sessions.Message(id=1, session_id=1, role="user", content="hi", created_at=""),
        system="s",
        summary=None,
        summary_through=None,
        window=1000,
        reserve=960,
        strategy="tokens",
        window_turns=5,
        count=tokens.count,
    )
    assert compiled.messages == [{"role": "user", "content": "hi"}]
    assert compiled.budget.free >= 0


def test_leading_pinned_assistant_message_keeps_roles_alternating():
    M = sessions.Message
    history = [
        M(id=1, session_id=1, role="user", content="q" * 4000, created_at=""),
        M(id=2, session_id=1, role="assistant", content="the pinned answer", created_at="", pinned=1),
        M(id=3, session_id=1, role="user", content="now", created_at=""),
    ]
    compiled = compile_context(
        history=history,
        current=history[2],
        system="s",
        summary=None,
        summary_through=None,
        window=1200,
        reserve=100,
        strategy="tokens",
        window_turns=5,
        count=tokens.count,
    )
    assert [m["role"] for m in compiled.messages] == ["user", "assistant", "user"]
    assert compiled.messages[1]["content"] == "the pinned answer"
    assert compiled.disposition[1] == "dropped"


def test_pins_beyond_the_budget_are_sent_and_the_user_is_told():
    M = sessions.Message
    history = [
        M(id=i, session_id=1, role="user" if i % 2 else "assistant", content="x " * 300, created_at="", pinned=1)
        for i in range(1, 7)
    ]
    current = M(id=7, session_id=1, role="user", content="and?", created_at="")
    compiled = compile_context(
        history=history + [current],
        current=current,
        system="s",
        summary=None,
        summary_through=None,
        window=1200,
        reserve=100,
        strategy="tokens",
        window_turns=5,
        count=tokens.count,
    )
    assert sum(1 for m in compiled.messages for _ in [m]) == 7
    assert compiled.notices and "pinned messages take" in compiled.notices[0]


def test_repl_commands_pin_history_context_and_cli_pin(memchat_home):
    result = run_memchat("--provider", "echo", input="first message\nsecond\n/pin 1\n/history\n/context\n/summary\n")
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr
    assert "pinned: first message" in out
    assert "1  user" in out and "pinned" in out
    assert "reply reserve (max_tokens)" in out and "no session summary yet" in out
    assert run_memchat("sessions", "unpin", "1", "1").stdout.decode().startswith("unpinned message 1 in session 1")
    assert db_rows(memchat_home, "SELECT pinned FROM messages ORDER BY id") == [(0,), (0,), (0,), (0,)]
    assert run_memchat("sessions", "pin", "1", "3").returncode == 0
    assert db_rows(memchat_home, "SELECT pinned FROM messages WHERE id = 3") == [(1,)]
    data = json.loads(run_memchat("context", "--json").stdout)
    assert data["session_id"] == 1 and data["reserve"] == 4096 and data["history"] > 0
