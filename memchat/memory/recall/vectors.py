"""A set of vectors as one matrix, and the counter that says when it is stale.

Shared by the vector index (memchat.memory.recall.index) and its on-disk copy
(memchat.memory.recall.vector_file): triggers bump a set's `index_state` generation on every change
a cached matrix depends on, from any process, so a matrix is good while its generation holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat.memory.store.records import KINDS, STATUSES

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database


@dataclass
class VectorSet:
    """One set's vectors as a matrix, with what filters need, row for row."""

    generation: int
    ids: np.ndarray  # int64
    matrix: np.ndarray  # (n, dim) float32, rows L2-normalised
    created: np.ndarray  # created_at strings, for --since/--until
    group: np.ndarray  # memories: kind code * 8 + status code; messages: session id
    codes: frozenset[int] = frozenset()  # the distinct values of group (memories)


def kind_status_code(kind: str, status: str) -> int:
    return KINDS.index(kind) * 8 + STATUSES.index(status)


def generation(db: Database, name: str) -> int:
    row = db.conn.execute("SELECT generation FROM index_state WHERE name = ?", (name,)).fetchone()
    return int(row[0]) if row else 0
