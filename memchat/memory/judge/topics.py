"""What a memory and a message are about, by meaning: the nearest of labelled examples.

`topics.json` (written for memchat) holds, for each area of a person's life (diet, health,
family, pets, home, transport, travel, work, tech, devices, money, hobbies, dates, social),
example memories and example requests, plus general questions about no one and examples of
each sensitive category. A text's score for a label is the mean cosine of its K nearest
examples of that label, with the local embedding model: so "what should I get at the coffee
shop?" is a diet request though it names no food, "kill the child process" is a general
technical question, and "I take warfarin" is health whatever its words.

The example vectors are computed once per model and kept in the cache directory.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memchat.config import cache_dir
from memchat.files import private_dir, private_umask

if TYPE_CHECKING:
    import numpy as np

    from memchat.memory.recall.embed import Embedder

EXAMPLES = Path(__file__).with_name("topics.json")
K = 3  # nearest examples that vote for a label
_LOCK = threading.Lock()
_MODELS: dict[str, TopicModel] = {}


@dataclass
class TopicModel:
    names: list[str]  # the topics, in order
    memory_examples: list[np.ndarray]  # per topic: (n, dim) example memories
    prompt_examples: list[np.ndarray]  # per topic: (n, dim) example requests
    general: np.ndarray  # questions about no one
    sensitive_names: list[str]
    sensitive_examples: list[np.ndarray]
    slots: list[str]  # the profile's slots, in the order they take turns
    slot_items: list[int]  # per slot: how many memories it holds, at most
    slot_examples: list[np.ndarray]  # per slot: (n, dim) example memories

    def of_slots(self, vectors: np.ndarray) -> np.ndarray:
        """(n, slots): how much each memory is the kind of fact each profile slot holds."""
        return _votes(vectors, self.slot_examples)

    def of_memories(self, vectors: np.ndarray) -> np.ndarray:
        """(n, topics): how much each memory is about each topic."""
        return _votes(vectors, self.memory_examples)

    def of_prompt(self, vector: np.ndarray) -> np.ndarray:
        """(topics,): how much a request is about each topic."""
        return _votes(vector[None, :], self.prompt_examples)[0]

    def generality(self, vector: np.ndarray) -> float:
        """How much a request is like a general question about no one."""
        return float(_votes(vector[None, :], [self.general])[0, 0])

    def sensitivity(self, vectors: np.ndarray) -> np.ndarray:
        """(n, categories): how much each memory is like each sensitive category's examples."""
        return _votes(vectors, self.sensitive_examples)


def _votes(vectors: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    import numpy as np

    out = np.zeros((vectors.shape[0], len(groups)), dtype=np.float32)
    for j, examples in enumerate(groups):
        sims = vectors @ examples.T
        k = min(K, examples.shape[0])
        out[:, j] = np.sort(sims, axis=1)[:, -k:].mean(axis=1)
    return out


def model_for(embedder: Embedder) -> TopicModel:
    """The topic model of this embedding model (the examples embedded once, then cached)."""
    name = embedder.model_name
    with _LOCK:
        if name not in _MODELS:
            _MODELS[name] = _load(embedder)
        return _MODELS[name]


def _cached_file(raw: bytes, model_name: str) -> Path:
    return cache_dir() / "topics" / f"{hashlib.sha1(raw + model_name.encode()).hexdigest()[:16]}.npy"


def is_cached(model_name: str) -> bool:
    """Whether this model's topic examples are embedded already (else the first judgement embeds
    ~1,000 of them: ~2 s)."""
    if model_name in _MODELS:
        return True
    return _cached_file(EXAMPLES.read_bytes(), model_name).exists()


def _load(embedder: Embedder) -> TopicModel:
    import numpy as np

    raw = EXAMPLES.read_bytes()
    data = json.loads(raw)
    topics = list(data["topics"])
    sensitive = list(data["sensitive"])
    slots = list(data["profile"])
    texts = [t for name in topics for t in data["topics"][name]["memories"] + data["topics"][name]["prompts"]]
    texts += data["general"] + [t for name in sensitive for t in data["sensitive"][name]]
    texts += [t for name in slots for t in data["profile"][name]["examples"]]
    cached = _cached_file(raw, embedder.model_name)
    try:
        vectors = np.load(cached)
        if vectors.shape[0] != len(texts):
            raise ValueError("stale")
    except (OSError, ValueError):
        vectors = np.asarray(embedder.encode(texts), dtype=np.float32)
        try:
            private_dir(cached.parent)
            tmp = cached.with_suffix(".tmp.npy")
            with private_umask():
                np.save(tmp, vectors)
            tmp.replace(cached)
        except OSError:
            pass  # a read-only cache: embedded again next time
    at = 0

    def take(n: int) -> np.ndarray:
        nonlocal at
        at += n
        return vectors[at - n : at]

    memory_examples, prompt_examples = [], []
    for name in topics:
        memory_examples.append(take(len(data["topics"][name]["memories"])))
        prompt_examples.append(take(len(data["topics"][name]["prompts"])))
    general = take(len(data["general"]))
    sensitive_examples = [take(len(data["sensitive"][name])) for name in sensitive]
    slot_examples = [take(len(data["profile"][name]["examples"])) for name in slots]
    slot_items = [int(data["profile"][name]["items"]) for name in slots]
    return TopicModel(
        topics,
        memory_examples,
        prompt_examples,
        general,
        sensitive,
        sensitive_examples,
        slots,
        slot_items,
        slot_examples,
    )
