"""REPL slash commands for working memory (/pin, /unpin, /history, /context, /compact, /summary)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memchat.commands import command
from memchat.errors import MemchatError, UsageError

if TYPE_CHECKING:
    from memchat.repl import Repl


def _numbers(repl: Repl, prefix: str) -> list[str]:
    from memchat import sessions

    if repl.session is None:
        return []
    count = len(sessions.messages(repl.db, repl.session.id))
    return [str(n) for n in range(count, 0, -1) if str(n).startswith(prefix)][:20]


def _target(repl: Repl, arg: str, *, pinned: bool):
    from memchat import sessions

    if repl.session is None:
        raise MemchatError("no messages yet")
    if arg:
        return sessions.message_by_number(repl.db, repl.session.id, arg)
    msgs = sessions.messages(repl.db, repl.session.id)
    if pinned:
        found = next((m for m in reversed(msgs) if m.pinned), None)
        if found is None:
            raise MemchatError("no pinned message")
        return found
    found = next((m for m in reversed(msgs) if m.role == "user"), None)
    if found is None:
        raise MemchatError("no message of yours to pin yet")
    return found


@command("pin", "Pin a message: always sent verbatim (default: your last message).", args="[N]", complete=_numbers)
def _pin(repl: Repl, arg: str) -> None:
    from memchat import sessions

    m = _target(repl, arg, pinned=False)
    sessions.set_pinned(repl.db, m.id, True)
    repl.info(f"pinned: {sessions.title_from(m.content)}")


@command("unpin", "Unpin a message (default: the last pinned one).", args="[N]", complete=_numbers)
def _unpin(repl: Repl, arg: str) -> None:
    from memchat import sessions

    m = _target(repl, arg, pinned=True)
    sessions.set_pinned(repl.db, m.id, False)
    repl.info(f"unpinned: {sessions.title_from(m.content)}")


@command("history", "List this session's messages: number, tokens, pinned/sent/summarised/dropped.")
def _history(repl: Repl, arg: str) -> None:
    from memchat import render

    if repl.session is None:
        repl.info("no messages yet")
        return
    rows = repl.engine.history_rows(repl.session)
    render.out().print(render.history_table(rows))


@command("context", "Show the token budget of the next call.")
def _context(repl: Repl, arg: str) -> None:
    from memchat import render

    budget = repl.engine.preview(repl.session).budget
    render.out().print(render.budget_table(budget))


@command("compact", "Fold older turns into the session summary now.")
def _compact(repl: Repl, arg: str) -> None:
    if repl.session is None:
        raise MemchatError("nothing to compact yet")
    repl.session = repl.engine.compact_now(repl.session, on_notice=repl.info)
    repl.info("session summary updated (/summary shows it)")


@command("summary", "Show the current session summary.")
def _summary(repl: Repl, arg: str) -> None:
    if arg:
        raise UsageError("usage: /summary")
    if repl.session is not None:  # re-read: a compaction or a forget may have changed it
        from memchat import sessions

        repl.session = sessions.get_session(repl.db, repl.session.id)
    if repl.session is None or not repl.session.summary:
        repl.info("no session summary yet (it is written when older turns are compacted; /compact forces it)")
        return
    repl.say(repl.session.summary)
