"""Which reader an import source needs: a folder or .zip of an export, a SQLite file (llm's
logs.db), a JSON list of conversations (ChatGPT or Claude), or memchat's formats. Refusals
are one line that names what was found."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from memchat.errors import UsageError
from memchat.files import MAX_INPUT_BYTES, read_regular
from memchat.importer import chatgpt, claude, llm_logs
from memchat.importer.memchat_formats import load_json, parse_export, parse_lines
from memchat.importer.model import ImportedSession, Skipped

FORMATS = ("chatgpt", "claude", "llm", "memchat", "jsonl")
SQLITE_HEADER = b"SQLite format 3\x00"


def read_file(path: str | Path) -> tuple[str, str]:
    """(text, display name); invalid UTF-8 is reported with its line."""
    data = read_regular(path, "an import file")
    if data.startswith(SQLITE_HEADER):
        raise UsageError(f"{path} is a SQLite database, not an export")
    return _decode(data, str(path)), str(path)


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UsageError(
            f"{name} is not valid UTF-8 (line {line}, byte {exc.start}); convert it first, e.g. with iconv"
        ) from None


def load(path: str | Path, fmt: str | None = None) -> tuple[list[ImportedSession], str, Skipped]:
    """Read an import source: (sessions, the format it was read as, what was skipped and why).
    A folder or a .zip is searched for an export's conversations files."""
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown import format {fmt!r}: choose one of {', '.join(FORMATS)}")
    p = Path(path).expanduser()
    skipped = Skipped()
    if p.is_dir():
        return _load_many(_conversation_files(p), str(path), fmt, skipped)
    with open_or_refuse(p) as head:
        magic = head.read(16)
    if magic == SQLITE_HEADER:
        return _load_sqlite(p, fmt, skipped)
    if magic.startswith(b"PK\x03\x04"):
        return _load_many(_zip_members(p), str(path), fmt, skipped)
    text = _decode(read_regular(p, "an import file"), str(path))
    return _load_text(text, str(path), fmt, skipped)


def open_or_refuse(p: Path) -> Any:
    """The file open for reading, or the one-line reason it cannot be (read_regular's words)."""
    if not p.is_file():
        read_regular(p, "an import file")  # raises: no such file, a device, a pipe...
    try:
        return p.open("rb")
    except OSError:
        read_regular(p, "an import file")
        raise


def _conversation_files(folder: Path) -> list[tuple[str, bytes]]:
    files = sorted(folder.glob("conversations*.json"))  # this folder only: never a search of a tree
    if not files:
        raise UsageError(
            f"{folder} holds no conversations.json (or conversations-000.json…): give the export's file, "
            "its .zip, or the folder that holds it"
        )
    return [(str(f), read_regular(f, "an import file")) for f in files]


def _zip_members(p: Path) -> list[tuple[str, bytes]]:
    try:
        with zipfile.ZipFile(p) as archive:
            members = sorted(
                (
                    i
                    for i in archive.infolist()
                    if Path(i.filename).name.startswith("conversations") and i.filename.endswith(".json")
                ),
                key=lambda i: i.filename,
            )
            if not members:
                raise UsageError(f"{p} is a zip without conversations.json: not a ChatGPT or Claude export")
            if sum(i.file_size for i in members) > MAX_INPUT_BYTES:
                raise UsageError(f"{p}: its conversations are larger than {MAX_INPUT_BYTES:,} bytes")
            return [(f"{p}:{i.filename}", archive.read(i)) for i in members]
    except (zipfile.BadZipFile, OSError, RuntimeError) as exc:  # RuntimeError: an encrypted member
        raise UsageError(f"{p}: unreadable zip ({exc})") from None


def _load_many(
    files: list[tuple[str, bytes]], name: str, fmt: str | None, skipped: Skipped
) -> tuple[list[ImportedSession], str, Skipped]:
    sessions: list[ImportedSession] = []
    found = set()
    for file_name, data in files:
        part, kind, _ = _load_text(_decode(data, file_name), file_name, fmt, skipped)
        sessions.extend(part)
        found.add(kind)
    if len(found) > 1:
        raise UsageError(f"{name} mixes formats ({', '.join(sorted(found))}): import its files one by one")
    return sessions, found.pop() if found else (fmt or "chatgpt"), skipped


def _load_text(text: str, name: str, fmt: str | None, skipped: Skipped) -> tuple[list[ImportedSession], str, Skipped]:
    stripped = text.strip()
    if not stripped:
        raise UsageError(f"{name} is empty: nothing to import")
    if fmt in ("chatgpt", "claude") or (fmt is None and stripped.startswith("[")):
        return _load_json_list(text, stripped, name, fmt, skipped)
    if fmt == "llm":
        raise UsageError(f"{name} is not a SQLite database: not llm's logs.db")
    if fmt == "memchat" or (fmt is None and stripped.startswith("{")):
        whole = _whole_json(stripped)
        if isinstance(whole, dict) and "format" in whole:
            return [parse_export(whole, name)], "memchat", skipped
        if fmt == "memchat":
            raise UsageError(f"{name} is not a memchat session export (no 'format' field)")
    return parse_lines(text, name), "jsonl", skipped


def _load_json_list(
    text: str, stripped: str, name: str, fmt: str | None, skipped: Skipped
) -> tuple[list[ImportedSession], str, Skipped]:
    """A JSON list: a ChatGPT or Claude export (as `fmt` says, else as it looks), or JSON lines of scalars."""
    data = load_json(stripped, name, lambda exc: f": invalid JSON ({exc.msg}, line {exc.lineno})")
    if not isinstance(data, list):
        raise UsageError(f"{name}: a {fmt} export is a JSON list of conversations, not a {type(data).__name__}")
    reader = {"chatgpt": chatgpt, "claude": claude}.get(fmt or "")
    if reader is not None and not reader.looks_like(data):
        # the other export under the wrong --format: each conversation would be skipped as malformed
        other = next((r for r in (chatgpt, claude) if r is not reader and r.looks_like(data)), None)
        if other is not None:
            raise UsageError(
                f"{name} is a {other.SOURCE} export, not {fmt}: use --format {other.SOURCE}, or leave it out"
            )
    if reader is None:
        reader = chatgpt if chatgpt.looks_like(data) else claude if claude.looks_like(data) else None
    if reader is None:
        if not data:
            raise UsageError(f"{name} is an empty list: no conversations to import")
        if fmt is None and not any(isinstance(c, dict) for c in data):
            return parse_lines(text, name), "jsonl", skipped  # says what a line should be
        raise UsageError(f"{name}: a JSON list of {_describe(data)}: not a ChatGPT or Claude export")
    sessions = reader.parse(data, skipped)
    if not sessions and not skipped:
        raise UsageError(f"{name} has no conversations to import")
    return sessions, reader.SOURCE, skipped


def _whole_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None  # JSON lines: each line parses, the whole does not


def _describe(data: list) -> str:
    first = next((c for c in data if isinstance(c, dict)), None)
    if first is None:
        return f"{type(data[0]).__name__} values"
    return "objects with keys " + ", ".join(list(first)[:5])


def _load_sqlite(p: Path, fmt: str | None, skipped: Skipped) -> tuple[list[ImportedSession], str, Skipped]:
    if fmt not in (None, "llm"):
        raise UsageError(f"{p} is a SQLite database, not a {fmt} file")
    conn = llm_logs.open_readonly(p)
    try:
        if not llm_logs.looks_like(conn):
            tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
            memchat = "sessions" in tables and "messages" in tables
            hint = (
                " (a memchat database: open it with --db, or export its sessions)"
                if memchat
                else f" (tables: {', '.join(tables[:6]) or 'none'})"
            )
            raise UsageError(f"{p} is a SQLite database but not llm's logs.db{hint}")
        return llm_logs.parse(conn, str(p), skipped), "llm", skipped
    finally:
        conn.close()
