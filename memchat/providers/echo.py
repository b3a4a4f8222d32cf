"""A deterministic offline provider, for tests and for trying memchat without an API key.

It answers "(echo) " followed by the last user message, streamed word by word, and
reports usage as word counts. It never touches the network.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from memchat.providers import ChatRequest, Provider, Reply


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


def _words(text: str) -> int:
    return len(text.split())


class EchoProvider(Provider):
    name = "echo"
    can_summarise = False  # it only repeats: compaction falls back to trimming
    can_call_tools = False  # so no memory capture: nothing can extract
    real_usage = False  # word counts, not tokens: never calibrate token estimates on them

    def model_name(self, requested: str) -> str:
        return "echo"  # no model answered: never recorded under the name of one that did not

    def models(self) -> list[str]:
        return ["echo"]  # its one "model" (`memchat models`)

    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        last_user = next((m for m in reversed(request.messages) if m["role"] == "user"), None)
        text = "(echo) " + (_text_of(last_user["content"]) if last_user else "")
        reply.model = self.model_name(request.model)
        for chunk in re.findall(r"\S+\s*|\s+", text):
            reply.text += chunk
            yield chunk
        prompt_text = request.system + " " + " ".join(_text_of(m["content"]) for m in request.messages)
        reply.input_tokens = _words(prompt_text)
        reply.output_tokens = _words(text)
        reply.stop_reason = "end_turn"
