"""Small faults, each a class: a key echoed back redacted cleanly, only written exports in the
audit trail, and conversations that share an id in one export neither lost nor miscounted."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import db_rows, run_memchat

from memchat.text import redact_secrets

MARK = "[redacted key]"

# --- an API key echoed back: replaced once, cleanly ----------------------------------------------

KEYS = [
    "sk-ant-api03-" + "A" * 40 + "-zz",
    "gw+key.(1)*[x]?{2}|^$\\d-0123",  # every regex metacharacter
    "live_0123456789abcdef",  # no Anthropic shape: known only as the configured key
    'k"ey/with\\quote-2024',  # JSON escapes it
]


def bodies(key: str) -> list[tuple[str, int]]:
    """Error bodies a gateway may send back, with how many times each holds the key."""
    half = len(key) // 2
    return [
        (f"Authorization: Bearer {key}", 1),
        (f"invalid key {key} {key} {key}", 3),
        (f"bad bearer token: Bearer {key}; Bearer {key}", 2),
        (json.dumps({"error": {"message": f"Bearer {key}", "authorization": f"Bearer {key}", "x-api-key": key}}), 3),
        (json.dumps({"error": {"message": json.dumps({"authorization": f"Bearer {key}", "key": key})}}), 2),
        (f"the key was\n{key[:half]}\n    {key[half:]}\nrejected", 1),  # wrapped by the gateway
        (json.dumps({"detail": f"{key[:half]}\n{key[half:]}"}), 1),
        (f"x-api-key: {key}\nAuthorization: Bearer {key}\n\n{key}", 3),
    ]


def fragments(key: str, size: int = 6) -> set[str]:
    return {key[i : i + size] for i in range(len(key) - size + 1)}


@pytest.mark.parametrize("key", KEYS)
def test_an_echoed_key_is_redacted_once_and_cleanly(key, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    for body, times in bodies(key):
        said = redact_secrets(body)
        assert said.count(MARK) == times, (body, said)
        assert said.count("key]") == times and "Bearer [" not in said and "bearer [" not in said, said
        leaked = [f for f in fragments(key) if f in said or json.dumps(f)[1:-1] in said]
        assert not leaked, (body, said, leaked)
        assert redact_secrets(said) == said  # redacting again changes nothing (errors are redacted on each layer)


@pytest.mark.parametrize("from_keyring", [False, True])
def test_part_of_a_key_a_server_quotes_is_redacted_too(monkeypatch, from_keyring):
    """A gateway that quotes the key without its "sk-ant-", or only its last 40 characters, or a
    key from the OS keyring (not in the environment): no 16 characters of it in a row survive."""
    from memchat import text

    key = "sk-ant-api03-CANARYq7Zt9xWm2Lp4Rk8Vn3Bc6Hd1Fg5Js0QwErTyUiOpAsDfGhJkLzXcVbNm_-123456789abcdefghijAA"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if from_keyring:
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        monkeypatch.setattr(text, "_LOADED_KEYS", set())
        text.is_secret(key)
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    body = f"invalid key ending in {key[-40:]} (key id {key[len('sk-ant-') :]}); see docs/errors-and-rate-limits"
    said = redact_secrets(body)
    assert said.count(MARK) == 2 and "docs/errors-and-rate-limits" in said, said
    assert not any(key[i : i + 16] in said for i in range(len(key) - 15)), said
    assert redact_secrets(said) == said


@pytest.mark.parametrize(
    "key",
    [
        "tok_Zm9v+YmFy/Y2FuYXJ5+c2VjcmV0/dG9rZW4=+QUJD/REVG==",  # a base64 gateway token
        "sk-ant-api03-CANARYzzQ9x+(.*)?[abc]{2}\\END-more~chars!here",  # a key of any characters
    ],
)
def test_no_part_of_a_key_of_any_characters_survives_a_server_quoting_it(monkeypatch, key):
    """A key is not always [A-Za-z0-9_-]: a server that quotes its end, its middle, its JSON escape
    or its upper case leaks none of its 16-character stretches."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for body in (
        f"invalid token ending {key[-24:]}",
        f"invalid token {key[7:]}; see docs/errors-and-rate-limits",
        json.dumps({"error": {"message": f"bad token ...{key[-30:]}"}}),
        f"TOKEN {key.upper()} REJECTED",
    ):
        said = redact_secrets(body)
        low = said.casefold()
        assert not any(key[i : i + 16].casefold() in low for i in range(len(key) - 15)), (body, said)
        assert not any(json.dumps(key[i : i + 16])[1:-1].casefold() in low for i in range(len(key) - 15)), said
        assert redact_secrets(said) == said
    assert redact_secrets("see docs/errors-and-rate-limits/2026") == "see docs/errors-and-rate-limits/2026"


def test_key_shapes_are_redacted_once_without_the_configured_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    secret = "sk-ant-api03-" + "B" * 30
    for body in (
        f"Authorization: Bearer {secret}",
        f'{{"authorization": "Bearer {secret}"}}',
        f"api_key={secret} and x-api-key: {secret}",
        json.dumps({"m": json.dumps({"x-api-key": "gateway-only-key-0042"})}),
    ):
        said = redact_secrets(body)
        assert "BBBBBB" not in said and "gateway-only" not in said and "key] key]" not in said, said
        assert redact_secrets(said) == said
    assert redact_secrets("export ANTHROPIC_API_KEY=sk-ant-...") == "export ANTHROPIC_API_KEY=sk-ant-..."


def test_a_401_that_echoes_the_key_reads_cleanly_everywhere(cli, api, monkeypatch, memchat_home):
    key = KEYS[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    echo = json.dumps({"authorization": f"Bearer {key}", "x-api-key": key})
    api.enqueue_error(401, f"invalid credentials: Authorization: Bearer {key} (got {echo})")
    plain = cli("ask", "hi")
    api.enqueue_error(401, f"invalid credentials: Bearer {key} {key}")
    as_json = cli("ask", "--json", "hi")
    stored = " ".join(r[0] or "" for r in db_rows(memchat_home, "SELECT error FROM messages"))
    for said in (plain.stderr, as_json.stdout + as_json.stderr, stored):
        assert MARK in said and "key] key]" not in said and "Bearer [" not in said, said
        assert not [f for f in fragments(key) if f in said], said
    assert plain.exit_code == 1 and plain.stderr.count("\n") == 1
    assert json.loads(as_json.stdout)["error"].count(MARK) == 2


# --- the audit trail records only exports that wrote something ------------------------------------


def _exports(cli) -> list[dict]:
    result = cli("audit", "--json")
    assert result.exit_code == 0, result.stderr
    return [e for e in json.loads(result.stdout) if e["action"].startswith("export")]


def test_a_refused_or_failed_export_is_not_in_the_audit_trail(cli, tmp_path):
    assert cli("ask", "--provider", "echo", "hello").exit_code == 0
    assert cli("memories", "add", "I live in Lisbon").exit_code == 0
    taken = tmp_path / "taken.md"
    taken.write_text("mine")
    unwritable = tmp_path / "no-such-dir" / "out.md"
    for args in (
        ["sessions", "export", "1", "-o", str(taken)],  # exists: refused, nothing written
        ["memories", "export", "-o", str(tmp_path / "taken.md"), "-f", "json"],
        ["sessions", "export", "1", "-o", str(unwritable)],  # cannot be written
        ["memories", "export", "-o", str(unwritable)],
    ):
        result = cli(*args)
        assert result.exit_code != 0, (args, result.stdout)
    assert taken.read_text() == "mine" and not unwritable.parent.exists()
    assert _exports(cli) == []
    assert cli("sessions", "export", "1", "-o", str(taken), "--force").exit_code == 0
    assert cli("memories", "export", "-o", str(tmp_path / "m.json")).exit_code == 0
    assert cli("sessions", "export", "1").exit_code == 0  # to stdout: written too
    done = _exports(cli)
    assert [(e["action"], json.loads(e["detail"])["to"]) for e in done] == [
        ("export session", "a file"),
        ("export memories", "a file"),
        ("export session", "stdout"),
    ]


# --- conversations that share an id in one export file ----------------------------------------------


def _chatgpt(conv_id: str, title: str, turns: list[tuple[str, str]]) -> dict:
    mapping: dict = {}
    parent = None
    for n, (node_id, text) in enumerate(turns):
        mapping[node_id] = {
            "id": node_id,
            "parent": parent,
            "children": [],
            "message": {
                "id": node_id,
                "author": {"role": "user" if n % 2 == 0 else "assistant"},
                "content": {"content_type": "text", "parts": [text]},
                "create_time": 1_700_000_000 + n,
            },
        }
        if parent:
            mapping[parent]["children"].append(node_id)
        parent = node_id
    return {"id": conv_id, "title": title, "create_time": 1_700_000_000, "mapping": mapping, "current_node": parent}


def _claude(conv_id: str, title: str, turns: list[tuple[str, str]]) -> dict:
    return {
        "uuid": conv_id,
        "name": title,
        "created_at": "2024-01-01T00:00:00Z",
        "chat_messages": [
            {"uuid": mid, "sender": "human" if n % 2 == 0 else "assistant", "text": text}
            for n, (mid, text) in enumerate(turns)
        ],
    }


FIRST = [("a1", "Plan the Lisbon trip"), ("a2", "Alfama is lovely")]
OTHER = [("b1", "Fix my bike chain"), ("b2", "Oil it first")]
LONGER = [*FIRST, ("a3", "And the museum?"), ("a4", "Closed on Mondays")]


def _titles(home) -> list[tuple]:
    return db_rows(home, "SELECT title, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s")


@pytest.mark.parametrize("write", [_chatgpt, _claude], ids=["chatgpt", "claude"])
def test_two_conversations_sharing_an_id_are_both_imported_and_counted(cli, tmp_path, memchat_home, write):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([write("c-1", "Lisbon", FIRST), write("c-1", "Bike", OTHER)]))
    first = cli("import", "--no-embed", str(path))
    assert first.exit_code == 0, first.stderr
    assert "4 messages into 2 new and 0 updated sessions (0 already present)" in first.stdout
    assert sorted(_titles(memchat_home)) == [("Bike", 2), ("Lisbon", 2)]  # each its own session, none merged
    again = cli("import", "--no-embed", str(path))
    assert "0 messages into 0 new and 0 updated sessions (4 already present)" in again.stdout
    assert len(_titles(memchat_home)) == 2


@pytest.mark.parametrize("write", [_chatgpt, _claude], ids=["chatgpt", "claude"])
def test_a_conversation_listed_twice_is_one_session_and_said_to_be_a_duplicate(cli, tmp_path, memchat_home, write):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([write("c-1", "Lisbon", FIRST), write("c-1", "Lisbon", LONGER)]))
    result = cli("import", "--no-embed", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"{write.__name__[1:]}: imported 4 messages into 1 new and 0 updated sessions (0 already present); "
        "skipped 1 conversation (1 duplicate)\n"
    )
    assert _titles(memchat_home) == [("Lisbon", 4)]  # the copy's newer messages are not lost


def test_the_store_never_counts_one_session_twice(memchat_home):
    from memchat.db import open_db
    from memchat.importer import ImportedMessage, ImportedSession, import_sessions

    db = open_db(memchat_home / "default.db")
    twice = [
        ImportedSession("x", "same", "t", [ImportedMessage(str(i), "user", f"m{i}", "2024-01-01")]) for i in (1, 2)
    ]
    result = import_sessions(db, twice)
    assert (result.sessions_added, result.sessions_updated, result.messages_added) == (1, 0, 2)
    assert len(set(result.session_ids)) == len(result.session_ids) == 1
    db.conn.close()


def test_an_argument_that_is_not_utf8_is_refused_in_one_line_whatever_the_command(tmp_path, memchat_home):
    """Bytes that are not UTF-8 reach argv as lone surrogates: `ask` with them had been an internal
    error (exit 70). A file named by such bytes is still a file to open."""
    import subprocess
    import sys

    env = dict(os.environ, MEMCHAT_PROVIDER="echo")
    for args in ([b"ask", b"\xff\xfe bad"], [b"--model", b"\xff", b"ask", b"hi"], [b"memories", b"add", b"caf\xe9"]):
        done = subprocess.run([sys.executable.encode(), b"-m", b"memchat", *args], capture_output=True, env=env)
        err = done.stderr.decode(errors="replace")
        assert done.returncode == 2 and "is not valid UTF-8" in err and err.count("\n") == 1, (args, err)
    export = tmp_path / "memories-\udcff.json"  # a name with the byte 0xff
    export.write_text(json.dumps({"format": "memchat-memories", "version": 1, "memories": [{"text": "kept"}]}))
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "memories", "import", str(export)], capture_output=True, env=env
    )
    assert done.returncode == 0 and b"imported 1 memor" in done.stdout, done.stderr


# --- bad input and failing disks found by an adversarial pass: one line, the right code ------------


def _one_error_line(done: subprocess.CompletedProcess, code: int, says: str) -> None:
    err = done.stderr.decode(errors="replace")
    assert done.returncode == code, (done.returncode, err)
    assert err.count("\n") == 1 and says in err and "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("args", [["log"], ["recall", "hello", "--json"], ["memories", "export", "-o", "-"]])
def test_output_to_a_full_disk_is_one_line_and_never_exit_0(memchat_home, args):
    assert run_memchat("--provider", "echo", "ask", "hello there").returncode == 0
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "memchat", *args], stdout=full, stderr=subprocess.PIPE, env=dict(os.environ)
        )
    _one_error_line(done, 1, "could not write the output: No space left on device")


def test_another_programs_sqlite_file_is_refused_and_left_untouched(tmp_path, memchat_home):
    other = tmp_path / "notes.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
        conn.execute("INSERT INTO notes VALUES (1)")
    before = other.read_bytes()
    done = run_memchat("--db", str(other), "recall", "anything")
    _one_error_line(done, 1, "another program's SQLite database, not memchat's; it was left untouched")
    assert other.read_bytes() == before and not Path(f"{other}-wal").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["log", "--since", "0001-01-01"], "further back or ahead than a date can be"),  # year 0 west of UTC
        (["usage", "--since", "800000d"], "further back or ahead than a date can be"),
        (["audit", "--since", "9999-12-31T23:00"], "further back or ahead than a date can be"),
        (["log", "--since", "2026-02-30"], "not a time: '2026-02-30'"),
        (["ask", "-s", "", "hi"], "session id must be a number, got ''"),
        (["context", "-s", ""], "session id must be a number, got ''"),
        (["chat", "-s", ""], "session id must be a number, got ''"),
        (["sessions", "delete", "", "--yes"], "an empty session id"),
        (["memories", "forget", " ", "--yes"], "memory id must be a number, got ' '"),
        # an empty path or time from a script's unset variable (an adversarial pass: --db "" wrote to
        # the main profile, --since "" filtered nothing)
        (["--db", "", "memories", "add", "x"], "the database path is empty"),
        (["recall", "hello", "--since", ""], "not a date or time: ''"),
        (["recall", "hello", "--until", ""], "not a date or time: ''"),
        (["log", "--since", ""], "not a time: ''"),
        (["usage", "--since", ""], "not a time: ''"),
    ],
)
def test_dates_out_of_range_and_empty_ids_are_refused_in_one_line(memchat_home, args, says):
    assert run_memchat("--provider", "echo", "ask", "hello there").returncode == 0
    done = run_memchat("--provider", "echo", *args, env={"TZ": "America/New_York"}, input="")
    _one_error_line(done, 2, says)
    assert db_rows(memchat_home, "SELECT count(*) FROM sessions") == [(1,)]  # nothing new was started


def test_a_limit_past_sqlites_integers_means_all(memchat_home):
    assert run_memchat("memories", "add", "I live in Lisbon").returncode == 0
    done = run_memchat("audit", "-n", "99999999999999999999", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)[0]["action"] == "add"


@pytest.mark.parametrize("name", ["MEMCHAT_MODEL", "ANTHROPIC_BASE_URL", "MEMCHAT_DB_KEY"])
def test_a_setting_in_the_environment_that_is_not_utf8_is_one_line_and_stores_nothing(memchat_home, name):
    env = {**os.environ, name: os.fsdecode(b"\xff")}
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "--provider", "echo", "ask", "hi"], capture_output=True, env=env
    )
    _one_error_line(done, 2, f"the environment variable {name} is not valid UTF-8")
    assert not (memchat_home / "default.db").exists() or db_rows(memchat_home, "SELECT count(*) FROM messages") == [
        (0,)
    ]


@pytest.mark.parametrize("url", ["http://999.999.1.1/", "http://127.0.0.1:99999/"])
def test_a_base_url_no_http_library_can_use_is_refused_before_anything_is_sent(memchat_home, url):
    done = run_memchat("ask", "hi", env={"ANTHROPIC_API_KEY": "sk-ant-test-0000", "ANTHROPIC_BASE_URL": url})
    _one_error_line(done, 1, "is not an http(s) URL")


def test_a_piped_chat_with_stdin_closed_ends_quietly(memchat_home):
    done = subprocess.run(
        [sys.executable, "-m", "memchat", "--provider", "echo"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=dict(os.environ),
        preexec_fn=lambda: os.close(0),
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr and b"internal error" not in done.stderr


def test_a_message_with_a_nul_is_refused_not_stored_cut(memchat_home):
    done = run_memchat("--provider", "echo", "ask", input=b"secret\x00 tail words here")
    _one_error_line(done, 2, "contains a NUL character")
    assert not (memchat_home / "default.db").exists() or db_rows(memchat_home, "SELECT count(*) FROM messages") == [
        (0,)
    ]


def test_a_database_that_cannot_be_opened_says_the_message_was_not_saved(tmp_path, memchat_home):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database at all " * 100)
    done = run_memchat("--db", str(garbage), "--provider", "echo", "ask", "hello")
    _one_error_line(done, 1, "Your message was NOT saved")


def test_a_log_line_the_disk_refuses_is_lost_quietly(tmp_path, capsys):
    from memchat.log import _QuietFileHandler

    handler = _QuietFileHandler(tmp_path / "memchat.log", encoding="utf-8")
    handler.stream.close()
    handler.stream = open("/dev/full", "w", encoding="utf-8")
    handler.emit(logging.LogRecord("memchat", logging.INFO, __file__, 1, "x" * 10_000, None, None))
    handler.close()
    assert capsys.readouterr().err == ""


def test_an_exported_private_memory_is_private_again_when_imported(tmp_path, memchat_home):
    assert run_memchat("memories", "add", "--private", "My PIN is 4471").returncode == 0
    exported = tmp_path / "memories.json"
    assert run_memchat("memories", "export", "-o", str(exported)).returncode == 0
    fresh = {"MEMCHAT_HOME": str(tmp_path / "other-home")}
    assert run_memchat("memories", "import", str(exported), env=fresh).returncode == 0
    shown = json.loads(run_memchat("memories", "show", "1", "--json", env=fresh).stdout)
    assert shown["text"] == "My PIN is 4471" and shown["private"] is True


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("created_at", "garbage", "'created_at' is not a date and time"),
        ("valid_from", "2026-02-30", "'valid_from' is not a date and time"),
        ("private", "yes", "'private' must be true or false"),
    ],
)
def test_an_import_with_a_date_that_is_no_date_is_refused_whole(tmp_path, memchat_home, field, value, says):
    bad = tmp_path / "bad.json"
    records = [{"text": "kept if all is well"}, {"text": "x", field: value}]
    bad.write_text(json.dumps({"format": "memchat-memories", "version": 1, "memories": records}))
    _one_error_line(run_memchat("memories", "import", str(bad)), 2, says)
    assert not (memchat_home / "default.db").exists() or db_rows(memchat_home, "SELECT count(*) FROM memories") == [
        (0,)
    ]


def test_an_import_whose_embedding_fails_says_the_messages_are_in(cli, tmp_path, memchat_home, monkeypatch):
    from memchat.app.memories import Memories

    def disk_full(self, progress=None, on_prepare=None):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Memories, "embed_backlog", disk_full)
    lines = [json.dumps({"session": "s1", "role": r, "content": f"said by the {r}"}) for r in ("user", "assistant")]
    (tmp_path / "chat.jsonl").write_text("\n".join(lines) + "\n")
    done = cli("import", str(tmp_path / "chat.jsonl"), "-f", "jsonl")
    assert done.exit_code == 1 and "the messages are imported, but embedding them failed" in done.stderr
    assert "`memchat reindex`" in done.stderr and done.stderr.count("\n") == 1
    assert db_rows(memchat_home, "SELECT count(*) FROM messages") == [(2,)]


@pytest.mark.parametrize("columns", ["0", "3", "19"])
def test_a_columns_setting_too_narrow_for_anything_is_not_an_empty_listing(memchat_home, columns):
    # COLUMNS=0 had printed nothing at all, exit 0: a table narrower than its borders holds no text
    assert run_memchat("memories", "add", "I keep bees in the garden").returncode == 0
    for command in (("memories", "list"), ("recall", "bees")):
        shown = run_memchat(*command, env={"COLUMNS": columns})
        assert shown.returncode == 0 and b"bees" in shown.stdout, (command, shown.stdout)


def test_an_api_key_pasted_into_a_message_or_a_memory_never_reaches_the_disk(cli, api, monkeypatch, memchat_home):
    key = "sk-ant-api03-CANARYq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-AAAA"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    sent = cli("ask", f"why does my key {key} get a 401?")
    assert sent.exit_code == 0 and "replaced with [redacted key]" in sent.stderr
    assert "CANARY" not in json.dumps(api.requests[-1])  # nor to the model
    other = "sk-ant-api03-OTHERq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-BBBB"  # a key shape, not the one set
    assert cli("ask", f"and this one: {other}").exit_code == 0
    refused = cli("memories", "add", f"My work key is {key}")
    assert refused.exit_code == 2 and "memchat key set" in refused.stderr
    for path in memchat_home.rglob("*"):
        if path.is_file():
            assert b"CANARY" not in path.read_bytes() and b"OTHERq7" not in path.read_bytes(), path


@pytest.mark.parametrize(
    "typed",
    [
        "my key is sk-ant-api03-CANARYq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-AAAA",
        "CANARYq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-AAAA is the end of it",  # the configured key's tail
        "curl -H 'x-api-key: abcdefgh12345678' https://api.example.com",
        'headers = {"Authorization": "Bearer abcdefgh12345678"}',
        "API_KEY=abcdefgh12345678 python run.py",
    ],
)
def test_the_quick_look_at_a_message_never_misses_what_redaction_would_take(typed, monkeypatch):
    # a message is first looked at cheaply (a megabyte of pasted code costs 5 ms, not 0.4 s): that
    # look must say yes wherever the full redaction would change the text
    from memchat.text import may_hold_key, redact_secrets

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-CANARYq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-AAAA")
    assert redact_secrets(typed) != typed
    assert may_hold_key(typed)
    assert not may_hold_key("def f(x):\n    return x * 2  # abcdefghijklmnopqrstuvwxyz0123456789\n" * 100)


def test_odd_environments_are_one_line_or_work_never_an_internal_error(tmp_path, memchat_home):
    """A time zone a day off UTC, an output encoding that cannot hold "é", a MEMCHAT_HOME longer than
    the file system takes: each had ended in an internal error, exit 70 (an adversarial pass)."""
    assert run_memchat("memories", "add", "Café au lait at Zoë's on Fridays").returncode == 0
    for name, value in (("TZ", "UTC+24"), ("TZ", "Nowhere/Else-99"), ("PYTHONIOENCODING", "ascii")):
        for args in (("memories", "list"), ("recall", "café"), ("log",), ("memories", "show", "1")):
            done = run_memchat(*args, env={name: value})
            assert done.returncode == 0 and b"internal error" not in done.stderr, (name, args, done.stderr[-300:])
    listed = run_memchat("memories", "list", env={"PYTHONIOENCODING": "ascii"}).stdout
    assert b"Caf\\xe9" in listed  # what the encoding cannot hold is shown as an escape, not dropped
    too_long = run_memchat("memories", "list", env={"MEMCHAT_HOME": str(tmp_path / ("x" * 300))})
    lines = too_long.stderr.decode().strip().splitlines()
    assert too_long.returncode != 0 and len(lines) == 1 and "too long for the file system" in lines[0], lines


def test_what_is_typed_or_piped_is_read_as_utf8_whatever_the_locale(memchat_home):
    """A piped chat under PYTHONIOENCODING=ascii ended in an internal error at "ü", latin-1 stored
    mojibake, and under LC_ALL=C with PYTHONUTF8=0 a valid UTF-8 argument was refused as not UTF-8."""
    for env in ({"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}):
        piped = run_memchat("--provider", "echo", input="ünïcode piped\n".encode(), env=env)
        assert piped.returncode == 0 and b"internal error" not in piped.stderr, (env, piped.stderr[-300:])
        asked = run_memchat("--provider", "echo", "ask", "café crème", env=env)
        assert asked.returncode == 0, (env, asked.stderr[-300:])
    said = {t for (t,) in db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'")}
    assert said == {"ünïcode piped", "café crème"}  # stored as typed, every time
    bad = run_memchat("--provider", "echo", input=b"\xff\xfe not text\n")
    assert bad.returncode == 1 and b"not valid UTF-8" in bad.stderr


def test_a_server_that_answers_a_web_page_is_said_to_be_no_api(memchat_home):
    """A 200 that is not the Messages API (a wifi login page, a base_url that names a web site) had
    read "the API call failed (AssertionError: )": it now says what to check. The message is kept."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = b"<html><body>Please log in to the hotel wifi</body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}", "ANTHROPIC_API_KEY": "sk-ant-test-key"}
        done = run_memchat("ask", "hello there", env=env)
    finally:
        server.shutdown()
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 1 and "not as the API does" in lines[-1] and "base_url" in lines[-1], lines
    assert db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'") == [("hello there",)]


def test_an_empty_memchat_db_is_a_bad_setting_and_an_empty_db_flag_a_usage_error(memchat_home):
    # a script's unset "$DB" writes to no profile either way; a setting from the environment that
    # cannot be used exits 1 as any bad setting does, a flag given empty 2 as any bad argument
    assert run_memchat("--provider", "echo", "ask", "hello there").returncode == 0
    _one_error_line(run_memchat("memories", "add", "x", env={"MEMCHAT_DB": ""}), 1, "the database path is empty")
    _one_error_line(run_memchat("--db", "", "memories", "add", "x"), 2, "the database path is empty")
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]
