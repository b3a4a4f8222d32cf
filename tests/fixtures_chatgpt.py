"""Fixture: a ChatGPT data export (`conversations.json`), as data in tests/data/chatgpt/.

Shapes follow real exports (late-2025 export key order, plus a 2023-style conversation), newest
first; `expected.json` is what a correct importer yields, by conversation id. The data was written
once by the builder this module used to be (see git history); edit the JSON directly now.

    write_chatgpt_export(dir)              -> dir/conversations.json
    write_chatgpt_export(dir, shards=2)    -> dir/conversations-000.json, -001.json
    write_chatgpt_malformed(dir)           -> {name: path} of broken variants
    CHATGPT_EXPECTED                       -> what a correct importer should yield
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

DATA = Path(__file__).parent / "data" / "chatgpt"
_NS = uuid.UUID("6f1b0f5e-3c1d-4e57-9d0a-1c2b3a4d5e6f")  # the ids in the data are uuid5 names in this space


def _uid(name: str) -> str:
    return str(uuid.uuid5(_NS, name))


def chatgpt_conversations() -> list[dict]:
    """A fresh copy each call: a test may change it."""
    return json.loads((DATA / "conversations.json").read_text(encoding="utf-8"))


CHATGPT_EXPECTED: dict[str, dict] = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))


def write_chatgpt_export(directory, shards: int = 0) -> list[Path]:
    """Write conversations.json (or conversations-NNN.json shards, 2026 layout)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs = chatgpt_conversations()
    if not shards:
        p = directory / "conversations.json"
        # real files are UTF-8 JSON; ensure_ascii=False keeps emoji literal
        p.write_text(json.dumps(convs, ensure_ascii=False, indent=2), encoding="utf-8")
        return [p]
    paths = []
    for i in range(shards):
        p = directory / f"conversations-{i:03d}.json"
        p.write_text(json.dumps(convs[i::shards], ensure_ascii=False), encoding="utf-8")
        paths.append(p)
    return paths


def write_chatgpt_malformed(directory) -> dict[str, Path]:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs = chatgpt_conversations()
    good = convs[1]  # conversation A
    out = {}

    def w(name, text):
        p = directory / name
        p.write_text(text, encoding="utf-8")
        out[name] = p

    w("truncated.json", json.dumps(convs, ensure_ascii=False)[:5000])
    w("not_a_list.json", json.dumps({"conversations": convs}))
    w("empty_list.json", "[]")
    # current_node points to a node missing from mapping
    bad = json.loads(json.dumps(good))
    bad["current_node"] = "does-not-exist"
    # parent pointer cycle (a3 <-> u1)
    cyc = json.loads(json.dumps(good))
    cyc["mapping"][_uid("a-u1")]["parent"] = _uid("a-a3")
    # mapping missing / null, current_node missing (fall back to newest leaf)
    nomap = {k: v for k, v in good.items() if k != "mapping"}
    nocur = {k: v for k, v in good.items() if k != "current_node"}
    # message with author missing and parts not a list
    weird = json.loads(json.dumps(good))
    weird["mapping"][_uid("a-u1")]["message"]["author"] = None
    weird["mapping"][_uid("a-a3")]["message"]["content"]["parts"] = "oops"
    w("bad_nodes.json", json.dumps([bad, cyc, nomap, nocur, weird, "not-a-dict", None], ensure_ascii=False))
    return out
