"""What a model can do, declared per model in the `[models]` table of the config file.

Models behind an OpenAI-compatible server differ: one calls tools reliably, another has no
tool calls at all, a third answers in JSON mode; their context windows run from 4k to 1M.
memchat asks of a model only what it declares:

    [models."llama3.1:8b"]        # a trailing * declares every model whose name begins so
    tools = false                 # no tool calls: capture asks for a JSON answer instead
    json_mode = true              # that answer is requested with response_format json_object
    context_window = 8192         # the budget of every call (overrides context_window)

Read with the rest of the settings (memchat.config), so a wrong entry is said at start, in one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memchat.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Capabilities:
    """A model's declared abilities; None: not declared (the provider's own default holds)."""

    tools: bool | None = None  # calls tools (capture's tool call, the chat's recall tool)
    json_mode: bool | None = None  # honours response_format {"type": "json_object"}
    context_window: int | None = None  # tokens it accepts in one call (prompt plus reply)


_KEYS = {"tools", "json_mode", "context_window"}


def read_capabilities(table: Any, path: Path) -> dict[str, Capabilities]:
    """[models."name"] tools = bool, json_mode = bool, context_window = int (each optional)."""
    if not isinstance(table, dict):
        raise ConfigError(f"[models] in {path} must be a table of models")
    out: dict[str, Capabilities] = {}
    for model, entry in table.items():
        where = f"[models.{model!r}] in {path}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be a table (tools, json_mode, context_window)")
        unknown = set(entry) - _KEYS
        if unknown:
            raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: tools, json_mode, context_window)")
        for flag in ("tools", "json_mode"):
            if flag in entry and not isinstance(entry[flag], bool):
                raise ConfigError(f"{where}: {flag} must be true or false, got {entry[flag]!r}")
        window = entry.get("context_window")
        if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 256):
            raise ConfigError(f"{where}: context_window must be a whole number of tokens, at least 256, got {window!r}")
        out[str(model)] = Capabilities(entry.get("tools"), entry.get("json_mode"), window)
    return out


def declared(table: dict[str, Capabilities], model: str) -> Capabilities:
    """The entry for a model: its own name, else the longest `prefix*` that matches, else nothing declared."""
    if model in table:
        return table[model]
    matches = [name for name in table if name.endswith("*") and model.startswith(name[:-1])]
    return table[max(matches, key=len)] if matches else Capabilities()
