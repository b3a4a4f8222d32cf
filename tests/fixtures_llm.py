"""Fixture builder: simonw/llm `logs.db` (SQLite).  Pure stdlib (sqlite3, hashlib).

Two generations of the schema (see /work/notes/research-import.md):
  write_llm_logs_legacy(path)   llm 0.27 .. 0.31.x : conversations + responses (+ tools, fragments, attachments)
  write_llm_logs_current(path)  llm 0.32 .. 0.36   : legacy tables (read-only history) + the content-addressed
                                                     store threads / turns / messages / parts
  write_llm_logs_malformed(dir)
Each writer returns `expected`: {session external_id: {...messages...}} for a correct importer.
The DDL in tests/data/llm/*.sql is dumped verbatim (sqlite-utils 4 quoting) from llm's own migrations:
LEGACY_SCHEMA from llm 0.31.1 llm/migrations.py (m001..m021), STORE_SCHEMA = what m022..m027 of
llm 0.32..0.36 add.  FTS5 shadow tables are created by the CREATE VIRTUAL TABLE statements.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from datetime import datetime
from pathlib import Path

DATA = Path(__file__).parent / "data" / "llm"  # the two schemas, as llm's migrations leave them

LEGACY_SCHEMA = (DATA / "legacy_schema.sql").read_text(encoding="utf-8")

STORE_SCHEMA = (DATA / "store_schema.sql").read_text(encoding="utf-8")

# ---------------------------------------------------------------------------
# identifiers and hashes, exactly as llm computes them
_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ulid(ms: int, seed: str) -> str:
    """Lower-case ULID like str(monotonic_ulid()).lower(): 48-bit ms time + 80 bits."""
    rand = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:10], "big")
    n = (ms << 80) | rand
    return "".join(_CROCKFORD[(n >> (5 * i)) & 31] for i in range(25, -1, -1))


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def content_hash(obj) -> str:
    """llm.logs.content_hash: blake2b-128 of canonical JSON, prefixed b2:."""
    canonical = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "b2:" + hashlib.blake2b(canonical.encode("utf-8"), digest_size=16).hexdigest()


def message_hash(message: dict, parent_hash):
    """message = Message.to_dict(): {"role", "parts": [...]} (+ "provider_metadata")."""
    return content_hash({"parent": parent_hash, "message": message})


def conversation_name(text: str) -> str:
    """llm.models._conversation_name (CONVERSATION_NAME_LENGTH = 32)."""
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= 32 else text[:31] + "…"


def _sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360f8cfc0f01f0005000201a5f0b5c20000000049454e44ae426082"
)


def _new_db(path, schema: str, migrations: list[str]) -> sqlite3.Connection:
    path = Path(path)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    conn.executemany(
        'INSERT INTO "_llm_migrations" (name, applied_at) VALUES (?, ?)',
        [(m, f"2025-01-01 00:00:{i:02d}+00:00") for i, m in enumerate(migrations)],
    )
    return conn


def _ins(conn, table, row: dict):
    cols = ", ".join(f'"{c}"' for c in row)
    cur = conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({", ".join("?" * len(row))})', list(row.values()))
    return cur.lastrowid


def _fragment(conn, content: str, when: str, source=None) -> int:
    # utils.ensure_fragment: sha256 hash, datetime('now') -> "YYYY-MM-DD HH:MM:SS"
    h = _sha256(content.encode("utf-8"))
    row = conn.execute("SELECT id FROM fragments WHERE hash = ?", [h]).fetchone()
    if row:
        return row[0]
    return _ins(
        conn,
        "fragments",
        {"hash": h, "content": content, "datetime_utc": when[:19].replace("T", " "), "source": source},
    )


def M(external_id, role, content, created_at, model=None):
    return {"external_id": external_id, "role": role, "content": content, "created_at": created_at, "model": model}


# ---------------------------------------------------------------------------
# legacy generation: conversations + responses (llm 0.5 .. 0.31.x)
def _legacy_rows(conn, expected: dict):
    """Insert the legacy conversations; fill `expected` {conversation_id: session}."""

    def response(
        conv,
        rid,
        when,
        prompt,
        resp,
        *,
        model="gpt-4o-mini",
        system=None,
        fragments=(),
        system_fragments=(),
        attachments=(),
        tokens=(12, 8),
        prompt_json=None,
        response_json=None,
        options=None,
        tz=True,
        resolved_model=None,
        duration_ms=842,
        extra=None,
    ):
        row = {
            "id": rid,
            "model": model,
            "prompt": prompt,
            "system": system,
            "prompt_json": json.dumps(prompt_json) if prompt_json is not None else None,
            "options_json": json.dumps(options or {}),
            "response": resp,
            "response_json": json.dumps(response_json) if response_json is not None else None,
            "conversation_id": conv,
            "duration_ms": duration_ms,
            "datetime_utc": when if tz else when.replace("+00:00", ""),
            "input_tokens": tokens[0] if tokens else None,
            "output_tokens": tokens[1] if tokens else None,
            "token_details": None,
            "schema_id": None,
            "resolved_model": resolved_model,
        }
        row.update(extra or {})
        _ins(conn, "responses", row)
        for i, f in enumerate(fragments):
            _ins(conn, "prompt_fragments", {"response_id": rid, "fragment_id": _fragment(conn, f, when), "order": i})
        for i, f in enumerate(system_fragments):
            _ins(conn, "system_fragments", {"response_id": rid, "fragment_id": _fragment(conn, f, when), "order": i})
        for i, (mime, blob) in enumerate(attachments):
            aid = _sha256(blob)
            conn.execute(
                "INSERT OR REPLACE INTO attachments (id, type, path, url, content) VALUES (?,?,?,?,?)",
                [aid, mime, None, None, blob],
            )
            _ins(conn, "prompt_attachments", {"response_id": rid, "attachment_id": aid, "order": i})
        return row

    def conversation(cid, name, model):
        _ins(conn, "conversations", {"id": cid, "name": name, "model": model})

    # L1: `llm chat` - three turns, system prompt on the first, unicode
    t = ["2025-03-14T09:26:53.589793+00:00", "2025-03-14T09:27:40.100200+00:00", "2025-03-14T09:28:05.000001+00:00"]
    c1 = ulid(_ms(t[0]) - 5, "L1")
    r = [ulid(_ms(x), f"L1-{i}") for i, x in enumerate(t)]
    conversation(c1, conversation_name("Bonjour, je m'appelle Zoë."), "gpt-4o-mini")
    response(
        c1,
        r[0],
        t[0],
        "Bonjour, je m'appelle Zoë.",
        "Enchanté, Zoë ! 👋",
        system="You are terse. 🤖",
        prompt_json={
            "messages": [
                {"role": "system", "content": "You are terse. 🤖"},
                {"role": "user", "content": "Bonjour, je m'appelle Zoë."},
            ]
        },
        response_json={
            "content": {"$": f"r:{r[0]}"},
            "finish_reason": "stop",
            "usage": {"completion_tokens": 8, "prompt_tokens": 12, "total_tokens": 20},
            "id": "chatcmpl-B0x1",
            "object": "chat.completion.chunk",
            "model": "gpt-4o-mini-2024-07-18",
            "created": 1741944413,
        },
        resolved_model="gpt-4o-mini-2024-07-18",
    )
    response(
        c1,
        r[1],
        t[1],
        "Quel est mon prénom ?",
        "Zoë.",
        prompt_json={
            "messages": [
                {"role": "user", "content": "Bonjour, je m'appelle Zoë."},
                {"role": "assistant", "content": {"$": f"r:{r[0]}"}},
                {"role": "user", "content": "Quel est mon prénom ?"},
            ]
        },
    )
    response(c1, r[2], t[2], "Merci\nau revoir", "Au revoir !")
    expected[c1] = {
        "external_id": c1,
        "title": "Bonjour, je m'appelle Zoë.",
        "model": "gpt-4o-mini",
        "system": "You are terse. 🤖",
        "messages": [
            M(f"{r[0]}:prompt", "user", "Bonjour, je m'appelle Zoë.", t[0]),
            M(f"{r[0]}:response", "assistant", "Enchanté, Zoë ! 👋", t[0], "gpt-4o-mini"),
            M(f"{r[1]}:prompt", "user", "Quel est mon prénom ?", t[1]),
            M(f"{r[1]}:response", "assistant", "Zoë.", t[1], "gpt-4o-mini"),
            M(f"{r[2]}:prompt", "user", "Merci\nau revoir", t[2]),
            M(f"{r[2]}:response", "assistant", "Au revoir !", t[2], "gpt-4o-mini"),
        ],
    }

    # L2: fragments.  `llm -f add.py -s ... ` with NO prompt text -> prompt IS NULL;
    # then `llm -c "And in Rust?" -f add.py` (prompt text + the same fragment).
    t = ["2025-05-02T14:00:00+00:00", "2025-05-02T14:01:30.250000+00:00"]
    c2 = ulid(_ms(t[0]) - 3, "L2")
    r = [ulid(_ms(x), f"L2-{i}") for i, x in enumerate(t)]
    code = "def add(a, b):\n    return a + b"
    conversation(c2, conversation_name(code), "claude-3.5-sonnet")
    response(
        c2,
        r[0],
        t[0],
        None,
        "This function adds two numbers.",
        model="claude-3.5-sonnet",
        fragments=[code],
        system_fragments=["You are a careful code reviewer."],
    )
    response(
        c2,
        r[1],
        t[1],
        "And in Rust?",
        "fn add(a: i32, b: i32) -> i32 { a + b }",
        model="claude-3.5-sonnet",
        fragments=[code],
    )
    expected[c2] = {
        "external_id": c2,
        "title": "def add(a, b): return a + b",
        "model": "claude-3.5-sonnet",
        "system": "You are a careful code reviewer.",
        "messages": [
            M(f"{r[0]}:prompt", "user", code, t[0]),
            M(f"{r[0]}:response", "assistant", "This function adds two numbers.", t[0], "claude-3.5-sonnet"),
            M(f"{r[1]}:prompt", "user", code + "\nAnd in Rust?", t[1]),
            M(f"{r[1]}:response", "assistant", "fn add(a: i32, b: i32) -> i32 { a + b }", t[1], "claude-3.5-sonnet"),
        ],
    }

    # L3: image attachment
    t = "2025-06-10T08:00:00+00:00"
    c3, r3 = ulid(_ms(t) - 2, "L3"), ulid(_ms(t), "L3-0")
    conversation(c3, "Describe this image", "gpt-4o")
    response(
        c3,
        r3,
        t,
        "Describe this image",
        "A single transparent pixel.",
        model="gpt-4o",
        attachments=[("image/png", PNG_1PX)],
    )
    expected[c3] = {
        "external_id": c3,
        "title": "Describe this image",
        "model": "gpt-4o",
        "system": None,
        "messages": [
            M(f"{r3}:prompt", "user", "Describe this image", t),
            M(f"{r3}:response", "assistant", "A single transparent pixel.", t, "gpt-4o"),
        ],
    }

    # L4: tool chain (`llm -T multiply ...`): 2 responses, the 2nd has prompt ""
    t = ["2025-07-01T12:00:00+00:00", "2025-07-01T12:00:01.500000+00:00"]
    c4 = ulid(_ms(t[0]) - 1, "L4")
    r = [ulid(_ms(x), f"L4-{i}") for i, x in enumerate(t)]
    conversation(c4, "What is 34234 * 213345?", "gpt-4.1-mini")
    response(c4, r[0], t[0], "What is 34234 * 213345?", "", model="gpt-4.1-mini")
    response(c4, r[1], t[1], "", "34234 × 213345 = 7,303,652,730", model="gpt-4.1-mini")
    tool_id = _ins(
        conn,
        "tools",
        {
            "hash": _sha256(
                json.dumps(
                    {
                        "name": "multiply",
                        "description": "Multiply two numbers",
                        "input_schema": {
                            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                            "required": ["a", "b"],
                            "type": "object",
                        },
                    }
                ).encode()
            ),
            "name": "multiply",
            "description": "Multiply two numbers",
            "input_schema": '{"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "type": "object"}',
            "plugin": None,
        },
    )
    for rid in r:
        _ins(conn, "tool_responses", {"tool_id": tool_id, "response_id": rid})
    _ins(
        conn,
        "tool_calls",
        {
            "response_id": r[0],
            "tool_id": tool_id,
            "name": "multiply",
            "arguments": json.dumps({"a": 34234, "b": 213345}),
            "tool_call_id": "call_Xy12",
        },
    )
    _ins(
        conn,
        "tool_results",
        {
            "response_id": r[1],
            "tool_id": tool_id,
            "name": "multiply",
            "output": "7303652730",
            "tool_call_id": "call_Xy12",
            "instance_id": None,
            "exception": None,
        },
    )
    expected[c4] = {
        "external_id": c4,
        "title": "What is 34234 * 213345?",
        "model": "gpt-4.1-mini",
        "system": None,
        "messages": [
            M(f"{r[0]}:prompt", "user", "What is 34234 * 213345?", t[0]),
            M(f"{r[1]}:response", "assistant", "34234 × 213345 = 7,303,652,730", t[1], "gpt-4.1-mini"),
        ],
    }

    # L5: 2023 row (llm <= 0.19): naive datetime, no token columns filled
    t = "2023-08-17T21:08:46.785317"
    c5, r5 = ulid(_ms(t + "+00:00") - 1, "L5"), ulid(_ms(t + "+00:00"), "L5-0")
    conversation(c5, "Ten names for a pet pelican", "gpt-3.5-turbo")
    response(
        c5,
        r5,
        t + "+00:00",
        "Ten names for a pet pelican",
        "1. Pelly\n2. Gulliver",
        model="gpt-3.5-turbo",
        tz=False,
        tokens=None,
        duration_ms=3412,
        prompt_json={"messages": [{"role": "user", "content": "Ten names for a pet pelican"}]},
    )
    expected[c5] = {
        "external_id": c5,
        "title": "Ten names for a pet pelican",
        "model": "gpt-3.5-turbo",
        "system": None,
        "messages": [
            M(f"{r5}:prompt", "user", "Ten names for a pet pelican", t),
            M(f"{r5}:response", "assistant", "1. Pelly\n2. Gulliver", t, "gpt-3.5-turbo"),
        ],
    }

    # L6: interrupted response (Ctrl-C): empty response text, no tool calls
    t = "2025-08-01T07:00:00+00:00"
    c6, r6 = ulid(_ms(t) - 1, "L6"), ulid(_ms(t), "L6-0")
    conversation(c6, "Tell me a long story", "gpt-4o-mini")
    response(c6, r6, t, "Tell me a long story", "", tokens=None)
    expected[c6] = {
        "external_id": c6,
        "title": "Tell me a long story",
        "model": "gpt-4o-mini",
        "system": None,
        "messages": [M(f"{r6}:prompt", "user", "Tell me a long story", t)],
        "note": "assistant reply empty: importer may mark the user message unanswered/interrupted",
    }


LEGACY_MIGRATIONS = [
    "m001_initial",
    "m002_id_primary_key",
    "m003_chat_id_foreign_key",
    "m004_column_order",
    "m004_drop_provider",
    "m005_debug",
    "m006_new_logs_table",
    "m007_finish_logs_table",
    "m008_reply_to_id_foreign_key",
    "m008_fix_column_order_in_logs",
    "m009_delete_logs_table_if_empty",
    "m010_create_new_log_tables",
    "m011_fts_for_responses",
    "m012_attachments_tables",
    "m013_usage",
    "m014_schemas",
    "m015_fragments_tables",
    "m016_fragments_table_pks",
    "m017_tools_tables",
    "m017_tools_plugin",
    "m018_tool_instances",
    "m019_resolved_model",
    "m020_tool_results_attachments",
    "m021_tool_results_exception",
]
CURRENT_MIGRATIONS = LEGACY_MIGRATIONS + [
    "m022_response_reasoning",
    "m023_message_store",
    "m024_tool_instance_references",
    "m025_turn_tools_instance_backfill",
    "m026_message_tree_view",
    "m027_turns_response_json",
]


def write_llm_logs_legacy(path) -> dict:
    """logs.db as left by llm 0.27 .. 0.31.1 (migrations m001..m021)."""
    conn = _new_db(path, LEGACY_SCHEMA, LEGACY_MIGRATIONS)
    expected: dict = {}
    with conn:
        _legacy_rows(conn, expected)
    conn.close()
    return expected


# ---------------------------------------------------------------------------
# the content-addressed store (llm >= 0.32)
class _Store:
    def __init__(self, conn):
        self.conn = conn

    def message(self, role, parts, parent, fragments=None):
        """parts: list of Part.to_dict() with RESOLVED content (text, attachment bytes)."""
        hashed = []
        for p in parts:
            p = dict(p)
            if p["type"] == "attachment":  # hashed by content id + media type
                p["attachment"] = {"id": _sha256(p["attachment"]["bytes"]), "type": p["attachment"]["type"]}
            hashed.append(p)
        h = message_hash({"role": role, "parts": hashed}, parent)
        if self.conn.execute("SELECT 1 FROM messages WHERE hash = ?", [h]).fetchone():
            return h
        _ins(self.conn, "messages", {"hash": h, "parent_hash": parent, "role": role, "provider_metadata": None})
        for pos, p in enumerate(parts):
            payload = {k: v for k, v in p.items() if k != "type"}
            text, att_ids, frag_ids = None, [], []
            if p["type"] == "attachment":
                blob, mime = p["attachment"]["bytes"], p["attachment"]["type"]
                aid = _sha256(blob)
                self.conn.execute(
                    "INSERT OR REPLACE INTO attachments (id, type, path, url, content) VALUES (?,?,?,?,?)",
                    [aid, mime, None, None, blob],
                )
                payload = {"attachment": {"id": aid}}
                att_ids = [aid]
            elif p["type"] in ("text", "reasoning") and "text" in payload:
                frag = fragments or {}
                hit = next((f for f in frag if f and f in payload["text"]), None)
                if hit:  # stored by reference: text_ref pieces
                    before, _, after = payload.pop("text").partition(hit)
                    pieces = (
                        ([{"literal": before}] if before else [])
                        + [{"fragment": frag[hit]}]
                        + ([{"literal": after}] if after else [])
                    )
                    payload["text_ref"] = pieces
                    frag_ids = [frag[hit]]
                else:
                    text = payload.pop("text")
            pid = _ins(
                self.conn,
                "parts",
                {
                    "message_hash": h,
                    "position": pos,
                    "type": p["type"],
                    "tool_name": payload.get("name"),
                    "text": text,
                    "payload": json.dumps(payload) if payload else None,
                },
            )
            for i, a in enumerate(att_ids):
                _ins(self.conn, "part_attachments", {"part_id": pid, "attachment_id": a, "order": i})
            for i, f in enumerate(frag_ids):
                _ins(self.conn, "part_fragments", {"part_id": pid, "fragment_id": f, "order": i})
        return h

    def thread(self, tid, name, when, forked_from=None):
        _ins(
            self.conn,
            "threads",
            {
                "id": tid,
                "name": name,
                "tip_message_hash": None,
                "forked_from": forked_from,
                "datetime_utc": when.replace("T", " "),
            },
        )  # str(datetime): space

    def turn(
        self,
        turn_id,
        tid,
        parent,
        tip,
        when,
        model,
        prompt_text,
        response_text,
        *,
        tokens=(None, None),
        duration_ms=0,
        resolved_model=None,
    ):
        _ins(
            self.conn,
            "turns",
            {
                "id": turn_id,
                "thread_id": tid,
                "parent_message_hash": parent,
                "tip_message_hash": tip,
                "model": model,
                "resolved_model": resolved_model,
                "options_json": None,
                "schema_id": None,
                "input_tokens": tokens[0],
                "output_tokens": tokens[1],
                "token_details": None,
                "duration_ms": duration_ms,
                "datetime_utc": when,
                "response_json": None,
            },
        )
        if prompt_text or response_text:  # LogStore.log derives this row; none for pure tool turns
            _ins(self.conn, "turn_search", {"turn_id": turn_id, "prompt": prompt_text, "response": response_text})
        self.conn.execute("UPDATE threads SET tip_message_hash = ? WHERE id = ?", [tip, tid])


def _txt(s):
    return {"type": "text", "text": s}


def write_llm_logs_current(path) -> dict:
    """logs.db of llm 0.32 .. 0.36: legacy history (pre-upgrade) + the message store."""
    conn = _new_db(
        path, LEGACY_SCHEMA + "\nALTER TABLE responses ADD COLUMN reasoning TEXT;\n" + STORE_SCHEMA, CURRENT_MIGRATIONS
    )
    expected: dict = {}
    with conn:
        _legacy_rows(conn, expected)  # history written before the upgrade
        s = _Store(conn)

        # N1: two-turn chat with system prompt and visible reasoning
        w = ["2026-08-05T10:00:00.120000+00:00", "2026-08-05T10:01:10.500000+00:00"]
        t1 = ulid(_ms(w[0]), "N1")
        s.thread(t1, conversation_name("Plan a weekend in Lisbon 🇵🇹"), w[0])
        sys_h = s.message("system", [_txt("You are a travel agent.")], None)
        u1 = s.message("user", [_txt("Plan a weekend in Lisbon 🇵🇹")], sys_h)
        a1 = s.message(
            "assistant",
            [{"type": "reasoning", "text": "Two days: Alfama, Belém."}, _txt("Day 1: Alfama. Day 2: Belém.")],
            u1,
        )
        s.turn(
            ulid(_ms(w[0]) + 1, "N1-0"),
            t1,
            u1,
            a1,
            w[0],
            "gpt-5.6-luna",
            "Plan a weekend in Lisbon 🇵🇹",
            "Day 1: Alfama. Day 2: Belém.",
            tokens=(21, 14),
            duration_ms=1830,
        )
        u2 = s.message("user", [_txt("Add a restaurant for day 2")], a1)
        a2 = s.message("assistant", [_txt("Try Pastéis de Belém.")], u2)
        s.turn(
            ulid(_ms(w[1]), "N1-1"),
            t1,
            u2,
            a2,
            w[1],
            "gpt-5.6-luna",
            "Add a restaurant for day 2",
            "Try Pastéis de Belém.",
            tokens=(48, 7),
            duration_ms=900,
        )
        expected[t1] = {
            "external_id": t1,
            "title": "Plan a weekend in Lisbon 🇵🇹",
            "model": "gpt-5.6-luna",
            "system": "You are a travel agent.",
            "messages": [
                M(u1, "user", "Plan a weekend in Lisbon 🇵🇹", w[0]),
                M(a1, "assistant", "Day 1: Alfama. Day 2: Belém.", w[0], "gpt-5.6-luna"),
                M(u2, "user", "Add a restaurant for day 2", w[1]),
                M(a2, "assistant", "Try Pastéis de Belém.", w[1], "gpt-5.6-luna"),
            ],
        }

        # N2: a fork of N1 after its first answer (shares system/u1/a1 rows)
        w2 = "2026-08-05T11:00:00+00:00"
        t2 = ulid(_ms(w2), "N2")
        s.thread(t2, "Plan a weekend in Lisbon 🇵🇹", w2, forked_from=t1)
        u3 = s.message("user", [_txt("Actually, Porto instead?")], a1)
        a3 = s.message("assistant", [_txt("Porto: Ribeira and a port cellar.")], u3)
        s.turn(
            ulid(_ms(w2) + 1, "N2-0"),
            t2,
            u3,
            a3,
            w2,
            "gpt-5.6-luna",
            "Actually, Porto instead?",
            "Porto: Ribeira and a port cellar.",
        )
        expected[t2] = {
            "external_id": t2,
            "title": "Plan a weekend in Lisbon 🇵🇹",
            "model": "gpt-5.6-luna",
            "system": "You are a travel agent.",
            "forked_from": t1,
            "messages": [
                # shared prefix: dated by the earliest turn that recorded it (N1's first)
                M(u1, "user", "Plan a weekend in Lisbon 🇵🇹", w[0]),
                M(a1, "assistant", "Day 1: Alfama. Day 2: Belém.", w[0], "gpt-5.6-luna"),
                M(u3, "user", "Actually, Porto instead?", w2),
                M(a3, "assistant", "Porto: Ribeira and a port cellar.", w2, "gpt-5.6-luna"),
            ],
        }

        # N3: tool chain: user -> assistant(reasoning + tool_call) -> tool(tool_result) -> assistant
        w3 = ["2026-08-06T09:00:00+00:00", "2026-08-06T09:00:01.200000+00:00"]
        t3 = ulid(_ms(w3[0]), "N3")
        s.thread(t3, "multiply 34234 by 213345", w3[0])
        u = s.message("user", [_txt("multiply 34234 by 213345")], None)
        a = s.message(
            "assistant",
            [
                {"type": "reasoning", "text": "Need the tool."},
                {
                    "type": "tool_call",
                    "name": "multiply",
                    "arguments": {"a": 34234, "b": 213345},
                    "tool_call_id": "call_1",
                },
            ],
            u,
        )
        s.turn(ulid(_ms(w3[0]) + 1, "N3-0"), t3, u, a, w3[0], "gpt-5.6-luna", "multiply 34234 by 213345", "")
        tr = s.message(
            "tool", [{"type": "tool_result", "name": "multiply", "output": "7303652730", "tool_call_id": "call_1"}], a
        )
        a4 = s.message("assistant", [_txt("34234 × 213345 = 7,303,652,730")], tr)
        s.turn(ulid(_ms(w3[1]), "N3-1"), t3, tr, a4, w3[1], "gpt-5.6-luna", "", "34234 × 213345 = 7,303,652,730")
        expected[t3] = {
            "external_id": t3,
            "title": "multiply 34234 by 213345",
            "model": "gpt-5.6-luna",
            "system": None,
            "messages": [
                M(u, "user", "multiply 34234 by 213345", w3[0]),
                M(a4, "assistant", "34234 × 213345 = 7,303,652,730", w3[1], "gpt-5.6-luna"),
            ],
        }

        # N4: fragment (text_ref) + image attachment part; and a prompt that is ONLY a fragment
        w4 = ["2026-08-07T15:30:00+00:00", "2026-08-07T15:31:00+00:00"]
        t4 = ulid(_ms(w4[0]), "N4")
        code = "def add(a, b):\n    return a + b"
        fid = _fragment(conn, code, w4[0])
        s.thread(t4, conversation_name(code + "\nExplain this code"), w4[0])
        u = s.message(
            "user",
            [
                _txt(code + "\nExplain this code"),
                {"type": "attachment", "attachment": {"type": "image/png", "bytes": PNG_1PX}},
            ],
            None,
            fragments={code: fid},
        )
        a = s.message("assistant", [_txt("It adds two numbers; the image is one pixel.")], u)
        turn_a = ulid(_ms(w4[0]) + 1, "N4-0")
        s.turn(
            turn_a,
            t4,
            u,
            a,
            w4[0],
            "claude-opus-4.5",
            "\nExplain this code",
            "It adds two numbers; the image is one pixel.",
        )
        _ins(conn, "turn_fragments", {"turn_id": turn_a, "fragment_id": fid, "order": 0, "kind": "prompt"})
        u5 = s.message("user", [_txt(code)], a, fragments={code: fid})
        a5 = s.message("assistant", [_txt("Same code again.")], u5)
        turn_b = ulid(_ms(w4[1]), "N4-1")
        s.turn(turn_b, t4, u5, a5, w4[1], "claude-opus-4.5", "", "Same code again.")
        _ins(conn, "turn_fragments", {"turn_id": turn_b, "fragment_id": fid, "order": 0, "kind": "prompt"})
        expected[t4] = {
            "external_id": t4,
            "title": conversation_name(code + "\nExplain this code"),
            "model": "claude-opus-4.5",
            "system": None,
            "messages": [
                M(u, "user", code + "\nExplain this code", w4[0]),
                M(a, "assistant", "It adds two numbers; the image is one pixel.", w4[0], "claude-opus-4.5"),
                M(u5, "user", code, w4[1]),
                M(a5, "assistant", "Same code again.", w4[1], "claude-opus-4.5"),
            ],
        }

        # N5: dual-write era (0.32rc): the same call is in `responses` AND `turns`, same id.
        w5 = "2026-07-30T18:00:00+00:00"
        t5, rid = ulid(_ms(w5), "N5"), ulid(_ms(w5) + 1, "N5-0")
        _ins(conn, "conversations", {"id": t5, "name": "Dual-written", "model": "gpt-5-nano"})
        _ins(
            conn,
            "responses",
            {
                "id": rid,
                "model": "gpt-5-nano",
                "prompt": "Dual-written",
                "system": None,
                "prompt_json": None,
                "options_json": "{}",
                "response": "Stored twice.",
                "response_json": None,
                "conversation_id": t5,
                "duration_ms": 10,
                "datetime_utc": w5,
                "input_tokens": 3,
                "output_tokens": 3,
                "token_details": None,
                "schema_id": None,
                "resolved_model": None,
                "reasoning": None,
            },
        )
        s.thread(t5, "Dual-written", w5)
        u = s.message("user", [_txt("Dual-written")], None)
        a = s.message("assistant", [_txt("Stored twice.")], u)
        s.turn(rid, t5, u, a, w5, "gpt-5-nano", "Dual-written", "Stored twice.", duration_ms=10)
        expected[t5] = {
            "external_id": t5,
            "title": "Dual-written",
            "model": "gpt-5-nano",
            "system": None,
            "messages": [M(u, "user", "Dual-written", w5), M(a, "assistant", "Stored twice.", w5, "gpt-5-nano")],
            "note": "also present in responses with the same id: import once",
        }
    conn.close()
    return expected


def write_llm_logs_malformed(directory) -> dict:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    p = directory / "not_sqlite.db"
    p.write_bytes(b"this is not a database\n")
    out["not_sqlite"] = p
    p = directory / "truncated.db"
    write_llm_logs_legacy(p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 3])
    out["truncated"] = p
    p = directory / "empty_sqlite.db"
    sqlite3.connect(p).close()
    out["empty_sqlite"] = p  # 0 bytes
    p = directory / "other_sqlite.db"
    c = sqlite3.connect(p)
    c.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    c.commit()
    c.close()
    out["other_sqlite"] = p
    p = directory / "dangling.db"
    write_llm_logs_current(p)
    c = sqlite3.connect(p)
    with c:
        # response whose conversation row is missing; turn whose tip message is missing;
        # message whose parent is missing; NULL datetime
        c.execute("DELETE FROM conversations WHERE name = 'Describe this image'")
        c.execute(
            "UPDATE turns SET tip_message_hash = 'b2:00000000000000000000000000000000' "
            "WHERE thread_id = (SELECT id FROM threads WHERE name = 'multiply 34234 by 213345') "
            "AND parent_message_hash IN (SELECT hash FROM messages WHERE role = 'tool')"
        )
        c.execute("UPDATE responses SET datetime_utc = NULL WHERE prompt = 'Tell me a long story'")
    c.close()
    out["dangling"] = p
    return out


if __name__ == "__main__":
    import sys

    d = Path(sys.argv[1] if len(sys.argv) > 1 else "out/llm")
    d.mkdir(parents=True, exist_ok=True)
    print(len(write_llm_logs_legacy(d / "logs-legacy.db")), len(write_llm_logs_current(d / "logs.db")))
    print(write_llm_logs_malformed(d / "malformed"))
