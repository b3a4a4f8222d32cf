"""`memchat import FILE`: past conversations in as sessions, idempotent, with clear errors."""

import json

import pytest
from conftest import db_rows

LINES = [
    {
        "session": "trip",
        "role": "user",
        "content": "We should book the Lisbon flat",
        "timestamp": "2024-05-01T10:00:00",
        "name": "Ana",
        "id": "m1",
    },
    {
        "session": "trip",
        "role": "assistant",
        "content": "The flat near Alfama looks good",
        "timestamp": "2024-05-01T10:01:00",
        "name": "Bo",
        "id": "m2",
    },
    {"session": 7, "role": "user", "content": "ok", "timestamp": "2024-06-01T09:00:00+02:00"},
    {"session": 7, "role": "user", "content": "ok", "timestamp": "2024-06-01T09:00:00+02:00"},
]


def write_lines(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_json_lines_become_sessions_with_speakers_and_reimport_adds_nothing(cli, tmp_path, memchat_home, embedder):
    f = write_lines(tmp_path / "chat.jsonl", LINES)
    first = cli("import", str(f))
    assert first.exit_code == 0, first.stderr
    assert first.stdout == "jsonl: imported 4 messages into 2 new and 0 updated sessions (0 already present)\n"
    assert db_rows(
        memchat_home,
        "SELECT s.title, s.source, s.external_id, m.role, m.name, m.external_id, m.content, "
        "m.created_at FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY m.id",
    )[:3] == [
        ("trip", "jsonl", "trip", "user", "Ana", "m1", "We should book the Lisbon flat", "2024-05-01T10:00:00.000000Z"),
        (
            "trip",
            "jsonl",
            "trip",
            "assistant",
            "Bo",
            "m2",
            "The flat near Alfama looks good",
            "2024-05-01T10:01:00.000000Z",
        ),
        (
            "7",
            "jsonl",
            "7",
            "user",
            None,
            db_rows(memchat_home, "SELECT external_id FROM messages WHERE id = 3")[0][0],
            "ok",
            "2024-06-01T07:00:00.000000Z",
        ),
    ]
    assert db_rows(memchat_home, "SELECT count(*) FROM message_vectors") == [(4,)]  # embedded by the import
    again = cli("import", str(f))
    assert again.stdout == "jsonl: imported 0 messages into 0 new and 0 updated sessions (4 already present)\n"
    write_lines(f, [*LINES, {"session": "trip", "role": "user", "content": "Booked it", "id": "m3"}])
    more = cli("import", str(f))
    assert more.stdout == "jsonl: imported 1 message into 0 new and 1 updated session (4 already present)\n"
    assert db_rows(memchat_home, "SELECT count(*) FROM messages") == [(5,)]
    hits = json.loads(cli("recall", "what did Ana say about the flat?", "--kind", "message", "--json").stdout)
    assert hits[0]["text"] == "We should book the Lisbon flat" and hits[0]["name"] == "Ana"


def test_a_memchat_session_export_imports_once(cli, tmp_path, memchat_home):
    assert cli("--provider", "echo", "ask", "hello from the old laptop").exit_code == 0
    export = tmp_path / "s.json"
    assert cli("sessions", "export", "1", "--format", "json", "-o", str(export)).exit_code == 0
    same_db = cli("import", str(export), "--no-embed")
    assert same_db.stdout == "memchat: imported 0 messages into 0 new and 0 updated sessions (2 already present)\n"
    other = tmp_path / "other.db"
    into_other = cli("--db", str(other), "import", str(export), "--no-embed")
    assert into_other.stdout == "memchat: imported 2 messages into 1 new and 0 updated sessions (0 already present)\n"
    assert cli("--db", str(other), "import", str(export), "--no-embed").stdout.startswith(
        "memchat: imported 0 messages"
    )
    assert db_rows(
        other.parent,
        "SELECT s.title, m.role, m.content FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY m.id",
        name=other.name,
    ) == [
        ("hello from the old laptop", "user", "hello from the old laptop"),
        ("hello from the old laptop", "assistant", "(echo) hello from the old laptop"),
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b'{"session": 1, "role": "user", "content": "hi"}\n{"session": 1, "role": "user" "content": "x"}\n',
            "line 2: invalid JSON (Expecting ',' delimiter, column 31)",
        ),
        (
            b'{"session": 1, "role": "system", "content": "hi"}\n',
            "line 1: 'role' must be user or assistant, got 'system'",
        ),
        (b'{"session": 1, "role": "user"}\n', "line 1: missing 'content'"),
        (b'{"role": "user", "content": "hi"}\n', "line 1: missing 'session'"),
        (b'{"session": 1, "role": "user", "content": 5}\n', "line 1: 'content' must be a string, got int"),
        (
            b'{"session": 1, "role": "user", "content": "hi", "timestamp": "yesterday"}\n',
            "line 1: 'timestamp' must be an ISO-8601",
        ),
        (
            b'{"session": [1], "role": "user", "content": "hi"}\n',
            "line 1: 'session' must be a non-empty string or a number",
        ),
        (b"[1, 2]\n", "line 1: expected an object"),
        (
            b'{"session": 1, "role": "user", "content": "ok"}\n{"session": 1, "role": "user", "content": "caf\xe9"}\n',
            "is not valid UTF-8 (line 2, byte 94)",
        ),
        (b"", "is empty: nothing to import"),
        (
            b'{"format": "memchat-session", "version": 9, "session": {}, "messages": []}',
            "newer memchat (session format version 9",
        ),
        (b'{"format": "memchat-memories", "version": 1, "memories": []}', "use `memchat memories import` for it"),
        (
            b'{"format": "memchat-session", "version": 1, "session": {"id": 1, "created_at": "t"}, "messages": [{"id": 1}]}',
            "message 1: missing 'role'",
        ),
        (
            b'{"format": "memchat-session", "version": 1, "session": {"id": 1, "created_at": "\\ud8b8"}, "messages": []}',
            "session: 'created_at'",
        ),
        (b'{"format": "chatgpt-conversations", "version": 1}', "is a 'chatgpt-conversations' file, not a conversation"),
        (b"SQLite format 3\x00" + bytes(200), "not a readable SQLite database"),
    ],
    ids=[
        "bad-json",
        "role",
        "no-content",
        "no-session",
        "content-type",
        "timestamp",
        "session-type",
        "not-object",
        "utf8",
        "empty",
        "newer",
        "memories-file",
        "export-message",
        "export-lone-surrogate",
        "other-format",
        "sqlite-file",
    ],
)
def test_bad_files_are_one_line_errors_and_import_nothing(cli, tmp_path, memchat_home, content, message):
    f = tmp_path / "bad.jsonl"
    f.write_bytes(content)
    result = cli("import", str(f))
    assert result.exit_code == 2
    assert result.stderr.startswith("memchat: ") and message in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""
    # Refused before the profile is opened: nothing written, not even an empty database.
    assert not (memchat_home / "default.db").exists()


def test_a_missing_file_is_a_clear_error(cli, tmp_path):
    result = cli("import", str(tmp_path / "nope.jsonl"))
    assert (result.exit_code, result.stderr) == (2, f"memchat: no such file: {tmp_path / 'nope.jsonl'}\n")
