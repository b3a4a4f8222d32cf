"""Any OpenAI-compatible Chat Completions server through the official openai SDK: Ollama,
llama.cpp's server, vLLM, LM Studio, OpenAI itself. The SDK is imported on first use only.

memchat speaks Anthropic's message shape everywhere (string content or blocks: text, image,
tool_use, tool_result); this module translates it to Chat Completions on the way out
(`to_wire`) and tool calls back on the way in. Structured answers (`call_tool`: capture and
its decisions) use a forced tool call where the model declares tool calls, and otherwise, or
when the call comes back missing or malformed, a JSON answer checked against the same schema
(memchat.providers.structured).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from typing import Any

from memchat.config import OPENAI_URL
from memchat.errors import ConfigError, NeedsKeyError, ProviderError
from memchat.keys import key_source, stored_key
from memchat.log import get_logger
from memchat.providers import ChatRequest, Provider, Reply, ToolCall, is_local_url, structured, wording
from memchat.providers.wording import checked_url

KEY_ENV_VAR = "OPENAI_API_KEY"
# The SDK insists on some key; a local server wants none and ignores this one.
NO_KEY = "no-key-needed"
# Chat Completions' finish reasons in the words memchat stores (Anthropic's stop reasons).
_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "function_call": "tool_use"}


def _key(local: bool) -> str:
    """The API key: OPENAI_API_KEY, else the OS keyring's (`memchat key set openai`), else ''.
    A server on this machine or the local network gets the environment's key only: the key kept
    for OpenAI never travels to it (often plain HTTP)."""
    if local:
        env = os.environ.get(KEY_ENV_VAR, "").strip()
        return stored_key("openai") or "" if env else ""  # stored_key checks it as it does any key
    return stored_key("openai") or ""


def _key_where() -> str:
    """Where the key that was sent came from, for a 401's advice (never the key)."""
    source = key_source("openai")
    return source.where if source else KEY_ENV_VAR


# --- Anthropic's message shape -> Chat Completions --------------------------------------------


def to_wire(system: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat Completions messages for a system prompt and Anthropic-shaped messages."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        content = message.get("content", "")
        if isinstance(content, str):
            out.append({"role": message["role"], "content": content})
        elif message["role"] == "assistant":
            out.append(_assistant(content))
        else:
            out.extend(_user(content))
    return out


def _assistant(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = [
        {
            "id": b["id"],
            "type": "function",
            "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})},
        }
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = calls
    elif not text:
        wire["content"] = ""
    return wire


def _user(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A user turn: its tool results first (each its own `tool` message, answering the calls just
    before), then what the user said, as plain text when it is only text."""
    results = [
        {"role": "tool", "tool_call_id": b["tool_use_id"], "content": _result_text(b)}
        for b in blocks
        if b.get("type") == "tool_result"
    ]
    parts = [p for p in (_part(b) for b in blocks if b.get("type") != "tool_result") if p]
    if not parts:
        return results
    if all(p["type"] == "text" for p in parts):
        return [*results, {"role": "user", "content": "".join(p["text"] for p in parts)}]
    return [*results, {"role": "user", "content": parts}]


def _part(block: dict[str, Any]) -> dict[str, Any] | None:
    if block.get("type") == "text":
        return {"type": "text", "text": block.get("text", "")}
    if block.get("type") == "image":
        source = block.get("source") or {}
        if source.get("type") == "base64":
            url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
        else:
            url = source.get("url", "")
        return {"type": "image_url", "image_url": {"url": url}}
    return None


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        content = "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return f"Error: {content}" if block.get("is_error") else str(content)


def tools_to_wire(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic tool definitions (name, description, input_schema) as Chat Completions functions."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t.get("input_schema") or {"type": "object", "properties": {}},
            },
        }
        for t in tools
    ]


def tool_input(name: str, arguments: str | None) -> dict[str, Any]:
    """A tool call's arguments as an object; ProviderError when they are not a JSON object."""
    try:
        value = json.loads(arguments) if arguments and arguments.strip() else {}
    except json.JSONDecodeError as exc:
        raise ProviderError(
            f"the model's {name} call had malformed arguments ({exc.msg}, at character {exc.pos})"
        ) from None
    if not isinstance(value, dict):
        raise ProviderError(f"the model's {name} call had arguments that are not an object")
    return value


def _tool_call(n: int, call: dict[str, str]) -> ToolCall:
    """A streamed tool call; malformed arguments are kept as its error, for the caller to answer."""
    try:
        return ToolCall(call["id"] or f"call_{n}", call["name"], tool_input(call["name"], call["arguments"]))
    except ProviderError as exc:
        return ToolCall(call["id"] or f"call_{n}", call["name"], {}, error=exc.message)


# --- the provider -----------------------------------------------------------------------------


class OpenAIProvider(Provider):
    name = "openai"
    json_mode = False  # not every compatible server honours response_format: declare it per model

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self._client: Any = None
        self._client_lock = threading.Lock()  # the REPL's warm-up builds it while a turn may want it

    # --- where and who ----------------------------------------------------------------------
    def url(self) -> str:
        """The base URL in effect; ConfigError naming where a malformed one came from."""
        return checked_url(
            self.settings.get("openai.base_url"),
            OPENAI_URL,
            setting="openai.base_url",
            source=self.settings.sources.get("openai.base_url", "settings"),
            example="http://localhost:11434/v1",
        )

    @property
    def local(self) -> bool:
        return is_local_url(self.url())

    def api_key(self) -> str:
        """The key, a stand-in for a local server, or NeedsKeyError saying how to set one. No I/O."""
        local = self.local
        key = _key(local)
        if key:
            return key
        if local:
            return NO_KEY
        raise NeedsKeyError(
            f"no OpenAI API key for {self.url()}: set it with `export {KEY_ENV_VAR}=sk-...` or keep it in the "
            "OS keyring with `memchat key set openai`, or point openai.base_url (or OPENAI_BASE_URL) at a local server"
        )

    def ready(self) -> None:
        self.api_key()

    def warm(self) -> None:
        try:
            self.client()
        except Exception:  # noqa: BLE001 - no key, a bad URL: the first real call says so
            import openai  # noqa: F401 - at least the SDK is loaded

    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                key = self.api_key()
                try:
                    import openai
                except ImportError:
                    raise ConfigError(
                        "the openai provider needs the openai package: pip install 'memchat[openai]'"
                    ) from None
                self._client = openai.OpenAI(
                    api_key=key,
                    base_url=self.url(),
                    max_retries=self.settings.max_retries,
                    timeout=float(self.settings.timeout),
                )
            return self._client

    def _explain(
        self, exc: BaseException, model: str, *, retries: int | None = None, partial: str = ""
    ) -> ProviderError:
        import openai

        return wording.explain(
            exc,
            sdk=openai,
            model=model,
            retries=self.settings.max_retries if retries is None else retries,
            timeout=self.settings.timeout,
            url=self.url(),
            key_env=_key_where(),
            partial=partial,
        )

    # --- what the server offers -------------------------------------------------------------
    def models(self) -> list[str]:
        """GET /models: the model ids the server offers, sorted."""
        client = self.client().with_options(max_retries=0)
        try:
            listed = [m.id for m in client.models.list()]
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one line
            raise self._explain(exc, "", retries=0) from None
        return sorted(listed)

    def check(self, model: str) -> str:
        """The server answers /models, the key is accepted, and the model is one it offers."""
        offered = self.models()
        if model not in offered:
            sample = ", ".join(offered[:8]) + (" …" if len(offered) > 8 else "")
            raise ProviderError(
                f"{self.url()} answered, but does not offer model {model!r} (it offers: {sample or 'none'}); "
                "choose one with --model or pull it on the server"
            )
        return f"{self.url()} answered; model {model} offered ({len(offered)} in all)"

    def _token_limit(self, max_tokens: int) -> dict[str, int]:
        # OpenAI's own newer models refuse max_tokens; compatible servers know only max_tokens.
        name = "max_completion_tokens" if "api.openai.com" in self.url() else "max_tokens"
        return {name: max_tokens}

    # --- calls ------------------------------------------------------------------------------
    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        client = self.client()
        reply.model = request.model
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": to_wire(request.system, request.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
            **self._token_limit(request.max_tokens),
        }
        # The last call of a turn must answer in text: no tools at all, since some servers (Ollama)
        # ignore tool_choice "none".
        if request.tools and self.capabilities(request.model).tools and request.tool_choice != "none":
            kwargs["tools"] = tools_to_wire(request.tools)
        calls: dict[int, dict[str, str]] = {}
        finish: str | None = None
        try:
            for chunk in client.chat.completions.create(**kwargs):
                finish = _take_chunk(chunk, reply, calls) or finish
                if chunk.choices and chunk.choices[0].delta.content:
                    text = chunk.choices[0].delta.content
                    reply.text += text
                    yield text
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one line
            raise self._explain(exc, request.model, partial=reply.text) from None
        reply.stop_reason = _STOP_REASONS.get(finish or "", finish)
        if calls:  # some servers end a tool call with "stop": the calls say what it was
            reply.stop_reason = "tool_use"
            reply.tool_calls = [_tool_call(n, c) for n, c in sorted(calls.items())]
        self.used(request, reply.model, reply.input_tokens, reply.output_tokens)

    def create(self, request: ChatRequest, **extra: Any) -> Any:
        """One non-streamed Chat Completions call; any failure becomes a ProviderError line."""
        client = self.client()
        try:
            completion = client.chat.completions.create(
                model=request.model,
                messages=to_wire(request.system, request.messages),
                **self._token_limit(request.max_tokens),
                **extra,
            )
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one line
            raise self._explain(exc, request.model) from None
        usage = completion.usage
        self.used(
            request,
            completion.model or request.model,
            usage.prompt_tokens if usage else None,
            usage.completion_tokens if usage else None,
        )
        if not completion.choices:
            raise ProviderError("the server answered with no choices")
        return completion

    def complete(self, request: ChatRequest) -> Reply:
        """One whole reply (summaries)."""
        completion = self.create(request)
        choice = completion.choices[0]
        usage = completion.usage
        return Reply(
            text=choice.message.content or "",
            model=completion.model or request.model,
            stop_reason=_STOP_REASONS.get(choice.finish_reason or "", choice.finish_reason),
            input_tokens=usage.prompt_tokens if usage else None,
            output_tokens=usage.completion_tokens if usage else None,
        )

    def call_tool(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        """A forced tool call where the model declares tool calls; otherwise, or when the call is
        missing or malformed, a JSON answer checked against the same schema (repaired once)."""
        capabilities = self.capabilities(request.model)
        why = f"model {request.model} declares no tool calls"
        if capabilities.tools:
            try:
                return self._forced_call(request, tool)
            except structured.NotAnswered as exc:
                why = exc.message
                get_logger().warning("%s: asking for a JSON answer instead", why)
        return structured.ask_for_json(self._answer, request, tool, why=why, json_mode=bool(capabilities.json_mode))

    def _answer(self, request: ChatRequest, extra: dict[str, Any]) -> str:
        """A plain, non-streamed answer's text."""
        return self.create(request, **extra).choices[0].message.content or ""

    def _forced_call(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        try:
            completion = self.create(
                request,
                tools=tools_to_wire([tool]),
                tool_choice={"type": "function", "function": {"name": tool["name"]}},
            )
        except ProviderError as exc:
            if exc.status in (400, 422):  # the server or model refuses tools or tool_choice
                raise structured.NotAnswered(f"the server refused a {tool['name']} tool call ({exc.message})") from None
            raise
        choice = completion.choices[0]
        calls = [c for c in choice.message.tool_calls or [] if getattr(c, "function", None)]
        call = next((c for c in calls if c.function.name == tool["name"]), None)
        if call is None:
            raise structured.NotAnswered(
                f"the model did not call {tool['name']} (finish reason {choice.finish_reason})"
            )
        return structured.checked(call.function.arguments or "", tool, what=f"the model's {tool['name']} call")


def _take_chunk(chunk: Any, reply: Reply, calls: dict[int, dict[str, str]]) -> str | None:
    """Fold one streamed chunk's model, usage and tool-call pieces into the reply; its finish reason."""
    if getattr(chunk, "model", None):
        reply.model = chunk.model
    if getattr(chunk, "usage", None) is not None:  # the last chunk, with stream_options include_usage
        reply.input_tokens = chunk.usage.prompt_tokens
        reply.output_tokens = chunk.usage.completion_tokens
    if not chunk.choices:
        return None
    choice = chunk.choices[0]
    for piece in choice.delta.tool_calls or []:
        # A call's id and name come in its first piece; its arguments arrive split across many.
        call = calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
        if piece.id:
            call["id"] = piece.id
        if piece.function is not None:
            if piece.function.name:  # sent whole, once (a server that repeats it changes nothing)
                call["name"] = piece.function.name
            call["arguments"] += piece.function.arguments or ""
    return choice.finish_reason
