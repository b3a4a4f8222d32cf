"""The on-disk copy of a vector set, beside the database (`<db>.vectors/`).

A fresh process would read 100k BLOB rows (~0.45 s); a memory-mapped .npy costs ~nothing.
SQLite stays the source of truth: the copy is used only while its vector set's generation
(bumped by triggers on every change, by any process) and its row count still match, and
forgetting deletes it outright, so a forgotten vector is never served nor left on disk.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from memchat.db import db_file

if TYPE_CHECKING:
    from sqlite_utils import Database

    from memchat.memory.index import VectorSet

DISK_FORMAT = 1


def disk_dir(db: Database) -> Any:
    from pathlib import Path

    path = str(db_file(db))
    return None if path in ("", ":memory:") else Path(path + ".vectors")


def drop_disk_cache(db: Database) -> None:
    import shutil

    directory = disk_dir(db)
    if directory is not None and directory.exists():
        shutil.rmtree(directory, ignore_errors=True)


def _disk_name(which: str, model: str) -> str:
    return which + "-" + hashlib.sha1(model.encode()).hexdigest()[:12]


def _count(db: Database, which: str, model: str) -> int:
    if which == "memories":
        sql = "SELECT count(*) FROM memories WHERE embedding_model = ? AND status != 'forgotten'"
    else:
        sql = "SELECT count(*) FROM message_vectors WHERE model = ?"
    return int(db.conn.execute(sql, (model,)).fetchone()[0])


def read_copy(db: Database, which: str, model: str, gen: int) -> VectorSet | None:
    import json

    import numpy as np

    directory = disk_dir(db)
    if directory is None:
        return None
    base = directory / _disk_name(which, model)
    try:
        meta = json.loads((base.with_suffix(".json")).read_text())
        if (meta.get("format") != DISK_FORMAT or meta.get("generation") != gen or meta.get("model") != model
                or meta.get("count") != _count(db, which, model)):
            return None
        arrays = np.load(str(base.with_suffix(".npz")), allow_pickle=False)
        matrix = np.load(str(base.with_suffix(".npy")), mmap_mode="r", allow_pickle=False)
        group = arrays["group"]
        from memchat.memory.index import VectorSet

        return VectorSet(generation=gen, ids=arrays["ids"], matrix=matrix, created=arrays["created"], group=group,
                         codes=frozenset(int(c) for c in np.unique(group)) if which == "memories" else frozenset())
    except (OSError, ValueError, KeyError):
        return None


def write_copy(db: Database, which: str, model: str, vs: VectorSet) -> None:
    import json

    import numpy as np

    directory = disk_dir(db)
    if directory is None or vs.matrix.shape[0] < 1000:  # small sets load fast from SQLite anyway
        return
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        base = directory / _disk_name(which, model)
        old = os.umask(0o077)  # vectors of private text: 0600
        try:
            np.save(str(base.with_suffix(".npy.tmp")), np.ascontiguousarray(vs.matrix, dtype="<f4"))
            np.savez(str(base.with_suffix(".tmp.npz")), ids=vs.ids, created=vs.created, group=vs.group)
        finally:
            os.umask(old)
        os.replace(str(base.with_suffix(".npy.tmp")) + ".npy", base.with_suffix(".npy"))
        os.replace(base.with_suffix(".tmp.npz"), base.with_suffix(".npz"))
        meta = {"format": DISK_FORMAT, "generation": vs.generation, "model": model, "count": int(vs.ids.shape[0])}
        tmp = base.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta))
        os.chmod(tmp, 0o600)
        os.replace(tmp, base.with_suffix(".json"))  # written last: the copy counts only once complete
    except OSError:
        pass  # a read-only or full disk only costs the next process a slower load
