"""Fixture: a Claude.ai data export (Settings > Privacy > Export data), as data in tests/data/claude/.

Writes the unzipped export layout:
    conversations.json, users.json, projects.json (older) or projects/<uuid>.json
    (2026), memories.json
and optionally the .zip (`data-<org>-<ts>-batch-0000.zip`). `expected.json` is what a correct
importer yields, by conversation id. The data was written once by the builder this module used to
be (see git history); edit the JSON directly now.

    write_claude_export(dir, zip_it=False, projects_dir=False)
    write_claude_malformed(dir) -> {name: path}
    CLAUDE_EXPECTED
"""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path

DATA = Path(__file__).parent / "data" / "claude"
_NS = uuid.UUID("0b9b1c9e-7d8f-4a51-8e3c-55aa00ff1234")  # the ids in the data are uuid5 names in this space
ACCOUNT = "319d5931-1167-46dc-99cc-7a030cc001e2"


def _uid(name):
    return str(uuid.uuid5(_NS, name))


def _load(name: str):
    """A fresh copy each call: a test may change it."""
    return json.loads((DATA / name).read_text(encoding="utf-8"))


CLAUDE_EXPECTED: dict[str, dict] = _load("expected.json")
USERS = _load("users.json")
PROJECTS = _load("projects.json")
MEMORIES = _load("memories.json")


def write_claude_export(directory, *, zip_it=False, projects_dir=False):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs = _load("conversations.json")
    files = {"conversations.json": convs, "users.json": USERS, "memories.json": MEMORIES}
    if projects_dir:  # 2026 layout: projects/<uuid>.json, one object each
        for p in PROJECTS:
            files[f"projects/{p['uuid']}.json"] = p
    else:
        files["projects.json"] = PROJECTS
    written = []
    for name, data in files.items():
        p = directory / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        written.append(p)
    if zip_it:
        z = directory / f"data-{ACCOUNT}-1776007249-a1b2c3d4-batch-0000.zip"
        with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in written:
                zf.write(p, p.relative_to(directory).as_posix())
        return z
    return written


def write_claude_malformed(directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs = _load("conversations.json")
    c1 = json.loads(json.dumps(convs[0]))
    out = {}

    def w(name, obj_or_text):
        p = directory / name
        p.write_text(
            obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text, ensure_ascii=False),
            encoding="utf-8",
        )
        out[name] = p

    w("truncated.json", json.dumps(convs, ensure_ascii=False)[:3000])
    w("not_a_list.json", {"conversations": convs})
    bad = json.loads(json.dumps(c1))
    bad["chat_messages"][0]["sender"] = "system"  # unknown sender
    bad["chat_messages"][1].pop("created_at")  # missing timestamp
    bad["chat_messages"][2]["created_at"] = "yesterday"  # unparsable timestamp
    bad["chat_messages"][3]["content"] = None  # content null
    cyc = json.loads(json.dumps(c1))  # parent cycle
    cyc["chat_messages"][0]["parent_message_uuid"] = cyc["chat_messages"][8]["uuid"]
    orphan = json.loads(json.dumps(c1))  # parent not in conversation
    orphan["chat_messages"][7]["parent_message_uuid"] = _uid("nowhere")
    w("bad_messages.json", [bad, cyc, orphan, {"uuid": "x"}, 42])
    return out
