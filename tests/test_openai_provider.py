"""The openai provider through the real openai SDK against tests/fakeopenai.py (a local
Chat Completions server, as Ollama, llama.cpp, vLLM or LM Studio would be)."""

import json

import pytest
from conftest import db_rows, run_memchat

from memchat.config import load_settings
from memchat.errors import NeedsKeyError, ProviderError
from memchat.providers import ChatRequest, Reply, get_provider

RECALL_TOOL = {
    "name": "recall",
    "description": "Search what memchat remembers.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
}


def provider(**env):
    return get_provider("openai", load_settings())


def request(messages=None, **extra):
    return ChatRequest(
        model="llama3.1:8b",
        system="Be brief.",
        messages=messages or [{"role": "user", "content": "hi"}],
        max_tokens=100,
        **extra,
    )


def drain(p, req):
    reply = Reply()
    chunks = list(p.stream(req, reply))
    return reply, chunks


def test_a_reply_streams_in_pieces_with_the_usage_of_the_last_chunk(local_api):
    local_api.enqueue_text("Hello from a local model", chunks=["Hel", "lo from ", "a local model"])
    p = provider()
    seen = []
    p.on_usage = lambda req, model, i, o: seen.append((model, i, o))
    reply, chunks = drain(p, request())
    assert chunks == ["Hel", "lo from ", "a local model"]
    assert reply.text == "Hello from a local model" and reply.stop_reason == "end_turn"
    assert (reply.input_tokens, reply.output_tokens) == (3, 5)  # the fake counts words: "Be brief." + "hi"
    assert seen == [("llama3.1:8b", 3, 5)]
    sent = local_api.requests[0]
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_a_server_that_sends_no_usage_records_none(local_api):
    local_api.enqueue_text("fine", usage=False)
    p = provider()
    seen = []
    p.on_usage = lambda *a: seen.append(a)
    reply, _ = drain(p, request())
    assert reply.text == "fine" and reply.input_tokens is None and seen == []


def test_anthropic_shaped_messages_translate_to_chat_completions(local_api):
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_1", "name": "recall", "input": {"query": "picture"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "a cat"}]},
                {"type": "text", "text": "and?"},
            ],
        },
    ]
    reply, _ = drain(provider(), request(messages))
    assert reply.text.startswith("echo:")  # the fake accepted the translation (a tool message answers a call)
    wire = local_api.requests[0]["messages"]
    assert wire[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    assert wire[2] == {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "recall", "arguments": '{"query": "picture"}'}}
        ],
    }
    assert wire[3] == {"role": "tool", "tool_call_id": "call_1", "content": "a cat"}
    assert wire[4] == {"role": "user", "content": "and?"}


def test_a_tool_call_split_across_chunks_is_assembled(local_api):
    local_api.enqueue_tool_call("recall", {"query": "my dentist's name"}, text="Checking.", pieces=5)
    reply, chunks = drain(provider(), request(tools=[RECALL_TOOL]))
    assert chunks == ["Checking."]
    assert reply.stop_reason == "tool_use"
    assert [(c.name, c.input) for c in reply.tool_calls] == [("recall", {"query": "my dentist's name"})]
    assert reply.tool_calls[0].id.startswith("call_")
    tools = local_api.requests[0]["tools"]
    assert tools == [
        {
            "type": "function",
            "function": {
                **{k: RECALL_TOOL[k] for k in ("name", "description")},
                "parameters": RECALL_TOOL["input_schema"],
            },
        }
    ]


def test_malformed_streamed_tool_arguments_come_back_as_the_calls_error(local_api):
    local_api.enqueue_tool_call("recall", '{"query": "dentist', text="Checking.")
    reply, _ = drain(provider(), request(tools=[RECALL_TOOL]))
    assert reply.text == "Checking." and reply.stop_reason == "tool_use"
    (call,) = reply.tool_calls
    assert call.input == {} and "recall call had malformed arguments" in (call.error or "")


def test_a_model_declared_without_tools_is_never_offered_them(local_api, memchat_home):
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    drain(provider(), request(tools=[RECALL_TOOL]))
    assert "tools" not in local_api.requests[0]
    assert provider().capabilities("llama3.1:8b").tools is False
    assert provider().capabilities("qwen2.5:7b").tools is True


@pytest.mark.parametrize(
    "status, message, said",
    [
        (
            401,
            "Incorrect API key provided",
            "the API rejected the key (401): Incorrect API key provided. Check OPENAI_API_KEY.",
        ),
        (
            404,
            "model not found",
            "model 'llama3.1:8b' was not found (404): model not found. Choose another with --model.",
        ),
        (400, "bad thing", "the API refused the request (400): bad thing"),
    ],
    ids=["401", "404", "400"],
)
def test_error_statuses_read_as_the_anthropic_provider_says_them(local_api, status, message, said):
    local_api.enqueue_error(status, message)
    with pytest.raises(ProviderError) as exc:
        drain(provider(), request())
    assert exc.value.message == said


def test_429_and_500_are_retried_then_named_with_the_retries(local_api, monkeypatch):
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "1")
    quick = {"retry-after-ms": "1"}
    local_api.enqueue_error(429, "Rate limit reached", headers=quick)
    local_api.enqueue_text("made it")
    reply, _ = drain(provider(), request())
    assert reply.text == "made it" and len(local_api.requests) == 2
    local_api.enqueue_error(500, "The server had an error", headers=quick)
    local_api.enqueue_error(500, "The server had an error", headers=quick)
    with pytest.raises(ProviderError) as exc:
        drain(provider(), request())
    assert exc.value.message == "the API had a server error (500) after 1 retries: The server had an error"


def test_a_connection_dropped_mid_reply_keeps_the_partial_text(local_api):
    local_api.enqueue_drop(after_text="The first half")
    with pytest.raises(ProviderError) as exc:
        drain(provider(), request())
    assert exc.value.partial == "The first half"
    assert "dropped mid-reply" in exc.value.message or "stream broke" in exc.value.message


def test_a_server_that_hangs_up_at_once_is_named(local_api, monkeypatch):
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    local_api.enqueue_drop()
    with pytest.raises(
        ProviderError, match=r"cannot reach the API at http://127\.0\.0\.1:\d+/v1: .*check that the server is up"
    ):
        drain(provider(), request())


def test_an_error_chunk_mid_stream_keeps_the_partial_and_names_it(local_api):
    local_api.enqueue_stream_error("Half an ans", "The model crashed.")
    with pytest.raises(ProviderError) as exc:
        drain(provider(), request())
    assert exc.value.partial == "Half an ans"
    assert (
        exc.value.message
        == "the API had a server error (500): The model crashed. The partial reply was kept (marked incomplete)."
    )


def test_a_local_server_needs_no_key_a_remote_one_does(local_api, monkeypatch):
    drain(provider(), request())
    assert local_api.headers[0]["authorization"] == "Bearer no-key-needed"
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    with pytest.raises(NeedsKeyError, match="export OPENAI_API_KEY=sk-"):
        provider().ready()


def test_the_key_comes_from_openai_api_key(local_api, monkeypatch):
    local_api.key = "sk-test-1234"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-1234")
    reply, _ = drain(provider(), request())
    assert reply.text == "echo: hi"
    assert local_api.headers[0]["authorization"] == "Bearer sk-test-1234"


def test_a_malformed_base_url_is_a_config_error_naming_its_source(local_api, monkeypatch):
    from memchat.errors import ConfigError

    monkeypatch.setenv("MEMCHAT_OPENAI_BASE_URL", "localhost:11434")
    with pytest.raises(ConfigError, match=r"openai.base_url 'localhost:11434' \(env MEMCHAT_OPENAI_BASE_URL\)"):
        provider().ready()


def test_check_asks_the_server_for_its_models(local_api):
    assert "model llama3.1:8b offered (2 in all)" in provider().check("llama3.1:8b")
    with pytest.raises(ProviderError, match=r"does not offer model 'mistral' \(it offers: llama3.1:8b, qwen2.5:7b\)"):
        provider().check("mistral")


# --- through memchat ---------------------------------------------------------------------------


def test_ask_through_a_local_model_stores_the_exchange_at_no_cost(local_api, memchat_home):
    local_api.enqueue_text("Paris is the capital of France.")
    result = run_memchat("ask", "--json", "capital of France?")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["reply"] == "Paris is the capital of France." and out["cost_usd"] == 0.0
    assert db_rows(memchat_home, "SELECT model, purpose FROM usage") == [("llama3.1:8b", "chat")]
    assert db_rows(memchat_home)[-1] == ("assistant", "Paris is the capital of France.", "ok")


def test_ask_reports_a_refusal_in_one_line(local_api, memchat_home):
    local_api.enqueue_error(401, "Incorrect API key provided: ...1234.")
    result = run_memchat("ask", "hello")
    assert result.returncode == 1
    assert (
        result.stderr.decode()
        .strip()
        .splitlines()[-1]
        .startswith(
            "memchat: the API rejected the key (401): Incorrect API key provided: ...1234.. Check OPENAI_API_KEY."
        )
    )
    assert b"Traceback" not in result.stderr


def test_a_remote_model_without_a_price_has_no_cost(local_api, monkeypatch):
    from memchat.usage import cost

    settings = load_settings()
    assert cost("llama3.1:8b", 1000, 1000, settings.prices) == 0.0
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
    assert cost("llama3.1:8b", 1000, 1000, load_settings().prices) is None


def test_a_declared_context_window_drives_the_budget(local_api, memchat_home, monkeypatch):
    (memchat_home / "config.toml").write_text('context_window = 100000\n[models."llama3*"]\ncontext_window = 8192\n')
    settings = load_settings()
    assert settings.context_window == 8192 and settings.sources["context_window"].startswith("[models.'llama3.1:8b']")
    assert settings.with_overrides(model="qwen2.5:7b").context_window == 200000
    monkeypatch.setenv("MEMCHAT_CONTEXT_WINDOW", "4096")  # the environment is more explicit than the file
    assert load_settings().context_window == 4096


def test_models_lists_what_the_server_offers_and_who_uses_which(local_api, cli):
    result = cli("models")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"openai at {local_api.url}"
    assert "llama3.1:8b  ← chat, memory" in result.stdout and "  qwen2.5:7b" in result.stdout
    (as_json,) = json.loads(cli("models", "--json").stdout)  # one array, an object per server
    assert as_json["models"] == ["llama3.1:8b", "qwen2.5:7b"] and as_json["roles"] == {
        "llama3.1:8b": ["chat", "memory"]
    }


def test_models_says_when_the_server_cannot_be_reached(local_api, cli, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    result = cli("models")
    assert result.exit_code == 1
    assert "cannot list its models: cannot reach the API at http://127.0.0.1:9/v1" in result.stdout


def test_config_shows_each_role_chat_on_claude_memory_local(local_api, cli, monkeypatch):
    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    monkeypatch.setenv("MEMCHAT_MODEL", "claude-sonnet-5-5")
    monkeypatch.setenv("MEMCHAT_MEMORY_PROVIDER", "openai")
    monkeypatch.setenv("MEMCHAT_MEMORY_MODEL", "qwen2.5:7b")
    result = cli("config")
    assert "chat:   anthropic claude-sonnet-5-5 at https://api.anthropic.com" in result.stdout
    assert f"memory: openai qwen2.5:7b at {local_api.url} (local: no key, no cost)" in result.stdout
    roles = json.loads(cli("config", "--json").stdout)["roles"]
    assert roles["memory"] == {"provider": "openai", "model": "qwen2.5:7b", "url": local_api.url, "local": True}


def test_memory_on_another_provider_needs_its_model_named(local_api, monkeypatch):
    from memchat.errors import ConfigError

    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    monkeypatch.setenv("MEMCHAT_MEMORY_PROVIDER", "openai")
    settings = load_settings()
    assert settings.roles()[1].model == ""
    with pytest.raises(ConfigError, match="set memory.model"):
        settings.role("memory")


def test_doctor_checks_the_server_and_the_model(local_api, cli, monkeypatch):
    result = cli("doctor")
    assert "✓ openai key — none needed" in result.stdout
    assert f"✓ server — {local_api.url} answered; model llama3.1:8b offered" in result.stdout
    monkeypatch.setenv("MEMCHAT_MODEL", "mistral")
    result = cli("doctor")
    assert result.exit_code == 1
    assert "✗ server — " in result.stdout and "does not offer model 'mistral'" in result.stdout
