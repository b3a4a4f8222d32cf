"""A local fake of the Anthropic Messages API for tests.

``FakeAnthropic`` starts a stdlib HTTP/1.1 server on 127.0.0.1 (random free
port, daemon thread) that speaks enough of ``POST /v1/messages`` for the real
``anthropic`` SDK to work against it, both for plain JSON replies and for
streamed (SSE) replies::

    with FakeAnthropic() as api:
        api.enqueue_text("Hello there")
        client = anthropic.Anthropic(api_key="test-key", base_url=api.url, max_retries=0)
        with client.messages.stream(model="m", max_tokens=100,
                                    messages=[{"role": "user", "content": "hi"}]) as s:
            text = "".join(s.text_stream)
        assert api.requests[0]["messages"][0]["content"] == "hi"

A CLI started as a subprocess can use it too: pass ``ANTHROPIC_BASE_URL=api.url``
(and some ``ANTHROPIC_API_KEY``) in its environment.  The server handles
concurrent connections and HTTP keep-alive: JSON replies carry
``Content-Length``; SSE replies use ``Transfer-Encoding: chunked`` (as the real
API does), so a connection dropped in the middle of a stream is detected by
the client as an incomplete body rather than looking like a normal end.

Scripted replies are consumed in FIFO order, one per valid ``POST
/v1/messages`` request.  When the queue is empty the default reply is used
(``"echo: " + <text of the last user message>``, or ``set_default(fn)``).
Requests that fail validation (missing ``model`` / ``max_tokens`` /
``messages``, empty ``messages``, body not a JSON object, no ``x-api-key`` or
``authorization`` header) get the real API's 400/401 error body and do NOT
consume a scripted reply, but they are still recorded in ``requests``.

How the real SDK (anthropic 2.14.0 on httpx2 2.16.2, checked by
tests/test_fakeapi.py) behaves against it:

* The API key is sent as ``authorization: Bearer <key>`` (this SDK version
  does not send ``x-api-key``), so assert on ``api.headers[i]["authorization"]``.
  Every request also carries ``anthropic-version`` and
  ``x-stainless-retry-count`` ("0" for the first attempt).

* HTTP errors -> ``anthropic.APIStatusError`` subclasses chosen by status:
  400 BadRequestError, 401 AuthenticationError, 403 PermissionDeniedError,
  404 NotFoundError, 413 ContentTooLargeError, 429 RateLimitError,
  500 InternalServerError, 529 OverloadedError (a subclass of
  InternalServerError).  ``err.status_code``, ``err.type`` (the body's
  ``error.type``), ``err.api_message`` and ``err.request_id`` are filled in.
* The SDK retries 408, 409, 429 and every status >= 500 (so also 500 and 529),
  and connection errors / timeouts, up to ``max_retries`` (default 2) times.
  ``x-should-retry: true|false`` overrides that.  A ``retry-after`` (or
  ``retry-after-ms``) header is only honoured when it is > 0; ``"0"`` falls
  back to the exponential backoff (0.5 s * 2**n, minus up to 25 % jitter,
  capped at 8 s), so a retry after ``retry-after: 0`` waits ~0.38-0.5 s.  Use
  ``headers={"retry-after-ms": "1"}`` for an (almost) immediate retry.
  Every attempt is a new request here, so it consumes a scripted reply and is
  recorded (header ``x-stainless-retry-count`` tells the attempt number).
* ``enqueue_drop()`` (no bytes at all) and a truncated non-streaming body ->
  ``anthropic.APIConnectionError`` (retried first, like any connection error:
  use ``max_retries=0`` or enqueue enough items).
* ``enqueue_drop(after_text=...)`` on a stream -> iterating the stream
  (``text_stream``, iterating the stream, ``get_final_message()``) raises
  ``httpx2.RemoteProtocolError`` ("peer closed connection without sending
  complete message body: incomplete chunked read") after the partial text was
  yielded.  It is NOT wrapped into an ``anthropic`` exception and is not
  retried.  It is an ``httpx2.TransportError`` / ``httpx2.RequestError`` /
  ``httpx2.HTTPError`` (``import httpx2``; the SDK depends on httpx2, not httpx).
* ``enqueue_stream_error(...)`` -> iterating raises ``anthropic.APIStatusError``
  (the base class itself, since the HTTP status is 200: ``err.status_code ==
  200``), with ``err.type == "overloaded_error"`` (or the given error_type),
  ``err.api_message`` and ``err.body`` = the event's JSON.  Not retried.
* ``enqueue_hang(s)`` with a client ``timeout`` < s -> ``anthropic.APITimeoutError``
  (a subclass of APIConnectionError; retried unless ``max_retries=0``).
* ``enqueue_tool_use(..., raw_partial_json="{bad")`` on a stream ->
  ``ValueError("Unable to parse tool parameter JSON from model ...")`` from the
  SDK's stream accumulator.
* SDK default timeout: 600 s total with 5 s connect
  (``anthropic.DEFAULT_TIMEOUT``); for non-streaming ``create`` it is
  recomputed from ``max_tokens`` (still 600 s, and a ValueError "Streaming is
  required ..." for very large max_tokens) unless the client/call sets
  ``timeout`` explicitly.  Default ``max_retries`` is 2.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import string
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeAnthropic", "DEFAULT_ERROR_TYPES"]

DEFAULT_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_DEFAULT_ERROR_MESSAGES: dict[str, str] = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "Not found",
    "timeout_error": "Request timed out",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "overloaded_error": "Overloaded",
}

# HTTP status the real API uses for an error type (for stream errors sent to non-streaming requests).
_STATUS_FOR_ERROR_TYPE: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "timeout_error": 504,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}

_ALNUM = string.ascii_letters + string.digits


def _rand_id(prefix: str) -> str:
    return prefix + "".join(secrets.choice(_ALNUM) for _ in range(24))


def _error_type_for(status: int) -> str:
    if status in DEFAULT_ERROR_TYPES:
        return DEFAULT_ERROR_TYPES[status]
    return "api_error" if status >= 500 else "invalid_request_error"


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _word_chunks(text: str) -> list[str]:
    """Split text into word-ish chunks that keep their whitespace ("a b" -> ["a ", "b"])."""
    return [c for c in re.findall(r"\S*\s*", text) if c]


def _json_chunks(s: str, size: int = 12) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def _block_text(block: Any) -> str:
    """Text of one content block (request side), for token estimates and echo."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    btype = block.get("type")
    if btype == "text":
        return str(block.get("text", ""))
    if btype == "tool_use":
        return json.dumps(block.get("input", {}))
    if btype == "tool_result":
        return _content_text(block.get("content", ""))
    if btype == "thinking":
        return str(block.get("thinking", ""))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(t for t in (_block_text(b) for b in content) if t)
    return ""


def _request_text(body: dict[str, Any]) -> str:
    parts = [_content_text(body.get("system", ""))]
    for msg in body.get("messages") or []:
        if isinstance(msg, dict):
            parts.append(_content_text(msg.get("content", "")))
    return " ".join(p for p in parts if p)


def _count_words(text: str) -> int:
    return len(text.split())


def _last_user_text(body: dict[str, Any]) -> str:
    for msg in reversed(body.get("messages") or []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content", "")
            if isinstance(content, list):
                texts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]
                if texts:
                    return " ".join(texts)
            return _content_text(content)
    return ""


def _default_reply(body: dict[str, Any]) -> str:
    return "echo: " + _last_user_text(body)


def _validate(body: Any) -> str | None:
    """Return an error message like the real API's for basic request problems, else None."""
    if not isinstance(body, dict):
        return "Request body must be a JSON object"
    for key in ("model", "max_tokens", "messages"):
        if key not in body:
            return f"{key}: Field required"
    if not isinstance(body["model"], str) or not body["model"]:
        return "model: Input should be a valid string"
    mt = body["max_tokens"]
    if isinstance(mt, bool) or not isinstance(mt, int):
        return "max_tokens: Input should be a valid integer"
    if mt < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    msgs = body["messages"]
    if not isinstance(msgs, list):
        return "messages: Input should be a valid list"
    if not msgs:
        return "messages: at least one message is required"
    for i, m in enumerate(msgs):
        if not isinstance(m, dict):
            return f"messages.{i}: Input should be a valid dictionary"
        if m.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if "content" not in m:
            return f"messages.{i}.content: Field required"
    return _validate_tools(body, msgs)


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


def _validate_tools(body: dict[str, Any], msgs: list[dict[str, Any]]) -> str | None:
    """The real API's tool-use rules: tools defined when the messages hold tool blocks, and every
    tool_use answered by a tool_result of the same id in the very next (user) message."""
    if any(_blocks(m, "tool_use") or _blocks(m, "tool_result") for m in msgs) and not body.get("tools"):
        return "Requests which include `tool_use` or `tool_result` blocks must define tools."
    for i, m in enumerate(msgs):
        results = {b.get("tool_use_id") for b in _blocks(m, "tool_result")}
        asked = {b.get("id") for b in _blocks(msgs[i - 1], "tool_use")} if i else set()
        if results - asked:
            return f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` blocks"
        uses = {b.get("id") for b in _blocks(m, "tool_use")}
        answered = {b.get("tool_use_id") for b in _blocks(msgs[i + 1], "tool_result")} if i + 1 < len(msgs) else set()
        if uses and uses - answered:
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                + ", ".join(sorted(uses - answered))
            )
    return None


@dataclass
class _Reply:
    kind: str  # "text" | "tool_use" | "error" | "stream_error" | "drop" | "hang"
    text: str | None = None
    chunks: list[str] | None = None
    stop_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    delay: float = 0.0
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_id: str | None = None
    raw_partial_json: str | None = None
    status: int = 200
    error_type: str | None = None
    message: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeAnthropic

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Client disconnects (Ctrl-C tests, timeouts) are expected; stay quiet.
        return


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropic/1.0"
    sys_version = ""
    server: _Server

    # ---- plumbing -------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        return

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, add=False)

    @property
    def fake(self) -> FakeAnthropic:
        return self.server.fake

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = b""
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    # trailers until blank line
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, obj: Any, extra_headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", _rand_id("req_"))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_json(
        self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        self._send_json(status, _error_body(error_type, message), headers)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", _rand_id("req_"))
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _event(self, name: str, payload: dict[str, Any]) -> None:
        self._chunk(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the fake is being closed. Returns False if closed meanwhile."""
        if seconds <= 0:
            return not self.fake._closing.is_set()
        return not self.fake._closing.wait(seconds)

    # ---- HTTP verbs -----------------------------------------------------

    def do_POST(self) -> None:
        try:
            self._handle_post()
        except (TimeoutError, BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            self.close_connection = True

    def _not_found(self) -> None:
        try:
            if self.command == "POST":
                self._read_body()
            self._send_error_json(404, "not_found_error", f"Not found: {self.command} {self.path}")
        except OSError:
            self.close_connection = True

    def do_GET(self) -> None:
        """GET /v1/models: the list page the real API answers (``models`` of the fake)."""
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/models":
            self._not_found()
            return
        data = [
            {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"}
            for m in self.fake.models
        ]
        page = {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None}
        page["last_id"] = data[-1]["id"] if data else None
        try:
            self._send_json(200, page)
        except OSError:
            self.close_connection = True

    do_PUT = do_DELETE = do_PATCH = _not_found  # type: ignore[assignment]

    def _handle_post(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/messages", "/v1/messages/count_tokens"):
            self._not_found()
            return

        raw = self._read_body()
        try:
            body: Any = json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, UnicodeDecodeError):
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        authed = bool(headers.get("x-api-key") or headers.get("authorization"))

        if path == "/v1/messages/count_tokens":
            if not authed:
                self._send_error_json(401, "authentication_error", "x-api-key header is required")
                return
            err = None if isinstance(body, dict) and "messages" in body else "messages: Field required"
            if err is None and not body["messages"]:
                err = "messages: at least one message is required"
            if err:
                self._send_error_json(400, "invalid_request_error", err)
                return
            queued = self.fake._take_error()  # a scripted error (a revoked key, an outage) answers this too
            if queued is not None:
                self._send_error_json(
                    queued.status, queued.error_type or "api_error", queued.message or "", queued.headers
                )
                return
            self._send_json(200, {"input_tokens": self.fake.count_input_tokens(body)})
            return

        # POST /v1/messages: record before anything else.
        self.fake._record(body if isinstance(body, dict) else {"_raw": raw.decode("utf-8", "replace")}, headers)

        if not authed:
            self._send_error_json(401, "authentication_error", "x-api-key header is required")
            return
        if body is None and raw:
            self._send_error_json(
                400, "invalid_request_error", "There was an issue with the formatting of the request body: invalid JSON"
            )
            return
        err = _validate(body)
        if err:
            self._send_error_json(400, "invalid_request_error", err)
            return

        reply = self.fake._next_reply(body)
        self._serve(reply, body)

    # ---- replies --------------------------------------------------------

    def _serve(self, reply: _Reply, body: dict[str, Any]) -> None:
        streaming = body.get("stream") is True
        kind = reply.kind

        if kind == "error":
            self._send_error_json(
                reply.status, reply.error_type or _error_type_for(reply.status), reply.message or "", reply.headers
            )
            return

        if kind == "hang":
            self._sleep(reply.seconds)
            self.close_connection = True
            return

        if kind == "drop" and reply.text is None:
            self.close_connection = True
            return

        if kind == "stream_error" and not streaming:
            etype = reply.error_type or "overloaded_error"
            self._send_error_json(_STATUS_FOR_ERROR_TYPE.get(etype, 500), etype, reply.message or "")
            return

        msg = self._message(reply, body)
        if streaming:
            self._serve_stream(reply, msg)
        else:
            self._serve_json(reply, msg)

    def _message(self, reply: _Reply, body: dict[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        out_words = 0
        if reply.text is not None and (reply.kind != "tool_use" or reply.text):
            content.append({"type": "text", "text": reply.text})
            out_words += _count_words(reply.text)
        if reply.kind == "tool_use":
            content.append(
                {
                    "type": "tool_use",
                    "id": reply.tool_id or _rand_id("toolu_"),
                    "name": reply.tool_name,
                    "input": reply.tool_input or {},
                }
            )
            out_words += _count_words(json.dumps(reply.tool_input or {}))
        input_tokens = reply.input_tokens
        if input_tokens is None:
            input_tokens = self.fake.count_input_tokens(body)
        output_tokens = reply.output_tokens if reply.output_tokens is not None else out_words
        return {
            "id": _rand_id("msg_"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": output_tokens,
                "service_tier": "standard",
            },
        }

    def _serve_json(self, reply: _Reply, msg: dict[str, Any]) -> None:
        if reply.kind == "text" and reply.delay > 0:
            n = len(reply.chunks) if reply.chunks is not None else len(_word_chunks(reply.text or ""))
            if not self._sleep(reply.delay * max(1, n)):
                self.close_connection = True
                return
        if reply.kind == "drop":
            data = json.dumps(msg).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", _rand_id("req_"))
            self.end_headers()
            self.wfile.write(data[: max(1, len(data) // 2)])
            self.wfile.flush()
            self.close_connection = True
            return
        self._send_json(200, msg)

    def _serve_stream(self, reply: _Reply, msg: dict[str, Any]) -> None:
        start_msg = dict(msg)
        start_msg["content"] = []
        start_msg["stop_reason"] = None
        start_msg["stop_sequence"] = None
        start_msg["usage"] = dict(msg["usage"], output_tokens=1)

        self._start_sse()
        self._event("message_start", {"type": "message_start", "message": start_msg})

        index = 0
        text_block = next((b for b in msg["content"] if b["type"] == "text"), None)
        if text_block is not None or reply.kind in ("text", "drop", "stream_error"):
            text = text_block["text"] if text_block is not None else ""
            if reply.chunks is not None and reply.kind == "text":
                chunks = list(reply.chunks)
            else:
                chunks = _word_chunks(text)
            self._event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            self._event("ping", {"type": "ping"})
            for chunk in chunks:
                if reply.delay > 0 and not self._sleep(reply.delay):
                    self.close_connection = True
                    return
                self._event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": chunk},
                    },
                )
            if reply.kind == "drop":
                # Abrupt end: no content_block_stop / message_stop, no terminating chunk.
                self.close_connection = True
                return
            if reply.kind == "stream_error":
                self._event("error", _error_body(reply.error_type or "overloaded_error", reply.message or "Overloaded"))
                self._end_chunks()
                self.close_connection = True
                return
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
            index += 1
        else:
            self._event("ping", {"type": "ping"})

        if reply.kind == "tool_use":
            block = msg["content"][-1]
            self._event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                },
            )
            if reply.raw_partial_json is not None:
                parts = [reply.raw_partial_json]
            else:
                parts = [""] + _json_chunks(json.dumps(block["input"]))
            for part in parts:
                self._event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": part},
                    },
                )
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})

        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                "usage": {
                    "input_tokens": msg["usage"]["input_tokens"],
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": msg["usage"]["output_tokens"],
                },
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self._end_chunks()


class FakeAnthropic:
    """Fake Anthropic Messages API server; see the module docstring."""

    url: str
    requests: list[dict]
    headers: list[dict]

    def __init__(self) -> None:
        self.requests = []
        self.headers = []
        self.models = ["claude-haiku-4-5", "claude-sonnet-5-5"]  # what GET /v1/models lists
        self._lock = threading.Lock()
        self._queue: deque[_Reply] = deque()
        self._default: Callable[[dict], str] | None = None
        # The server's "real" tokenizer for usage.input_tokens; a test may swap it.
        self.input_tokenizer: Callable[[str], int] = _count_words
        self._closing = threading.Event()
        self._conns: set[socket.socket] = set()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="FakeAnthropic", daemon=True
        )
        self._thread.start()
        self._closed = False

    def count_input_tokens(self, body: dict[str, Any]) -> int:
        """usage.input_tokens for a request: the tokenizer over system + message texts."""
        return max(1, self.input_tokenizer(_request_text(body)))

    # ---- scripting ------------------------------------------------------

    def enqueue_text(
        self,
        text: str,
        *,
        chunks: list[str] | None = None,
        stop_reason: str = "end_turn",
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        delay: float = 0.0,
    ) -> None:
        """One text reply. ``chunks`` (streaming only) overrides how ``text`` is split into deltas;
        ``delay`` sleeps before each delta (non-streaming: delay * number of chunks before the reply)."""
        self._push(
            _Reply(
                "text",
                text=text,
                chunks=list(chunks) if chunks is not None else None,
                stop_reason=stop_reason,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                delay=delay,
            )
        )

    def enqueue_tool_use(
        self,
        name: str,
        input: dict,
        *,
        text: str | None = None,
        id: str | None = None,
        stop_reason: str = "tool_use",
        raw_partial_json: str | None = None,
    ) -> None:
        """A reply with an optional text block then a tool_use block. ``raw_partial_json`` is streamed
        verbatim as the single input_json_delta (streaming only; non-streaming replies carry ``input``)."""
        self._push(
            _Reply(
                "tool_use",
                text=text,
                tool_name=name,
                tool_input=dict(input),
                tool_id=id,
                stop_reason=stop_reason,
                raw_partial_json=raw_partial_json,
            )
        )

    def enqueue_error(
        self,
        status: int,
        message: str | None = None,
        *,
        error_type: str | None = None,
        headers: dict | None = None,
    ) -> None:
        """An HTTP error response with the real error body and a request-id header."""
        etype = error_type or _error_type_for(status)
        msg = message if message is not None else _DEFAULT_ERROR_MESSAGES.get(etype, "Error")
        self._push(
            _Reply(
                "error",
                status=status,
                error_type=etype,
                message=msg,
                headers={str(k): str(v) for k, v in (headers or {}).items()},
            )
        )

    def enqueue_stream_error(
        self, text_before: str, error_type: str = "overloaded_error", message: str = "Overloaded"
    ) -> None:
        """HTTP 200 stream: text deltas for ``text_before``, then an SSE ``error`` event.
        A non-streaming request gets the matching HTTP error (overloaded_error -> 529, ...)."""
        self._push(_Reply("stream_error", text=text_before, error_type=error_type, message=message))

    def enqueue_drop(self, *, after_text: str | None = None) -> None:
        """Drop the connection: before any response byte (``after_text=None``), or after streaming
        ``after_text`` (no message_stop, no terminating chunk) / after half a JSON body."""
        self._push(_Reply("drop", text=after_text, stop_reason="end_turn"))

    def enqueue_hang(self, seconds: float) -> None:
        """Read the request, send nothing for ``seconds``, then close the connection."""
        self._push(_Reply("hang", seconds=seconds))

    def set_default(self, fn: Callable[[dict], Any] | None) -> None:
        """``fn(request_body) -> reply text`` for when the queue is empty (None restores the echo default).

        To answer a tool call, fn may return ``{"tool_input": {...}}`` (the tool named by the
        request's tool_choice is used unless ``"tool_name"`` is given)."""
        self._default = fn

    @property
    def pending(self) -> int:
        """Number of scripted replies not consumed yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Clear the queue and the recorded requests/headers, and restore the echo default
        (so a ``set_default`` cannot leak into the next test when the server is shared)."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.headers.clear()
            self._default = None
            self.input_tokenizer = _count_words
            self.models = ["claude-haiku-4-5", "claude-sonnet-5-5"]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=2)

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<FakeAnthropic {self.url} requests={len(self.requests)} pending={self.pending}>"

    # ---- internals ------------------------------------------------------

    def _push(self, reply: _Reply) -> None:
        with self._lock:
            self._queue.append(reply)

    def _record(self, body: dict, headers: dict) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def _take_error(self) -> _Reply | None:
        """The next scripted reply if it is an HTTP error (count_tokens answers only those)."""
        with self._lock:
            if self._queue and self._queue[0].kind == "error":
                return self._queue.popleft()
        return None

    def _next_reply(self, body: dict) -> _Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        fn = self._default or _default_reply
        try:
            text = fn(body)
        except Exception as e:  # surface bugs in the test's default function as a 500
            return _Reply(
                "error",
                status=500,
                error_type="api_error",
                message=f"FakeAnthropic default reply failed: {type(e).__name__}: {e}",
                headers={"x-should-retry": "false"},
            )
        if isinstance(text, dict) and "tool_input" in text:
            # A default function may answer a tool call: {"tool_input": {...}, "tool_name"?: str}.
            name = text.get("tool_name") or ((body.get("tool_choice") or {}).get("name")) or "tool"
            return _Reply("tool_use", text=None, tool_name=name, tool_input=text["tool_input"], stop_reason="tool_use")
        return _Reply("text", text=str(text), stop_reason="end_turn")


if __name__ == "__main__":  # manual use: python tests/fakeapi.py
    with FakeAnthropic() as _api:
        print(_api.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
