"""Fixture builder: ChatGPT data export (`conversations.json`).

Pure stdlib.  Shapes follow real exports (late-2025 export key order, plus a
2023-style conversation) - see /work/notes/research-import.md for sources.

    write_chatgpt_export(dir)              -> dir/conversations.json
    write_chatgpt_export(dir, shards=2)    -> dir/conversations-000.json, -001.json
    write_chatgpt_malformed(dir)           -> {name: path} of broken variants
    CHATGPT_EXPECTED                       -> what a correct importer should yield
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

_NS = uuid.UUID("6f1b0f5e-3c1d-4e57-9d0a-1c2b3a4d5e6f")


def _uid(name: str) -> str:
    return str(uuid.uuid5(_NS, name))


def _msg(
    mid,
    role,
    content,
    *,
    name=None,
    create_time=None,
    update_time=None,
    metadata=None,
    recipient="all",
    channel=None,
    end_turn=None,
    weight=1.0,
    status="finished_successfully",
    author_metadata=None,
):
    # key order as in a 2025 export
    return {
        "id": mid,
        "author": {"role": role, "name": name, "metadata": author_metadata or {}},
        "create_time": create_time,
        "update_time": update_time,
        "content": content,
        "status": status,
        "end_turn": end_turn,
        "weight": weight,
        "metadata": metadata if metadata is not None else {},
        "recipient": recipient,
        "channel": channel,
    }


def M(external_id, role, content, created_at, model=None):
    """One expected imported message (created_at: the raw epoch float, or None)."""
    return {"external_id": external_id, "role": role, "content": content, "created_at": created_at, "model": model}


def _text(*parts):
    return {"content_type": "text", "parts": list(parts)}


class _Tree:
    """Builds `mapping`, keeping parent/children consistent."""

    def __init__(self, root_id="client-created-root", legacy_root=False):
        self.mapping = {}
        self.root = root_id
        if legacy_root:  # 2023 exports: root node has only id + children
            self.mapping[root_id] = {"id": root_id, "children": []}
        else:
            self.mapping[root_id] = {"id": root_id, "message": None, "parent": None, "children": []}

    def add(self, node_id, parent, message):
        self.mapping[node_id] = {"id": node_id, "message": message, "parent": parent, "children": []}
        self.mapping[parent]["children"].append(node_id)
        return node_id


def _image_pointer(file_id, w, h, size, dalle=None):
    return {
        "content_type": "image_asset_pointer",
        "asset_pointer": file_id,
        "size_bytes": size,
        "width": w,
        "height": h,
        "fovea": None,
        "metadata": {
            "dalle": dalle,
            "gizmo": None,
            "generation": None,
            "container_pixel_height": None,
            "container_pixel_width": None,
            "emu_omit_glimpse_image": None,
            "emu_patches_override": None,
            "sanitized": True,
            "asset_pointer_link": None,
            "watermarked_asset_pointer": None,
        },
    }


def _conversation(cid, title, create_time, update_time, tree, current_node, default_model_slug, *, legacy=False):
    if legacy:  # 2023-style: no conversation_id, fewer top-level keys
        return {
            "title": title,
            "create_time": create_time,
            "update_time": update_time,
            "mapping": tree.mapping,
            "moderation_results": [],
            "current_node": current_node,
            "plugin_ids": None,
            "id": cid,
        }
    return {
        "title": title,
        "create_time": create_time,
        "update_time": update_time,
        "mapping": tree.mapping,
        "moderation_results": [],
        "current_node": current_node,
        "plugin_ids": None,
        "conversation_id": cid,
        "conversation_template_id": None,
        "gizmo_id": None,
        "gizmo_type": None,
        "is_archived": False,
        "is_starred": None,
        "safe_urls": [],
        "blocked_urls": [],
        "default_model_slug": default_model_slug,
        "conversation_origin": None,
        "voice": None,
        "async_status": None,
        "disabled_tool_ids": [],
        "is_do_not_remember": False,
        "memory_scope": "global_enabled",
        "id": cid,
    }


# --------------------------------------------------------------------------
# Conversation A: 2025-style, custom instructions, reasoning nodes, an edited
# user message (branch) and a regenerated assistant answer (branch), image
# upload, python tool call.
def _conv_a():
    T0 = 1765076481.375982
    t = _Tree()
    s0 = t.add(
        _uid("a-s0"),
        t.root,
        _msg(
            _uid("a-s0"),
            "system",
            _text(""),
            weight=0.0,
            end_turn=True,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
    )
    uc = t.add(
        _uid("a-uc"),
        s0,
        _msg(
            _uid("a-uc"),
            "user",
            {
                "content_type": "user_editable_context",
                "user_profile": "The user provided the following information about themselves. ...\nUser profile:\n```Preferred name: Zoë\nRole: développeuse Python```",
                "user_instructions": "The user provided the additional info about how they would like you to respond:\n```Réponds en français, avec des exemples courts.```",
            },
            metadata={
                "is_visually_hidden_from_conversation": True,
                "user_context_message_data": {
                    "about_user_message": "Preferred name: Zoë\nRole: développeuse Python",
                    "about_model_message": "Réponds en français, avec des exemples courts.",
                },
                "is_user_system_message": True,
            },
        ),
    )
    s1 = t.add(
        _uid("a-s1"),
        uc,
        _msg(
            _uid("a-s1"),
            "system",
            _text(""),
            metadata={
                "is_contextual_answers_system_message": True,
                "contextual_answers_message_type": "identity_prompt",
                "is_visually_hidden_from_conversation": True,
            },
        ),
    )
    u1 = t.add(
        _uid("a-u1"),
        s1,
        _msg(
            _uid("a-u1"),
            "user",
            _text("Bonjour ! Peux-tu m'expliquer les tuples en Python ? 🐍"),
            create_time=T0 + 0.197,
            metadata={
                "request_id": "req-a1",
                "message_source": None,
                "turn_exchange_id": "tx-a1",
                "selected_sources": [],
            },
        ),
    )
    a0 = t.add(
        _uid("a-a0"),
        u1,
        _msg(  # empty placeholder assistant node
            _uid("a-a0"),
            "assistant",
            _text(""),
            create_time=T0 + 0.21,
            metadata={"model_slug": "gpt-5-1-thinking", "default_model_slug": "gpt-5-1", "parent_id": u1},
        ),
    )
    a1 = t.add(
        _uid("a-a1"),
        a0,
        _msg(
            _uid("a-a1"),
            "assistant",
            {
                "content_type": "thoughts",
                "thoughts": [
                    {
                        "summary": "Expliquer les tuples",
                        "content": "L'utilisateur veut une explication simple…",
                        "chunks": [],
                        "finished": True,
                    }
                ],
                "source_analysis_msg_id": _uid("a-analysis"),
            },
            create_time=T0 + 1.5,
            end_turn=False,
            metadata={"reasoning_status": "is_reasoning", "model_slug": "gpt-5-1-thinking"},
        ),
    )
    a2 = t.add(
        _uid("a-a2"),
        a1,
        _msg(
            _uid("a-a2"),
            "assistant",
            {"content_type": "reasoning_recap", "content": "Thought for 4s"},
            create_time=T0 + 5.2,
            end_turn=False,
            metadata={
                "reasoning_status": "reasoning_ended",
                "finished_duration_sec": 4,
                "model_slug": "gpt-5-1-thinking",
            },
        ),
    )
    a3 = t.add(
        _uid("a-a3"),
        a2,
        _msg(
            _uid("a-a3"),
            "assistant",
            _text("Bien sûr ! Un tuple est une séquence **immuable** : `t = (1, 2)`."),
            create_time=T0 + 5.3,
            update_time=T0 + 9.0,
            end_turn=True,
            channel="final",
            metadata={
                "finish_details": {"type": "stop", "stop_tokens": [200002]},
                "is_complete": True,
                "citations": [],
                "content_references": [],
                "model_slug": "gpt-5-1-thinking",
                "default_model_slug": "gpt-5-1",
                "parent_id": a2,
            },
        ),
    )
    # user edited their 2nd message -> two user children of a3
    u2a = t.add(_uid("a-u2a"), a3, _msg(_uid("a-u2a"), "user", _text("Et les listes ?"), create_time=T0 + 60))
    t.add(
        _uid("a-a4a"),
        u2a,
        _msg(
            _uid("a-a4a"),
            "assistant",
            _text("Les listes sont mutables… (branche abandonnée)"),
            create_time=T0 + 61,
            end_turn=True,
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    u2b = t.add(
        _uid("a-u2b"),
        a3,
        _msg(_uid("a-u2b"), "user", _text("Et les ensembles (set) ? Montre un exemple."), create_time=T0 + 120),
    )
    # answer regenerated -> two assistant children of u2b
    t.add(
        _uid("a-a4b"),
        u2b,
        _msg(
            _uid("a-a4b"),
            "assistant",
            _text("Un set est… (première génération, abandonnée)"),
            create_time=T0 + 121,
            end_turn=True,
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    # memory write: assistant -> "bio" tool, tool reply, then the model's memory context
    bio = t.add(
        _uid("a-bio"),
        u2b,
        _msg(
            _uid("a-bio"),
            "assistant",
            _text("User's preferred name is Zoë and she writes Python."),
            create_time=T0 + 178,
            recipient="bio",
            channel="commentary",
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    tbio = t.add(
        _uid("a-tbio"),
        bio,
        _msg(
            _uid("a-tbio"),
            "tool",
            _text("Model set context updated."),
            name="bio",
            create_time=T0 + 178.5,
            channel="commentary",
        ),
    )
    mec = t.add(
        _uid("a-mec"),
        tbio,
        _msg(
            _uid("a-mec"),
            "assistant",
            {
                "content_type": "model_editable_context",
                "model_set_context": "1. [2025-12-07]. User's preferred name is Zoë and she writes Python.",
                "repository": None,
                "repo_summary": None,
                "structured_context": None,
            },
            create_time=T0 + 178.6,
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    a4c = t.add(
        _uid("a-a4c"),
        mec,
        _msg(
            _uid("a-a4c"),
            "assistant",
            _text(
                "Un `set` est une collection non ordonnée sans doublons :\n\n```python\ns = {1, 2, 2}\nprint(s)  # {1, 2}\n```"
            ),
            create_time=T0 + 180,
            end_turn=True,
            channel="final",
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    u3 = t.add(
        _uid("a-u3"),
        a4c,
        _msg(
            _uid("a-u3"),
            "user",
            {
                "content_type": "multimodal_text",
                "parts": [
                    _image_pointer("sediment://file_00000000db2c7206b47e511ee1c00873", 608, 323, 22776),
                    "Que montre cette capture ? Compte aussi les éléments.",
                ],
            },
            create_time=T0 + 300,
            metadata={
                "attachments": [
                    {
                        "id": "file_00000000db2c7206b47e511ee1c00873",
                        "size": 22776,
                        "name": "capture.png",
                        "mime_type": "image/png",
                        "width": 608,
                        "height": 323,
                        "source": "local",
                    }
                ]
            },
        ),
    )
    a5 = t.add(
        _uid("a-a5"),
        u3,
        _msg(  # tool call: assistant -> python
            _uid("a-a5"),
            "assistant",
            {
                "content_type": "code",
                "language": "python",
                "response_format_name": None,
                "text": "print(len({1, 2, 2}))",
            },
            create_time=T0 + 301,
            recipient="python",
            channel="commentary",
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    t5 = t.add(
        _uid("a-t5"),
        a5,
        _msg(
            _uid("a-t5"),
            "tool",
            {"content_type": "execution_output", "text": "2"},
            name="python",
            create_time=T0 + 302,
            channel="commentary",
            metadata={"aggregate_result": {"status": "success", "code": "print(len({1, 2, 2}))"}},
        ),
    )
    a6 = t.add(
        _uid("a-a6"),
        t5,
        _msg(
            _uid("a-a6"),
            "assistant",
            _text("La capture montre un terminal ; le code affiche `2` éléments."),
            create_time=T0 + 303,
            end_turn=True,
            channel="final",
            metadata={"model_slug": "gpt-5-1"},
        ),
    )
    cid = "6934eddb-b224-8320-aa5f-84df15f0476a"
    conv = _conversation(cid, "Tuples et ensembles en Python", T0, T0 + 303.5, t, a6, "gpt-5-1")
    expected = {
        "external_id": cid,
        "title": "Tuples et ensembles en Python",
        "model": "gpt-5-1",
        "messages": [
            M(u1, "user", "Bonjour ! Peux-tu m'expliquer les tuples en Python ? 🐍", T0 + 0.197),
            M(
                a3,
                "assistant",
                "Bien sûr ! Un tuple est une séquence **immuable** : `t = (1, 2)`.",
                T0 + 5.3,
                "gpt-5-1-thinking",
            ),
            M(u2b, "user", "Et les ensembles (set) ? Montre un exemple.", T0 + 120),
            M(
                a4c,
                "assistant",
                "Un `set` est une collection non ordonnée sans doublons :\n\n```python\ns = {1, 2, 2}\nprint(s)  # {1, 2}\n```",
                T0 + 180,
                "gpt-5-1",
            ),
            M(u3, "user", "Que montre cette capture ? Compte aussi les éléments.", T0 + 300),
            M(a6, "assistant", "La capture montre un terminal ; le code affiche `2` éléments.", T0 + 303, "gpt-5-1"),
        ],
        "custom_instructions": {
            "about_user_message": "Preferred name: Zoë\nRole: développeuse Python",
            "about_model_message": "Réponds en français, avec des exemples courts.",
        },
    }
    return conv, expected


# --------------------------------------------------------------------------
# Conversation B: 2023-style.  Root node has no message/parent keys, old
# custom-instructions system message, multi-part text, DALL-E tool round trip.
def _conv_b():
    T0 = 1696153200.123456
    root = _uid("b-root")
    t = _Tree(root, legacy_root=True)
    s = t.add(_uid("b-s"), root, _msg(_uid("b-s"), "system", _text(""), create_time=T0, end_turn=True))
    ci = t.add(
        _uid("b-ci"),
        s,
        _msg(
            _uid("b-ci"),
            "system",
            _text(""),
            create_time=T0,
            metadata={
                "user_context_message_data": {
                    "about_user_message": "I live in Kyoto.",
                    "about_model_message": "Be concise.",
                },
                "is_user_system_message": True,
            },
        ),
    )
    u1 = t.add(
        _uid("b-u1"),
        ci,
        _msg(
            _uid("b-u1"),
            "user",
            _text("Write a haiku about autumn in Kyoto 🍁"),
            create_time=T0 + 10,
            metadata={"timestamp_": "absolute"},
        ),
    )
    a1 = t.add(
        _uid("b-a1"),
        u1,
        _msg(
            _uid("b-a1"),
            "assistant",
            _text("Crimson maple leaves", "drift over the temple moss —", "silent bell at dusk."),
            create_time=T0 + 12,
            end_turn=True,
            metadata={
                "finish_details": {"type": "stop", "stop": "<|im_end|>"},
                "model_slug": "gpt-4",
                "timestamp_": "absolute",
            },
        ),
    )
    u2 = t.add(_uid("b-u2"), a1, _msg(_uid("b-u2"), "user", _text("Now draw it"), create_time=T0 + 30))
    a2 = t.add(
        _uid("b-a2"),
        u2,
        _msg(  # call addressed to the DALL-E tool
            _uid("b-a2"),
            "assistant",
            _text('{"size": "1024x1024", "prompt": "Autumn maple leaves over a Kyoto temple"}'),
            create_time=T0 + 31,
            recipient="dalle.text2im",
            metadata={"model_slug": "gpt-4"},
        ),
    )
    t2 = t.add(
        _uid("b-t2"),
        a2,
        _msg(
            _uid("b-t2"),
            "tool",
            {
                "content_type": "multimodal_text",
                "parts": [
                    _image_pointer(
                        "file-service://file-Qm7Z1u3b0p",
                        1024,
                        1024,
                        301234,
                        dalle={
                            "gen_id": "xyz",
                            "prompt": "Autumn maple…",
                            "seed": 1234,
                            "parent_gen_id": None,
                            "edit_op": None,
                            "serialization_title": "DALL-E generation metadata",
                        },
                    )
                ],
            },
            name="dalle.text2im",
            create_time=T0 + 50,
            metadata={"message_type": None, "model_slug": "gpt-4"},
        ),
    )
    t3 = t.add(
        _uid("b-t3"),
        t2,
        _msg(  # DALL-E's hidden instruction back to the model
            _uid("b-t3"),
            "tool",
            _text(
                "DALL·E displayed 1 images. The images are already plainly visible, so don't repeat the descriptions in detail."
            ),
            name="dalle.text2im",
            create_time=T0 + 50.5,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
    )
    a3 = t.add(
        _uid("b-a3"),
        t3,
        _msg(
            _uid("b-a3"),
            "assistant",
            _text("Here is the image of autumn in Kyoto."),
            create_time=T0 + 52,
            end_turn=True,
            metadata={"model_slug": "gpt-4"},
        ),
    )
    cid = _uid("b-conv")
    conv = _conversation(cid, "Kyoto Autumn Haiku", T0, T0 + 52, t, a3, None, legacy=True)
    expected = {
        "external_id": cid,
        "title": "Kyoto Autumn Haiku",
        "model": "gpt-4",
        "messages": [
            M(u1, "user", "Write a haiku about autumn in Kyoto 🍁", T0 + 10),
            M(
                a1,
                "assistant",
                "Crimson maple leaves\ndrift over the temple moss —\nsilent bell at dusk.",
                T0 + 12,
                "gpt-4",
            ),
            M(u2, "user", "Now draw it", T0 + 30),
            M(a3, "assistant", "Here is the image of autumn in Kyoto.", T0 + 52, "gpt-4"),
        ],
        "custom_instructions": {"about_user_message": "I live in Kyoto.", "about_model_message": "Be concise."},
    }
    return conv, expected


# --------------------------------------------------------------------------
# Conversation C: null title, voice mode (audio_transcription parts), a
# message with create_time null, and a node whose message is absent.
def _conv_c():
    T0 = 1772431881.0764802
    t = _Tree()
    s = t.add(
        _uid("c-s"),
        t.root,
        _msg(_uid("c-s"), "system", _text(""), weight=0.0, metadata={"is_visually_hidden_from_conversation": True}),
    )
    u1 = t.add(
        _uid("c-u1"),
        s,
        _msg(
            _uid("c-u1"),
            "user",
            {
                "content_type": "multimodal_text",
                "parts": [
                    {
                        "content_type": "audio_transcription",
                        "decoding_id": None,
                        "direction": "in",
                        "text": "What's the weather like on Mars?",
                    },
                    {
                        "content_type": "real_time_user_audio_video_asset_pointer",
                        "frames_asset_pointers": [],
                        "video_container_asset_pointer": None,
                        "audio_asset_pointer": {
                            "content_type": "audio_asset_pointer",
                            "asset_pointer": "sediment://file_0000000023bc61f5",
                            "format": "wav",
                            "size_bytes": 90204,
                            "metadata": {"start": 0.0, "end": 1.88},
                        },
                        "audio_start_timestamp": 3.1,
                    },
                ],
            },
            create_time=T0,
            metadata={"voice_mode_message": True},
        ),
    )
    a1 = t.add(
        _uid("c-a1"),
        u1,
        _msg(
            _uid("c-a1"),
            "assistant",
            {
                "content_type": "multimodal_text",
                "parts": [
                    {
                        "content_type": "audio_transcription",
                        "decoding_id": None,
                        "direction": "out",
                        "text": "Cold and dusty — about −60 °C on average.",
                    },
                    {
                        "content_type": "audio_asset_pointer",
                        "asset_pointer": "sediment://file_00000000a3bc71f5",
                        "format": "wav",
                        "size_bytes": 120000,
                        "metadata": {"start": 0.0, "end": 3.2},
                    },
                ],
            },
            create_time=None,
            end_turn=True,
            metadata={"model_slug": "gpt-4o"},
        ),
    )
    # a node with no message at all (seen for deleted / placeholder nodes)
    gap = t.add(_uid("c-gap"), a1, None)
    u2 = t.add(_uid("c-u2"), gap, _msg(_uid("c-u2"), "user", _text("   "), create_time=T0 + 20))  # whitespace only
    a2 = t.add(
        _uid("c-a2"), u2, _msg(_uid("c-a2"), "assistant", _text("Anything else?"), create_time=T0 + 21, end_turn=True)
    )
    cid = "6900f3ad-0028-8323-bcdc-e94f3360d4c3"
    conv = _conversation(cid, None, T0, T0 + 21, t, a2, "gpt-4o")
    expected = {
        "external_id": cid,
        "title": None,
        "model": "gpt-4o",
        "messages": [
            M(u1, "user", "What's the weather like on Mars?", T0),
            M(a1, "assistant", "Cold and dusty — about −60 °C on average.", None, "gpt-4o"),
            M(a2, "assistant", "Anything else?", T0 + 21),
        ],
        "custom_instructions": None,
    }
    return conv, expected


# --------------------------------------------------------------------------
# Conversation D: nothing visible at all (only hidden system + empty user).
def _conv_d():
    T0 = 1700000000.0
    t = _Tree()
    s = t.add(
        _uid("d-s"),
        t.root,
        _msg(_uid("d-s"), "system", _text(""), metadata={"is_visually_hidden_from_conversation": True}),
    )
    u = t.add(_uid("d-u"), s, _msg(_uid("d-u"), "user", _text(""), create_time=T0))
    cid = _uid("d-conv")
    conv = _conversation(cid, "New chat", T0, T0, t, u, "auto")
    return conv, {"external_id": cid, "title": "New chat", "model": "auto", "messages": [], "custom_instructions": None}


def build_chatgpt_conversations():
    """Return (list_of_conversations, expected) - newest first like real exports."""
    pairs = [_conv_c(), _conv_a(), _conv_d(), _conv_b()]
    return [c for c, _ in pairs], {e["external_id"]: e for _, e in pairs}


CHATGPT_EXPECTED = build_chatgpt_conversations()[1]


def write_chatgpt_export(directory, shards: int = 0) -> list[Path]:
    """Write conversations.json (or conversations-NNN.json shards, 2026 layout)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    convs, _ = build_chatgpt_conversations()
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
    convs, _ = build_chatgpt_conversations()
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


if __name__ == "__main__":
    import sys

    d = Path(sys.argv[1] if len(sys.argv) > 1 else "out/chatgpt")
    print(write_chatgpt_export(d), write_chatgpt_export(d / "sharded", shards=2))
    print(write_chatgpt_malformed(d / "malformed"))
