"""`memchat mcp`: memchat's memory as a Model Context Protocol server, for other AI tools.

A thin shell like the CLI and the REPL: every tool is one use case of memchat.app, so what
Claude Desktop or Claude Code sees obeys the same rules as memchat itself (the relevance bar,
pending and superseded memories never returned, memory-off sessions never read, forget
scrubbing everything). The `mcp` SDK is imported only when the server starts (~0.5 s).
"""
