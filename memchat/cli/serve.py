"""`memchat mcp`: serve memchat's memory to other AI tools over the Model Context Protocol."""

from __future__ import annotations

import typer

from memchat.cli.common import app as open_app


def mcp(ctx: typer.Context) -> None:
    """Serve memory to MCP clients (Claude Desktop, Claude Code…) over stdio.

    Tools: recall (query, kinds, since, until, k), remember (text, kind, key, value),
    forget (id: scrubbed like `memories forget`), list_memories (kind, pinned, limit).
    Resources: memchat://pinned and memchat://rules. The client starts it; it runs until the
    client closes it. It answers with the profile and settings it was started with (--profile,
    --db, MEMCHAT_HOME). Memory-off sessions and unconfirmed guesses are never served.
    """
    from memchat.mcp.server import serve

    memchat = open_app(ctx)
    memchat.on_warning = None  # stdout is the protocol: warnings go to the log, never to the wire
    serve(memchat)
