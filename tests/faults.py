"""Kill -9 at random points of a chat turn, an import and an extraction, and check what is left;
and a watch on the WAL's size under load.

Shared by tests/test_reliability.py (a few rounds in CI) and tests/bench/kill_loop.py (the
full count), tests/test_concurrency.py and tests/bench/stress.py. Each `kill_during_*` starts a real `memchat` process, SIGKILLs it after a random
delay, and returns what the user could have seen acknowledged; `check_consistent` is what
must hold after every kill.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _memchat(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "memchat", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(ROOT),
    )


def _kill(proc: subprocess.Popen, delay: float) -> bool:
    """SIGKILL after delay; True if the process had already finished by itself."""
    time.sleep(delay)
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    return finished


def watch_wal(path: str, stop: threading.Event, peak: list[int]) -> None:
    """Until stop is set, keep the largest size the file at path reaches in peak[0] (a thread)."""
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], os.path.getsize(path))
        except OSError:
            pass
        time.sleep(0.02)


def connect(db_path: Path):
    """A connection for checking: sqlite3, or for an encrypted profile sqlcipher3 keyed from
    MEMCHAT_DB_KEY (the kill loop's --encrypted run)."""
    from memchat import encryption

    if not encryption.is_encrypted(Path(db_path)):
        return sqlite3.connect(db_path)
    conn = encryption.driver().connect(str(db_path))
    conn.execute("PRAGMA cipher_log_level = NONE")
    conn.execute(encryption.key_pragma(os.environ[encryption.KEY_ENV]))
    return conn


def check_consistent(db_path: Path) -> dict[str, int]:
    """What must hold after any kill: the file is sound, the full-text indexes match their
    tables, and every active memory was written whole (text, and the history row of its
    addition). Returns row counts. Raises AssertionError otherwise."""
    conn = connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for fts in ("messages_fts", "memories_fts"):
            if fts in tables:  # raises "database disk image is malformed" when out of step
                conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
        if "messages" not in tables:  # killed before the first migration committed: an empty file
            return {"messages": 0, "memories": 0}
        counts = {"messages": conn.execute("SELECT count(*) FROM messages").fetchone()[0]}
        if "memories" in tables:
            half = conn.execute(
                "SELECT count(*) FROM memories m WHERE status = 'active' AND (text = '' OR NOT EXISTS "
                "(SELECT 1 FROM memory_history h WHERE h.memory_id = m.id AND h.action = 'add'))"
            ).fetchone()[0]
            assert half == 0, f"{half} half-written active memories"
            twice = conn.execute(
                "SELECT count(*) FROM (SELECT text FROM memories WHERE status = 'active' "
                "GROUP BY kind, text HAVING count(*) > 1)"
            ).fetchone()[0]
            assert twice == 0, f"{twice} memories stored twice"
            counts["memories"] = conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0]
        return counts
    finally:
        conn.close()


# --- a chat turn --------------------------------------------------------------------------------


def kill_during_turn(api, delay: float, after_first_byte: bool) -> tuple[str, bool]:
    """Run `ask` and SIGKILL it delay s after start, or after its reply began to stream.
    Returns the message and whether the user saw it acknowledged (reply on screen)."""
    api.enqueue_text(" ".join(f"w{i}" for i in range(40)), delay=0.05)
    label = f"message {delay:.3f} {after_first_byte}"
    proc = _memchat("ask", "--no-memory", label)
    acknowledged = False
    if after_first_byte:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        acknowledged = bool(ready) and bool(proc.stdout.read(1))  # reply on screen: message stored before
    _kill(proc, delay)
    return label, acknowledged


# --- an import ----------------------------------------------------------------------------------


def conversation_file(path: Path, sessions: int = 4, turns: int = 60) -> int:
    """A JSON-lines conversation to import; returns its number of messages."""
    lines = []
    for s in range(sessions):
        for t in range(turns):
            for role, name in (("user", "Ada"), ("assistant", "Bo")):
                lines.append(
                    json.dumps(
                        {
                            "session": f"chat-{s}",
                            "role": role,
                            "name": name,
                            "id": f"{s}-{t}-{role}",
                            "content": f"In chat {s} turn {t} {name} talks about the canal boat "
                            f"number {s * 1000 + t} and its {role} logbook entry.",
                        }
                    )
                )
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def kill_during_import(path: Path, delay: float) -> bool:
    """SIGKILL `memchat import` after delay; True if it had finished."""
    return _kill(_memchat("import", str(path)), delay)


# --- an extraction ------------------------------------------------------------------------------

_GADGET = re.compile(r"gadget ([a-z]+-\d+-\d+)")


class Extractor:
    """The server side of capture: one keyed fact per gadget named in the turns sent, after a
    pause, so that a kill lands between tool calls and store writes as well as inside them."""

    def __init__(self, pause: float = 0.05) -> None:
        self.pause = pause

    def __call__(self, body: dict):
        time.sleep(self.pause)
        name = (body.get("tool_choice") or {}).get("name")
        if name == "record_memories":
            seen = sorted(set(_GADGET.findall(json.dumps(body.get("messages")))))
            return {"tool_input": {"facts": [self.fact(g) for g in seen], "events": [], "rules": []}}
        if name == "decide_memory":
            return {"tool_input": {"action": "add"}}
        return "A short summary of a chat about gadgets."

    @staticmethod
    def fact(gadget: str) -> dict:
        return {
            "text": f"The user owns the gadget {gadget}.",
            "key": f"user.gadget.{gadget}",
            "origin": "stated",
            "sensitive": "none",
            "sources": [1],
        }


def seed_chats(db_path: Path, sessions: int = 4, turns: int = 6, first: int = 0) -> list[str]:
    """Sessions whose user turns each name a gadget; returns the gadgets (what capture must store).
    `first` numbers the gadgets on from an earlier call."""
    from memchat import sessions as s_api
    from memchat.db import open_db

    db = open_db(db_path)
    gadgets = []
    for _s in range(sessions):
        session = s_api.create_session(db)
        for t in range(turns):
            gadget = f"g-{first + len(gadgets)}-{t}"
            gadgets.append(gadget)
            s_api.add_message(db, session.id, "user", f"I just bought the gadget {gadget} at the market.")
            s_api.add_message(db, session.id, "assistant", "Nice, enjoy it.")
    db.conn.close()
    return gadgets


def kill_during_capture(delay: float) -> bool:
    """SIGKILL `memchat memories capture` after delay; True if it had finished."""
    return _kill(_memchat("memories", "capture"), delay)


# --- forgetting, deleting, exporting --------------------------------------------------------------

SECRET = "Quokkaberry"  # a word only memories hold (forget must take it out of the files)
CHAT_SECRET = "Wombatfig"  # a word only chats hold (deleting their sessions must take it out)


def seed_secrets(db_path: Path, memories: int = 600, chats: int = 3) -> None:
    """Memories that name SECRET, chats that name CHAT_SECRET, and one chat that names neither."""
    from memchat import sessions as s_api
    from memchat.db import open_db
    from memchat.memory.store.memories import MemoryStore

    db = open_db(db_path)
    store = MemoryStore(db)
    for i in range(memories):
        store.add(f"The {SECRET} locker {i} holds parcel {i * 7}.")
    for c in range(chats):
        session = s_api.create_session(db)
        for t in range(40):
            s_api.add_message(db, session.id, "user", f"Chat {c} line {t}: the {CHAT_SECRET} code is {c}{t}.")
    keep = s_api.create_session(db)
    s_api.add_message(db, keep.id, "user", "A chat about bread that must survive everything.")
    db.conn.close()


def secret_on_disk(db_path: Path, word: str = SECRET) -> bool:
    data = b""
    for path in (db_path, Path(str(db_path) + "-wal")):
        if path.exists():
            data += path.read_bytes()
    return word.encode() in data


def kill_during(args: list[str], delay: float) -> bool:
    """SIGKILL `memchat ARGS` after delay; True if it had finished."""
    return _kill(_memchat(*args), delay)


def export_whole(path: Path) -> bool:
    """An export file is either absent or a whole, parseable export (never torn)."""
    if not path.exists():
        return True
    try:
        return json.loads(path.read_text())["format"] == "memchat-memories"
    except (ValueError, KeyError):
        return False
