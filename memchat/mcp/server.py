"""The MCP server over stdio: tools recall, remember, forget, list_memories; resources for the
pinned memories and the rules (what memchat always sends its own model).

stdout is the protocol's wire: anything printed there would corrupt it, so the server's
lifespan points sys.stdout at stderr once the SDK holds its own copy of the real stdout.
Tools run in the SDK's worker threads; one lock serialises them over the profile's single
SQLite connection. A memchat error reaches the client as its one-line message (already free
of secrets); any other exception as "Error executing tool X" (the SDK withholds the text; the
traceback goes to memchat's log).
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

# pydantic (an `mcp` dependency) reads the tools' annotations by name from this module's globals;
# this module is imported only to serve.
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from memchat import __version__, signals
from memchat.app.profile import known_failure
from memchat.errors import MemchatError
from memchat.log import internal_error
from memchat.mcp.wire import guarded_stdio
from memchat.memory.judge.sensitive import reads_private
from memchat.memory.recall.rank import hit_brief, hit_json
from memchat.memory.store.records import memory_json

if TYPE_CHECKING:
    from memchat.app import Memchat

T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term memory of the user, kept by memchat on their machine: facts, events and rules from "
    "their past conversations. Call recall before answering a question about the user, their "
    "projects or earlier conversations; each hit has a relevance score (weak ones are marked): use "
    "what answers, and say so when nothing does. "
    "Call remember only when the user asks you to remember something. The rules resource says how "
    "the user wants to be worked with."
)


def build(app: Memchat) -> Any:
    """The MCPServer for one open profile (imports the SDK: call it only to serve)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "memchat", lifespan=_lifespan, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    server.middleware.append(_one_line_errors)
    run = _Serialised(app)
    _add_recall(server, app, run)
    _add_remember(server, app, run)
    _add_forget(server, app, run)
    _add_list_memories(server, app, run)
    _add_resources(server, app, run)
    return server


# pydantic's report of arguments that do not fit a tool's schema: several lines, with a URL
_VALIDATION = re.compile(r"^(Error executing tool \w+: )\d+ validation errors? for \w+\n")
_ERROR_TYPE = re.compile(r"\s*\[type=[^\]]*\]\s*$")


def one_line_validation(text: str) -> str:
    """A tool error about arguments as one line, each wrong argument with what it should be:
    "Error executing tool recall: k: Input should be greater than or equal to 1"."""
    found = _VALIDATION.match(text)
    if found is None:
        return text
    problems: list[str] = []
    name = ""
    for line in text[found.end() :].splitlines():
        if not line.startswith(" "):
            name = line.strip()
        elif not line.startswith("    "):  # the message; deeper lines point to pydantic's docs
            said = _ERROR_TYPE.sub("", line.strip())
            problems.append(f"{name}: {said}" if name else said)
    return found.group(1) + "; ".join(problems)


async def _one_line_errors(ctx: Any, call_next: Any) -> Any:
    """Middleware (the SDK's, run around every request): a tool's argument errors in one line."""
    result = await call_next(ctx)
    if ctx.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        for part in result.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = one_line_validation(part["text"])
    return result


class _Serialised:
    """Runs a tool's work under one lock (the profile has a single SQLite connection), its errors
    turned into the one line the client sees."""

    def __init__(self, app: Memchat) -> None:
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, fn: Callable[[], T], *, reading: bool = False) -> T:
        """`reading`: a resource's read, whose failure the SDK passes on as a ResourceError only
        (anything else it answers as a bare internal error, with a traceback on stderr)."""
        from mcp.server.mcpserver.exceptions import ResourceError, ToolError

        failed = ResourceError if reading else ToolError
        with self.lock:
            try:
                return fn()
            except ToolError:
                raise  # the tool's own answer ("no memory 7"), already one line
            except MemchatError as exc:
                raise failed(exc.message) from None
            except Exception as exc:  # noqa: BLE001 - one line to the client, the frames to the log
                known = known_failure(exc, self.app.settings.db_path)
                raise failed(known.message if known is not None else internal_error(exc)) from None


@asynccontextmanager
async def _lifespan(_server: Any) -> AsyncIterator[None]:
    # The SDK took its own handle on fd 1 for the wire before this runs; from here on a stray
    # print (ours or a library's) goes to stderr instead of breaking the protocol.
    saved, sys.stdout = sys.stdout, sys.stderr
    try:
        yield
    finally:
        sys.stdout = saved


# One function per tool: each registers it on the server (the tool takes its name from the inner function
# and its description from the docstring).


def _add_recall(server: Any, app: Memchat, run: _Serialised) -> None:
    @server.tool()
    def recall(
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        kinds: Annotated[
            list[str] | None, Field(description="Only these: fact, event, rule, message (past conversation).")
        ] = None,
        since: Annotated[str | None, Field(description="Only from this date on, e.g. 2026-01-01.")] = None,
        until: Annotated[str | None, Field(description="Only up to this date.")] = None,
        k: Annotated[int, Field(strict=True, ge=1, le=50, description="How many results at most.")] = 10,
        detail: Annotated[
            bool,
            Field(strict=True, description="Also each hit's ranking details, session, key and status (rarely needed)."),
        ] = False,
    ) -> Annotated[CallToolResult, list[dict[str, Any]]]:
        """Search what memchat remembers about the user: memories and past conversations, best
        first, as one JSON array of hits: id, kind (fact, event, rule, message), text, when, source,
        score, and role (who said it) for a message. The best matches come back whatever their
        relevance: `score` is the probability (0-1) that a hit holds what the query asks for, and
        `weak: true` marks a low one; judge whether it answers, and say so rather than guess when
        none does. [] means memory holds nothing."""
        hits = run(lambda: app.memories.recall(query, kinds=kinds, limit=k, since=since, until=until, private=False))
        # a weak match is the nearest there is, not an answer: not one that reads as private ("capital
        # of Australia" and the salary)
        hits = [h for h in hits if not (h.weak and reads_private(h.text, h.memory is not None and h.memory.sensitive))]
        found = [hit_json(h) if detail else hit_brief(h) for h in hits]
        # One compact document for the model to read (the SDK would send one indented block per
        # hit); the same list as structured content for a client that reads that.
        text = json.dumps(found, ensure_ascii=False)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"result": found})


def _add_remember(server: Any, app: Memchat, run: _Serialised) -> None:
    @server.tool()
    def remember(
        text: Annotated[str, Field(description="What to remember, in the user's words.")],
        kind: Annotated[
            str | None, Field(description="fact, event or rule (default: rule for an instruction, else fact).")
        ] = None,
        key: Annotated[
            str | None, Field(description="entity.attribute, e.g. user.city: a new value replaces the old one.")
        ] = None,
        value: Annotated[str | None, Field(description="The value for key, e.g. Lisbon.")] = None,
    ) -> dict[str, Any]:
        """Store a memory because the user asked to. Returns it, whether it was already known,
        and what it replaced. A rule waits for the user's confirmation (status pending) before it
        shapes their chats."""
        done = run(lambda: app.memories.remember(text, kind=kind, key=key, value=value, origin="mcp", actor="mcp"))
        if done.memory.private:  # the user's private memory says just this: nothing more of it is shown
            return {"memory": None, "already_remembered": True, "replaced": [], "sent_unasked": False}
        return {
            "memory": memory_json(done.memory),
            "already_remembered": done.existed,
            "replaced": [m.id for m in done.replaced],
            # false for a memory too long to send with a request unasked: recall finds it
            "sent_unasked": not done.too_long_to_send,
        }


def _add_forget(server: Any, app: Memchat, run: _Serialised) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    @server.tool()
    def forget(
        id: Annotated[
            int, Field(strict=True, ge=1, description="The memory's id, as recall or list_memories gives it.")
        ],
    ) -> dict[str, Any]:
        """Forget a memory for good, with the older versions it replaced: its text leaves the
        database, the search index and the vectors."""

        def go() -> dict[str, Any]:
            # Only what this tool can see (recall, list_memories): an active memory the user did not
            # make private. Anything else, forgotten, pending review, private or absent, is "no memory".
            memory = app.store.get(id)  # none with that id: said in one line
            if memory.status != "active" or memory.private:
                raise ToolError(f"no memory {id} (forget takes an id from recall or list_memories)")
            done = app.memories.forget([memory.id], actor="mcp")
            return {"forgotten": sorted(done.ids)}

        return run(go)


def _add_list_memories(server: Any, app: Memchat, run: _Serialised) -> None:
    @server.tool()
    def list_memories(
        kind: Annotated[str | None, Field(description="fact, event or rule.")] = None,
        pinned: Annotated[bool, Field(strict=True, description="Only pinned memories.")] = False,
        limit: Annotated[int, Field(strict=True, ge=1, le=500, description="How many, newest first.")] = 50,
    ) -> list[dict[str, Any]]:
        """The active memories, newest first (pending guesses the user has not confirmed, and what
        the user marked private, are never listed)."""
        found = run(
            lambda: app.store.find(
                kind=kind,
                status="active",
                pinned=True if pinned else None,
                limit=limit,
                newest_first=True,
                private=False,
            )
        )
        return [memory_json(m) for m in found]


def _add_resources(server: Any, app: Memchat, run: _Serialised) -> None:
    @server.resource("memchat://pinned", mime_type="application/json", description="Memories the user pinned.")
    def pinned_memories() -> list[dict[str, Any]]:
        found = run(lambda: app.store.find(status="active", pinned=True, private=False), reading=True)
        return [memory_json(m) for m in found]

    @server.resource(
        "memchat://rules", mime_type="application/json", description="How the user wants to be worked with."
    )
    def rules() -> list[dict[str, Any]]:
        found = run(lambda: app.store.find(kind="rule", status="active", private=False), reading=True)
        return [memory_json(m) for m in found]


def serve(app: Memchat) -> None:
    """Serve until the client closes stdin (and every request it sent is answered), or a Ctrl-C or
    SIGTERM ends it: then the requests passed on are answered and it stops, as at the end of input."""
    server = build(app)
    interrupted = False
    with guarded_stdio() as wire, signals.ending_with(wire.close_server_in):

        def on_ctrl_c(signum: int, frame: object) -> None:
            # raised into the SDK's event loop, a KeyboardInterrupt stopped it answering but left it
            # running until a second Ctrl-C: end it as SIGTERM does
            nonlocal interrupted
            interrupted = True
            wire.close_server_in()

        try:
            previous = signal.signal(signal.SIGINT, on_ctrl_c)
        except ValueError:  # not the main thread (a test's server): Ctrl-C is not its to take
            previous = None
        try:
            server.run()
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt  # said and exited as any command's Ctrl-C (130)
