"""The on-disk copy of a vector set, beside the database (`<db>.vectors/`).

A fresh process would read 100k BLOB rows (~0.45 s); a memory-mapped .npy costs ~nothing.
SQLite stays the source of truth: the copy is used only while its vector set's generation
(bumped by triggers on every change, by any process) and the database's newest row still match, and
forgetting deletes it outright, so a forgotten vector is never served nor left on disk. A copy a few
changes behind is patched: the triggers log which row each change touched (`vector_changes`), and
those rows, read again from SQLite, replace theirs in a new copy (`patch_copy`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.db import db_file, sql_errors
from memchat.memory.recall import scan
from memchat.memory.recall.vectors import VectorSet, generation

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database

DISK_FORMAT = 4  # 3: one memory-mapped .npy per array, the group codes in the meta; 4: a fingerprint


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


_FINGERPRINT = {  # the columns that fingerprint a row of each set's table, and that table's id column
    "memories": ("SELECT id, created_at, coalesce(embedding_model, '') FROM memories", "id"),
    "messages": ("SELECT message_id, content_hash, model FROM message_vectors", "message_id"),
}


def _fingerprint(db: Database, which: str) -> list:
    """The newest row of the table the set is read from: its id and what it holds, two index lookups
    whatever the size. With the generation it ties a copy to this database's history: a file put in
    the database's place (a backup, a copy of another profile) does not match it by chance. (A count
    of the set's rows took ~1 s at 1,000,000 memories, on every fresh `recall`.)"""
    select, id_column = _FINGERPRINT[which]
    row = db.conn.execute(f"{select} ORDER BY {id_column} DESC LIMIT 1").fetchone()
    return list(row) if row else []


def _same_source(db: Database, which: str, fingerprint: Any) -> bool:
    """Whether the row a copy was fingerprinted with is still in this database as it was: a copy of
    another profile, or of a file put in this one's place, does not match by chance."""
    if not isinstance(fingerprint, list) or len(fingerprint) != 3:
        return False
    select, id_column = _FINGERPRINT[which]
    row = db.conn.execute(f"{select} WHERE {id_column} = ?", (fingerprint[0],)).fetchone()
    return row is not None and list(row) == fingerprint


_ARRAYS = ("matrix", "ids", "created", "group")


def _meta(directory: Any, which: str, model: str) -> dict:
    """The description of the set's copy (raises when there is none, or of another format or model)."""
    meta = json.loads((directory / _disk_name(which, model)).with_suffix(".json").read_text())
    if meta.get("format") != DISK_FORMAT or meta.get("model") != model:
        raise ValueError("another format or model")
    return meta


def _mapped(directory: Any, meta: dict) -> dict[str, Any]:
    """The copy's arrays, memory-mapped: a fresh process reads only the pages a search touches. The
    files the meta names were complete before it was written, and never change after."""
    import numpy as np

    arrays = {name: np.load(str(directory / meta[name]), mmap_mode="r", allow_pickle=False) for name in _ARRAYS}
    if not all(a.shape[0] == meta["count"] for a in arrays.values()):
        raise ValueError("a damaged copy")
    return arrays


COPY_FROM = 1000  # rows from which a set is kept as a copy: smaller ones load fast from SQLite anyway


def read_copy(db: Database, which: str, model: str, gen: int) -> VectorSet | None:
    directory = disk_dir(db)
    if directory is None:
        return None
    try:
        meta = _meta(directory, which, model)
        if meta.get("generation") != gen or meta.get("fingerprint") != _fingerprint(db, which):
            return None
        arrays = _mapped(directory, meta)
        return VectorSet(
            generation=gen,
            ids=arrays["ids"],
            matrix=arrays["matrix"],
            created=arrays["created"],
            group=arrays["group"],
            codes=frozenset(int(c) for c in meta.get("codes", [])),
        )
    except Exception:  # noqa: BLE001 - removed meanwhile, damaged, an older format: SQLite has it all
        return None


def write_copy(db: Database, which: str, model: str, vs: VectorSet) -> None:
    directory = disk_dir(db)
    if directory is None or vs.matrix.shape[0] < COPY_FROM:
        return
    try:
        _write(db, which, model, vs, None, vs.matrix.shape[1])
    except OSError:
        pass  # a read-only or full disk only costs the next process a slower load


def _write(
    db: Database,
    which: str,
    model: str,
    vs: VectorSet,
    fill: Callable[[Callable[[memoryview], object]], None] | None,
    dim: int,
) -> None:
    """Write `vs` as the set's copy: its matrix as it is, or the rows `fill` writes, in order."""
    import numpy as np

    directory = disk_dir(db)
    # Read now: a change since the rows were read moved the generation too (checked below).
    fingerprint = _fingerprint(db, which)
    directory.mkdir(mode=0o700, exist_ok=True)
    base = directory / _disk_name(which, model)
    # This writer's own files, never changed once written: another process may be writing its
    # copy of the same set, or reading the previous one, at this very moment.
    stem = f"{base.name}.{vs.generation}.{os.getpid()}.{secrets.token_hex(4)}"
    count = int(vs.ids.shape[0])
    old = os.umask(0o077)  # vectors of private text: 0600
    try:
        if fill is None:
            np.save(str(directory / f"{stem}.npy"), np.ascontiguousarray(vs.matrix, dtype="<f4"))
        else:
            with open(directory / f"{stem}.npy", "wb") as out:  # as np.save writes it, a chunk at a time
                header = {"descr": "<f4", "fortran_order": False, "shape": (count, dim)}
                np.lib.format.write_array_header_1_0(out, header)
                fill(out.write)
        for name in ("ids", "created", "group"):
            np.save(str(directory / f"{stem}.{name}.npy"), np.ascontiguousarray(getattr(vs, name)))
    finally:
        os.umask(old)
    meta = {
        "format": DISK_FORMAT,
        "generation": vs.generation,
        "model": model,
        "count": count,
        "matrix": f"{stem}.npy",
        "ids": f"{stem}.ids.npy",
        "created": f"{stem}.created.npy",
        "group": f"{stem}.group.npy",
        "codes": sorted(vs.codes),
        "fingerprint": fingerprint,
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


# --- patching a copy a few changes behind --------------------------------------------------------

# A copy whose set changed in more rows than this share of it (or PATCH_MIN, if more) is read whole
# again: past that, patching saves little and reads the change log for nothing.
PATCH_SHARE = 0.25
PATCH_MIN = 1000
_CHUNK = 65_536  # rows copied at a time: a patch of a 1.5 GB copy never holds it all in memory


@dataclass
class Rows:
    """Rows of a vector set as they are now in SQLite, sorted by id."""

    ids: np.ndarray
    created: np.ndarray
    group: np.ndarray
    matrix: np.ndarray


def changed_rows(db: Database, which: str, since: int, gen: int) -> list[int] | None:
    """The ids of the rows whose changes moved the set from generation `since` to `gen`, or None when
    the log does not hold every one of those changes (pruned, or older than the log itself)."""
    try:
        count, first = db.conn.execute(
            "SELECT count(*), min(generation) FROM vector_changes WHERE name = ? AND generation > ? AND generation <= ?",
            (which, since, gen),
        ).fetchone()
        if count != gen - since or first != since + 1:
            return None
        return [
            r[0]
            for r in db.conn.execute(
                "SELECT DISTINCT row_id FROM vector_changes WHERE name = ? AND generation > ? AND generation <= ?",
                (which, since, gen),
            )
        ]
    except sql_errors():  # a database from before the log
        return None


def patch_copy(
    db: Database, which: str, model: str, gen: int, rows_of: Callable[[list[int]], Rows]
) -> VectorSet | None:
    """The on-disk copy brought up to generation `gen`: its rows that changed since it was written
    dropped, and those rows as they are now (`rows_of`, read from SQLite) merged in by id, written as
    a new copy. None when there is no copy of this database to patch, or the change is too large."""
    import numpy as np

    directory = disk_dir(db)
    if directory is None:
        return None
    try:
        meta = _meta(directory, which, model)
        since = meta.get("generation")
        if not isinstance(since, int) or since >= gen or not _same_source(db, which, meta.get("fingerprint")):
            return None
        changed = changed_rows(db, which, since, gen)
        if changed is None or len(changed) > max(PATCH_MIN, PATCH_SHARE * meta["count"]):
            return None
        old = _mapped(directory, meta)
        fresh = rows_of(sorted(changed))
        if fresh.ids.size and old["matrix"].shape[0] and fresh.matrix.shape[1] != old["matrix"].shape[1]:
            return None
        kept = np.flatnonzero(~np.isin(old["ids"], np.asarray(changed, dtype=np.int64)))
        ids = np.concatenate([np.asarray(old["ids"][kept]), fresh.ids])
        order = np.argsort(ids, kind="stable")  # positions < len(kept) are old rows, the rest fresh ones
        group = np.concatenate([np.asarray(old["group"][kept]), fresh.group])[order]
        merged = VectorSet(
            generation=gen,
            ids=ids[order],
            matrix=np.zeros((0, 0), dtype=np.float32),  # written below in chunks, never whole
            created=np.concatenate([np.asarray(old["created"][kept]), fresh.created]).astype(str)[order],
            group=group,
            codes=frozenset(int(c) for c in scan.distinct(group)) if which == "memories" else frozenset(),
        )
        dim = old["matrix"].shape[1] if old["matrix"].shape[0] else fresh.matrix.shape[1]

        source = old["matrix"]
        row_bytes = dim * 4

        def fill(write: Callable[[memoryview], object]) -> None:
            # The old rows are read with read(), not through the mapping: a mapped 1.5 GB copy would
            # count every page it touched in this process's memory.
            with open(directory / meta["matrix"], "rb") as f:
                for start in range(0, order.shape[0], _CHUNK):
                    part = order[start : start + _CHUNK]
                    from_old = part < kept.shape[0]
                    block = np.empty((part.shape[0], dim), dtype="<f4")
                    rows = kept[part[from_old]]  # increasing: the old rows keep their order
                    if rows.size:
                        lo, hi = int(rows[0]), int(rows[-1]) + 1
                        f.seek(int(source.offset) + lo * row_bytes)
                        span = np.fromfile(f, dtype="<f4", count=(hi - lo) * dim).reshape(hi - lo, dim)
                        block[from_old] = span[rows - lo]
                    block[~from_old] = fresh.matrix[part[~from_old] - kept.shape[0]]
                    write(block.data)  # the block's own buffer, not a copy

        _write(db, which, model, merged, fill, dim)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # damaged or removed meanwhile: read from SQLite instead
    return read_copy(db, which, model, gen)


# --- small derived results kept beside the copy -------------------------------------------------


def read_side(db: Database, name: str, vs: VectorSet, key: str) -> dict | None:
    """A small result derived from a vector set (memchat.memory.judge.need's topic rows), if it was
    computed from this very set: the same generation, database and `key` (what else it depends on).
    Forgetting deletes it with the copy. In memory only for a database without a copy directory."""

    stamp = [vs.generation, key]
    kept = _SIDE.get((id(db), name))
    if kept is not None and kept[0] == stamp and kept[1] is vs:
        return dict(kept[2])
    directory = disk_dir(db)
    if directory is None:
        return None
    try:
        saved = json.loads((directory / f"{name}.json").read_text())
    except (OSError, ValueError):
        return None
    if saved.get("stamp") != stamp or saved.get("fingerprint") != _fingerprint(db, "memories"):
        return None
    data = saved.get("data")
    return data if isinstance(data, dict) else None


def write_side(db: Database, name: str, vs: VectorSet, key: str, data: dict) -> None:

    stamp = [vs.generation, key]
    _SIDE[(id(db), name)] = (stamp, vs, dict(data))
    directory = disk_dir(db)
    if directory is None or vs.generation != generation(db, "memories"):
        return  # changed meanwhile: not worth keeping
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        tmp = directory / f"{name}.json.{os.getpid()}.tmp"
        old = os.umask(0o077)
        try:
            tmp.write_text(json.dumps({"stamp": stamp, "fingerprint": _fingerprint(db, "memories"), "data": data}))
        finally:
            os.umask(old)
        os.replace(tmp, directory / f"{name}.json")
    except OSError:
        pass  # the next process computes it again


_SIDE: dict[tuple[int, str], tuple[list, VectorSet, dict]] = {}
