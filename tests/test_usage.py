"""What calls cost: every real call recorded by purpose, priced from a table the user can edit."""

from __future__ import annotations

import json

import pytest
from test_consent import Model
from test_repl import quit_, spawn


def _usage(cli, *args: str) -> list[dict]:
    result = cli("usage", "--json", *args)
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)  # one JSON array, [] when there is none
    assert isinstance(rows, list)
    return rows


def test_usage_sums_tokens_and_cost_by_model_and_purpose(cli, api):
    api.enqueue_text("one", input_tokens=1000, output_tokens=100)
    api.enqueue_text("two", input_tokens=3000, output_tokens=300)
    assert cli("ask", "first").exit_code == 0
    assert cli("ask", "-m", "claude-haiku-4-5", "second").exit_code == 0
    rows = {
        (r["model"], r["purpose"]): r
        for r in _usage(
            cli,
        )
    }
    assert set(rows) == {("claude-sonnet-5-5", "chat"), ("claude-haiku-4-5", "chat")}
    sonnet, haiku = rows["claude-sonnet-5-5", "chat"], rows["claude-haiku-4-5", "chat"]
    assert (sonnet["calls"], sonnet["input_tokens"], sonnet["output_tokens"]) == (1, 1000, 100)
    assert sonnet["cost"] == pytest.approx((1000 * 3 + 100 * 15) / 1e6)
    assert haiku["cost"] == pytest.approx((3000 * 1 + 300 * 5) / 1e6)
    table = cli("usage").stdout
    assert "claude-haiku-4-5" in table and "$0.0045" in table  # 0.0030 + 0.0015
    assert "total" in table.lower()


def test_prices_from_the_config_reprice_the_past_and_unknown_models_cost_unknown(cli, api, memchat_home):
    api.enqueue_text("a", input_tokens=1_000_000, output_tokens=0)
    api.enqueue_text("b", input_tokens=10, output_tokens=10)
    assert cli("ask", "first").exit_code == 0
    assert cli("ask", "-m", "my-local-model", "second").exit_code == 0
    (memchat_home / "config.toml").write_text('[prices."claude-sonnet*"]\ninput = 2.5\noutput = 10.0\n')
    rows = {
        r["model"]: r
        for r in _usage(
            cli,
        )
    }
    assert rows["claude-sonnet-5-5"]["cost"] == pytest.approx(2.5)
    assert rows["my-local-model"]["cost"] is None  # never a made-up price
    assert "-" in cli("usage").stdout


@pytest.mark.parametrize("bad", ['[prices."x"]\ninput = "cheap"\noutput = 1\n', '[prices."x"]\ninput = 1\n'])
def test_a_malformed_price_is_one_line_naming_it(cli, memchat_home, bad):
    (memchat_home / "config.toml").write_text(bad)
    result = cli("usage")
    assert result.exit_code != 0
    err = result.stderr
    assert err.count("\n") == 1 and "[prices.'x']" in err and "Traceback" not in err


def test_failed_calls_and_the_echo_provider_are_not_counted(cli, api):
    api.enqueue_error(400, "bad request")
    assert cli("ask", "fails").exit_code != 0
    assert cli("--provider", "echo", "ask", "free").exit_code == 0
    assert (
        _usage(
            cli,
        )
        == []
    )
    assert "no model calls recorded" in cli("usage").stderr


def test_usage_since_and_session_filter_and_refuse_nonsense(cli, api):
    api.enqueue_text("a", input_tokens=5, output_tokens=5)
    api.enqueue_text("b", input_tokens=7, output_tokens=7)
    assert cli("ask", "one").exit_code == 0
    assert cli("ask", "two").exit_code == 0
    assert [r["input_tokens"] for r in _usage(cli, "--session", "2")] == [7]
    assert sum(r["calls"] for r in _usage(cli, "--since", "today")) == 2
    bad = cli("usage", "--since", "last blue moon")
    assert bad.exit_code != 0 and bad.stderr.count("\n") == 1


def test_the_repl_shows_a_reply_cost_and_cost_sums_the_session(api):
    api.enqueue_text("Hi.", input_tokens=2000, output_tokens=100)
    child = spawn()
    child.sendline("hello")
    child.expect_exact("2,000 in · 100 out · $0.0075")  # 2000 * $3/M + 100 * $15/M
    child.sendline("/cost")
    child.expect_exact("this session")
    child.expect_exact("claude-sonnet-5-5")
    child.expect_exact("today")
    assert quit_(child) == 0


def _record(home, *rows: tuple[str, str, int, int]) -> None:
    from memchat import usage
    from memchat.db import open_db

    db = open_db(home / "default.db")
    for model, purpose, tokens_in, tokens_out in rows:
        usage.record(db, model, purpose, tokens_in, tokens_out, None)
    db.conn.close()


def test_usage_and_cost_say_what_chat_and_memory_each_cost(cli, memchat_home):
    from conftest import run_memchat

    _record(
        memchat_home,
        ("claude-sonnet-5-5", "chat", 2000, 100),  # $0.0075
        ("claude-sonnet-5-5", "chat", 2000, 100),
        ("claude-haiku-4-5", "memory", 1000, 200),  # $0.0020
    )
    out = cli("usage").stdout
    assert "by purpose: chat 2 calls $0.0150 · memory 1 call $0.0020" in out
    piped = run_memchat("--provider", "echo", input="/cost\n").stdout.decode()
    assert "today: chat 2 calls $0.0150 · memory 1 call $0.0020" in piped


def test_what_capture_costs_is_counted_as_memory_apart_from_the_chat(api, memchat_home, monkeypatch):
    import re
    import time

    from conftest import db_rows, run_memchat, wait_for_detached

    api.set_default(Model())  # keeps the parrot when asked to extract
    monkeypatch.delenv("MEMCHAT_MEMORY_CAPTURE")
    env = {"MEMCHAT_MEMORY_MODEL": "claude-haiku-4-5"}
    assert run_memchat("consent", "yes").returncode == 0
    assert run_memchat("ask", "I adopted a parrot called Kiwi and I live in Aveiro.", env=env).returncode == 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not db_rows(memchat_home, "SELECT 1 FROM usage WHERE purpose = 'memory'"):
        time.sleep(0.2)
    wait_for_detached(memchat_home)
    out = run_memchat("usage").stdout.decode()
    assert re.search(r"by purpose: chat 1 call \$[0-9.]+ · memory 1 call \$[0-9.]+", out), out


def test_the_line_after_a_reply_shows_what_memory_has_cost_this_session(api, memchat_home, monkeypatch):
    import time

    from conftest import db_rows

    api.set_default(Model())  # keeps the parrot when asked to extract
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE_EVERY", "1")
    child = spawn()
    child.sendline("I adopted a parrot called Kiwi and I live in Aveiro.")
    child.expect(r"\d\.\d s")  # the line after the first reply: nothing learnt yet
    child.expect_exact("›")
    assert "memory $" not in child.before
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not db_rows(memchat_home, "SELECT 1 FROM usage WHERE purpose = 'memory'"):
        time.sleep(0.1)
    child.sendline("What should I feed him?")
    child.expect(r"· memory \$[0-9.]+ this session")
    assert quit_(child) == 0


def test_usage_of_a_session_with_no_calls_says_for_which_session_and_period(cli):
    assert cli("--provider", "echo", "ask", "hello").exit_code == 0  # the echo provider: not a model call
    assert _usage(cli) == []
    said = cli("usage", "--session", "1", "--since", "7d").stderr
    assert said.strip() == "no model calls recorded for session 1 since 7d"
