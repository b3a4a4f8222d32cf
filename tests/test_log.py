"""`memchat log`: the last exchanges across sessions, each with its model, tokens and cost."""

from __future__ import annotations

import json
import sqlite3

import pytest


def _log(cli, *args: str) -> list[dict]:
    result = cli("log", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)  # one JSON document, whatever it holds


def _three_sessions(cli, fake) -> None:
    fake.enqueue_text("B-trees keep keys sorted.", input_tokens=1000, output_tokens=100)
    fake.enqueue_text("Webhooks call you back.", input_tokens=2000, output_tokens=200)
    fake.enqueue_text("In Rust, use a BTreeMap.", input_tokens=3000, output_tokens=300)
    assert cli("ask", "What is a B-tree?").exit_code == 0
    assert cli("ask", "-m", "claude-haiku-4-5", "What is a webhook?").exit_code == 0
    assert cli("ask", "--session", "1", "and in Rust?").exit_code == 0


def test_log_lists_the_last_exchanges_across_sessions_newest_last(cli, fake):
    _three_sessions(cli, fake)
    got = _log(cli, "-n", "2")
    assert [(e["session_id"], e["prompt"], e["reply"]) for e in got] == [
        (2, "What is a webhook?", "Webhooks call you back."),
        (1, "and in Rust?", "In Rust, use a BTreeMap."),
    ]
    webhook, rust = got
    assert (webhook["model"], webhook["input_tokens"], webhook["output_tokens"]) == ("claude-haiku-4-5", 2000, 200)
    assert webhook["cost_usd"] == pytest.approx((2000 * 1 + 200 * 5) / 1e6)
    assert rust["cost_usd"] == pytest.approx((3000 * 3 + 300 * 15) / 1e6)
    assert rust["session_title"] == "What is a B-tree?" and rust["status"] == "ok" and rust["at"].endswith("Z")
    assert len(_log(cli)) == 3 and len(_log(cli, "-n", "0")) == 3  # default 3; 0 is all
    text = cli("log").stdout
    assert text.index("What is a B-tree?") < text.index("What is a webhook?") < text.index("and in Rust?")
    assert "session 2" in text and "claude-haiku-4-5" in text and "2,000 in · 200 out" in text and "$0.0030" in text


def test_log_prices_from_the_config_and_never_guesses_a_price(cli, fake, memchat_home):
    fake.enqueue_text("one", input_tokens=1_000_000, output_tokens=0)
    fake.enqueue_text("two", input_tokens=10, output_tokens=10)
    assert cli("ask", "first").exit_code == 0
    assert cli("ask", "-m", "my-local-model", "second").exit_code == 0
    (memchat_home / "config.toml").write_text('[prices."claude-sonnet*"]\ninput = 2.5\noutput = 10.0\n')
    first, second = _log(cli)
    assert first["cost_usd"] == pytest.approx(2.5)
    assert second["model"] == "my-local-model" and second["cost_usd"] is None
    assert "my-local-model · 10 in · 10 out · -" in cli("log").stdout


def test_log_json_is_one_empty_array_when_nothing_matches(cli, fake):
    assert _log(cli) == []
    empty = cli("log")
    assert empty.exit_code == 0 and empty.stdout == "" and "no exchanges yet" in empty.stderr
    assert cli("ask", "hello").exit_code == 0
    assert _log(cli, "-q", "nowhere") == [] and _log(cli, "--since", "2999-01-01") == []
    assert "no exchange holds 'nowhere'" in cli("log", "-q", "nowhere").stderr


def test_log_since_takes_what_usage_and_audit_take(cli, fake, memchat_home):
    for text in ("old question", "new question"):
        assert cli("ask", text).exit_code == 0
    conn = sqlite3.connect(memchat_home / "default.db")
    conn.execute("UPDATE messages SET created_at = '2020-01-01T10:00:00.000000Z' WHERE id IN (1, 2)")
    conn.commit()
    conn.close()
    for since in ("7d", "today", "2021-01-01", "24h"):
        assert [e["prompt"] for e in _log(cli, "--since", since)] == ["new question"], since
    assert [e["prompt"] for e in _log(cli, "--since", "2019-12-31")] == ["old question", "new question"]
    bad = cli("log", "--since", "last tuesday")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "not a time" in bad.stderr


def test_log_query_needs_every_word_in_the_prompt_or_the_reply(cli, fake):
    _three_sessions(cli, fake)
    assert [e["prompt"] for e in _log(cli, "-q", "WEBHOOK")] == ["What is a webhook?"]  # case aside
    assert [e["prompt"] for e in _log(cli, "-q", "btreemap rust")] == ["and in Rust?"]  # a word of the reply
    assert [e["prompt"] for e in _log(cli, "-q", "rust webhook")] == []  # every word, in one exchange's text
    assert [e["prompt"] for e in _log(cli, "-q", "b-tree", "-n", "0")] == ["What is a B-tree?"]


@pytest.mark.parametrize(
    "query", ['"', "*", "AND", "NEAR(a b)", "-x", "a OR", "col:value", "^", "", "  ", "\u202e"], ids=repr
)
def test_log_query_takes_any_text(cli, fake, query):
    assert cli("ask", "a question about col value x").exit_code == 0
    result = cli("log", "--json", "-q", query)
    assert result.exit_code == 0, result.stderr
    assert isinstance(json.loads(result.stdout), list)


def test_log_shows_an_unanswered_message_and_leaves_undone_ones_out(cli, fake, memchat_home):
    fake.enqueue_text("kept", input_tokens=5, output_tokens=1)
    fake.enqueue_text("dropped", input_tokens=5, output_tokens=1)
    fake.enqueue_error(500, "overloaded")
    assert cli("ask", "first").exit_code == 0
    assert cli("--provider", "fake", input="second\n/undo\n").exit_code == 0
    assert cli("ask", "third").exit_code == 1
    got = _log(cli, "-n", "0")
    assert [(e["prompt"], e["reply"], e["status"]) for e in got] == [
        ("first", "kept", "ok"),
        ("third", None, "unanswered"),
    ]
    assert got[1]["reply_id"] is None and got[1]["cost_usd"] is None
    assert "no reply" in cli("log").stdout and "unanswered" in cli("log").stdout


def test_log_pairs_each_prompt_with_its_own_reply_after_a_retry(cli, fake):
    fake.enqueue_error(500, "overloaded")
    fake.enqueue_text("second try", input_tokens=7, output_tokens=2)
    fake.enqueue_text("next answer", input_tokens=9, output_tokens=2)
    assert cli("--provider", "fake", input="question\n/retry\nnext\n").exit_code == 1  # one line failed
    got = _log(cli)
    assert [(e["prompt"], e["reply"], e["input_tokens"]) for e in got] == [
        ("question", "second try", 7),
        ("next", "next answer", 9),
    ]


def test_log_escapes_what_a_terminal_would_run(cli, fake):
    fake.enqueue_text("evil \x1b]0;pwned\x07 reply")
    assert cli("ask", "hi \x1b[2J there").exit_code == 0
    out = cli("log").stdout
    assert "\x1b" not in out and "\x07" not in out
    (got,) = _log(cli)
    assert got["reply"] == "evil \x1b]0;pwned\x07 reply"  # the data itself, escaped as JSON


def test_an_echo_exchange_shows_no_tokens_it_never_had(cli):
    assert cli("--provider", "echo", "ask", "hello there").exit_code == 0
    out = cli("log").stdout
    assert "echo · offline, no tokens · -" in out and " in · " not in out
