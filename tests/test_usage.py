"""What calls cost: every real call recorded by purpose, priced from a table the user can edit."""

from __future__ import annotations

import json

import pytest
from test_repl import quit_, spawn


def _usage(cli, *args: str) -> list[dict]:
    result = cli("usage", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


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
