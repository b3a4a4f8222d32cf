"""Working memory: turn the stored transcript into the `messages` list for one call."""

from __future__ import annotations

from typing import Any

from memchat.sessions import Message

# Assistant text that was cut short is still what the model said: send it.
_SENT_ASSISTANT = {"ok", "interrupted", "incomplete"}


def build_messages(history: list[Message], current: Message) -> list[dict[str, Any]]:
    """The API's alternating user/assistant list: answered turns, then the current message.

    Unanswered user messages (a failed call the user moved on from) are left out, so a
    retry or a rephrasing is not sent twice; empty texts are never sent.
    """
    out: list[dict[str, Any]] = []
    for m in history:
        if m.id == current.id or not m.content.strip():
            continue
        if m.role == "user" and m.status != "ok":
            continue
        if m.role == "assistant" and m.status not in _SENT_ASSISTANT:
            continue
        _append(out, m.role, m.content)
    _append(out, "user", current.content)
    while out and out[0]["role"] != "user":
        out.pop(0)
    return out


def _append(out: list[dict[str, Any]], role: str, text: str) -> None:
    # The API wants alternating roles: fold a repeated role into the previous message.
    if out and out[-1]["role"] == role:
        out[-1]["content"] += "\n\n" + text
    else:
        out.append({"role": role, "content": text})
