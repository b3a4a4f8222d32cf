"""Model providers: one base class that declares what a provider can do, one registry.

A provider module is imported only when it is used, so that `memchat --help` and
`memchat recall` never pay for the anthropic SDK. Every provider, built in or a test's
fake, registers the same way (`register`), and callers ask its declared capabilities
(`can_call_tools`, `can_summarise`, `real_usage`) instead of probing for attributes.
"""

from __future__ import annotations

import importlib
import ipaddress
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from memchat.capabilities import Capabilities, declared
from memchat.errors import ConfigError, ProviderError

if TYPE_CHECKING:
    from memchat.capabilities import Capabilities

_REGISTRY: dict[str, str | Callable[[Any], Provider]] = {
    "anthropic": "memchat.providers.anthropic:AnthropicProvider",
    "openai": "memchat.providers.openai_compat:OpenAIProvider",
    "echo": "memchat.providers.echo:EchoProvider",
}


@dataclass
class ChatRequest:
    model: str
    system: str
    messages: list[dict[str, Any]]
    max_tokens: int
    purpose: str = "chat"  # chat | memory (capture, decisions) | summary (compaction): for `memchat usage`
    session_id: int | None = None  # the session the call is for, if any
    # Tools the model may call while it chats (Anthropic's schema: name, description, input_schema).
    # Messages are always in Anthropic's shape, tool_use / tool_result blocks included; another
    # provider translates them to its own wire format.
    tools: list[dict[str, Any]] | None = None
    tool_choice: str = "auto"  # auto: the model decides; none: it must answer in text now


@dataclass
class ToolCall:
    """A tool the model asked for mid-reply; the turn (memchat.app.turn) runs it and calls the provider again."""

    id: str
    name: str
    input: dict[str, Any]
    error: str | None = None  # its arguments could not be read (a weak model's malformed JSON): answered as such


@dataclass
class Reply:
    """Filled in by a provider while it streams; read by the turn when it ends."""

    text: str = ""
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    stop_reason: str | None = None  # "tool_use" when tool_calls wait for their results
    tool_calls: list[ToolCall] = field(default_factory=list)


class Provider:
    """A model behind memchat. Subclasses implement `stream`, and `call_tool` if they can."""

    name = "provider"
    can_summarise = True  # its completions can be trusted to summarise (compaction)
    can_call_tools = True  # structured answers (`call_tool`): memory capture and write-policy decisions
    real_usage = True  # reported input tokens are the model's own (they calibrate estimates)
    json_mode = False  # a model of this provider honours a JSON-only answer format unless declared otherwise
    can_see_images = False  # image blocks (base64 PNG, JPEG, GIF, WebP) in a user message

    def __init__(self, settings: Any = None) -> None:
        self.settings = settings
        # Told of every call's real token counts: (request, model, input, output). Set by the app.
        self.on_usage: Callable[[ChatRequest, str, int, int], None] | None = None

    def used(self, request: ChatRequest, model: str, input_tokens: int | None, output_tokens: int | None) -> None:
        """Report a finished call's usage (providers call this; the recorder never raises)."""
        if self.on_usage is not None and self.real_usage and input_tokens is not None:
            self.on_usage(request, model or request.model, input_tokens, output_tokens or 0)

    def model_name(self, requested: str) -> str:
        """The model a reply is recorded as (sessions, messages, --json, usage): the one asked for."""
        return requested

    def capabilities(self, model: str) -> Capabilities:
        """What `model` can do: the provider's defaults, under what [models] in the config declares.
        `tools` also says whether the chat may offer it tools (the recall tool)."""
        said = declared(getattr(self.settings, "models", None) or {}, model)
        return Capabilities(
            tools=self.can_call_tools and said.tools is not False,
            json_mode=self.json_mode if said.json_mode is None else said.json_mode,
            context_window=said.context_window,
        )

    def models(self) -> list[str]:
        """The models the server offers (`memchat models`); ProviderError if it cannot say."""
        raise ProviderError(f"the {self.name} provider cannot list its models")

    def ready(self) -> None:
        """Raise NeedsKeyError (or ConfigError) if a call cannot be made; must not do I/O."""

    def check(self, model: str) -> str:
        """One cheap authenticated request to the server (doctor): what answered, or ProviderError."""
        return "no server to reach"

    def warm(self) -> None:
        """Get ready for the first call in the background (import the SDK, build the client): a
        REPL does this while the user types. Never raises."""

    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        """Yield text chunks as they arrive; fill reply's usage and stop_reason at the end.

        With request.tools, a reply that stops to call tools ends with stop_reason "tool_use" and
        reply.tool_calls filled (the text before them streamed as usual).

        Raises ProviderError (with .partial) on failure; KeyboardInterrupt passes through.
        """
        raise NotImplementedError

    def complete(self, request: ChatRequest) -> Reply:
        """One whole reply (summaries); by default the stream, drained."""
        reply = Reply()
        for _ in self.stream(request, reply):
            pass
        return reply

    def call_tool(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        """Force a call of `tool` and return its input (extraction, write-policy decisions)."""
        raise ProviderError(f"the {self.name} provider cannot call tools")


def is_local_url(url: str) -> bool:
    """Whether a base URL points at this machine or a private network (a model the user runs)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def register(name: str, target: str | Callable[[Any], Provider]) -> None:
    """Make a provider available by name: "module:Class", or a factory taking the settings."""
    _REGISTRY[name] = target


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def get_provider(name: str, settings: Any) -> Provider:
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown provider {name!r}: choose one of {', '.join(_REGISTRY)}") from None
    if callable(target):
        return target(settings)
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    provider: Provider = cls(settings)
    return provider
