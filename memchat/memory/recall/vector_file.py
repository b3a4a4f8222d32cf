"""The on-disk copy of a vector set, beside the database (`<db>.vectors/`).

A fresh process would read 100k BLOB rows (~0.45 s); a memory-mapped .npy costs ~nothing.
SQLite stays the source of truth: the copy is used only while its vector set's generation
(bumped by triggers on every change, by any process) and its row count still match, and
forgetting deletes it outright, so a forgotten vector is never served nor left on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.db import db_file
from memchat.memory.recall.vectors import VectorSet, generation

if TYPE_CHECKING:
    from memchat.db import Database

DISK_FORMAT = 3  # 3: one memory-mapped .npy per array, the group codes in the meta


def disk_dir(db: Database) -> Any:
    """Where the copy lives; None for a database in memory and for an encrypted profile, whose
    vectors never leave the encrypted file."""
    path = str(db_file(db))
    return None if path in ("", ":memory:") or getattr(db, "encrypted", False) else Path(path + ".vectors")


def drop_disk_cache(db: Database) -> None:
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
    import numpy as np

    directory = disk_dir(db)
    if directory is None:
        return None
    base = directory / _disk_name(which, model)
    try:
        meta = json.loads((base.with_suffix(".json")).read_text())
        count = _count(db, which, model)
        if (
            meta.get("format") != DISK_FORMAT
            or meta.get("generation") != gen
            or meta.get("model") != model
            or meta.get("count") != count
        ):
            return None

        # The files the meta names were complete before it was written, and never change after.
        # All are memory-mapped: a fresh process reads only the pages a search touches.
        def mapped(name: str) -> Any:
            return np.load(str(directory / meta[name]), mmap_mode="r", allow_pickle=False)

        matrix, ids, created, group = mapped("matrix"), mapped("ids"), mapped("created"), mapped("group")
        if not matrix.shape[0] == ids.shape[0] == created.shape[0] == group.shape[0] == count:
            return None
        return VectorSet(
            generation=gen,
            ids=ids,
            matrix=matrix,
            created=created,
            group=group,
            codes=frozenset(int(c) for c in meta.get("codes", [])),
        )
    except Exception:  # noqa: BLE001 - removed meanwhile, damaged, an older format: SQLite has it all
        return None


def write_copy(db: Database, which: str, model: str, vs: VectorSet) -> None:
    import numpy as np

    directory = disk_dir(db)
    if directory is None or vs.matrix.shape[0] < 1000:  # small sets load fast from SQLite anyway
        return
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        base = directory / _disk_name(which, model)
        # This writer's own files, never changed once written: another process may be writing its
        # copy of the same set, or reading the previous one, at this very moment.
        stem = f"{base.name}.{vs.generation}.{os.getpid()}.{secrets.token_hex(4)}"
        old = os.umask(0o077)  # vectors of private text: 0600
        try:
            np.save(str(directory / f"{stem}.npy"), np.ascontiguousarray(vs.matrix, dtype="<f4"))
            for name in ("ids", "created", "group"):
                np.save(str(directory / f"{stem}.{name}.npy"), np.ascontiguousarray(getattr(vs, name)))
        finally:
            os.umask(old)
        meta = {
            "format": DISK_FORMAT,
            "generation": vs.generation,
            "model": model,
            "count": int(vs.ids.shape[0]),
            "matrix": f"{stem}.npy",
            "ids": f"{stem}.ids.npy",
            "created": f"{stem}.created.npy",
            "group": f"{stem}.group.npy",
            "codes": sorted(vs.codes),
        }
        tmp = directory / f"{stem}.json.tmp"
        tmp.write_text(json.dumps(meta))
        os.chmod(tmp, 0o600)
        os.replace(tmp, base.with_suffix(".json"))  # written last: the copy counts only once complete
        if generation(db, which) != vs.generation:
            # The set changed while this copy was written, perhaps by a forget whose clean-up
            # ran before these files existed: they may hold a forgotten vector, so they go now.
            # (A forget committed after this check deletes the directory after it.)
            for path in directory.glob(stem + ".*"):
                path.unlink(missing_ok=True)
            return
        _remove_stale(directory, base.name, keep=stem)
    except OSError:
        pass  # a read-only or full disk only costs the next process a slower load


def _remove_stale(directory: Any, prefix: str, keep: str, age: float = 30.0) -> None:
    """Earlier copies of the set (a process that has one open keeps its data until it closes it).
    Younger files may be another writer's, still being written: they go next time."""
    now = time.time()
    for path in directory.glob(prefix + ".*"):
        try:
            if path.name != prefix + ".json" and not path.name.startswith(keep) and now - path.stat().st_mtime > age:
                path.unlink()
        except OSError:
            pass
