"""`memchat import FILE`: past conversations in, as sessions, without duplicates.

Formats, detected from the content (`--format` forces one):
- ChatGPT's data export (`conversations.json`, or the numbered `conversations-000.json` …
  of a large one; the export's folder or .zip works too): importer/chatgpt.py;
- Claude.ai's data export (`conversations.json`, its folder or .zip): importer/claude.py;
- simonw/llm's `logs.db`, read-only: importer/llm_logs.py;
- memchat's own session export (`memchat sessions export ID --format json`);
- JSON lines, one message a line: {"session", "role", "content", "timestamp"?, "name"?, "id"?}.
  `session` groups messages into sessions (matched by that label on a re-import), `role` is
  user or assistant, `name` is the speaker (indexed with the words), `id` is kept as the
  message's external id. Other fields are ignored.

Re-importing is idempotent: a message is known by its `id` (the export's own ids for ChatGPT,
Claude and llm), or else by a hash of its fields (and its place among identical lines). The
whole file is read and checked before anything is stored (unreadable JSON imports nothing; a
single malformed conversation in an export is skipped and counted); rows then go in by
batches, the new sessions hidden until the file is complete. Two conversations of one file that
share an id are one session, the copy counted as a duplicate, when they share a message (the
same conversation listed twice: whatever only the copy holds is added), else two sessions
(importer.model.one_per_id). Embedding happens after (memchat.memory.recall.index). Imported
sessions are never captured into memory on their own: `memchat import --capture` asks first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memchat.importer.detect import FORMATS, load, read_file
from memchat.importer.memchat_formats import SESSION_FORMAT, SESSION_VERSION, load_json
from memchat.importer.model import ImportedMessage, ImportedSession, ImportResult, Skipped, one_per_id
from memchat.importer.store import import_sessions, mark_captured, unmark_captured

if TYPE_CHECKING:
    from memchat.db import Database

__all__ = [
    "FORMATS",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "ImportResult",
    "ImportedMessage",
    "ImportedSession",
    "Skipped",
    "import_file",
    "import_sessions",
    "load",
    "load_json",
    "mark_captured",
    "read_file",
    "unmark_captured",
]


def import_file(
    open_db: Callable[[], Database], path: str | Path, *, keep_system: bool = False, fmt: str | None = None
) -> ImportResult:
    """Read and check the file, then open the database (a file that cannot be imported leaves
    no profile behind) and store what is new."""
    sessions, kind, skipped = load(path, fmt)
    # Two conversations of the file that share an id: neither merged blindly nor lost, nor counted twice.
    result = import_sessions(open_db(), one_per_id(sessions, skipped), keep_system=keep_system)
    result.format, result.skipped = kind, skipped
    return result
