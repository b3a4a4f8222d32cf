"""The `[prices]` table of the config file: what a model costs, in dollars per million tokens.

Read with the rest of the settings (memchat.config), so a wrong price is said when memchat
starts, in one line; `price` looks a model up in them over DEFAULT_PRICES (memchat.usage costs calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memchat.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path


def read_prices(table: Any, path: Path) -> dict[str, tuple[float, float]]:
    """[prices."model"] input = 3.0, output = 15.0 (dollars per million tokens); a name ending in
    * prices every model it begins."""
    if not isinstance(table, dict):
        raise ConfigError(f"[prices] in {path} must be a table of models")
    out: dict[str, tuple[float, float]] = {}
    for model, entry in table.items():
        where = f"[prices.{model!r}] in {path}"
        if not isinstance(entry, dict) or set(entry) - {"input", "output"} or not {"input", "output"} <= set(entry):
            raise ConfigError(f"{where} must give input and output, in dollars per million tokens")
        values = []
        for side in ("input", "output"):
            v = entry[side]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1e6:
                raise ConfigError(f"{where}: {side} must be a number of dollars per million tokens, got {v!r}")
            values.append(float(v))
        out[str(model)] = (values[0], values[1])
    return out


# Dollars per million tokens (input, output), list prices when this release was made. A name
# ending in * prices every model whose name begins with it; the longest match wins.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4-1*": (15.0, 75.0),
    "claude-opus-4-0*": (15.0, 75.0),
    "claude-opus*": (5.0, 25.0),
    "claude-sonnet*": (3.0, 15.0),
    "claude-haiku-3*": (0.25, 1.25),
    "claude-3-haiku*": (0.25, 1.25),
    "claude-haiku*": (1.0, 5.0),
    "claude-3-5-haiku*": (0.8, 4.0),
}


def price(model: str, prices: dict[str, tuple[float, float]] | None = None) -> tuple[float, float] | None:
    """(input, output) dollars per million tokens for a model, or None when no entry matches."""
    table = {**DEFAULT_PRICES, **(prices or {})}
    if model in table:
        return table[model]
    matches = [name for name in table if name.endswith("*") and model.startswith(name[:-1])]
    return table[max(matches, key=len)] if matches else None
