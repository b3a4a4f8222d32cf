"""A local fake of an OpenAI-compatible Chat Completions server (Ollama, llama.cpp, vLLM, OpenAI).

``FakeOpenAI`` starts a stdlib HTTP/1.1 server on 127.0.0.1 (random free port, daemon
thread) that speaks enough of ``POST /v1/chat/completions`` and ``GET /v1/models`` for the
real ``openai`` SDK to work against it::

    with FakeOpenAI() as server:
        server.enqueue_text("Hello there")
        client = openai.OpenAI(api_key="k", base_url=server.url, max_retries=0)
        stream = client.chat.completions.create(model="llama3.1:8b", stream=True,
                                                messages=[{"role": "user", "content": "hi"}])

``server.url`` ends in ``/v1``, as a base URL does (Ollama's is http://localhost:11434/v1).

What it does as the real servers do:

* Streaming is Server-Sent Events over ``Transfer-Encoding: chunked``: ``data: {chunk}``
  lines, each a ``chat.completion.chunk`` whose ``choices[0].delta`` carries the role first,
  then ``content`` pieces or ``tool_calls`` pieces, then a ``finish_reason``; with
  ``stream_options: {"include_usage": true}`` one more chunk with ``choices: []`` and
  ``usage``; then ``data: [DONE]``. A tool call's first piece carries its index, id, type
  and name with empty arguments; its arguments follow split across several deltas.
* Errors are JSON bodies ``{"error": {"message", "type", "param", "code"}}`` with the
  status (401 invalid_api_key, 404 model_not_found, 429 rate_limit_exceeded, 500
  server_error). An error inside a started stream is a ``data: {"error": {...}}`` line.
* Requests are checked as OpenAI checks them (400): model and messages required, known
  roles, a ``tool`` message must answer a call of the assistant message before it by id,
  ``stream_options`` only with ``stream``, ``tool_choice`` only with ``tools``, a
  ``response_format`` of json_object/json_schema/text only; a model not in ``models`` is
  404 (as Ollama and vLLM answer).
* ``key=None`` (the default) accepts any request, as a local server does; ``key="sk-…"``
  wants ``Authorization: Bearer sk-…`` and answers 401 otherwise.
* ``enqueue_drop`` closes the connection (before anything, or mid-stream: no ``[DONE]``,
  no terminating chunk); ``enqueue_hang`` answers nothing for a while.

Scripted replies are consumed in FIFO order by valid chat requests; with none queued the
reply is ``"echo: " + <the last user text>``. Every chat request is recorded in ``requests``
(its JSON body) and ``headers``. Run it by hand with ``python tests/fakeopenai.py [PORT]``.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAI"]

_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}
_ROLES = ("system", "developer", "user", "assistant", "tool")


def _error(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    kind, default_code = _ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    return {"error": {"message": message, "type": kind, "param": None, "code": code or default_code}}


def _words(text: str) -> int:
    return len(text.split())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _check(body: Any, models: list[str]) -> tuple[int, str] | None:
    """(status, message) for a request OpenAI would refuse, else None."""
    if not isinstance(body, dict):
        return 400, "We could not parse the JSON body of your request."
    if not body.get("model"):
        return 400, "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return 400, "[] is too short - 'messages'"
    if body.get("stream_options") is not None and not body.get("stream"):
        return 400, "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    if body.get("tool_choice") is not None and not body.get("tools"):
        return 400, "'tool_choice' is only allowed when 'tools' are specified."
    fmt = body.get("response_format")
    if fmt is not None and (not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema")):
        return 400, "Invalid value for 'response_format.type'."
    problem = _check_messages(messages)
    if problem:
        return 400, problem
    if models and body["model"] not in models:
        return 404, f"The model `{body['model']}` does not exist or you do not have access to it."
    return None


def _check_messages(messages: list[Any]) -> str | None:
    answerable: set[str] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _ROLES:
            return f"Invalid value for 'messages[{i}].role'."
        if m["role"] == "tool":
            if m.get("tool_call_id") not in answerable:
                return (
                    f"Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    f"with 'tool_calls' (messages[{i}])."
                )
            continue
        if m["role"] == "assistant":
            answerable = {c.get("id") for c in m.get("tool_calls") or [] if isinstance(c, dict)}
            if not m.get("tool_calls") and m.get("content") is None:
                return f"Invalid value for 'messages[{i}].content': expected a string, got null."
            continue
        answerable = set()
        if "content" not in m:
            return f"Missing required parameter: 'messages[{i}].content'."
    return None


@dataclass
class _Reply:
    kind: str  # text | tool | error | stream_error | drop | hang
    text: str = ""
    chunks: list[str] | None = None
    tool_name: str = ""
    arguments: str = ""  # the raw arguments string, as the model wrote it
    pieces: int = 4  # how many deltas the arguments are split across
    finish_reason: str = "stop"
    status: int = 200
    message: str = ""
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    usage: bool = True  # a server that ignores include_usage sends none


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeOpenAI

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # clients that hang up (timeouts, Ctrl-C) are expected


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOpenAI/1.0"
    sys_version = ""
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    @property
    def fake(self) -> FakeOpenAI:
        return self.server.fake

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", "req_" + secrets.token_hex(8))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _authorised(self) -> bool:
        if self.fake.key is None:
            return True
        said = self.headers.get("Authorization", "")
        if said == f"Bearer {self.fake.key}":
            return True
        shown = said.removeprefix("Bearer ")[-4:] or "none"
        self._send_json(401, _error(401, f"Incorrect API key provided: ...{shown}."))
        return False

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path != "/v1/models":
            self._send_json(404, _error(404, f"Unknown request URL: GET {path}.", "unknown_url"))
            return
        if not self._authorised():
            return
        failure = self.fake._take_error()  # a scripted outage answers this too
        if failure is not None:
            self._send_json(failure.status, _error(failure.status, failure.message, failure.code), failure.headers)
            return
        data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "library"} for m in self.fake.models]
        self._send_json(200, {"object": "list", "data": data})

    def do_POST(self) -> None:
        try:
            self._post()
        except OSError:
            self.close_connection = True

    def _post(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0].rstrip("/")
        if path != "/v1/chat/completions":
            self._send_json(404, _error(404, f"Unknown request URL: POST {path}.", "unknown_url"))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        self.fake._record(body if isinstance(body, dict) else {"_raw": raw.decode(errors="replace")}, self.headers)
        if not self._authorised():
            return
        refused = _check(body, self.fake.models)
        if refused:
            self._send_json(refused[0], _error(*refused))
            return
        reply = self.fake._next(body)
        if reply.kind == "error":
            self._send_json(reply.status, _error(reply.status, reply.message, reply.code), reply.headers)
        elif reply.kind == "hang":
            self.fake._closing.wait(reply.seconds)
            self.close_connection = True
        elif reply.kind == "drop" and not reply.text:
            self.close_connection = True
        elif body.get("stream"):
            self._stream(reply, body)
        else:
            self._whole(reply, body)

    # --- a whole completion -------------------------------------------------------------------
    def _usage(self, reply: _Reply, body: dict[str, Any]) -> dict[str, int]:
        prompt = max(1, sum(_words(_text(m.get("content"))) for m in body["messages"]))
        completion = _words(reply.text) + _words(reply.arguments)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _whole(self, reply: _Reply, body: dict[str, Any]) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
        if reply.kind == "tool":
            message["tool_calls"] = [
                {
                    "id": "call_" + secrets.token_hex(6),
                    "type": "function",
                    "function": {"name": reply.tool_name, "arguments": reply.arguments},
                }
            ]
        elif not reply.text:
            message["content"] = ""
        completion = {
            "id": "chatcmpl-" + secrets.token_hex(8),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": reply.finish_reason}],
            "usage": self._usage(reply, body),
        }
        if reply.kind == "drop":  # half a body, then the connection goes
            data = json.dumps(completion).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        self._send_json(200, completion)

    # --- a stream -----------------------------------------------------------------------------
    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _data(self, payload: Any) -> None:
        self._chunk(f"data: {json.dumps(payload) if not isinstance(payload, str) else payload}\n\n".encode())

    def _stream(self, reply: _Reply, body: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {
            "id": "chatcmpl-" + secrets.token_hex(8),
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_fake",
        }
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def delta(d: dict[str, Any], finish: str | None = None) -> None:
            choice = {"index": 0, "delta": d, "logprobs": None, "finish_reason": finish}
            self._data({**base, "choices": [choice], **({"usage": None} if include_usage else {})})

        delta({"role": "assistant", "content": ""})
        pieces = reply.chunks if reply.chunks is not None else re.findall(r"\S+\s*|\s+", reply.text)
        for piece in pieces:
            delta({"content": piece})
        if reply.kind == "drop":
            self.close_connection = True  # no finish, no [DONE], no terminating chunk
            return
        if reply.kind == "stream_error":
            self._data(_error(500, reply.message or "The server had an error while processing your request."))
            self.wfile.write(b"0\r\n\r\n")
            self.close_connection = True
            return
        if reply.kind == "tool":
            self._tool_pieces(reply, delta)
        delta({}, reply.finish_reason)
        if include_usage and reply.usage:
            self._data({**base, "choices": [], "usage": self._usage(reply, body)})
        self._data("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _tool_pieces(self, reply: _Reply, delta: Any) -> None:
        first = {"index": 0, "id": "call_" + secrets.token_hex(6), "type": "function"}
        delta({"tool_calls": [{**first, "function": {"name": reply.tool_name, "arguments": ""}}]})
        size = max(1, -(-len(reply.arguments) // max(1, reply.pieces)))
        for start in range(0, len(reply.arguments), size):
            delta({"tool_calls": [{"index": 0, "function": {"arguments": reply.arguments[start : start + size]}}]})


class FakeOpenAI:
    """A Chat Completions server; see the module docstring."""

    def __init__(self, *, key: str | None = None, models: list[str] | None = None, port: int = 0) -> None:
        self.key = key
        self.models: list[str] = list(models) if models is not None else ["llama3.1:8b", "qwen2.5:7b"]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._queue: deque[_Reply] = deque()
        self._default: Any = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self
        host, bound = self._server.server_address[:2]
        self.url = f"http://{host}:{bound}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    # --- scripting ----------------------------------------------------------------------------
    def enqueue_text(self, text: str, *, chunks: list[str] | None = None, usage: bool = True) -> None:
        """A text reply; ``chunks`` overrides how it is split into deltas; ``usage=False``: a server
        that sends no usage chunk."""
        self._push(_Reply("text", text=text, chunks=chunks, usage=usage))

    def enqueue_tool_call(
        self,
        name: str,
        arguments: dict[str, Any] | str,
        *,
        text: str = "",
        pieces: int = 4,
        finish_reason: str = "tool_calls",
    ) -> None:
        """A reply calling ``name``; ``arguments`` as an object (sent as its JSON) or a raw string,
        which may be malformed. Streamed, the arguments are split across ``pieces`` deltas."""
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        self._push(_Reply("tool", text=text, tool_name=name, arguments=raw, pieces=pieces, finish_reason=finish_reason))

    def enqueue_error(
        self, status: int, message: str = "error", *, code: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        self._push(_Reply("error", status=status, message=message, code=code, headers=dict(headers or {})))

    def enqueue_stream_error(self, text_before: str, message: str = "") -> None:
        """A stream that starts fine, sends ``text_before``, then an error chunk."""
        self._push(_Reply("stream_error", text=text_before, message=message))

    def enqueue_drop(self, *, after_text: str = "") -> None:
        """Close the connection before any byte, or mid-stream after ``after_text``."""
        self._push(_Reply("drop", text=after_text))

    def enqueue_hang(self, seconds: float) -> None:
        self._push(_Reply("hang", seconds=seconds))

    def set_default(self, fn: Any) -> None:
        """``fn(request_body)`` answers when nothing is queued: a string is a text reply; a dict
        ``{"tool_arguments": object or raw string, "tool_name"?: str}`` is a tool call (named by the
        request's tool_choice unless given). None restores the echo."""
        self._default = fn

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.headers.clear()
        self._default = None
        self.key = None
        self.models = ["llama3.1:8b", "qwen2.5:7b"]

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals ----------------------------------------------------------------------------
    def _push(self, reply: _Reply) -> None:
        with self._lock:
            self._queue.append(reply)

    def _record(self, body: dict[str, Any], headers: Any) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})

    def _take_error(self) -> _Reply | None:
        with self._lock:
            if self._queue and self._queue[0].kind == "error":
                return self._queue.popleft()
        return None

    def _next(self, body: dict[str, Any]) -> _Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self._default is not None:
            said = self._default(body)
            if isinstance(said, dict):
                args = said["tool_arguments"]
                name = said.get("tool_name") or ((body.get("tool_choice") or {}).get("function") or {}).get(
                    "name", "tool"
                )
                raw = args if isinstance(args, str) else json.dumps(args)
                return _Reply("tool", tool_name=name, arguments=raw, finish_reason="tool_calls")
            return _Reply("text", text=str(said))
        last = next((m for m in reversed(body["messages"]) if m.get("role") == "user"), {})
        return _Reply("text", text="echo: " + _text(last.get("content")))


if __name__ == "__main__":  # by hand: python tests/fakeopenai.py [PORT]
    import sys

    with FakeOpenAI(port=int(sys.argv[1]) if len(sys.argv) > 1 else 0) as _server:
        print(_server.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
