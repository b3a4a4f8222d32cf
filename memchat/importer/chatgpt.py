"""ChatGPT's data export: `conversations.json` (or `conversations-000.json`, … in large exports).

A conversation is a tree (`mapping` of nodes with `parent`/`children`): editing a message or
regenerating a reply adds a sibling branch, and `current_node` is the leaf the user last saw.
Only that branch is imported (walked up from `current_node`, then reversed). Kept: user and
assistant messages with text (`text`, `multimodal_text` string parts, voice transcriptions).
Skipped: system and tool nodes, hidden scaffolding, tool calls (`recipient` other than all),
reasoning, images and other attachments (their pointers carry no text), empty placeholders.
Custom instructions repeat in every conversation and are not messages: not imported.
"""

from __future__ import annotations

from typing import Any

from memchat.db import utcnow
from memchat.importer.model import ImportedMessage, ImportedSession, Skipped, as_time

SOURCE = "chatgpt"
_VISIBLE = {"text", "multimodal_text"}


def looks_like(data: Any) -> bool:
    return isinstance(data, list) and any(isinstance(c, dict) and "mapping" in c for c in data[:20])


def parse(data: list[Any], skipped: Skipped) -> list[ImportedSession]:
    sessions = []
    for number, conv in enumerate(data, 1):
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            skipped.add("malformed", f"conversation {number}: no message tree")
            continue
        session = _conversation(conv)
        if session is None:
            skipped.add("malformed", f"conversation {number}: no conversation id")
        elif not session.messages:
            skipped.add("empty", f"conversation {number}: no visible message")
        else:
            sessions.append(session)
    return sessions


def _branch(conv: dict) -> list[dict]:
    mapping = conv["mapping"]
    node_id = conv.get("current_node")
    if not isinstance(node_id, str) or node_id not in mapping:  # no pointer: the newest leaf
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children") and n.get("id")]
        leaves.sort(key=lambda n: _number((n.get("message") or {}).get("create_time")) or 0)
        node_id = leaves[-1]["id"] if leaves else None
    path: list[dict] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:  # a corrupt file may loop
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    return path[::-1]


def _text(content: Any) -> str:
    if not isinstance(content, dict) or content.get("content_type") not in _VISIBLE:
        return ""
    parts = content.get("parts")
    if not isinstance(parts, list):
        return ""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and part.get("content_type") == "audio_transcription":
            out.append(str(part.get("text") or ""))
    return "\n".join(p for p in out if p.strip()).strip()


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _conversation(conv: dict) -> ImportedSession | None:
    conv_id = conv.get("conversation_id") or conv.get("id")
    if not isinstance(conv_id, str) or not conv_id:
        return None
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    session = ImportedSession(SOURCE, conv_id, title or None)
    when = as_time(_number(conv.get("create_time"))) or utcnow()
    last_model = None
    for node in _branch(conv):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        meta: dict = message["metadata"] if isinstance(message.get("metadata"), dict) else {}
        author: dict = message["author"] if isinstance(message.get("author"), dict) else {}
        role = author.get("role")
        if role not in ("user", "assistant") or meta.get("is_visually_hidden_from_conversation"):
            continue
        if role == "assistant" and message.get("recipient") not in (None, "all"):
            continue  # a call to a tool (python, image generation, memory), not a reply
        text = _text(message.get("content"))
        if not text:
            continue
        when = as_time(_number(message.get("create_time"))) or when  # none: the message before's
        model = meta.get("model_slug") if role == "assistant" and isinstance(meta.get("model_slug"), str) else None
        last_model = model or last_model
        external_id = message.get("id") or node.get("id")
        session.messages.append(ImportedMessage(str(external_id), role, text, when, model=model))
    default_model = conv.get("default_model_slug")
    session.model = default_model if isinstance(default_model, str) and default_model != "auto" else last_model
    return session
