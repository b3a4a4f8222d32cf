"""The application: one open profile and every use case memchat offers. memchat's Python API.

`Memchat` owns what the use cases need (settings, the database, the provider, the embedding
model and the background capture) and makes each decision once: which session a message
goes to, when memory is captured, which encoder a search uses, what retry and undo do.
The shells (the `memchat` command, the REPL, the MCP server) parse input, call this and
render what it returns; the core below it never prints.

    from memchat.app import Memchat

    app = Memchat.load(provider="echo")
    session = app.chat.start_session()
    print(app.chat.send(session, "Hello").reply.text)
    app.memories.remember("I prefer email to phone calls")
    for hit in app.memories.recall("how should you contact me?"):
        print(hit.score, hit.text)
    app.close()
"""

from __future__ import annotations

from functools import cached_property

from memchat.app.capture import Capture
from memchat.app.conversation import Conversation
from memchat.app.memories import Memories, Remembered
from memchat.app.privacy import Privacy
from memchat.app.profile import Profile


class Memchat(Profile):
    """One profile, open for use, and the services over it (see the module docstring)."""

    # Each service is made on first use: a command that only recalls builds one.
    @cached_property
    def chat(self) -> Conversation:
        return Conversation(self)

    @cached_property
    def memories(self) -> Memories:
        return Memories(self)

    @cached_property
    def capture(self) -> Capture:
        return Capture(self)

    @cached_property
    def privacy(self) -> Privacy:
        return Privacy(self)

    def learning_agreed(self) -> bool:
        return self.use_memory and self.capture_on and self.capture.capture_agreed()

    def after_open(self) -> None:
        self.privacy.retention_in_background()  # retention windows, in a detached process when due

    def after_warm_up(self) -> None:
        self.capture.resume_capture()  # captures a dead process left


__all__ = ["Memchat", "Remembered"]
