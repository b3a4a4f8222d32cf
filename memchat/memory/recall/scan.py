"""Scanning vectors: the n rows of a matrix nearest a query vector, on two cores.

Pure numpy over a VectorSet's matrix (memchat.memory.recall.vectors); the index keeps the matrices,
search decides what to scan and with which filters.
"""

from __future__ import annotations

import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from memchat.memory.recall.vectors import VectorSet

_SPLIT_ROWS = 20_000
_CHUNK_ROWS = 32_768  # rows scanned between letting go of their pages
# Smaller matrices stay resident: a REPL's next search then costs no page faults (100k: 150 MB).
_LET_GO_BYTES = 512 * 1024 * 1024
_POOL: Any = None


def workers() -> Any:
    """Threads for the two halves of a scan (and a search's BM25 beside it). OpenBLAS gets one
    thread per call: its own pool would spin after each call and steal the cores from the
    encoder (measured: queries twice as slow)."""
    global _POOL
    if _POOL is None:
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":  # the CLI sets it before numpy loads (saves ~10 ms)
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
    parts = list(workers().map(lambda rows: _product(matrix, rows, vector), ((0, half), (half, matrix.shape[0]))))
    return np.concatenate(parts)


def _product(matrix: np.ndarray, rows: tuple[int, int], vector: np.ndarray) -> np.ndarray:
    """matrix[rows] @ vector. A large memory-mapped matrix (the on-disk copy) goes in chunks,
    each let go once scanned: the pages stay in the page cache for the next process, but this
    one does not hold them (1M memories: 1.5 GB scanned, ~90 MB resident instead of 1.6 GB)."""
    import numpy as np

    start, stop = rows
    mapped = getattr(matrix, "_mmap", None)
    if mapped is None or not hasattr(mapped, "madvise") or matrix.nbytes < _LET_GO_BYTES:
        return matrix[start:stop] @ vector
    out = np.empty(stop - start, dtype=np.float32)
    row_bytes = matrix.strides[0]
    base = int(getattr(matrix, "offset", 0)) % mmap.ALLOCATIONGRANULARITY  # where row 0 starts in the mapping
    for a in range(start, stop, _CHUNK_ROWS):
        b = min(a + _CHUNK_ROWS, stop)
        out[a - start : b - start] = matrix[a:b] @ vector
        first = -(-(base + a * row_bytes) // mmap.PAGESIZE) * mmap.PAGESIZE  # whole pages of this chunk only
        last = (base + b * row_bytes) // mmap.PAGESIZE * mmap.PAGESIZE
        if last > first:
            try:
                mapped.madvise(mmap.MADV_DONTNEED, first, last - first)
            except (OSError, ValueError):
                return np.concatenate([out[: b - start], matrix[b:stop] @ vector])
    return out


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
