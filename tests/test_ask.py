"""`memchat ask` end to end: the real anthropic SDK against the local Messages-API server."""

import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import ROOT, db_rows, run_memchat


def test_echo_provider_answers_offline_and_stores_the_exchange(cli, memchat_home):
    result = cli("--provider", "echo", "ask", "What", "is", "a", "B-tree?")
    assert result.exit_code == 0
    assert result.stdout == "(echo) What is a B-tree?\n"
    assert db_rows(memchat_home) == [
        ("user", "What is a B-tree?", "ok"),
        ("assistant", "(echo) What is a B-tree?", "ok"),
    ]


def test_reply_streams_through_the_sdk_and_request_is_what_we_sent(cli, api, memchat_home):
    api.enqueue_text("A B-tree is a balanced search tree.", input_tokens=12, output_tokens=9)
    result = cli("ask", "--system", "Be brief.", "--max-tokens", "300", "--model", "claude-test-1", "What is a B-tree?")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "A B-tree is a balanced search tree.\n"
    sent = api.requests[-1]
    assert sent["model"] == "claude-test-1"
    assert sent["system"] == "Be brief."
    assert sent["max_tokens"] == 300
    assert sent["stream"] is True
    assert sent["messages"] == [{"role": "user", "content": "What is a B-tree?"}]
    assert api.headers[-1]["authorization"] == "Bearer sk-ant-test-0000"
    assert db_rows(memchat_home, "SELECT role, status, input_tokens, output_tokens FROM messages ORDER BY id") == [
        ("user", "ok", None, None),
        ("assistant", "ok", 12, 9),
    ]


def test_json_output_has_session_model_reply_tokens_cost_and_stop_reason(cli, api):
    api.enqueue_text("forty-two", input_tokens=7, output_tokens=3)
    result = cli("ask", "--json", "answer?")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data.pop("cost_usd") == pytest.approx((7 * 3.0 + 3 * 15.0) / 1e6)  # Sonnet: $3 in, $15 out per M
    assert data == {
        "session_id": 1,
        "message_id": 2,
        "model": "claude-sonnet-5-5",
        "reply": "forty-two",
        "input_tokens": 7,
        "output_tokens": 3,
        "stop_reason": "end_turn",
        "status": "ok",
        "memory": [],  # nothing remembered, nothing sent
    }


def test_session_flag_sends_earlier_messages_in_order(cli, api):
    api.enqueue_text("first answer")
    cli("ask", "first question")
    api.enqueue_text("other")
    cli("ask", "unrelated new session")
    api.enqueue_text("second answer")
    result = cli("ask", "--session", "1", "second question")
    assert result.exit_code == 0
    assert api.requests[-1]["messages"] == [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
    ]


def test_continue_uses_the_latest_session(cli, api):
    cli("ask", "one")
    cli("ask", "two")
    result = cli("ask", "-c", "three")
    assert result.exit_code == 0
    assert [m["content"] for m in api.requests[-1]["messages"]] == ["two", "echo: two", "three"]


def test_session_system_prompt_is_kept_for_later_turns(cli, api):
    cli("ask", "--system", "Answer in French.", "hello")
    cli("ask", "-c", "again")
    assert api.requests[-1]["system"] == "Answer in French."


def test_user_message_is_on_disk_before_the_model_is_called(cli, api, memchat_home):
    seen = {}

    def reply(body):
        seen["rows"] = db_rows(memchat_home)
        return "ok"

    api.set_default(reply)
    assert cli("ask", "persist me first").exit_code == 0
    assert seen["rows"] == [("user", "persist me first", "unanswered")]


# --- stdin ---------------------------------------------------------------------------------


def test_prompt_from_piped_stdin(cli, memchat_home):
    result = cli("--provider", "echo", "ask", input="summarise this\n")
    assert result.stdout == "(echo) summarise this\n"


def test_dash_reads_the_prompt_from_stdin(cli):
    result = cli("--provider", "echo", "ask", "-", input="from a file")
    assert result.stdout == "(echo) from a file\n"


def test_piped_stdin_is_appended_to_the_argument(cli, api):
    result = cli("ask", "explain", input="def f():\n    return 1\n")
    assert result.exit_code == 0
    assert api.requests[-1]["messages"][-1]["content"] == "explain\n\ndef f():\n    return 1"


def test_invalid_utf8_on_stdin_is_one_clear_error(cli, memchat_home):
    result = cli("--provider", "echo", "ask", input=b"caf\xe9 au lait")
    assert result.exit_code == 2
    assert (
        result.stderr == "memchat: stdin is not valid UTF-8 (bad byte at offset 3); convert it first, e.g. with iconv\n"
    )
    assert not (memchat_home / "default.db").exists()


@pytest.mark.parametrize(
    "args, stdin",
    [
        (["ask", ""], None),
        (["ask", "   "], ""),
        (["ask", "-"], "\n\n"),
        (["ask", "\u200b"], None),  # a zero-width space shows nothing, as a space does
        (["ask", "\u200b\u202e \u3164"], None),  # nor does a bidi override or a Hangul filler
        (["ask", "-"], "\ufeff\u2060\n"),
    ],
    ids=["empty-arg", "blank-arg", "blank-stdin", "zero-width", "invisible", "invisible-stdin"],
)
def test_empty_prompt_is_refused(cli, args, stdin):
    result = cli("--provider", "echo", *args, input=stdin)
    assert result.exit_code == 2
    assert result.stderr == "memchat: the prompt is empty\n"


# --- errors a user can cause ---------------------------------------------------------------


def test_missing_api_key_says_how_to_set_it_and_stores_nothing(cli, memchat_home):
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert "export ANTHROPIC_API_KEY=" in result.stderr and "--provider echo" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (memchat_home / "default.db").exists() or db_rows(memchat_home) == []


def test_unknown_provider(cli):
    result = cli("--provider", "gemini", "ask", "hi")
    assert result.exit_code == 2  # a bad value on the command line is bad usage
    assert (
        result.stderr
        == "memchat: setting 'provider' (flag --provider) must be one of anthropic, openai, echo; got 'gemini'\n"
    )


@pytest.mark.parametrize(
    "args, said",
    [
        (("ask", "--max-tokens", "0", "hi"), "must be at least 1"),
        (("ask", "--max-tokens", "99999999999999999999", "hi"), "must be at most 1,000,000"),
        (("--profile", "../../etc", "ask", "hi"), "may use only letters"),
        (("--model", "", "ask", "hi"), "needs a model name"),
    ],
)
def test_bad_flag_values_are_usage_errors(cli, args, said):
    result = cli("--provider", "echo", *args)
    assert result.exit_code == 2 and said in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_bad_value_from_the_environment_is_a_failure_that_names_it(cli, monkeypatch):
    monkeypatch.setenv("MEMCHAT_HISTORY_COMPACT_AT", "500")  # a percentage
    result = cli("--provider", "echo", "ask", "hi")
    assert result.exit_code == 1 and "MEMCHAT_HISTORY_COMPACT_AT" in result.stderr and "at most 100" in result.stderr


def test_unknown_session(cli):
    result = cli("--provider", "echo", "ask", "--session", "42", "hi")
    assert result.exit_code == 1 and result.stderr == "memchat: no session 42 (see `memchat sessions list`)\n"


def test_database_path_that_is_a_directory(cli, tmp_path):
    result = cli("--provider", "echo", "--db", str(tmp_path), "ask", "hi")
    assert result.exit_code == 1 and "is a directory" in result.stderr


def test_corrupt_database_is_detected_and_not_overwritten(cli, tmp_path):
    path = tmp_path / "bad.db"
    path.write_bytes(b"garbage" * 1000)
    result = cli("--provider", "echo", "--db", str(path), "ask", "hi")
    assert result.exit_code == 1
    assert result.stderr == (
        f"memchat: {path} is not a memchat database or is corrupt; it was left untouched. Your message was NOT saved\n"
    )
    assert path.read_bytes() == b"garbage" * 1000


def test_invalid_toml_names_file_and_line(cli, memchat_home):
    (memchat_home / "config.toml").write_text('model = "x"\nmax_tokens = \n')
    result = cli("--provider", "echo", "ask", "hi")
    assert result.exit_code == 1
    assert "invalid TOML in" in result.stderr and "config.toml" in result.stderr and "line 2" in result.stderr


@pytest.mark.parametrize(
    "status, expected",
    [
        (401, "the API rejected the key (401)"),
        (404, "model 'claude-sonnet-5-5' was not found (404)"),
        (400, "the API refused the request (400)"),
    ],
    ids=["401", "404-model", "400"],
)
def test_api_errors_are_one_line_and_keep_the_message(cli, api, memchat_home, status, expected):
    api.enqueue_error(status, "scripted failure")
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert result.stderr.startswith("memchat: " + expected)
    assert "scripted failure" in result.stderr and "saved in session 1" in result.stderr
    assert result.stderr.count("\n") == 1
    assert db_rows(memchat_home) == [("user", "hello", "unanswered")]


@pytest.mark.parametrize(
    "echoed",
    [
        '{{"model": "claude", "system": "<memory> - {secret} </memory>", "messages": []}}',  # the request's JSON
        "bad request: <memory>\n## About you\n- {secret}\n</memory>",  # the memory section alone
        "{{'messages': [{{'role': 'user', 'content': 'hello'}}], 'system': '{secret}'}}",  # a Python repr of it
    ],
)
def test_a_server_error_that_quotes_the_request_is_never_shown_stored_or_logged(
    cli, api, monkeypatch, memchat_home, echoed
):
    # A proxy or a local server may answer an error with the request it got: the memory section
    # then went into the error line, the failed turn's stored error and the log, where forgetting
    # the memory could not reach it.
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    secret = "My safe word is Xylocarpqz"
    assert cli("memories", "add", secret).exit_code == 0
    assert cli("memories", "pin", "1").exit_code == 0
    api.enqueue_error(500, "failed: " + echoed.format(secret=secret))
    result = cli("ask", "hello")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "quoted the request back" in result.stderr and "Xylocarpqz" not in result.stderr
    assert cli("memories", "forget", "1", "--yes").exit_code == 0
    for path in memchat_home.rglob("*"):
        if path.is_file():
            assert b"Xylocarpqz" not in path.read_bytes(), path


def test_a_long_server_error_is_cut_to_a_line(cli, api, monkeypatch):
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    api.enqueue_error(400, "invalid request: " + "x" * 5000)
    result = cli("ask", "hello")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "invalid request: xxx" in result.stderr and len(result.stderr) < 600


@pytest.mark.parametrize("status", [429, 529, 500])
def test_retryable_errors_are_retried_with_backoff_then_succeed(cli, api, status):
    api.enqueue_error(status, "busy", headers={"retry-after-ms": "1"})
    api.enqueue_error(status, "busy", headers={"retry-after-ms": "1"})
    api.enqueue_text("made it")
    result = cli("ask", "hello")
    assert result.exit_code == 0 and result.stdout == "made it\n"
    assert len(api.requests) == 3


@pytest.mark.parametrize(
    "status, expected",
    [(429, "rate limited by the API (429) after 1 retries"), (529, "the API is overloaded (529) after 1 retries")],
)
def test_retryable_errors_give_up_after_max_retries(cli, api, monkeypatch, memchat_home, status, expected):
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "1")
    for _ in range(2):
        api.enqueue_error(status, "still busy", headers={"retry-after-ms": "1"})
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert result.stderr.startswith("memchat: " + expected)
    assert len(api.requests) == 2
    assert db_rows(memchat_home)[0][2] == "unanswered"


@pytest.mark.parametrize(("retries", "said"), [(0, "(timeout)"), (1, "(timeout, 2 tries)")])
def test_timeout_is_reported_with_the_tries_it_took(cli, api, monkeypatch, retries, said):
    monkeypatch.setenv("MEMCHAT_TIMEOUT", "1")
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", str(retries))
    for _ in range(retries + 1):
        api.enqueue_hang(2)
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"memchat: the API at {api.url} did not answer within 1 s {said}")


def test_stream_dropped_midway_keeps_partial_reply_marked_incomplete(cli, api, memchat_home):
    api.enqueue_drop(after_text="The first half of the answer")
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert result.stdout == "The first half of the answer\n"
    assert "partial reply was kept" in result.stderr
    assert db_rows(memchat_home) == [
        ("user", "hello", "ok"),
        ("assistant", "The first half of the answer", "incomplete"),
    ]


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_during_reply_keeps_what_arrived(api, memchat_home, sig, code):
    """A `kill` (SIGTERM) is handled like Ctrl-C: the partial reply is kept; the exit code names the signal."""
    api.enqueue_text("one two three four five six seven eight nine ten", delay=0.3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memchat", "ask", "count"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
    )
    first = proc.stdout.read(4)  # wait until the reply is streaming
    assert proc.stdout.read(4) == b"two "  # and one more word has arrived, so it is mid-reply
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == code
    assert first == b"one "
    stored = db_rows(memchat_home)
    assert stored[0] == ("user", "count", "ok")
    assert stored[1][2] == "interrupted"
    assert stored[1][1].startswith("one two")
    assert len(stored[1][1]) < len("one two three four five six seven eight nine ten")
    assert b"interrupted" in err


def test_subprocess_exit_codes_and_no_traceback(api):
    ok = run_memchat("ask", "hi")
    assert ok.returncode == 0 and ok.stdout == b"echo: hi\n"
    api.enqueue_error(401, "bad key")
    bad = run_memchat("ask", "hi")
    assert bad.returncode == 1
    assert b"Traceback" not in bad.stderr and bad.stderr.count(b"\n") == 1
    usage = run_memchat("ask", "--max-tokens", "lots", "hi")
    assert usage.returncode == 2 and b"Traceback" not in usage.stderr


def test_error_event_mid_stream_keeps_partial_and_names_the_cause(cli, api, memchat_home):
    api.enqueue_stream_error("Half an answer", error_type="overloaded_error", message="Overloaded")
    result = cli("ask", "hello")
    assert result.exit_code == 1
    assert result.stdout == "Half an answer\n"
    assert result.stderr.startswith("memchat: the API is overloaded (529): ")  # a started stream is never retried
    assert len(api.requests) == 1
    assert db_rows(memchat_home)[1] == ("assistant", "Half an answer", "incomplete")


def test_deprecated_model_warning_is_one_line(api):
    # The model comes from the installed SDK's own deprecation table, whose entries change from
    # release to release; if a release lists none, one is added to it, so the SDK's real warning
    # path runs either way and the test never depends on what the table holds today.
    script = (
        "import sys, anthropic._data as sdk_data\n"
        "model = next(iter(sdk_data.DEPRECATED_MODELS), None)\n"
        "if model is None:\n"
        "    model = 'claude-retired-for-test'\n"
        "    sdk_data.DEPRECATED_MODELS[model] = '2020-01-01'\n"
        "print(model)\n"
        "sys.argv = ['memchat', 'ask', '--model', model, 'hi']\n"
        "from memchat.cli.main import main\n"
        "main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=dict(os.environ), timeout=60, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr
    model = result.stdout.decode().splitlines()[0]
    assert result.stderr.decode().startswith(f"memchat: warning: The model '{model}' is deprecated")
    assert result.stderr.count(b"\n") == 1


def test_a_server_that_is_down_is_named_with_the_cause(cli, monkeypatch, memchat_home):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    result = cli("--provider", "anthropic", "ask", "hello?")
    assert result.exit_code == 1
    assert f"cannot reach the API at http://127.0.0.1:{port}: " in result.stderr
    assert "refused" in result.stderr.lower() and "sk-ant" not in result.stderr
    assert db_rows(memchat_home, "SELECT content FROM messages") == [("hello?",)]


@pytest.mark.parametrize("url", ["not-a-url", "ftp://example.com", "http://"])
def test_a_malformed_base_url_is_refused_before_anything_is_stored(cli, monkeypatch, memchat_home, url):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    result = cli("--provider", "anthropic", "ask", "hello?")
    assert result.exit_code != 0
    assert f"base_url {url!r} (env ANTHROPIC_BASE_URL) is not an http(s) URL" in result.stderr
    assert not (memchat_home / "default.db").exists() or db_rows(memchat_home, "SELECT content FROM messages") == []


def test_config_shows_the_base_url_in_effect_and_where_it_comes_from(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert "https://api.anthropic.com" in cli("config").stdout
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://gateway.local:8080")
    shown = cli("config", "--json").stdout
    import json

    entry = json.loads(shown)["settings"]["base_url"]
    assert entry == {"value": "http://gateway.local:8080", "source": "env ANTHROPIC_BASE_URL"}
    monkeypatch.setenv("MEMCHAT_BASE_URL", "http://mine.local")
    entry = json.loads(cli("config", "--json").stdout)["settings"]["base_url"]
    assert entry == {"value": "http://mine.local", "source": "env MEMCHAT_BASE_URL"}


def test_session_flags_before_the_command_are_honoured_or_refused(cli, memchat_home):
    """`memchat -c ask ...` and `memchat --session 1 ask ...` continue that session (global flags go
    before the command, as the README says); before a command they do not fit, they are refused."""
    assert cli("--provider", "echo", "ask", "first").exit_code == 0
    assert cli("--provider", "echo", "--session", "1", "ask", "second").exit_code == 0
    assert cli("-c", "--provider", "echo", "ask", "third").exit_code == 0
    assert db_rows(memchat_home, "SELECT count(DISTINCT session_id), count(*) FROM messages") == [(1, 6)]
    refused = cli("-c", "recall", "first")
    assert refused.exit_code == 2 and "not `recall`" in refused.stderr
    both = cli("--provider", "echo", "-c", "ask", "--session", "1", "fourth")
    assert both.exit_code == 2 and "either --session or --continue" in both.stderr


def test_the_offline_echo_provider_costs_nothing(cli):
    out = json.loads(cli("--provider", "echo", "ask", "--json", "hi").stdout)
    assert out["cost_usd"] == 0.0 and out["reply"] == "(echo) hi"


def test_the_echo_provider_is_recorded_as_echo_never_as_a_claude_model(cli, memchat_home):
    out = json.loads(cli("--provider", "echo", "ask", "--json", "hi").stdout)
    assert out["model"] == "echo"
    assert cli("--provider", "echo", "ask", "-c", "and again").exit_code == 0
    assert [s["model"] for s in json.loads(cli("sessions", "list", "--json").stdout)] == ["echo"]
    shown = json.loads(cli("sessions", "show", "1", "--json").stdout)
    assert shown["session"]["model"] == "echo"
    assert [m["model"] for m in shown["messages"] if m["role"] == "assistant"] == ["echo", "echo"]
    assert "claude" not in cli("sessions", "show", "1").stdout + cli("sessions", "list").stdout
    assert db_rows(memchat_home, "SELECT DISTINCT model FROM messages WHERE model IS NOT NULL") == [("echo",)]
    assert json.loads(cli("usage", "--json").stdout) == []  # no model was called: no usage, under any name
    chat = cli("--provider", "echo", "chat", input="/model\nhello\n")
    assert "model: echo (the echo provider; claude-sonnet-5-5 with a real one)" in chat.stdout + chat.stderr
    assert db_rows(memchat_home, "SELECT DISTINCT model FROM sessions") == [("echo",)]
    # and where the roles are shown
    models = cli("--provider", "echo", "models")
    assert models.exit_code == 0 and "echo  ← chat, memory" in models.stdout and "claude" not in models.stdout
    roles = json.loads(cli("--provider", "echo", "config", "--json").stdout)["roles"]
    assert {r["model"] for r in roles.values()} == {"echo"}


def test_a_reply_to_a_session_deleted_meanwhile_is_said_not_saved(api, memchat_home):
    """`sessions delete` in another terminal while the reply came had ended the ask in "memchat: no
    message 1": it says what happened, and nothing of the session comes back."""
    import threading
    import time

    api.enqueue_text("a reply that takes its time", delay=0.5)
    asking = subprocess.Popen(
        [sys.executable, "-m", "memchat", "ask", "tell me something slowly"],
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not api.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    deleter = threading.Thread(target=lambda: run_memchat("sessions", "delete", "1", "--yes"))
    deleter.start()
    deleter.join()
    out, err = asking.communicate(timeout=60)
    lines = err.decode().strip().splitlines()
    assert asking.returncode == 1 and "was deleted while the reply came" in lines[-1], lines
    assert db_rows(memchat_home, "SELECT count(*) FROM messages") == [(0,)]
