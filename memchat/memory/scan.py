"""Scanning vectors: the n rows of a matrix nearest a query vector, on two cores.

Pure numpy over a VectorSet's matrix (memchat.memory.vectors); the index keeps the matrices,
search decides what to scan and with which filters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from memchat.memory.vectors import VectorSet

_SPLIT_ROWS = 20_000
_POOL: Any = None


def workers() -> Any:
    """Threads for the two halves of a scan (and a search's BM25 beside it). OpenBLAS gets one
    thread per call: its own pool would spin after each call and steal the cores from the
    encoder (measured: queries twice as slow)."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        try:
            from threadpoolctl import ThreadpoolController

            ThreadpoolController().select(internal_api="openblas").limit(limits=1)
        except Exception:  # noqa: BLE001 - without it the scan is merely slower
            pass
        _POOL = ThreadPoolExecutor(max_workers=3, thread_name_prefix="memchat-search")
    return _POOL


def similarities(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector; a large matrix in two halves on two cores (numpy releases the GIL)."""
    import numpy as np

    if matrix.shape[0] < _SPLIT_ROWS:
        return matrix @ vector
    half = matrix.shape[0] // 2
    parts = list(workers().map(lambda m: m @ vector, (matrix[:half], matrix[half:])))
    return np.concatenate(parts)


def nearest(
    vs: VectorSet,
    vector: np.ndarray,
    mask: np.ndarray | None,
    n: int,
    since: str | None = None,
    until: str | None = None,
) -> list[tuple[int, float]]:
    """The n rows most similar to vector among those mask (and the time range) allow: [(id, cosine)]."""
    import numpy as np

    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != vector.shape[0]:
        return []
    scores = similarities(vs.matrix, vector)
    if since:
        mask = (vs.created >= since) if mask is None else mask & (vs.created >= since)
    if until:
        mask = (vs.created <= until) if mask is None else mask & (vs.created <= until)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
        n = min(n, int(mask.sum()))
    else:
        n = min(n, scores.shape[0])
    if n <= 0:
        return []
    top = np.argpartition(-scores, n - 1)[:n]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(vs.ids[i]), float(scores[i])) for i in top]
