"""In-process fakes for tests that are not about the provider or retrieval.

`FakeProvider` is a scripted model (like llm's MockModel): a test says what the model will
answer (`enqueue_text`, `enqueue_tool_use`, `enqueue_error`, or `set_default`) and then
inspects `requests`, each the request body the Messages API would have received. It takes
the same scripting calls as the local server in fakeapi.py, so a test moves between the two
by its fixture; tests of the provider itself keep the real SDK against that server.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from memchat.errors import ProviderError
from memchat.providers import ChatRequest, Provider, Reply


def _count_words(text: str) -> int:
    return len(text.split())


def _request_text(body: dict[str, Any]) -> str:
    parts = [body.get("system") or ""]
    for m in body["messages"]:
        content = m["content"]
        parts.append(content if isinstance(content, str) else " ".join(b.get("text", "") for b in content))
    return "\n".join(parts)


class FakeProvider(Provider):
    """A scripted model in this process; by default it answers "echo: " + the last user message."""

    name = "fake"

    def __init__(self, settings: Any = None) -> None:
        super().__init__(settings)
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[tuple[str, Any]] = deque()
        self._default: Callable[[dict], Any] | None = None
        self.input_tokenizer: Callable[[str], int] = _count_words

    # --- scripting (the same calls as fakeapi.FakeAnthropic) -----------------------------------
    def enqueue_text(self, text: str, *, input_tokens: int | None = None, output_tokens: int | None = None) -> None:
        self._queue.append(("text", (text, input_tokens, output_tokens)))

    def enqueue_tool_use(self, name: str, input: dict) -> None:
        self._queue.append(("tool", (name, dict(input))))

    def enqueue_error(self, status: int, message: str = "scripted failure") -> None:
        self._queue.append(("error", (status, message)))

    def set_default(self, fn: Callable[[dict], Any] | None) -> None:
        """fn(request body) -> reply text, or {"tool_input": {...}} to answer a tool call."""
        self._default = fn

    def reset(self) -> None:
        self._queue.clear()
        self.requests.clear()
        self._default = None
        self.input_tokenizer = _count_words

    def count_input_tokens(self, body: dict[str, Any]) -> int:
        return max(1, self.input_tokenizer(_request_text(body)))

    @property
    def pending(self) -> int:
        return len(self._queue)

    # --- the Provider interface ----------------------------------------------------------------
    def _answer(self, body: dict[str, Any]) -> tuple[str, Any]:
        self.requests.append(body)
        if self._queue:
            return self._queue.popleft()
        answer = self._default(body) if self._default else None
        if isinstance(answer, dict) and "tool_input" in answer:
            return "tool", (
                answer.get("tool_name") or (body.get("tool_choice") or {}).get("name"),
                answer["tool_input"],
            )
        if answer is None:
            last = next((m for m in reversed(body["messages"]) if m["role"] == "user"), None)
            answer = "echo: " + (_request_text({"messages": [last]}).strip() if last else "")
        return "text", (str(answer), None, None)

    @staticmethod
    def _body(request: ChatRequest, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens, "messages": request.messages}
        if request.system:
            body["system"] = request.system
        return {**body, **extra}

    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        body = self._body(request, stream=True)
        kind, value = self._answer(body)
        if kind == "error":
            status, message = value
            raise ProviderError(f"the API had an error ({status}): {message}", status=status)
        if kind != "text":
            raise ProviderError("the fake model was scripted to call a tool, but this call streams text")
        text, input_tokens, output_tokens = value
        reply.model = request.model
        for word in text.split(" "):
            chunk = word if not reply.text else " " + word
            reply.text += chunk
            yield chunk
        reply.input_tokens = input_tokens if input_tokens is not None else self.count_input_tokens(body)
        reply.output_tokens = output_tokens if output_tokens is not None else _count_words(text)
        reply.stop_reason = "end_turn"

    def complete(self, request: ChatRequest) -> Reply:
        reply = Reply()
        for _ in self.stream(request, reply):
            pass
        return reply

    def call_tool(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        body = self._body(request, tools=[tool], tool_choice={"type": "tool", "name": tool["name"]})
        kind, value = self._answer(body)
        if kind == "error":
            raise ProviderError(f"the API had an error ({value[0]}): {value[1]}", status=value[0])
        if kind != "tool" or value[0] != tool["name"]:
            raise ProviderError(f"the model did not call {tool['name']}")
        return dict(value[1])
