"""Scanning vectors: the n rows of a matrix nearest a query vector, on two cores.

Pure numpy over a VectorSet's matrix (memchat.memory.recall.vectors); the index keeps the matrices,
search decides what to scan and with which filters.
"""

from __future__ import annotations

import mmap
import os
import threading
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
# The last matrices scanned (memories', messages'), each with its scores by query vector.
_MEMO: list[tuple[Any, dict[bytes, Any]]] = []
_MEMO_LOCK = threading.Lock()
_MEMO_MATRICES = 2
_MEMO_VECTORS = 4


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


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values, as np.unique gives them, without it: np.unique imports numpy.ma on
    first use (13 ms of a fresh `ask` or `recall`)."""
    import numpy as np

    values = np.sort(np.asarray(values).ravel())
    if values.size == 0:
        return values
    return values[np.concatenate(([True], values[1:] != values[:-1]))]


def similarities(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """matrix @ vector (read-only); a large matrix in two halves on two cores (numpy releases the GIL).

    The scores of the last few vectors are kept with their matrix: a chat turn's memory section
    asks for the same query's scores again (search, then topic need), and gets them without a
    second pass over the vectors (1M memories: 1.5 GB read once, not twice)."""
    import numpy as np

    key = np.asarray(vector, dtype=np.float32).tobytes()
    with _MEMO_LOCK:
        kept = next((scores for m, scores in _MEMO if m is matrix), None)
        if kept is not None and key in kept:
            return kept[key]
    scores = similarities_many(matrix, vector)
    with _MEMO_LOCK:
        kept = next((scores for m, scores in _MEMO if m is matrix), None)
        if kept is None:
            kept = {}
            _MEMO.insert(0, (matrix, kept))
            del _MEMO[_MEMO_MATRICES:]
        while len(kept) >= _MEMO_VECTORS:
            del kept[next(iter(kept))]
        kept[key] = scores
    return scores


def similarities_many(matrix: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """matrix @ vectors, read-only: (n,) for one vector, (n, k) for k columns in one pass."""
    import numpy as np

    if matrix.shape[0] < _SPLIT_ROWS:
        out = np.asarray(matrix @ vectors)
    else:
        half = matrix.shape[0] // 2
        halves = ((0, half), (half, matrix.shape[0]))
        out = np.concatenate(list(workers().map(lambda rows: _product(matrix, rows, vectors), halves)))
    out.flags.writeable = False  # shared by the callers that ask for the same scores
    return out


def _product(matrix: np.ndarray, rows: tuple[int, int], vector: np.ndarray) -> np.ndarray:
    """matrix[rows] @ vector (one vector, or the columns of a matrix). A large memory-mapped
    matrix (the on-disk copy) goes in chunks, each let go once scanned: the pages stay in the page
    cache for the next process, but this one does not hold them (1M memories: 1.5 GB scanned,
    ~90 MB resident instead of 1.6 GB)."""
    import numpy as np

    start, stop = rows
    mapped = getattr(matrix, "_mmap", None)
    if mapped is None or not hasattr(mapped, "madvise") or matrix.nbytes < _LET_GO_BYTES:
        return matrix[start:stop] @ vector
    out = np.empty((stop - start, *vector.shape[1:]), dtype=np.float32)
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
