"""Tests of tests/fakeapi.py, driving the real anthropic SDK against it."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import anthropic
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:  # robust under --import-mode=importlib too
    sys.path.insert(0, _HERE)

from fakeapi import FakeAnthropic

MODEL = "claude-test-model"
# The HTTP library under the SDK (httpx, then httpx2 from anthropic 2.x): found from the client,
# not named, so a release that swaps it changes nothing here.
HTTP = importlib.import_module(
    next(
        cls.__module__.split(".")[0]
        for cls in type(anthropic.Anthropic(api_key="k")._client).__mro__
        if not cls.__module__.startswith("anthropic")
    )
)
MSGS = [{"role": "user", "content": "hello there friend"}]


@pytest.fixture
def api():
    with FakeAnthropic() as fake:
        yield fake


def make_client(api: FakeAnthropic, max_retries: int = 0, **kw) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", base_url=api.url, max_retries=max_retries, **kw)


def raw_post(url: str, body, headers=None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method="POST", headers={"content-type": "application/json", "x-api-key": "k", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), dict(e.headers)


# ---------------------------------------------------------------- basic replies


def test_json_reply(api):
    api.enqueue_text("Hi you all", input_tokens=42)
    client = make_client(api)
    msg = client.messages.create(model=MODEL, max_tokens=100, messages=MSGS, system="be nice")
    assert msg.id.startswith("msg_")
    assert msg.type == "message" and msg.role == "assistant" and msg.model == MODEL
    assert [b.type for b in msg.content] == ["text"]
    assert msg.content[0].text == "Hi you all"
    assert msg.stop_reason == "end_turn" and msg.stop_sequence is None
    assert msg.usage.input_tokens == 42 and msg.usage.output_tokens == 3
    assert msg._request_id and msg._request_id.startswith("req_")
    assert api.requests == [{"model": MODEL, "max_tokens": 100, "messages": MSGS, "system": "be nice"}]
    # the key travels as a bearer token (anthropic 2.x) or as x-api-key (older SDKs)
    assert "Bearer test-key" in (api.headers[0].get("authorization"), "Bearer " + api.headers[0].get("x-api-key", ""))
    assert "anthropic-version" in api.headers[0]
    assert api.pending == 0


def test_default_echo_and_token_estimate(api):
    client = make_client(api)
    msg = client.messages.create(
        model=MODEL,
        max_tokens=10,
        system="sys prompt",
        messages=[
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": "two"},
            {"role": "user", "content": [{"type": "text", "text": "three four"}]},
        ],
    )
    assert msg.content[0].text == "echo: three four"
    assert msg.usage.input_tokens == 6  # sys prompt one two three four
    assert msg.usage.output_tokens == 3


def test_set_default_and_reset(api):
    api.set_default(lambda body: f"n={len(body['messages'])}")
    api.enqueue_text("queued")
    client = make_client(api)
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text == "queued"
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text == "n=1"
    api.set_default(None)
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text.startswith("echo: ")
    api.set_default(lambda body: "custom")
    api.enqueue_text("never used")
    api.reset()  # also restores the echo default
    assert api.requests == [] and api.headers == [] and api.pending == 0
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text.startswith("echo: ")


def test_stream_text(api):
    api.enqueue_text("Hello brave new world", output_tokens=7)
    client = make_client(api)
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert pieces == ["Hello ", "brave ", "new ", "world"]
    assert final.content[0].text == "Hello brave new world"
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == 7
    assert final.usage.input_tokens == 3
    assert final.model == MODEL and final.id.startswith("msg_")
    assert api.requests[0]["stream"] is True


def test_stream_custom_chunks_and_stop_reason(api):
    api.enqueue_text("abcdef", chunks=["ab", "cd", "ef"], stop_reason="max_tokens")
    client = make_client(api)
    with client.messages.stream(model=MODEL, max_tokens=3, messages=MSGS) as stream:
        assert list(stream.text_stream) == ["ab", "cd", "ef"]
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens"
    assert final.content[0].text == "abcdef"


def test_create_stream_true_raw_events(api):
    api.enqueue_text("a b")
    client = make_client(api)
    events = list(client.messages.create(model=MODEL, max_tokens=10, messages=MSGS, stream=True))
    assert [e.type for e in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]  # ping is sent but skipped by the SDK
    assert events[0].message.model == MODEL
    assert events[-2].delta.stop_reason == "end_turn" and events[-2].usage.output_tokens == 2


def test_stream_delay(api):
    api.enqueue_text("a b c", delay=0.05)
    client = make_client(api)
    t0 = time.monotonic()
    with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS) as stream:
        assert "".join(stream.text_stream) == "a b c"
    assert time.monotonic() - t0 >= 0.15


def test_stream_closed_early_then_next_request(api):
    api.enqueue_text("a b c d e f g h", delay=0.05)
    client = make_client(api)
    with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS) as stream:
        for i, _ in enumerate(stream.text_stream):
            if i == 1:
                break
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text.startswith("echo:")


# ---------------------------------------------------------------- tool use


def test_tool_use_json(api):
    api.enqueue_tool_use("get_weather", {"city": "Paris", "days": [1, 2]}, text="Let me check.", id="toolu_abc")
    client = make_client(api)
    msg = client.messages.create(
        model=MODEL, max_tokens=100, messages=MSGS, tools=[{"name": "get_weather", "input_schema": {"type": "object"}}]
    )
    assert [b.type for b in msg.content] == ["text", "tool_use"]
    assert msg.content[0].text == "Let me check."
    tool = msg.content[1]
    assert (tool.id, tool.name, tool.input) == ("toolu_abc", "get_weather", {"city": "Paris", "days": [1, 2]})
    assert msg.stop_reason == "tool_use"


def test_tool_use_stream(api):
    api.enqueue_tool_use("get_weather", {"city": "Paris", "nested": {"x": [1, 2, 3], "s": "a long string value"}})
    client = make_client(api)
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as stream:
        events = list(stream)
        final = stream.get_final_message()
    assert any(e.type == "input_json" for e in events)
    assert [b.type for b in final.content] == ["tool_use"]
    assert final.content[0].input == {"city": "Paris", "nested": {"x": [1, 2, 3], "s": "a long string value"}}
    assert final.content[0].id.startswith("toolu_")
    assert final.stop_reason == "tool_use"


def test_tool_use_stream_with_text(api):
    api.enqueue_tool_use("calc", {"a": 1}, text="Computing")
    client = make_client(api)
    with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as stream:
        assert "".join(stream.text_stream) == "Computing"
        final = stream.get_final_message()
    assert [b.type for b in final.content] == ["text", "tool_use"]
    assert final.content[1].input == {"a": 1}


def test_tool_use_malformed_partial_json(api):
    api.enqueue_tool_use("calc", {"a": 1}, raw_partial_json='{"a": 1,,')
    client = make_client(api)
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        with client.messages.stream(model=MODEL, max_tokens=100, messages=MSGS) as stream:
            stream.get_final_message()


# ---------------------------------------------------------------- HTTP errors


def test_429_retry_after_then_success(api):
    api.enqueue_error(429, "slow down", headers={"retry-after": "0"})
    api.enqueue_text("finally")
    client = make_client(api, max_retries=2)
    msg = client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert msg.content[0].text == "finally"
    assert len(api.requests) == 2 and api.requests[0] == api.requests[1]
    assert [h["x-stainless-retry-count"] for h in api.headers] == ["0", "1"]


def test_529_no_retries(api):
    api.enqueue_error(529)
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as ei:
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    err = ei.value
    assert isinstance(err, anthropic.InternalServerError)
    assert err.status_code == 529 and err.type == "overloaded_error"
    assert err.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert err.request_id and err.request_id.startswith("req_")
    assert len(api.requests) == 1


def test_500_retried_with_retry_after_ms(api):
    api.enqueue_error(500, headers={"retry-after-ms": "1"})
    client = make_client(api, max_retries=1)
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text.startswith("echo:")
    assert len(api.requests) == 2


def test_401(api):
    api.enqueue_error(401)
    client = make_client(api, max_retries=2)
    with pytest.raises(anthropic.AuthenticationError) as ei:
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert ei.value.status_code == 401 and ei.value.type == "authentication_error"
    assert len(api.requests) == 1  # not retried


def test_error_on_stream_request(api):
    api.enqueue_error(400, "bad thing", error_type="invalid_request_error")
    client = make_client(api)
    with pytest.raises(anthropic.BadRequestError) as ei:
        with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS):
            pass
    assert ei.value.api_message == "bad thing"


def test_validation_errors(api):
    url = api.url + "/v1/messages"
    status, body, headers = raw_post(url, {"model": MODEL, "messages": MSGS})
    assert status == 400 and body["error"]["type"] == "invalid_request_error"
    assert "max_tokens" in body["error"]["message"]
    assert headers.get("request-id", "").startswith("req_")
    assert raw_post(url, {"max_tokens": 5, "messages": MSGS})[0] == 400
    assert raw_post(url, {"model": MODEL, "max_tokens": 5})[0] == 400
    status, body, _ = raw_post(url, {"model": MODEL, "max_tokens": 5, "messages": []})
    assert status == 400 and body["type"] == "error"
    assert raw_post(url, b"not json")[0] == 400
    assert len(api.requests) == 5  # recorded even when rejected

    client = make_client(api)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model=MODEL, max_tokens=10, messages=[])


def test_missing_api_key_and_other_paths(api):
    status, body, _ = raw_post(
        api.url + "/v1/messages", {"model": MODEL, "max_tokens": 5, "messages": MSGS}, headers={"x-api-key": ""}
    )
    assert status == 401 and body["error"]["type"] == "authentication_error"
    status, body, _ = raw_post(api.url + "/v1/other", {})
    assert status == 404 and body["error"]["type"] == "not_found_error"
    with pytest.raises(urllib.error.HTTPError) as ei:
        urllib.request.urlopen(api.url + "/v1/files", timeout=5)
    assert ei.value.code == 404


def test_models_list_as_the_real_sdk_pages_it(api):
    api.models = ["claude-a", "claude-b"]
    assert [m.id for m in make_client(api).models.list()] == ["claude-a", "claude-b"]


def test_count_tokens(api):
    client = make_client(api)
    res = client.messages.count_tokens(model=MODEL, messages=MSGS, system="two words")
    assert res.input_tokens == 5
    assert api.requests == []  # only /v1/messages bodies are recorded


# ---------------------------------------------------------------- connection failures


def test_drop_before_bytes(api):
    api.enqueue_drop()
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError) as ei:
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert not isinstance(ei.value, anthropic.APITimeoutError)
    assert isinstance(ei.value.__cause__, HTTP.RemoteProtocolError)
    assert len(api.requests) == 1


def test_drop_before_bytes_is_retried(api):
    api.enqueue_drop()
    client = make_client(api, max_retries=1)
    msg = client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert msg.content[0].text == "echo: hello there friend"
    assert len(api.requests) == 2


def test_drop_before_bytes_stream(api):
    api.enqueue_drop()
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError):
        with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS):
            pass


def test_drop_mid_stream(api):
    api.enqueue_drop(after_text="partial answer here")
    client = make_client(api, max_retries=2)
    got = []
    with pytest.raises(HTTP.RemoteProtocolError, match="incomplete chunked read"):
        with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS) as stream:
            for text in stream.text_stream:
                got.append(text)
    assert "".join(got) == "partial answer here"
    assert len(api.requests) == 1  # mid-stream failures are not retried
    # The SDK does not wrap it: it is not an anthropic exception.
    assert not issubclass(HTTP.RemoteProtocolError, anthropic.AnthropicError)
    assert issubclass(HTTP.RemoteProtocolError, HTTP.TransportError)


def test_drop_mid_json_body(api):
    api.enqueue_drop(after_text="some text")
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)


def test_stream_error_event(api):
    api.enqueue_stream_error("abc def")
    client = make_client(api, max_retries=2)
    got = []
    with pytest.raises(anthropic.APIStatusError) as ei:
        with client.messages.stream(model=MODEL, max_tokens=10, messages=MSGS) as stream:
            for text in stream.text_stream:
                got.append(text)
    assert "".join(got) == "abc def"
    err = ei.value
    assert type(err) is anthropic.APIStatusError  # HTTP status was 200, so no subclass
    assert err.status_code == 200
    assert err.type == "overloaded_error" and err.api_message == "Overloaded"
    assert err.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert len(api.requests) == 1


def test_stream_error_on_json_request_is_http_error(api):
    api.enqueue_stream_error("x", error_type="api_error", message="boom")
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.InternalServerError) as ei:
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert ei.value.status_code == 500 and ei.value.api_message == "boom"


def test_hang_timeout(api):
    api.enqueue_hang(5)
    client = make_client(api, max_retries=0, timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
    assert time.monotonic() - t0 < 0.9
    assert len(api.requests) == 1


# ---------------------------------------------------------------- concurrency / processes


def test_concurrent_requests(api):
    client = make_client(api)
    results: list[str] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        text = (
            client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": f"n{i}"}])
            .content[0]
            .text
        )
        with lock:
            results.append(text)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert sorted(results) == sorted(f"echo: n{i}" for i in range(10))
    assert len(api.requests) == 10


def test_base_url_from_env(api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    api.enqueue_text("via env")
    client = anthropic.Anthropic(max_retries=0)
    assert client.messages.create(model=MODEL, max_tokens=10, messages=MSGS).content[0].text == "via env"
    assert api.headers[0]["authorization"] == "Bearer env-key"


def test_other_process(api):
    api.enqueue_text("from another process")
    code = (
        "import json, os, urllib.request\n"
        "req = urllib.request.Request(os.environ['ANTHROPIC_BASE_URL'] + '/v1/messages', method='POST',\n"
        "    data=json.dumps({'model': 'm', 'max_tokens': 5, 'messages': [{'role': 'user', 'content': 'x'}]}).encode(),\n"
        "    headers={'x-api-key': 'k', 'content-type': 'application/json'})\n"
        "print(json.loads(urllib.request.urlopen(req, timeout=5).read())['content'][0]['text'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "ANTHROPIC_BASE_URL": api.url},
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "from another process"


def test_close_is_quick_with_hanging_request():
    api = FakeAnthropic()
    api.enqueue_hang(30)
    client = make_client(api, max_retries=0, timeout=5)
    errors = []

    def worker():
        try:
            client.messages.create(model=MODEL, max_tokens=10, messages=MSGS)
        except Exception as e:
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    deadline = time.monotonic() + 2
    while not api.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    t0 = time.monotonic()
    api.close()
    t.join(3)
    assert time.monotonic() - t0 < 1
    assert errors and isinstance(errors[0], anthropic.APIConnectionError)
