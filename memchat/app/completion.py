"""Shell completion of ids (`memchat sessions show <Tab>`): read-only, from the profile the
environment points at (the flags on the line being completed are not parsed yet). A completion
never creates a profile and never prints an error into the user's line: any failure completes
nothing."""

from __future__ import annotations

import sqlite3

from memchat.config import load_settings


def _complete_ids(sql: str, incomplete: str) -> list[tuple[str, str]]:

    try:
        path = load_settings().db_path
        if not path.exists():
            return []
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute(sql).fetchall()
        finally:
            conn.close()
    except Exception:  # noqa: BLE001
        return []
    return [(str(i), (text or "")[:60]) for i, text in rows if str(i).startswith(incomplete)]


def session_ids(incomplete: str) -> list[tuple[str, str]]:
    return _complete_ids(
        "SELECT id, coalesce(title, '') FROM sessions WHERE importing = 0 ORDER BY updated_at DESC, id DESC LIMIT 50",
        incomplete,
    )


def memory_ids(incomplete: str) -> list[tuple[str, str]]:
    return _complete_ids(
        "SELECT id, text FROM memories WHERE status IN ('active', 'pending') ORDER BY id DESC LIMIT 100", incomplete
    )
