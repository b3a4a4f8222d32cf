"""The stdio wire between an MCP client and the SDK's server: every line the client sends gets an
answer, and every request it sent gets answered before the server exits.

The SDK drops what it cannot parse without a word (a truncated line, a batch, an id that is an
object), so a client waits forever; and when the client closes stdin right after a request (a
script piping its calls in), the SDK stops before that request's answer is written. So the
client's lines are read here first:

- a line that is not JSON gets JSON-RPC's parse error (-32700, id null); a batch (MCP has none
  since 2025-06-18), or an object that is not a JSON-RPC 2.0 message MCP takes (no method, an id
  that is not a string or an integer, params that are not an object, anything the SDK's own check
  refuses), gets an invalid request (-32600) with its id when it has a usable one; a lone surrogate
  in a string becomes U+FFFD (the SDK drops the line otherwise);
- every other line goes to the SDK unchanged, through a pipe that stands in for stdin, and its
  answers come back through a pipe that stands in for stdout;
- at the end of the client's input the SDK's stdin is closed only once every request passed on
  has its answer (or after ANSWER_WAIT).

fd 0 and fd 1 themselves point at /dev/null and stderr while serving: a stray write to fd 1 (a
library's, C code's) lands on stderr instead of tearing a frame on the wire.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# the SDK's own message types: this module is imported only to serve (memchat.mcp.server)
from mcp_types import jsonrpc_message_adapter

from memchat.files import bounded_lines

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# A message's most bytes: a memory of 1 MiB characters, escaped in JSON, and room for the rest
MAX_LINE_BYTES = 8 << 20
ANSWER_WAIT = 60.0  # seconds the end of input waits for answers to requests still running


def _id_key(value: object) -> str:
    return json.dumps(value)  # 1 and "1" are different ids


def _as_int(value: object) -> object:
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 100 else value


def _usable_id(value: object) -> bool:
    """A string or an integer (JSON-RPC advises against fractions; the SDK drops them unanswered)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def problem(message: object) -> tuple[int, str, object] | None:
    """Why a parsed line is not a JSON-RPC 2.0 message the server can take: (code, message, id to
    answer with), or None when it is one."""
    if isinstance(message, list):
        return INVALID_REQUEST, "Invalid Request: batches are not supported (send one message a line)", None
    if not isinstance(message, dict):
        return INVALID_REQUEST, "Invalid Request: a message is a JSON object", None
    has_id = "id" in message
    usable = has_id and _usable_id(message["id"])
    answer_id = message["id"] if usable else None
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', answer_id
    if has_id and not usable:
        return INVALID_REQUEST, "Invalid Request: an id is a string or an integer", None
    if "method" in message:
        if not isinstance(message["method"], str):
            return INVALID_REQUEST, "Invalid Request: a method is a string", answer_id
        if "params" in message and not isinstance(message["params"], dict):
            return INVALID_REQUEST, "Invalid Request: params is an object", answer_id
        return None
    if has_id and ("result" in message or "error" in message):
        return None  # the client's answer to a request of the server's
    return INVALID_REQUEST, "Invalid Request: no method", answer_id


def _well_formed(raw: bytes) -> bytes:
    """The line with any lone surrogate ("\\ud800", which JSON allows and UTF-8 cannot hold) as
    U+FFFD, as imports keep them: the SDK drops such a line without an answer."""
    if b"\\u" not in raw:
        return raw
    text = json.dumps(json.loads(raw), ensure_ascii=False)
    try:
        text.encode("utf-8")
        return raw
    except UnicodeEncodeError:
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return fixed.encode("utf-8") + b"\n"


def _takes(raw: bytes) -> bool:
    """Whether the SDK reads this line as a message (its own check, the one its stdio reader runs)."""
    try:
        jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except (ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
        return False
    return True


class Wire:
    """Both directions of the wire (see the module's docstring)."""

    def __init__(self, client_in: io.BufferedReader, client_out: int) -> None:
        self.client_in = client_in
        self.client_out = client_out
        self.write_lock = threading.Lock()
        self.pending: set[str] = set()
        self.answered = threading.Condition()
        to_server, self.server_in = os.pipe()
        self.server_out, from_server = os.pipe()
        self.stdin = io.TextIOWrapper(os.fdopen(to_server, "rb"), encoding="utf-8", errors="replace")
        self.stdout = io.TextIOWrapper(os.fdopen(from_server, "wb"), encoding="utf-8")
        self.server_in_open = True
        self.threads = [
            threading.Thread(target=self._from_client, name="mcp-wire-in", daemon=True),
            threading.Thread(target=self._from_server, name="mcp-wire-out", daemon=True),
        ]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def close_server_in(self) -> bool:
        """The end of input for the server, once: on SIGTERM too (memchat.signals.ending_with), so
        the SDK stops as at the end of input instead of waiting on a thread that reads the pipe."""
        with self.write_lock:
            if self.server_in_open:
                self.server_in_open = False
                os.close(self.server_in)
        return True

    def finish(self) -> None:
        """After the server stopped: close its stdout and forward the last of what it wrote."""
        try:
            self.stdout.close()
        except OSError:
            pass
        self.threads[1].join(timeout=10)

    def _send(self, line: bytes) -> None:
        with self.write_lock:
            view = memoryview(line)
            while view:
                try:
                    done = os.write(self.client_out, view)
                except BrokenPipeError:
                    return  # the client is gone: nothing more to tell it
                view = view[done:]

    def _error(self, code: int, message: str, answer_id: object) -> None:
        body = {"jsonrpc": "2.0", "id": answer_id, "error": {"code": code, "message": message}}
        self._send(json.dumps(body, separators=(",", ":")).encode() + b"\n")

    def _from_client(self) -> None:
        server_in = os.fdopen(self.server_in, "wb", buffering=0, closefd=False)  # closed by close_server_in
        try:
            for raw in bounded_lines(self.client_in, MAX_LINE_BYTES):
                if raw is None:  # never held whole: a client that sends one endless line
                    self._error(PARSE_ERROR, f"Parse error: a message is at most {MAX_LINE_BYTES:,} bytes", None)
                    continue
                if not raw.strip():
                    continue
                try:
                    message = json.loads(raw)
                except (ValueError, RecursionError):  # RecursionError: nested deeper than Python reads
                    self._error(PARSE_ERROR, "Parse error: a line is one JSON-RPC message", None)
                    continue
                trouble = problem(message)
                # a bare CR is whitespace to JSON (it cannot be inside a string) but ends a line for
                # the SDK's reader, which then drops both halves unanswered
                raw = _well_formed(raw.rstrip(b"\r\n").replace(b"\r", b" ") + b"\n")
                if trouble is None and not _takes(raw):  # what the SDK would drop without a word
                    trouble = INVALID_REQUEST, "Invalid Request: not a JSON-RPC message MCP knows", message.get("id")
                if trouble is not None:
                    self._error(*trouble)
                    continue
                if "method" in message and "id" in message:
                    with self.answered:
                        self.pending.add(_id_key(message["id"]))
                elif message.get("method") == "notifications/cancelled":  # a cancelled request gets no answer
                    cancelled = (message.get("params") or {}).get("requestId")
                    with self.answered:  # the SDK takes "7" and 7 for one id here
                        self.pending.difference_update(
                            _id_key(i) for i in (cancelled, str(cancelled), _as_int(cancelled))
                        )
                        self.answered.notify_all()
                try:
                    server_in.write(raw if raw.endswith(b"\n") else raw + b"\n")
                except OSError:
                    return  # the server stopped, or SIGTERM closed its input
            with self.answered:  # the end of the client's input: its requests are answered first
                self.answered.wait_for(lambda: not self.pending, timeout=ANSWER_WAIT)
        finally:
            self.close_server_in()

    def _from_server(self) -> None:
        with os.fdopen(self.server_out, "rb") as out:
            for line in out:
                self._send(line)
                try:
                    sent: Any = json.loads(line)
                except ValueError:
                    continue
                if isinstance(sent, dict) and "method" not in sent and "id" in sent:
                    with self.answered:
                        self.pending.discard(_id_key(sent["id"]))
                        self.answered.notify_all()


@contextmanager
def guarded_stdio() -> Iterator[Wire]:
    """Serve through a Wire: sys.stdin and sys.stdout are its pipes while the block runs (the SDK
    reads and writes those), fd 0 and fd 1 point away from the client."""
    client_in = os.fdopen(os.dup(0), "rb")
    client_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    saved_fds = os.dup(0), os.dup(1)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    wire = Wire(client_in, client_out)
    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = wire.stdin, wire.stdout
    wire.start()
    try:
        yield wire
    finally:
        sys.stdin, sys.stdout = saved
        wire.finish()
        os.dup2(saved_fds[0], 0)
        os.dup2(saved_fds[1], 1)
        for fd in saved_fds:
            os.close(fd)
        # The client's stdin and stdout stay open: the reader thread may still be blocked on one (a
        # SIGTERM ends the server while the client is quiet), and closing a file another thread
        # reads waits for that read. The process is ending; its exit closes them.
