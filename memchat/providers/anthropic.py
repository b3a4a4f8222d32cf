"""Claude through the real anthropic SDK. The SDK is imported on first use only (~1.5 s)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from memchat.errors import ConfigError, NeedsKeyError, ProviderError
from memchat.providers import ChatRequest, Provider, Reply

if TYPE_CHECKING:
    from anthropic import APIStatusError

KEY_ENV_VAR = "ANTHROPIC_API_KEY"
DEFAULT_URL = "https://api.anthropic.com"


def _api_message(exc: Any) -> str:
    """The API's own error message from an APIStatusError body, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", "") or exc)


def _cause(exc: BaseException) -> str:
    """What actually failed under the SDK's "Connection error.": refused, no such host, TLS..."""
    seen = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    text = str(seen).strip().rstrip(".") or type(seen).__name__
    return f"{text}; check that the server is up and the URL is right"


def explain(
    exc: BaseException, *, model: str, retries: int, timeout: float, partial: str = "", url: str = DEFAULT_URL
) -> ProviderError:
    """Turn an SDK exception into one plain line a user can act on."""
    import anthropic

    kept = " The partial reply was kept (marked incomplete)." if partial else ""
    if isinstance(exc, anthropic.APIStatusError):
        return _refused(exc, model=model, retries=retries, partial=partial, kept=kept)
    if isinstance(exc, anthropic.APITimeoutError):
        tries = f", {retries + 1} tries" if retries else ""
        return ProviderError(
            f"the API at {url} did not answer within {timeout:g} s (timeout{tries}).{kept}", partial=partial
        )
    if isinstance(exc, anthropic.APIConnectionError):
        if partial:
            return ProviderError(f"the connection dropped mid-reply from {url}.{kept}", partial=partial)
        return ProviderError(f"cannot reach the API at {url}: {_cause(exc)}", partial=partial)
    # A connection cut mid-stream surfaces as an httpx/httpcore error the SDK does not wrap.
    name = type(exc).__name__
    if partial:
        return ProviderError(f"the reply stream broke ({name}).{kept}", partial=partial)
    return ProviderError(f"the API call failed ({name}: {exc})", partial=partial)


def _refused(exc: APIStatusError, *, model: str, retries: int, partial: str, kept: str) -> ProviderError:
    """An error status from the API, or an `error` event inside a stream."""
    status = exc.status_code
    detail = _api_message(exc)
    if status == 200:
        # An `error` event inside a stream that had started fine: the status is in the body, and
        # nothing was retried (a started stream never is).
        kind = getattr(exc, "type", None) or ""
        status = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}.get(kind, 500)
        retries = 0
    tries = f" after {retries} retries" if retries else ""
    return ProviderError(_status_text(status, detail, model, tries) + kept, status=status, partial=partial)


def _status_text(status: int, detail: str, model: str, tries: str) -> str:
    """What an error status means, and what to do about it."""
    if status == 401:
        from memchat.keys import key_source

        source = key_source("anthropic")  # the key that was sent: the variable's, or the keyring's
        return f"the API rejected the key (401): {detail}. Check {source.where if source else KEY_ENV_VAR}."
    if status == 403:
        return f"the key is not allowed to do this (403): {detail}"
    if status == 404:
        return f"model {model!r} was not found (404): {detail}. Choose another with --model."
    if status == 429:
        return f"rate limited by the API (429){tries}: {detail}. Wait a moment and try again."
    if status == 529:
        return f"the API is overloaded (529){tries}: {detail}. Try again shortly."
    if status >= 500:
        return f"the API had a server error ({status}){tries}: {detail}"
    return f"the API refused the request ({status}): {detail}"


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

    def ready(self) -> None:
        self._key()
        self.url()

    def url(self) -> str:
        """The Messages API base URL in effect; ConfigError naming where a malformed one came from."""
        from urllib.parse import urlsplit

        url = (self.settings.base_url or "").strip() or DEFAULT_URL
        try:
            parts = urlsplit(url)
            ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            ok = False
        if not ok:
            source = self.settings.sources.get("base_url", "settings") if hasattr(self.settings, "sources") else ""
            raise ConfigError(f"base_url {url!r} ({source}) is not an http(s) URL such as {DEFAULT_URL}")
        return url.rstrip("/")

    def _key(self) -> str:
        """The API key (ANTHROPIC_API_KEY, else the OS keyring), or NeedsKeyError saying how to set
        one. Cheap: no SDK import."""
        from memchat import keys

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
        if final.usage is not None:
            reply.input_tokens = final.usage.input_tokens
            reply.output_tokens = final.usage.output_tokens
        self.used(request, reply.model, reply.input_tokens, reply.output_tokens)
