"""Model providers behind one protocol, found through one registry.

A provider module is imported only when it is used, so that `memchat --help` and
`memchat recall` never pay for the anthropic SDK.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from memchat.errors import ConfigError

REGISTRY: dict[str, str] = {
    "anthropic": "memchat.providers.anthropic:AnthropicProvider",
    "echo": "memchat.providers.echo:EchoProvider",
}


@dataclass
class ChatRequest:
    model: str
    system: str
    messages: list[dict[str, Any]]
    max_tokens: int


@dataclass
class Reply:
    """Filled in by a provider while it streams; read by the engine when it ends."""

    text: str = ""
    model: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    stop_reason: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)


class Provider(Protocol):
    name: str
    can_summarise: bool
    needs_key: bool
    key_env_var: str | None

    def ready(self) -> object:
        """Raise NeedsKeyError (or ConfigError) if a call cannot be made; must not do I/O."""
        ...

    def complete(self, request: ChatRequest) -> Reply:
        """One non-streamed call; raises ProviderError on failure."""
        ...

    def call_tool(self, request: ChatRequest, tool: dict[str, Any]) -> dict[str, Any]:
        """Force a call of `tool` and return its input (extraction, write-policy decisions)."""
        ...

    def stream(self, request: ChatRequest, reply: Reply) -> Iterator[str]:
        """Yield text chunks as they arrive; fill reply's usage and stop_reason at the end.

        Raises ProviderError (with .partial) on failure; KeyboardInterrupt passes through.
        """
        ...


def get_provider(name: str, settings: Any) -> Provider:
    try:
        target = REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown provider {name!r}: choose one of {', '.join(REGISTRY)}") from None
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(settings)
