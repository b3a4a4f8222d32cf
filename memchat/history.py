"""The REPL's input history (Up, Ctrl-R): one private file per profile, scrubbed when memory forgets.

Everything typed at the prompt, /remember lines included, is kept in
`$XDG_STATE_HOME/memchat/history-<profile>` (0600), in prompt_toolkit's FileHistory format:
entries of a "# <time>" line and "+<text>" lines. Forgetting a memory, or deleting a
session, takes the entries that said it out of the file (rewritten atomically), so Up
cannot bring back what the user asked memchat to forget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from memchat.attachments import typed_parts
from memchat.config import state_dir
from memchat.files import touch_private, write_private


def history_file(profile_key: str) -> Path:
    """The profile's history file, created 0600 (parent 0700) if new."""
    return touch_private(location(profile_key))


def location(profile_key: str) -> Path:
    """Where the profile's history file is, without creating it (what a scrub needs); the file of
    before 0.2, which every profile shared, becomes the default profile's first."""
    path = state_dir() / f"history-{profile_key}"
    legacy = state_dir() / "history"
    if profile_key == "default" and not path.exists() and legacy.is_file():
        legacy.rename(path)
    return path


def has_entries(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _entries(text: str) -> list[list[str]]:
    entries: list[list[str]] = []
    for line in text.split("\n"):
        if line.startswith("#") or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return entries


def _said(entry: list[str]) -> str:
    return "\n".join(line[1:] for line in entry if line.startswith("+"))


def scrub(path: Path, mentions: Callable[[str], bool]) -> int:
    """Remove the entries whose text `mentions` says must go; returns how many went."""
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except (FileNotFoundError, IsADirectoryError):
        return 0
    entries = _entries(text)
    kept = [e for e in entries if not (_said(e) and mentions(_said(e)))]
    if len(kept) == len(entries):
        return 0
    write_private(path, "\n".join(line for e in kept for line in e))
    return len(entries) - len(kept)


_ATTACHED = "\0attached:"  # in a set of typed lines: a file name an /attach line may have named


def typed_lines(stored_messages: Iterable[str]) -> set[str]:
    """The input-history lines that typed these stored user messages: each message, the prompt
    alone when files were attached to it, and (marked) the names of those files."""
    typed: set[str] = set()
    for content in stored_messages:
        if content.strip():
            prompt, names = typed_parts(content)
            typed |= {content.strip(), prompt} | {f"{_ATTACHED}{name}" for name in names}
    return typed - {""}


def was_typed(line: str, typed: set[str]) -> bool:
    """Whether an input-history line is one of `typed_lines` (an /attach line by its file's name)."""
    line = line.strip()
    if line in typed:
        return True
    command, _, path = line.partition(" ")
    return command == "/attach" and bool(path.strip()) and f"{_ATTACHED}{Path(path.strip()).name}" in typed
