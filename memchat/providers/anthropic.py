"""Claude through the real anthropic SDK. The SDK is imported on first use only (~1.5 s)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from memchat import keys
from memchat.errors import NeedsKeyError, ProviderError
from memchat.keys import key_source
from memchat.providers import ChatRequest, Provider, Reply, ToolCall, wording
from memchat.providers.wording import checked_url

KEY_ENV_VAR = "ANTHROPIC_API_KEY"
DEFAULT_URL = "https://api.anthropic.com"


def explain(
    exc: BaseException, *, model: str, retries: int, timeout: float, partial: str = "", url: str = DEFAULT_URL
) -> ProviderError:
    """Turn an SDK exception into one plain line a user can act on (wording shared with openai)."""
    import anthropic

    source = key_source("anthropic")  # the key that was sent: the variable's, or the keyring's
    return wording.explain(
        exc,
        sdk=anthropic,
        model=model,
        retries=retries,
        timeout=timeout,
        url=url,
        key_env=source.where if source else KEY_ENV_VAR,
        partial=partial,
    )


class AnthropicProvider(Provider):
    name = "anthropic"
    can_see_images = True

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self._client: Any = None
        self._client_lock = threading.Lock()  # the REPL's warm-up builds it while a turn may want it

    def warm(self) -> None:
        try:
            self.client()
        except Exception:  # noqa: BLE001 - no key, a bad URL: the first real call says so
            import anthropic  # noqa: F401 - at least the SDK is loaded

    def check(self, model: str) -> str:
        """Count the tokens of "hi" (free, authenticated, no reply generated), without retries."""
        client = self.client().with_options(max_retries=0)
        try:
            counted = client.messages.count_tokens(model=model, messages=[{"role": "user", "content": "hi"}])
        except Exception as exc:  # noqa: BLE001 - doctor shows it as one line
            raise explain(exc, model=model, retries=0, timeout=self.settings.timeout, url=self.url()) from None
        return f"{self.url()} answered; key accepted, model {model} known ({counted.input_tokens} tokens for 'hi')"

    def models(self) -> list[str]:
        """GET /v1/models (every page): the model ids the key may use, sorted; no retries."""
        client = self.client().with_options(max_retries=0)
        try:
            listed = [m.id for m in client.models.list()]
        except Exception as exc:  # noqa: BLE001 - `memchat models` shows it as one line
            raise explain(exc, model="", retries=0, timeout=self.settings.timeout, url=self.url()) from None
        return sorted(listed)

    def ready(self) -> None:
        self._key()
        self.url()

    def url(self) -> str:
        """The Messages API base URL in effect; ConfigError naming where a malformed one came from."""
        sources = getattr(self.settings, "sources", {})
        return checked_url(
            self.settings.base_url,
            DEFAULT_URL,
            setting="base_url",
            source=sources.get("base_url", "settings"),
            example=DEFAULT_URL,
        )

    def _key(self) -> str:
        """The API key (ANTHROPIC_API_KEY, else the OS keyring), or NeedsKeyError saying how to set
        one. Cheap: no SDK import."""
        key = keys.stored_key("anthropic")
        if not key:
            raise NeedsKeyError(keys.missing_key("anthropic", "Anthropic", "sk-ant-..."))
        return key

    def client(self) -> Any:
        with self._client_lock:
            return self._client or self._new_client()

    def _new_client(self) -> Any:
        if self._client is None:
            key = self._key()
            import anthropic

            kwargs: dict[str, Any] = {
                "api_key": key,
                "max_retries": self.settings.max_retries,
                "timeout": float(self.settings.timeout),
            }
            kwargs["base_url"] = self.url()
            self._client = anthropic.Anthropic(**kwargs)
        return self._client

    def _create(self, request: ChatRequest, **extra: Any) -> Any:
        """One non-streamed Messages call; any failure becomes a ProviderError line."""
        client = self.client()
        kwargs: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": request.messages,
            **extra,
        }
        if request.system:
            kwargs["system"] = request.system
        try:
            message = client.messages.create(**kwargs)
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one line
            raise explain(
                exc,
                model=request.model,
                retries=self.settings.max_retries,
                timeout=self.settings.timeout,
                url=self.url(),
            ) from None
        usage = message.usage
        self.used(request, message.model, usage.input_tokens if usage else None, usage.output_tokens if usage else None)
        return message

    def complete(self, request: ChatRequest) -> Reply:
        """One non-streamed call (summaries): the whole reply at once."""
        message = self._create(request)
        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        usage = message.usage
        return Reply(
            text=text,
            model=message.model or request.model,
            stop_reason=message.stop_reason,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
        )

    def call_tool(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        """Force one tool call and return its input: structured output without parsing prose."""
        message = self._create(request, tools=[tool], tool_choice={"type": "tool", "name": tool["name"]})
        for block in message.content:
            if block.type == "tool_use" and block.name == tool["name"]:
                if not isinstance(block.input, dict):
                    raise ProviderError(f"the model's {tool['name']} call had invalid input")
                return block.input
        raise ProviderError(f"the model did not call {tool['name']} (stop reason {message.stop_reason})")

    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        client = self.client()
        reply.model = request.model
        kwargs: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": request.messages,
        }
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = request.tools
            kwargs["tool_choice"] = {"type": request.tool_choice}
        try:
            with client.messages.stream(**kwargs) as stream:
                for text in stream.text_stream:
                    if text:
                        reply.text += text
                        yield text
                final = stream.get_final_message()
        except KeyboardInterrupt:
            raise
        except GeneratorExit:
            raise
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one line
            raise explain(
                exc,
                model=request.model,
                retries=self.settings.max_retries,
                timeout=self.settings.timeout,
                partial=reply.text,
                url=self.url(),
            ) from None
        reply.model = final.model or request.model
        reply.stop_reason = final.stop_reason
        reply.tool_calls = [
            ToolCall(block.id, block.name, block.input if isinstance(block.input, dict) else {})
            for block in final.content
            if block.type == "tool_use"
        ]
        if final.usage is not None:
            reply.input_tokens = final.usage.input_tokens
            reply.output_tokens = final.usage.output_tokens
        self.used(request, reply.model, reply.input_tokens, reply.output_tokens)
