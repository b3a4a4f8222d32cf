"""Slash commands for the memory lifecycle: /why, /capture, /review."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memchat.errors import UsageError
from memchat.repl.command import CommandSet, choices
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.repl.state import ReplState

COMMANDS = CommandSet()
command = COMMANDS.command


@command("why", "Show which memories were sent with the last message, and why.")
def _why(repl: ReplState, arg: str) -> None:
    from memchat.ui import tables

    if repl.last_result is None:
        repl.info("no message sent yet in this session")
        return
    tables.explain_memory(repl.last_result.memory, console.out())


@command(
    "capture", "Turn background memory capture on or off for this chat.", args="[on|off]", complete=choices("on", "off")
)
def _capture(repl: ReplState, arg: str) -> None:
    arg = arg.strip().lower()  # "/capture ON" as "/capture on"
    if arg not in ("", "on", "off"):
        raise UsageError("usage: /capture on|off")
    if arg == "on" and not repl.app.use_memory:
        raise UsageError("memory is off for this chat (--no-memory)")
    if arg:
        repl.app.capture.choose_capture(arg == "on")  # on: your yes, for this chat
    why = ""
    if repl.app.capture_on and not repl.app.memory_provider.can_call_tools:
        why = f": the {repl.app.memory_provider.name} provider cannot call tools, so it learns nothing (Claude can)"
    elif not repl.app.capture_on:
        why = " for this chat (`/capture on` turns it on; `memchat consent yes` for every chat)"
    elif not repl.app.capture.capture_agreed():
        why = " until you say yes (`/capture on` for this chat; `memchat consent yes` for every chat)"
    repl.info(f"memory capture is {'on' if repl.app.capture.can_capture else 'off'}{why}")


@command(
    "review",
    "Pending memories: list, or /review confirm|reject ID.",
    args="[confirm|reject ID]",
    complete=choices("confirm ", "reject "),
)
def _review(repl: ReplState, arg: str) -> None:
    action, _, target = arg.partition(" ")
    if action in ("confirm", "reject"):
        if not target.strip():
            raise UsageError(f"usage: /review {action} ID")
        if action == "confirm":
            m = repl.app.store.confirm(target.strip())
            repl.info(f"confirmed memory {m.id}: {m.text}")
        else:
            repl.app.store.reject(target.strip())
            repl.info(f"rejected memory {target.strip()}: forgotten")
        return
    if action:
        raise UsageError("usage: /review [confirm|reject ID]")
    pending = repl.app.store.find(status="pending")
    if not pending:
        repl.info("no memories waiting for review")
        return
    repl.say("\n".join(f"{m.id:>5}  {m.kind:<5}  {m.text}" for m in pending))
    repl.info("/review confirm ID keeps one; /review reject ID forgets it")
