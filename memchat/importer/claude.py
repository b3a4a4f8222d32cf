"""Claude.ai's data export (Settings → Privacy → Export data): `conversations.json`.

A conversation has `uuid`, `name`, `summary`, `created_at` and `chat_messages` (`sender` human or
assistant). A message's text is in its `text` content blocks (older exports: in `text`, with
`content` empty); thinking, tool use and tool results are skipped. Text the model saw as an
attachment (a long paste, a PDF's extracted text) is kept, under the file's name; images and
other files carry no text and are skipped. Newer exports link messages by
`parent_message_uuid`, so edits and regenerations leave side branches: the newest leaf's branch
is imported. Older exports have no links: their order is the conversation.
"""

from __future__ import annotations

from typing import Any

from memchat.db import utcnow
from memchat.importer.model import ImportedMessage, ImportedSession, Skipped, as_time

SOURCE = "claude"
_ROLES = {"human": "user", "assistant": "assistant"}


def looks_like(data: Any) -> bool:
    return isinstance(data, list) and any(isinstance(c, dict) and "chat_messages" in c for c in data[:20])


def parse(data: list[Any], skipped: Skipped) -> list[ImportedSession]:
    sessions = []
    for number, conv in enumerate(data, 1):
        if not isinstance(conv, dict) or not isinstance(conv.get("uuid"), str):
            skipped.add("malformed", f"conversation {number}: no uuid")
            continue
        messages = conv.get("chat_messages")
        if not isinstance(messages, list):
            skipped.add("malformed", f"conversation {number}: no chat_messages")
            continue
        title = conv.get("name") if isinstance(conv.get("name"), str) else None
        summary = conv.get("summary") if isinstance(conv.get("summary"), str) else None
        session = ImportedSession(SOURCE, conv["uuid"], title or None, summary=summary or None)
        when = as_time(conv.get("created_at")) or utcnow()
        for message in _branch([m for m in messages if isinstance(m, dict) and isinstance(m.get("uuid"), str)]):
            role = _ROLES.get(message.get("sender"))  # type: ignore[arg-type]
            text = _text(message)
            if role is None or not text:
                continue
            when = as_time(message.get("created_at")) or when
            session.messages.append(ImportedMessage(message["uuid"], role, text, when))
        if session.messages:
            sessions.append(session)
        else:
            skipped.add("empty", f"conversation {number}: no message with text")
    return sessions


def _branch(messages: list[dict]) -> list[dict]:
    if not messages or not all("parent_message_uuid" in m for m in messages):
        return messages  # an older export: the list is the conversation
    by_id = {m["uuid"]: m for m in messages}
    parents = {m.get("parent_message_uuid") for m in messages}
    leaves = [(i, m) for i, m in enumerate(messages) if m["uuid"] not in parents] or list(enumerate(messages))
    leaf = max(leaves, key=lambda im: (str(im[1].get("created_at") or ""), im[0]))[1]
    path: list[dict] = []
    seen: set[str] = set()
    current: dict | None = leaf
    while current is not None and current["uuid"] not in seen:  # a corrupt file may loop
        seen.add(current["uuid"])
        path.append(current)
        current = by_id.get(current.get("parent_message_uuid"))
    return path[::-1]


def _text(message: dict) -> str:
    blocks: list = message["content"] if isinstance(message.get("content"), list) else []
    said = "\n\n".join(
        b["text"].strip()
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip()
    )
    if not said and isinstance(message.get("text"), str):
        said = message["text"].strip()
    attached = [
        f"[attached: {a.get('file_name') or 'pasted text'}]\n{a['extracted_content'].strip()}"
        for a in (message["attachments"] if isinstance(message.get("attachments"), list) else [])
        if isinstance(a, dict) and isinstance(a.get("extracted_content"), str) and a["extracted_content"].strip()
    ]
    return "\n\n".join(p for p in [said, *attached] if p)
