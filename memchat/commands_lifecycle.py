"""REPL slash commands for the memory lifecycle: /why, /capture, /review."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memchat.commands import command
from memchat.errors import UsageError

if TYPE_CHECKING:
    from memchat.repl import Repl


@command("why", "Show which memories were sent with the last message, and why.")
def _why(repl: Repl, arg: str) -> None:
    from memchat import render

    if repl.last_result is None:
        repl.info("no message sent yet in this session")
        return
    render.explain_memory(repl.last_result.memory, render.out())


@command("capture", "Turn background memory capture on or off for this chat.", args="[on|off]",
         complete=lambda repl, prefix: [w for w in ("on", "off") if w.startswith(prefix)])
def _capture(repl: Repl, arg: str) -> None:
    if arg not in ("", "on", "off"):
        raise UsageError("usage: /capture on|off")
    if arg == "on" and not repl.use_memory:
        raise UsageError("memory is off for this chat (--no-memory)")
    if arg:
        repl.capture_on = arg == "on"
    repl.info(f"memory capture is {'on' if repl.capture_on else 'off'}")


@command("review", "Pending memories: list, or /review confirm|reject ID.", args="[confirm|reject ID]",
         complete=lambda repl, prefix: [w for w in ("confirm ", "reject ") if w.startswith(prefix)])
def _review(repl: Repl, arg: str) -> None:
    from memchat.memory.store import MemoryStore

    store = MemoryStore(repl.db)
    action, _, target = arg.partition(" ")
    if action in ("confirm", "reject"):
        if not target.strip():
            raise UsageError(f"usage: /review {action} ID")
        if action == "confirm":
            m = store.confirm(target.strip())
            repl.info(f"confirmed memory {m.id}: {m.text}")
        else:
            store.reject(target.strip())
            repl.info(f"rejected memory {target.strip()}: forgotten")
        return
    if action:
        raise UsageError("usage: /review [confirm|reject ID]")
    pending = store.list(status="pending")
    if not pending:
        repl.info("no memories waiting for review")
        return
    repl.say("\n".join(f"{m.id:>5}  {m.kind:<5}  {m.text}" for m in pending))
    repl.info("/review confirm ID keeps one; /review reject ID forgets it")
