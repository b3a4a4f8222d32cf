"""Fixture builder: Claude.ai data export (Settings > Privacy > Export data).

Pure stdlib.  Writes the unzipped export layout:
    conversations.json, users.json, projects.json (older) or projects/<uuid>.json
    (2026), memories.json
and optionally the .zip (`data-<org>-<ts>-batch-0000.zip`).

    write_claude_export(dir, zip_it=False, projects_dir=False)
    write_claude_malformed(dir) -> {name: path}
    CLAUDE_EXPECTED
"""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path

_NS = uuid.UUID("0b9b1c9e-7d8f-4a51-8e3c-55aa00ff1234")
ROOT_PARENT = "00000000-0000-4000-8000-000000000000"  # sentinel parent of first message
ACCOUNT = "319d5931-1167-46dc-99cc-7a030cc001e2"


def _uid(name):
    return str(uuid.uuid5(_NS, name))


def _ts(base: str, micros: int = 0) -> str:
    # Claude export timestamps: ISO 8601, 6-digit micros, trailing "Z"
    return f"{base}.{micros:06d}Z"


def M(external_id, role, content, created_at, attachments=()):
    """One expected imported message.  attachments: [(file_name, extracted_content)]
    for text attachments of that message (importer decides how to fold them in)."""
    return {
        "external_id": external_id,
        "role": role,
        "content": content,
        "created_at": created_at,
        "attachments": list(attachments),
    }


def _text_block(text, start, stop=None, citations=None):
    return {
        "start_timestamp": start,
        "stop_timestamp": stop or start,
        "flags": None,
        "type": "text",
        "text": text,
        "citations": citations or [],
    }


def _thinking_block(text, start, stop):
    return {
        "start_timestamp": start,
        "stop_timestamp": stop,
        "flags": None,
        "type": "thinking",
        "thinking": text,
        "summaries": [{"summary": "Thinking about the request."}],
        "cut_off": False,
        "alternative_display_type": None,
    }


def _tool_use(tid, name, inp, start, message="Searching the web"):
    return {
        "start_timestamp": start,
        "stop_timestamp": start,
        "flags": None,
        "type": "tool_use",
        "id": tid,
        "name": name,
        "input": inp,
        "message": message,
        "integration_name": None,
        "integration_icon_url": None,
        "context": None,
        "display_content": None,
        "approval_options": None,
        "approval_key": None,
    }


def _tool_result(tid, name, content, is_error=False):
    return {
        "start_timestamp": None,
        "stop_timestamp": None,
        "flags": None,
        "type": "tool_result",
        "tool_use_id": tid,
        "name": name,
        "content": content,
        "is_error": is_error,
    }


def _message(
    mid,
    sender,
    content,
    created,
    *,
    text=None,
    parent=None,
    attachments=None,
    files=None,
    updated=None,
    with_parent=True,
):
    m = {
        "uuid": mid,
        "text": text if text is not None else "".join(b.get("text", "") for b in content if b.get("type") == "text"),
        "content": content,
        "sender": sender,
        "created_at": created,
        "updated_at": updated or created,
        "attachments": attachments or [],
        "files": files or [],
    }
    if with_parent:
        m["parent_message_uuid"] = parent or ROOT_PARENT
    return m


# --------------------------------------------------------------------------
# Conversation 1 (2026 style): parent_message_uuid tree with an edited human
# message and a regenerated answer; thinking + web_search tool round trip;
# pasted-text attachment (empty file_name) and an image in `files`.
def _conv1():
    D = "2026-04-12T15:2"
    h1 = _uid("c1-h1")
    a1 = _uid("c1-a1")
    h2a = _uid("c1-h2a")
    a2a = _uid("c1-a2a")
    h2b = _uid("c1-h2b")
    a2b = _uid("c1-a2b")
    a2c = _uid("c1-a2c")
    h3 = _uid("c1-h3")
    a3 = _uid("c1-a3")
    msgs = [
        _message(
            h1,
            "human",
            [
                _text_block(
                    "Vérifie ce résumé, s'il te plaît : « la demi-vie de l'uranium 238 est 4,47 milliards d'années ». ☢️",
                    _ts(D + "1:03", 941702),
                )
            ],
            _ts(D + "1:03", 941702),
            parent=ROOT_PARENT,
            files=[{"file_uuid": _uid("c1-f1"), "file_name": "1776007249059_image.png"}],
        ),
        _message(
            a1,
            "assistant",
            [
                _thinking_block("The user wants a fact check…", _ts(D + "1:05", 1), _ts(D + "1:20", 2)),
                _tool_use(
                    "toolu_01A6zfPtFxbTK1xa8gCUhpbE",
                    "web_search",
                    {"query": "U-238 half-life NNDC"},
                    _ts(D + "1:24", 120675),
                ),
                _tool_result(
                    "toolu_01A6zfPtFxbTK1xa8gCUhpbE",
                    "web_search",
                    [
                        {
                            "type": "knowledge",
                            "title": "NuDat 3",
                            "url": "https://www.nndc.bnl.gov/nudat3/",
                            "metadata": {
                                "type": "webpage_metadata",
                                "site_domain": "bnl.gov",
                                "favicon_url": "https://www.google.com/s2/favicons?sz=64&domain=bnl.gov",
                                "site_name": "NNDC",
                            },
                            "is_missing": False,
                            "text": "238U T1/2 = 4.468E+9 y",
                            "is_citable": True,
                            "prompt_context_metadata": {"url": "https://www.nndc.bnl.gov/nudat3/"},
                        }
                    ],
                ),
                _text_block(
                    "C'est correct : 4,468 × 10⁹ ans, arrondi à 4,47.",
                    _ts(D + "3:01", 866275),
                    citations=[
                        {
                            "uuid": _uid("cit1"),
                            "start_index": 0,
                            "end_index": 12,
                            "details": {"type": "web_search_citation", "url": "https://www.nndc.bnl.gov/nudat3/"},
                        }
                    ],
                ),
            ],
            _ts(D + "3:01", 866275),
            parent=h1,
            text="",
        ),  # text "" while content has text
        # original 2nd human message (later edited -> abandoned branch)
        _message(h2a, "human", [_text_block("Et pour l'U-235 ?", _ts(D + "4:00", 0))], _ts(D + "4:00", 0), parent=a1),
        _message(
            a2a,
            "assistant",
            [_text_block("7,04 × 10⁸ ans. (branche abandonnée)", _ts(D + "4:05", 0))],
            _ts(D + "4:05", 0),
            parent=h2a,
        ),
        # edited 2nd human message: pasted long text became an attachment
        _message(
            h2b,
            "human",
            [_text_block("Et pour ce tableau ?", _ts(D + "4:30", 0))],
            _ts(D + "4:30", 0),
            parent=a1,
            attachments=[
                {
                    "file_name": "",
                    "file_size": 58,
                    "file_type": "txt",
                    "extracted_content": "isotope\tdemi-vie\nU-235\t7.04e8 a\nU-234\t2.455e5 a",
                }
            ],
        ),
        # answer regenerated: a2b abandoned, a2c current
        _message(
            a2b,
            "assistant",
            [_text_block("Première version (abandonnée).", _ts(D + "4:35", 0))],
            _ts(D + "4:35", 0),
            parent=h2b,
        ),
        _message(
            a2c,
            "assistant",
            [_text_block("Les deux valeurs du tableau sont correctes.", _ts(D + "4:50", 0))],
            _ts(D + "4:50", 0),
            parent=h2b,
        ),
        _message(h3, "human", [_text_block("Merci 🙏", _ts(D + "5:10", 0))], _ts(D + "5:10", 0), parent=a2c),
        _message(
            a3,
            "assistant",
            [_text_block("Avec plaisir !", _ts(D + "5:22", 935461))],
            _ts(D + "5:22", 935461),
            parent=h3,
        ),
    ]
    conv = {
        "uuid": "0811c458-706c-4673-87e4-8146857bea96",
        "name": "Vérification demi-vie ☢️",
        "summary": "**Conversation Overview**\n\nThe person asked Claude to fact-check…",
        "created_at": _ts("2026-04-12T15:21:03", 426253),
        "updated_at": _ts("2026-04-12T15:25:22", 935461),
        "account": {"uuid": ACCOUNT},
        "chat_messages": msgs,
    }
    expected = {
        "external_id": conv["uuid"],
        "title": conv["name"],
        "summary": conv["summary"],
        "messages": [
            M(h1, "user", msgs[0]["content"][0]["text"], msgs[0]["created_at"]),
            M(a1, "assistant", "C'est correct : 4,468 × 10⁹ ans, arrondi à 4,47.", msgs[1]["created_at"]),
            M(
                h2b,
                "user",
                "Et pour ce tableau ?",
                msgs[4]["created_at"],
                [("", "isotope\tdemi-vie\nU-235\t7.04e8 a\nU-234\t2.455e5 a")],
            ),
            M(a2c, "assistant", "Les deux valeurs du tableau sont correctes.", msgs[6]["created_at"]),
            M(h3, "user", "Merci 🙏", msgs[7]["created_at"]),
            M(a3, "assistant", "Avec plaisir !", msgs[8]["created_at"]),
        ],
    }
    return conv, expected


# --------------------------------------------------------------------------
# Conversation 2 (2024 style): no parent_message_uuid, `text` carries the
# message, content blocks without timestamps, an artifact tool_use, an empty
# message (text "" and content []), a PDF attachment with extracted text.
def _conv2():
    msgs = [
        _message(
            _uid("c2-h1"),
            "human",
            [{"type": "text", "text": "Summarise the attached PDF in 2 bullets."}],
            "2024-06-20T08:15:02.113742Z",
            with_parent=False,
            attachments=[
                {
                    "file_name": "rapport_2024.pdf",
                    "file_size": 48213,
                    "file_type": "pdf",
                    "extracted_content": "Annual report…\nRevenue grew 12%.",
                }
            ],
        ),
        _message(
            _uid("c2-a1"),
            "assistant",
            [
                {"type": "text", "text": "- Revenue grew 12%.\n- Costs were flat."},
                {
                    "type": "tool_use",
                    "name": "artifacts",
                    "input": {
                        "id": "summary",
                        "type": "text/markdown",
                        "title": "Summary",
                        "command": "create",
                        "content": "# Summary\n…",
                        "version_uuid": _uid("c2-v1"),
                    },
                },
                {
                    "type": "tool_result",
                    "name": "artifacts",
                    "content": [{"type": "text", "text": "OK"}],
                    "is_error": False,
                },
            ],
            "2024-06-20T08:15:09.551200Z",
            text="- Revenue grew 12%.\n- Costs were flat.",
            with_parent=False,
        ),
        _message(
            _uid("c2-h2"), "human", [], "2024-06-20T08:16:00.000000Z", text="", with_parent=False
        ),  # empty message: skip
        _message(
            _uid("c2-h3"),
            "human",
            [{"type": "text", "text": "Thanks — 日本語でも？"}],
            "2024-06-20T08:16:30.000000Z",
            with_parent=False,
        ),
        _message(
            _uid("c2-a3"),
            "assistant",
            [{"type": "text", "text": "収益は12%増加しました。"}],
            "2024-06-20T08:16:34.000000Z",
            with_parent=False,
        ),
    ]
    conv = {
        "uuid": _uid("c2"),
        "name": "PDF summary",
        "created_at": "2024-06-20T08:15:01.000000Z",
        "updated_at": "2024-06-20T08:16:34.000000Z",
        "account": {"uuid": ACCOUNT},
        "chat_messages": msgs,
    }
    expected = {
        "external_id": conv["uuid"],
        "title": "PDF summary",
        "summary": None,
        "messages": [
            M(
                msgs[0]["uuid"],
                "user",
                "Summarise the attached PDF in 2 bullets.",
                msgs[0]["created_at"],
                [("rapport_2024.pdf", "Annual report…\nRevenue grew 12%.")],
            ),
            M(msgs[1]["uuid"], "assistant", "- Revenue grew 12%.\n- Costs were flat.", msgs[1]["created_at"]),
            M(msgs[3]["uuid"], "user", "Thanks — 日本語でも？", msgs[3]["created_at"]),
            M(msgs[4]["uuid"], "assistant", "収益は12%増加しました。", msgs[4]["created_at"]),
        ],
    }
    return conv, expected


def _conv3():  # empty conversation (exists in real exports)
    conv = {
        "uuid": _uid("c3"),
        "name": "",
        "summary": "",
        "created_at": "2025-10-03T20:30:55.084076Z",
        "updated_at": "2025-10-03T20:30:55.084076Z",
        "account": {"uuid": ACCOUNT},
        "chat_messages": [],
    }
    return conv, {"external_id": conv["uuid"], "title": "", "summary": "", "messages": []}


def build_claude_conversations():
    pairs = [_conv1(), _conv2(), _conv3()]
    return [c for c, _ in pairs], {e["external_id"]: e for _, e in pairs}


CLAUDE_EXPECTED = build_claude_conversations()[1]

USERS = [
    {"uuid": ACCOUNT, "full_name": "Zoë Example", "email_address": "zoe@example.com", "verified_phone_number": None}
]
PROJECTS = [
    {
        "uuid": "01982135-8e72-71f8-86ac-dc638b9c9203",
        "name": "How to use Claude",
        "description": "An example project",
        "is_private": False,
        "is_starter_project": True,
        "prompt_template": "",
        "created_at": "2025-07-19T10:00:00.000000+00:00",
        "updated_at": "2025-07-19T10:00:00.000000+00:00",
        "creator": {"uuid": ACCOUNT, "full_name": "Zoë Example"},
        "docs": [
            {
                "uuid": _uid("doc1"),
                "filename": "Claude prompting guide.md",
                "content": "# Prompting guide\n…",
                "created_at": "2025-07-19T10:00:00.000000+00:00",
            }
        ],
    }
]
MEMORIES = [{"conversations_memory": "Zoë checks physics facts; prefers French.", "account_uuid": ACCOUNT}]


def write_claude_export(directory, *, zip_it=False, projects_dir=False):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs, _ = build_claude_conversations()
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
    convs, _ = build_claude_conversations()
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


if __name__ == "__main__":
    import sys

    d = Path(sys.argv[1] if len(sys.argv) > 1 else "out/claude")
    print(write_claude_export(d), write_claude_export(d / "zipped", zip_it=True, projects_dir=True))
    print(write_claude_malformed(d / "malformed"))
