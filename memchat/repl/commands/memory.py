"""Slash commands for long-term memory: /remember, /replace, /recall, /memories, /forget, /pin-memory,
/unpin-memory, /private, /unprivate."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memchat.app.memories import pinned_note, unsent_note
from memchat.errors import UsageError
from memchat.repl.command import CommandSet
from memchat.text import one_line

if TYPE_CHECKING:
    from memchat.memory.store.memories import Memory
    from memchat.repl.state import ReplState

COMMANDS = CommandSet()
command = COMMANDS.command


def _memory_ids(repl: ReplState, prefix: str) -> Iterable[tuple[str, str]]:
    recent = repl.app.store.find(status=("active", "pending"), limit=200, newest_first=True)
    return [(str(m.id), one_line(m.text, 60)) for m in recent if str(m.id).startswith(prefix.lstrip("#"))][:20]


def _one_id(arg: str, usage: str) -> str:
    parts = arg.split()
    if not parts:
        raise UsageError(f"usage: {usage}")
    return parts[0]


@command(
    "remember",
    "Remember something for good (prefix rule: or event: for those kinds; key=user.city replaces that key's value).",
    args="[key=ENTITY.ATTR] TEXT",
)
def _remember(repl: ReplState, arg: str) -> None:
    from memchat.memory.store.kinds import kind_of

    key, rest = _leading_key(arg.strip())
    kind, text = kind_of(rest)
    if not text:
        raise UsageError(
            "usage: /remember [key=ENTITY.ATTR] TEXT (e.g. /remember rule: answer in British English, "
            "/remember key=user.city I live in Lisbon)"
        )
    done = repl.app.memories.remember(text, kind=kind, key=key, origin="stated")
    m = done.memory
    repl.info(f"{'already remembered' if done.existed else 'remembered'} #{m.id} ({m.kind}): {m.text}")
    for old in done.replaced:  # the old value stays as history (`memchat memories history`)
        repl.info(f"  supersedes #{old.id}: {old.text}")
    note = unsent_note(m)
    if note:
        repl.info(note)
    if not (done.existed or done.replaced or key):
        _ask_what_it_replaces(repl, m)


def _ask_what_it_replaces(repl: ReplState, m: Memory) -> None:
    """As `memories add` does: the close memories a new statement may change, and the user says which
    ("I moved to York last month" and "I live in Leeds"); /replace says it later."""
    # (a first preparation of the encoder is said; a piped chat looks only where it costs nothing)
    close = repl.app.memories.close_to(m, repl.info, cheap_only=not repl.interactive)
    if not close:
        return
    repl.info("close to what memchat holds:")
    for c in close:
        repl.info(f"  #{c.id}: {c.text}")
    if not repl.interactive:
        repl.info(f"if #{m.id} replaces one of them: /replace {m.id} ID")
        return
    from prompt_toolkit.shortcuts import prompt

    ids = {str(c.id): c for c in close}
    try:
        answer = prompt(f"does #{m.id} replace one of them? its id, or Enter to keep them all: ").strip().lstrip("#")
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if answer in ids:
        repl.app.memories.replace(ids[answer].id, m.id)
        repl.info(f"  supersedes #{answer}: {ids[answer].text}")
    elif answer and answer.lower() not in ("n", "no"):
        repl.info(f"not one of {', '.join(ids)}: both kept (/replace {m.id} ID says it later)")


@command(
    "replace", "Say that memory NEW replaces OLD (OLD is kept as its history).", args="NEW OLD", complete=_memory_ids
)
def _replace(repl: ReplState, arg: str) -> None:
    parts = arg.split()
    if len(parts) != 2:
        raise UsageError("usage: /replace NEW OLD (e.g. /replace 12 3: memory 12 replaces memory 3)")
    new, old = (repl.app.store.get(_one_id(p, "/replace NEW OLD")) for p in parts)
    repl.app.memories.replace(old.id, new.id)
    repl.info(f"#{new.id} replaces #{old.id} ({old.text}), kept as history")


def _leading_key(arg: str) -> tuple[str | None, str]:
    """`key=user.city I live in Lisbon` -> ("user.city", "I live in Lisbon"); the key is checked
    where `memories add --key` checks it (the store), so a malformed one gets the same error."""
    first, _, rest = arg.partition(" ")
    if not first.lower().startswith("key="):
        return None, arg
    key = first[len("key=") :]
    if not key:
        raise UsageError("usage: /remember key=ENTITY.ATTR TEXT (e.g. key=user.city I live in Lisbon)")
    return key, rest.strip()


@command("recall", "Search memories and past conversations.", args="QUERY")
def _recall(repl: ReplState, arg: str) -> None:
    from memchat.ui.memory import hit_lines, no_hits

    if not arg.strip():
        raise UsageError("usage: /recall QUERY")
    if not repl.app.embedder_loaded():
        repl.info("loading the embedding model (first search of this session)…")
    hits = repl.app.memories.recall(arg, limit=8)
    repl.say(hit_lines(hits, arg) if hits else no_hits(None, None, filtered=False))


@command("memories", "List what memchat remembers (optionally one kind: fact, event, rule).", args="[KIND]")
def _memories(repl: ReplState, arg: str) -> None:
    from memchat.ui.memory import memory_lines, no_memories

    kind = arg.strip().lower() or None
    rows = repl.app.store.find(kind=kind)
    if not rows:
        repl.say(no_memories(kind, None, False, repl.app.store.counts(), "/remember TEXT adds one"))
        return
    repl.say(memory_lines(rows))


@command("forget", "Forget a memory for good.", args="ID", complete=_memory_ids)
def _forget(repl: ReplState, arg: str) -> None:
    m = repl.app.store.get(_one_id(arg, "/forget ID (see /memories)"))
    if m.status == "forgotten":
        repl.info(f"memory {m.id} is already forgotten")
        return
    if repl.interactive:
        from prompt_toolkit.shortcuts import confirm

        try:
            if not confirm(f"Forget #{m.id} “{one_line(m.text, 80)}” for good?"):
                repl.info("nothing forgotten")
                return
        except (EOFError, KeyboardInterrupt):
            repl.info("nothing forgotten")
            return
    done = repl.app.memories.forget([m.id])
    n = done.summary_redactions
    redacted = f" (and {n} summary sentence(s) that mentioned it)" if n else ""
    repl.info(f"forgot #{m.id}{redacted}")
    if not done.compacted:
        repl.info("the database is large: `memchat profile compact` takes what was deleted out of its unused space")


@command("pin-memory", "Pin a memory: sent with every message.", args="ID", complete=_memory_ids)
def _pin_memory(repl: ReplState, arg: str) -> None:
    m = repl.app.store.pin(_one_id(arg, "/pin-memory ID"))
    repl.info(f"pinned #{m.id}: {m.text}")
    if note := pinned_note(m):
        repl.info(note)


@command("unpin-memory", "Unpin a memory.", args="ID", complete=_memory_ids)
def _unpin_memory(repl: ReplState, arg: str) -> None:
    m = repl.app.store.unpin(_one_id(arg, "/unpin-memory ID"))
    repl.info(f"unpinned #{m.id}: {m.text}")


@command(
    "private",
    "Mark a memory private: never sent to a model unasked, only shown by /recall.",
    args="ID",
    complete=_memory_ids,
)
def _private(repl: ReplState, arg: str) -> None:
    m = repl.app.store.update(_one_id(arg, "/private ID"), private=True)
    repl.info(f"private #{m.id}: {m.text} (never sent unasked; /recall still finds it)")


@command("unprivate", "Let a private memory be sent again when a message needs it.", args="ID", complete=_memory_ids)
def _unprivate(repl: ReplState, arg: str) -> None:
    m = repl.app.store.update(_one_id(arg, "/unprivate ID"), private=False)
    repl.info(f"not private #{m.id}: {m.text}")
