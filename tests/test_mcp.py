"""`memchat mcp` end to end: the real server process over stdio, driven by the official SDK's client."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from conftest import ROOT, db_rows, run_memchat
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memchat.db import open_db
from memchat.memory.store.memories import MemoryStore


def _params(*args: str) -> StdioServerParameters:
    # stdio_client passes only a few variables (HOME, PATH...): forward the test's profile and cache.
    env = {k: v for k, v in os.environ.items() if k.startswith(("MEMCHAT_", "HF_", "PYTHON"))}
    return StdioServerParameters(command=sys.executable, args=["-m", "memchat", *args, "mcp"], env=env, cwd=str(ROOT))


def _serve(session_calls, *args: str):
    async def go():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(_params(*args), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    return init, await session_calls(session)

    return anyio.run(go)


def _payload(result):
    assert not result.is_error, result.content
    data = result.structured_content
    return data["result"] if isinstance(data, dict) and set(data) == {"result"} else data


@pytest.fixture
def profile(memchat_home):
    store = MemoryStore(open_db(memchat_home / "default.db"))
    store.add("The user's dentist is Dr. Okafor, on Fridays.", kind="fact", origin="stated")
    store.add("Always answer in British English.", kind="rule", origin="stated")
    store.add("The user lives in Lisbon.", kind="fact", origin="stated", pinned=True)
    store.add("The user has a heart condition.", kind="fact", origin="inferred", sensitive=True, status="pending")
    return memchat_home


def test_tools_and_resources_answer_with_memchats_rules(profile):
    async def calls(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out = {"tools": tools}
        out["dentist"] = _payload(await s.call_tool("recall", {"query": "who is my dentist?"}))
        out["sky"] = _payload(await s.call_tool("recall", {"query": "why is the sky blue?"}))
        out["listed"] = _payload(await s.call_tool("list_memories", {}))
        out["pinned"] = json.loads((await s.read_resource("memchat://pinned")).contents[0].text)
        out["rules"] = json.loads((await s.read_resource("memchat://rules")).contents[0].text)
        out["added"] = _payload(await s.call_tool("remember", {"text": "My sister is called Ana"}))
        out["again"] = _payload(await s.call_tool("remember", {"text": "my sister is called Ana."}))
        out["long"] = _payload(await s.call_tool("remember", {"text": "My lease notes: " + "clause. " * 900}))
        return out

    init, out = _serve(calls)
    assert init.server_info.name == "memchat" and "recall" in init.instructions
    assert set(out["tools"]) == {"recall", "remember", "forget", "list_memories"}
    assert out["tools"]["recall"].input_schema["required"] == ["query"]
    assert out["dentist"] and "Okafor" in out["dentist"][0]["text"]
    # nothing answers: the nearest come back, every one marked weak for the calling model to judge
    assert out["sky"] and all(h["weak"] and h["score"] < 0.05 for h in out["sky"])
    assert "weak" not in out["dentist"][0]  # said only when it is
    texts = [m["text"] for m in out["listed"]]
    assert "The user has a heart condition." not in texts and len(texts) == 3  # a pending guess is never served
    assert [m["text"] for m in out["pinned"]] == ["The user lives in Lisbon."]
    assert [m["text"] for m in out["rules"]] == ["Always answer in British English."]
    assert out["added"]["memory"]["kind"] == "fact" and not out["added"]["already_remembered"]
    assert out["again"]["already_remembered"]
    # a memory too long to send unasked is said to be so (recall finds it)
    assert out["added"]["sent_unasked"] and not out["long"]["sent_unasked"]


def test_a_weak_match_that_reads_as_private_is_not_served_to_another_tool(memchat_home):
    # The nearest memories come back whatever their relevance, for the calling model to judge: not
    # the user's salary for "capital of Australia", nor a diagnosis for a regex question.
    store = MemoryStore(open_db(memchat_home / "default.db"))
    store.add("I earn 61,000 euros a year at the bank", kind="fact", origin="stated")
    store.add("I was diagnosed with multiple sclerosis in 2022", kind="fact", origin="stated")
    store.add("I play the trumpet in a brass band", kind="fact", origin="stated")

    async def calls(s):
        out = {}
        for q in ("what is the capital of Australia?", "a regex for UK postcodes", "my MS diagnosis"):
            out[q] = _payload(await s.call_tool("recall", {"query": q}))
        return out

    _init, out = _serve(calls)
    for q in ("what is the capital of Australia?", "a regex for UK postcodes"):
        texts = [h["text"] for h in out[q]]
        assert texts and all(h["weak"] for h in out[q]), out[q]  # the nearest still come back
        assert not [t for t in texts if "61,000" in t or "sclerosis" in t], (q, texts)
    assert any("sclerosis" in h["text"] for h in out["my MS diagnosis"])  # asked for, it is found


COMPACT = {"id", "kind", "text", "when", "source", "score"}


def test_recall_answers_compact_hits_in_one_json_document_and_detail_brings_the_rest(profile):
    assert run_memchat("--provider", "echo", "ask", "my dentist moved to Tuesdays, Dr. Okafor said").returncode == 0

    async def calls(s):
        tools = {t.name: t for t in (await s.list_tools()).tools}
        asked = {"query": "when do I see my dentist?"}
        return (
            tools["recall"],
            await s.call_tool("recall", asked),
            await s.call_tool("recall", {**asked, "detail": True}),
            await s.call_tool("recall", {"query": "why is the sky blue?"}),
        )

    _, (tool, brief, detailed, sky) = _serve(calls)
    detail = tool.input_schema["properties"]["detail"]
    assert detail["type"] == "boolean" and detail["default"] is False
    assert "one JSON array" in tool.description and "detail" not in tool.input_schema["required"]
    for result in (brief, detailed, sky):  # one text block: the whole answer, one JSON document
        assert len(result.content) == 1 and json.loads(result.content[0].text) == _payload(result)
    hits = _payload(brief)
    assert any(h["kind"] == "fact" and "Okafor" in h["text"] for h in hits)
    message = next(h for h in hits if h["kind"] == "message")
    assert set(message) == COMPACT | {"role"} and message["role"] in ("user", "assistant")
    assert all(set(h) - {"role"} == COMPACT for h in hits if not h.get("weak"))
    assert all(set(h) - {"role"} == COMPACT | {"weak"} for h in _payload(sky))  # weak: said when set
    assert "\n" not in brief.content[0].text  # not an indented block per hit
    full = _payload(detailed)
    assert [h["id"] for h in full] == [h["id"] for h in hits]
    assert {"bm25_rank", "vector_rank", "fused", "session_id", "status"} <= set(full[0])
    assert len(brief.content[0].text) < len(detailed.content[0].text) / 2


def test_forget_scrubs_like_the_cli_and_errors_are_one_line(profile):
    (dentist_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "Okafor" in t]

    async def calls(s):
        return (
            await s.call_tool("forget", {"id": dentist_id}),
            await s.call_tool("forget", {"id": dentist_id}),
            await s.call_tool("forget", {"id": "x"}),
            await s.call_tool("recall", {"query": "dentist", "k": 0}),
        )

    _, (done, twice, bad, bad_k) = _serve(calls)
    assert _payload(done) == {"forgotten": [dentist_id]}
    assert twice.is_error and f"no memory {dentist_id}" in twice.content[0].text
    assert "internal error" not in twice.content[0].text
    assert bad.is_error and bad_k.is_error
    assert db_rows(profile, "SELECT count(*) FROM memories WHERE text LIKE '%Okafor%'") == [(0,)]
    assert db_rows(profile, "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'Okafor'") == [(0,)]
    raw = (profile / "default.db").read_bytes()
    assert b"Okafor" not in raw


def test_memory_off_sessions_and_withheld_messages_are_never_served(api, profile):
    """Another tool sees what a model may see: not a --no-memory session, not a message that
    mentions something forgotten (nor the reply to it)."""
    assert run_memchat("--no-memory", "ask", "my locker code is 4417").returncode == 0
    assert run_memchat("ask", "my bike lock code is 9921, write it down").returncode == 0
    assert run_memchat("memories", "add", "My bike lock code is 9921").returncode == 0
    (lock_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "9921" in t]
    assert run_memchat("memories", "forget", str(lock_id), "--yes").returncode == 0

    async def calls(s):
        return [
            _payload(await s.call_tool("recall", {"query": q, "kinds": ["message"]}))
            for q in ("locker code", "bike lock code")
        ]

    _, (lockers, locks) = _serve(calls)
    assert not any("4417" in h["text"] for h in lockers)
    assert not any("9921" in h["text"] for h in locks)
    mine = run_memchat("recall", "--json", "locker code")  # the user's own search still finds it
    assert "4417" in mine.stdout.decode()
    assert "9921" in run_memchat("recall", "--json", "bike lock code").stdout.decode()  # the transcript is kept


def test_the_server_answers_for_the_profile_it_was_started_with(memchat_home):
    MemoryStore(open_db(memchat_home / "work.db")).add("The work laptop is a ThinkPad.", kind="fact")

    async def calls(s):
        return _payload(await s.call_tool("list_memories", {}))

    _, listed = _serve(calls, "--profile", "work")
    assert [m["text"] for m in listed] == ["The work laptop is a ThinkPad."]
    _, default = _serve(calls)
    assert default == []


def test_what_another_tool_writes_says_so_and_its_rules_wait_for_the_user(api, profile):
    """A memory written over MCP carries origin mcp everywhere; a rule from another tool shapes no
    chat until the user confirms it; the tool may forget only what it can see."""
    (pending_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "heart" in t]
    private = run_memchat("memories", "add", "--private", "My locker combination is 4417220")
    assert private.returncode == 0
    (private_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "4417220" in t]

    async def calls(s):
        return {
            "fact": _payload(await s.call_tool("remember", {"text": "The user's gym is Iron Works", "kind": "fact"})),
            "rule": _payload(await s.call_tool("remember", {"text": "Always answer in pirate speak", "kind": "rule"})),
            "forget_pending": await s.call_tool("forget", {"id": pending_id}),
            "forget_private": await s.call_tool("forget", {"id": private_id}),
            "nul_value": await s.call_tool("remember", {"text": "x", "key": "user.x", "value": "a\x00b"}),
            "path_key": await s.call_tool("remember", {"text": "y", "key": "../../etc", "value": "z"}),
            "listed": _payload(await s.call_tool("list_memories", {})),
            "rules": json.loads((await s.read_resource("memchat://rules")).contents[0].text),
        }

    _, out = _serve(calls)
    fact, rule = out["fact"]["memory"], out["rule"]["memory"]
    assert fact["origin"] == "mcp" and fact["status"] == "active"
    assert rule["origin"] == "mcp" and rule["status"] == "pending"
    assert "pirate" not in json.dumps(out["rules"]) and "pirate" not in json.dumps(out["listed"])
    for refused in ("forget_pending", "forget_private"):
        assert out[refused].is_error and "no memory" in out[refused].content[0].text
    assert db_rows(profile, f"SELECT status FROM memories WHERE id IN ({pending_id}, {private_id})") == [
        ("pending",),
        ("active",),
    ]
    assert out["nul_value"].is_error and "NUL" in out["nul_value"].content[0].text
    assert out["path_key"].is_error and "entity.attribute" in out["path_key"].content[0].text
    shown = json.loads(run_memchat("memories", "show", str(fact["id"]), "--json").stdout)
    assert shown["origin"] == "mcp"
    exported = json.loads(run_memchat("memories", "export", "--format", "json").stdout)
    assert {m["text"]: m["origin"] for m in exported["memories"]}["The user's gym is Iron Works"] == "mcp"
    # the rule is not in a chat's system prompt until the user confirms it
    assert run_memchat("ask", "hello").returncode == 0
    assert "pirate" not in api.requests[-1].get("system", "")
    assert run_memchat("memories", "review", "--confirm", str(rule["id"])).returncode == 0
    assert run_memchat("ask", "hello again").returncode == 0
    assert "pirate" in api.requests[-1].get("system", "")


def test_another_tool_can_neither_read_back_nor_replace_a_private_memory(profile):
    """`remember` with a private memory's words (any case) shows nothing more of it; with its key it
    is refused, and the private value stays the current one."""
    assert run_memchat("memories", "add", "--private", "My therapist is Dr. Hallowmere").returncode == 0
    added = run_memchat("memories", "add", "--private", "My bank PIN is 4471", "--key", "user.bank_pin")
    assert added.returncode == 0

    async def calls(s):
        return {
            "same_words": _payload(await s.call_tool("remember", {"text": "my therapist is dr. hallowmere"})),
            "same_key": await s.call_tool("remember", {"text": "x", "key": "User.Bank_PIN", "value": "0000"}),
            "other_key": _payload(await s.call_tool("remember", {"text": "My bike is red", "key": "user.bike"})),
        }

    _, out = _serve(calls)
    assert out["same_words"] == {"memory": None, "already_remembered": True, "replaced": [], "sent_unasked": False}
    assert out["same_key"].is_error and "private" in out["same_key"].content[0].text
    assert "4471" not in out["same_key"].content[0].text
    assert db_rows(profile, "SELECT text, status, private FROM memories WHERE key = 'user.bank_pin'") == [
        ("My bank PIN is 4471", "active", 1)
    ]
    assert out["other_key"]["memory"]["text"] == "My bike is red"  # any other key is the tool's to write


def test_recall_over_mcp_finds_a_memory_asked_for_in_other_words_first(memchat_home):
    """What `memchat recall` finds first, another tool finds first too (not [] under a bar)."""
    from test_relevance import ASKED_IN_OTHER_WORDS, OWN_MEMORIES

    for text in OWN_MEMORIES:
        assert run_memchat("memories", "add", text).returncode == 0

    async def calls(s):
        return [_payload(await s.call_tool("recall", {"query": q, "k": 3})) for q, _ in ASKED_IN_OTHER_WORDS]

    _, answers = _serve(calls)
    for (question, answer), hits in zip(ASKED_IN_OTHER_WORDS, answers, strict=True):
        assert hits and hits[0]["text"] == OWN_MEMORIES[answer], question
        assert all(0 <= h["score"] <= 1 and h.get("weak", True) is True for h in hits)  # weak: said when set


def _raw(lines: list[str], *, initialize: bool = True, timeout: float = 120) -> list[dict]:
    """What the server answers to these lines, written the way a script pipes them: all at once,
    then stdin closed."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k.startswith(("MEMCHAT_", "HF_", "PYTHON", "XDG_", "HOME", "PATH"))}
    hello = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "mcp"],
        input="\n".join((hello if initialize else []) + lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_line_a_client_sends_gets_an_answer_even_a_broken_one(profile):
    answers = _raw(
        [
            '{"jsonrpc": "2.0", "id": 1, "method": ',  # cut short
            json.dumps([{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]),  # a batch
            json.dumps({"jsonrpc": "2.0", "id": {"an": "object"}, "method": "tools/list"}),
            json.dumps({"id": 4, "method": "tools/list"}),  # not JSON-RPC 2.0
            json.dumps({"jsonrpc": "2.0", "id": 5}),  # no method
            "42",
            json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": 5}),
            json.dumps({"jsonrpc": "2.0", "id": 8.5, "method": "tools/list"}),
            '{"jsonrpc": "2.0",\r"id": 6, "method": "tools/list"}',  # a bare CR is whitespace to JSON
            # a lone surrogate, which JSON allows and the SDK dropped unanswered: kept as U+FFFD
            '{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "remember", '
            '"arguments": {"text": "My locker code is 12\\ud800"}}}',
            '{"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {"a": '
            + "[" * 50_000
            + "]" * 50_000
            + "}}",
        ]
    )
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert errors == [
        (None, -32700),
        (None, -32600),
        (None, -32600),
        (4, -32600),
        (5, -32600),
        (None, -32600),
        (7, -32600),
        (None, -32600),
        (None, -32700),  # nested deeper than a parser goes
    ]
    (stored,) = [a for a in answers if a.get("id") == 9]
    assert not stored["result"].get("isError") and "12\ufffd" in stored["result"]["content"][0]["text"]
    assert all("\n" not in a["error"]["message"] for a in answers if "error" in a)
    listed = [a for a in answers if a.get("id") == 6]
    assert listed and {t["name"] for t in listed[0]["result"]["tools"]} >= {"recall", "remember", "forget"}


def test_requests_piped_then_closed_are_all_answered_before_the_server_exits(profile):
    (dentist_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "Okafor" in t]
    calls = [
        {"name": "recall", "arguments": {"query": "who is my dentist?"}},  # loads the encoder: the slowest
        {"name": "remember", "arguments": {"text": "My bike is a blue Brompton", "key": "user.bike"}},
        {"name": "forget", "arguments": {"id": dentist_id}},
    ]
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call", "params": c}) for n, c in enumerate(calls)
    ]
    lines.append(
        json.dumps({"jsonrpc": "2.0", "id": "last", "method": "resources/read", "params": {"uri": "memchat://rules"}})
    )
    answers = {a["id"]: a for a in _raw(lines)}
    assert set(answers) >= {10, 11, 12, "last"}
    assert not any(answers[i]["result"].get("isError") for i in (10, 11, 12))
    assert "Okafor" in answers[10]["result"]["content"][0]["text"]
    assert db_rows(profile, "SELECT count(*) FROM memories WHERE text LIKE '%Okafor%'") == [(0,)]
    assert db_rows(profile, "SELECT key FROM memories WHERE text LIKE '%Brompton%'") == [("user.bike",)]


def test_tool_arguments_are_taken_as_typed_and_refused_in_one_line(profile):
    (dentist_id,) = [i for i, t in db_rows(profile, "SELECT id, text FROM memories") if "Okafor" in t]
    calls = [
        {"name": "forget", "arguments": {"id": str(dentist_id)}},  # a string is not an id
        {"name": "recall", "arguments": {"query": "dentist", "k": "5"}},
        {"name": "recall", "arguments": {"query": "dentist", "k": 0}},
        {"name": "remember", "arguments": {"text": "I live in Lyon", "key": "city"}},  # entity.attribute
    ]
    lines = [json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": c}) for n, c in enumerate(calls)]
    answers = {a["id"]: a["result"] for a in _raw(lines) if a.get("id") != "init"}
    for n in range(len(calls)):
        assert answers[n]["isError"], answers[n]
        text = answers[n]["content"][0]["text"]
        assert "\n" not in text and "pydantic" not in text, text
    assert "id:" in answers[0]["content"][0]["text"] and "k:" in answers[1]["content"][0]["text"]
    assert "entity.attribute" in answers[3]["content"][0]["text"]
    assert db_rows(profile, "SELECT count(*) FROM memories WHERE text LIKE '%Okafor%'") == [(1,)]
    assert db_rows(profile, "SELECT count(*) FROM memories WHERE text LIKE '%Lyon%'") == [(0,)]


def test_a_failing_resource_read_says_why_in_one_line(profile):
    import sqlite3

    # a table gone under the running server: whatever the cause, the client gets one line
    db = sqlite3.connect(profile / "default.db")
    db.execute("ALTER TABLE memories RENAME TO elsewhere")
    db.commit()
    db.close()
    read = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "memchat://pinned"}})
    (answer,) = [a for a in _raw([read]) if a.get("id") == 1]
    assert answer["error"]["code"] == -32603
    assert "no such table" in answer["error"]["message"] and "\n" not in answer["error"]["message"]


def test_a_request_the_client_cancels_does_not_hold_the_server_open(profile):
    from memchat.mcp.wire import ANSWER_WAIT

    # a cancelled request may go unanswered (MCP): the end of input must not wait for it
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "recall", "arguments": {"query": "dentist"}},
            }
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 1, "reason": "changed my mind"},
            }
        ),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    answers = _raw(lines, timeout=ANSWER_WAIT * 0.75)  # a wait for the cancelled one would overrun this
    assert 2 in {a.get("id") for a in answers}


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_sigterm_or_ctrl_c_ends_a_server_whose_client_is_still_connected(profile, sig, code):
    # a Ctrl-C (in a terminal, or SIGINT from a client) once stopped the server answering without
    # ending it, until a second one
    import signal
    import subprocess

    env = {k: v for k, v in os.environ.items() if k.startswith(("MEMCHAT_", "HF_", "PYTHON", "XDG_", "HOME", "PATH"))}
    server = subprocess.Popen(
        [sys.executable, "-m", "memchat", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=str(ROOT),
        text=True,
    )
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}) + "\n")
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 0
    server.send_signal(getattr(signal, sig))  # stdin stays open: a client that is simply quiet
    try:
        assert server.wait(timeout=30) == code
    finally:
        server.kill()
    assert "Traceback" not in server.stderr.read()
