"""The REPL's input history (Up, Ctrl-R): one private file per profile, scrubbed when memory forgets.

Everything typed at the prompt, /remember lines included, is kept in
`$XDG_STATE_HOME/memchat/history-<profile>` (0600), in prompt_toolkit's FileHistory format:
entries of a "# <time>" line and "+<text>" lines. Forgetting a memory, or deleting a
session, takes the entries that said it out of the file (rewritten atomically), so Up
cannot bring back what the user asked memchat to forget.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def history_file(profile_key: str) -> Path:
    """The profile's history file, created 0600 (parent 0700) if new."""
    from memchat.files import touch_private

    return touch_private(location(profile_key))


def location(profile_key: str) -> Path:
    """Where the profile's history file is, without creating it (what a scrub needs); the file of
    before 0.2, which every profile shared, becomes the default profile's first."""
    from memchat.config import state_dir

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
    from memchat.files import write_private

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
