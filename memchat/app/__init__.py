"""The application: one open profile and every use case memchat offers. memchat's Python API.

`Memchat` owns what the use cases need (settings, the database, the provider, the embedding
model and the background capture) and makes each decision once: which session a message
goes to, when memory is captured, which encoder a search uses, what retry and undo do.
The shells (the `memchat` command, the REPL, the MCP server) parse input, call this and
render what it returns; the core below it never prints.

    from memchat.app import Memchat

    app = Memchat.load(provider="echo")
    session = app.start_session()
    print(app.send(session, "Hello").reply.text)
    app.remember("I prefer email to phone calls")
    for hit in app.recall("how should you contact me?"):
        print(hit.score, hit.text)
    app.close()
"""

from __future__ import annotations

from memchat.app.capture import Capture
from memchat.app.conversation import Conversation
from memchat.app.memories import Memories, Remembered
from memchat.app.privacy import Privacy


class Memchat(Conversation, Memories, Capture, Privacy):
    """One profile, open for use: every use case memchat offers (see the module docstring)."""

    def after_open(self) -> None:
        self.retention_in_background()  # retention windows, in a detached process when due


__all__ = ["Memchat", "Remembered"]
