"""The `[prices]` table of the config file: what a model costs, in dollars per million tokens.

Read with the rest of the settings (memchat.config), so a wrong price is said when memchat
starts, in one line; memchat.usage applies the prices over its defaults.
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
