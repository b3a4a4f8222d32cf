"""Slash commands for working memory: /pin, /unpin, /history, /context, /compact, /summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memchat.errors import MemchatError, UsageError
from memchat.repl.command import CommandSet
from memchat.sessions import title_from
from memchat.ui import console

if TYPE_CHECKING:
    from memchat.repl.state import ReplState

COMMANDS = CommandSet()
command = COMMANDS.command


def _numbers(repl: ReplState, prefix: str) -> list[str]:
    """This session's message ids, newest first (as /history shows them)."""
    if repl.session is None:
        return []
    ids = [m.id for m in repl.app.chat.messages(repl.session)]
    return [str(i) for i in reversed(ids) if str(i).startswith(prefix)][:20]


def _pin(repl: ReplState, arg: str, pinned: bool) -> None:
    if repl.session is None:
        raise MemchatError("no messages yet")
    m = repl.app.chat.pin_message(repl.session, arg or None, pinned)
    repl.info(f"{'pinned' if pinned else 'unpinned'}: {title_from(m.content)}")


@command("pin", "Pin a message: always sent verbatim (default: your last message).", args="[ID]", complete=_numbers)
def _pin_message(repl: ReplState, arg: str) -> None:
    _pin(repl, arg, True)


@command("unpin", "Unpin a message (default: the last pinned one).", args="[ID]", complete=_numbers)
def _unpin_message(repl: ReplState, arg: str) -> None:
    _pin(repl, arg, False)


@command("history", "List this session's messages: id, tokens, pinned/sent/summarised/dropped.")
def _history(repl: ReplState, arg: str) -> None:
    from memchat.ui import tables

    if repl.session is None:
        repl.info("no messages yet")
        return
    console.out().print(tables.history_table(repl.app.chat.history_rows(repl.session)))


@command("context", "Show the token budget of the next call.")
def _context(repl: ReplState, arg: str) -> None:
    from memchat.ui import tables

    console.out().print(tables.budget_table(repl.app.chat.preview(repl.session).budget))


@command("compact", "Fold older turns into the session summary now.")
def _compact(repl: ReplState, arg: str) -> None:
    if repl.session is None:
        raise MemchatError("nothing to compact yet")
    repl.session = repl.app.chat.compact(repl.session, on_notice=repl.info)
    repl.info("session summary updated (/summary shows it)")


@command("summary", "Show the current session summary.")
def _summary(repl: ReplState, arg: str) -> None:
    if arg:
        raise UsageError("usage: /summary")
    if repl.session is not None:  # re-read: a compaction or a forget may have changed it
        repl.session = repl.app.chat.session(repl.session.id)
    if repl.session is None or not repl.session.summary:
        repl.info("no session summary yet (it is written when older turns are compacted; /compact forces it)")
        return
    repl.say(repl.session.summary)
