"""Imports from other tools, against files built to their real formats (tests/fixtures_*.py):
ChatGPT's and Claude.ai's data exports and simonw/llm's logs.db (both schema generations)."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
from conftest import db_rows, run_memchat
from fixtures_chatgpt import CHATGPT_EXPECTED, write_chatgpt_export, write_chatgpt_malformed
from fixtures_claude import CLAUDE_EXPECTED, write_claude_export, write_claude_malformed
from fixtures_llm import write_llm_logs_current, write_llm_logs_legacy, write_llm_logs_malformed

from memchat.errors import UsageError
from memchat.importer import load
from memchat.importer.model import as_time


def _by_id(sessions):
    return {s.external_id: s for s in sessions}


def _claude_content(expected_message):
    attached = [
        f"[attached: {name or 'pasted text'}]\n{text.strip()}" for name, text in expected_message["attachments"]
    ]
    return "\n\n".join(p for p in [expected_message["content"], *attached] if p)


# --- ChatGPT -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shards", [0, 2], ids=["conversations.json", "conversations-000.json…"])
def test_chatgpt_export_follows_the_branch_you_saw_and_keeps_titles_times_models(tmp_path, shards):
    files = write_chatgpt_export(tmp_path / "export", shards=shards)
    sessions, kind, skipped = load(files[0] if not shards else tmp_path / "export")
    assert kind == "chatgpt"
    got = _by_id(sessions)
    expected = {e["external_id"]: e for e in CHATGPT_EXPECTED.values()}
    assert set(got) == {k for k, e in expected.items() if e["messages"]}  # D: nothing visible, skipped
    assert skipped.counts == {"empty": 1}
    for key, session in got.items():
        want = expected[key]
        assert session.source == "chatgpt" and session.title == want["title"] and session.model == want["model"]
        assert [(m.external_id, m.role, m.content, m.model) for m in session.messages] == [
            (m["external_id"], m["role"], m["content"], m["model"]) for m in want["messages"]
        ]
        for mine, theirs in zip(session.messages, want["messages"], strict=True):
            if theirs["created_at"] is not None:
                assert mine.created_at == as_time(theirs["created_at"])
        times = [m.created_at for m in session.messages]
        assert times == sorted(times)  # a message without a time takes the one before's


def test_a_folder_is_read_itself_never_searched(tmp_path):
    write_chatgpt_export(tmp_path / "deep" / "export")
    with pytest.raises(UsageError, match="holds no conversations.json"):
        load(tmp_path / "deep")  # the export is one level down: not picked up from a parent folder


def test_a_zipped_export_imports_like_its_folder(tmp_path):
    import zipfile

    (path,) = write_chatgpt_export(tmp_path / "e")
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(path, "conversations.json")
        z.writestr("chat.html", "<html></html>")
    assert _by_id(load(archive)[0]).keys() == _by_id(load(path)[0]).keys()


def test_malformed_chatgpt_files_are_refused_in_one_line_or_degrade_per_conversation(tmp_path):
    bad = write_chatgpt_malformed(tmp_path)
    with pytest.raises(UsageError, match="invalid JSON"):
        load(bad["truncated.json"])
    with pytest.raises(UsageError, match="JSON lines|session"):  # an object: read as memchat/JSON lines, refused
        load(bad["not_a_list.json"])
    with pytest.raises(UsageError, match="empty list"):
        load(bad["empty_list.json"])
    sessions, _, skipped = load(bad["bad_nodes.json"])
    # dangling current_node and no current_node: the newest leaf; a parent cycle stops; no mapping,
    # a string and null: skipped as malformed; a null author and non-list parts lose those messages only
    assert skipped.counts == {"malformed": 3}
    assert len(sessions) == 4 and all(s.messages for s in sessions)


# --- Claude --------------------------------------------------------------------------------------


@pytest.mark.parametrize("zipped", [False, True])
def test_claude_export_takes_the_newest_branch_with_attachment_text(tmp_path, zipped):
    written = write_claude_export(tmp_path / "claude", zip_it=zipped, projects_dir=zipped)
    source = written if zipped else tmp_path / "claude" / "conversations.json"
    sessions, kind, skipped = load(source)
    assert kind == "claude"
    got = _by_id(sessions)
    assert set(got) == {k for k, e in CLAUDE_EXPECTED.items() if e["messages"]}
    assert skipped.counts == {"empty": 1}
    for key, session in got.items():
        want = CLAUDE_EXPECTED[key]
        assert session.title == (want["title"] or None) and session.summary == (want["summary"] or None)
        assert [(m.external_id, m.role, m.content, m.created_at) for m in session.messages] == [
            (m["external_id"], m["role"], _claude_content(m), as_time(m["created_at"])) for m in want["messages"]
        ]


def test_malformed_claude_conversations_are_skipped_not_fatal(tmp_path):
    bad = write_claude_malformed(tmp_path)
    with pytest.raises(UsageError, match="invalid JSON"):
        load(bad["truncated.json"])
    sessions, _, skipped = load(bad["bad_messages.json"])
    assert skipped.counts == {"malformed": 2}  # {"uuid": "x"} without messages, and 42
    assert len(sessions) == 3 and all(s.messages for s in sessions)


# --- llm -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("writer", [write_llm_logs_legacy, write_llm_logs_current], ids=["llm<=0.31", "llm>=0.32"])
def test_llm_logs_db_both_generations_read_only(tmp_path, writer):
    (tmp_path / "llm").mkdir()
    path = tmp_path / "llm" / "logs.db"
    expected = writer(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    sessions, kind, _ = load(path)
    assert kind == "llm"
    got = _by_id(sessions)
    assert set(got) == {k for k, e in expected.items() if e["messages"]}
    for key, session in got.items():
        want = expected[key]
        assert (session.title, session.model, session.system) == (want["title"], want["model"], want["system"])
        assert [(m.external_id, m.role, m.content, m.model) for m in session.messages] == [
            (m["external_id"], m["role"], m["content"].strip(), m["model"]) for m in want["messages"]
        ]
        assert [m.created_at for m in session.messages] == [as_time(m["created_at"]) for m in want["messages"]]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # never written
    assert sorted(p.name for p in path.parent.iterdir()) == ["logs.db"]  # no -wal or -shm left beside it


def test_broken_sqlite_files_are_one_line(tmp_path):
    bad = write_llm_logs_malformed(tmp_path / "bad")
    for name, path in bad.items():
        try:
            sessions, _, _ = load(path)
        except UsageError as exc:
            assert "\n" not in exc.message, name
        else:
            assert all(s.messages for s in sessions), name  # dangling references: what can be read is


def test_a_memchat_database_or_another_sqlite_file_is_named(tmp_path, memchat_home):
    run_memchat("--provider", "echo", "ask", "hello")
    with pytest.raises(UsageError, match="a memchat database"):
        load(memchat_home / "default.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE photos (id)").connection.commit()
    with pytest.raises(UsageError, match=r"not llm's logs.db \(tables: photos\)"):
        load(other)
    with pytest.raises(UsageError, match="not a claude file|SQLite database, not a claude"):
        load(other, "claude")


# --- through the command line ----------------------------------------------------------------------


def test_import_twice_adds_nothing_and_recall_finds_what_was_imported(tmp_path, memchat_home):
    (path,) = write_chatgpt_export(tmp_path / "e")
    first = run_memchat("import", str(path))
    assert first.returncode == 0, first.stderr
    line = first.stdout.decode()
    messages = sum(len(e["messages"]) for e in CHATGPT_EXPECTED.values())
    assert (
        line.startswith(f"chatgpt: imported {messages} messages into 3 new")
        and "skipped 1 conversation (1 empty)" in line
    )
    again = run_memchat("import", str(path)).stdout.decode()
    assert f"imported 0 messages into 0 new and 0 updated sessions ({messages} already present)" in again
    titles = db_rows(memchat_home, "SELECT title, source FROM sessions ORDER BY id")
    assert {t for t, _ in titles} >= {e["title"] for e in CHATGPT_EXPECTED.values() if e["messages"] and e["title"]}
    assert {s for _, s in titles} == {"chatgpt"}
    found = json.loads(run_memchat("recall", "--json", "--all", CHATGPT_EXPECTED_QUERY()).stdout)
    assert found and all(h["type"] == "message" for h in found)


def CHATGPT_EXPECTED_QUERY():  # a few words of a real imported message
    first = next(e for e in CHATGPT_EXPECTED.values() if e["messages"])
    return " ".join(first["messages"][0]["content"].split()[:6])


def test_import_refuses_what_it_cannot_read_in_one_line(tmp_path):
    cases = {
        "notes.txt": b"just some notes\n",
        "list.json": json.dumps([1, 2, 3]).encode(),
        "objects.json": json.dumps([{"a": 1}]).encode(),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        result = run_memchat("import", str(tmp_path / name))
        err = result.stderr.decode()
        assert result.returncode != 0 and err.count("\n") == 1 and "Traceback" not in err, (name, err)
    assert "not a ChatGPT or Claude export" in run_memchat("import", str(tmp_path / "objects.json")).stderr.decode()
    bad_format = run_memchat("import", "--format", "docx", str(tmp_path / "list.json"))
    assert bad_format.returncode != 0 and "chatgpt, claude, llm, memchat, jsonl" in bad_format.stderr.decode()


def test_imported_sessions_are_never_captured_behind_your_back(api, tmp_path, memchat_home):
    (path,) = write_chatgpt_export(tmp_path / "e")
    assert run_memchat("import", "--no-embed", str(path)).returncode == 0
    env = {"MEMCHAT_MEMORY_CAPTURE": "true"}
    assert run_memchat("memories", "capture", env=env).returncode == 0  # every pending session
    assert not any((r.get("tool_choice") or {}).get("name") == "record_memories" for r in api.requests)
    refused = run_memchat("import", "--capture", "--no-embed", str(path))  # no terminal to ask on
    assert refused.returncode != 0 and "--yes" in refused.stderr.decode()
    assert api.requests == []


def test_an_import_with_capture_that_cannot_ask_imports_nothing(api, tmp_path, memchat_home):
    # refused before anything is written: running it again with --yes is the whole import, not half
    (path,) = write_chatgpt_export(tmp_path / "e")
    refused = run_memchat("import", "--capture", "--no-embed", str(path))
    assert refused.returncode == 2 and "--yes" in refused.stderr.decode()
    assert refused.stderr.decode().count("\n") == 1 and refused.stdout == b""
    assert not (memchat_home / "default.db").exists()  # not even a profile was made


@pytest.mark.parametrize(
    "flags, why",
    [((), "no Anthropic API key"), (("--no-memory",), "memory is off for this run")],
)
def test_an_import_with_capture_that_could_not_capture_imports_nothing(tmp_path, memchat_home, flags, why):
    # --yes does not get half an import: what could not be captured is refused before it is imported
    (path,) = write_chatgpt_export(tmp_path / "e")
    refused = run_memchat(*flags, "import", "--capture", "--yes", "--no-embed", str(path))
    said = refused.stderr.decode()
    assert refused.returncode != 0 and why in said and said.count("\n") == 1, said
    assert not (memchat_home / "default.db").exists()


@pytest.mark.parametrize("command", [("import", "--no-embed"), ("memories", "import")])
def test_a_file_that_cannot_be_imported_leaves_no_profile_behind(tmp_path, memchat_home, command):
    for body in ('{"format": "something else"}', "not json", '[{"role": "user"}]'):
        bad = tmp_path / "bad.json"
        bad.write_text(body)
        refused = run_memchat(*command, str(bad))
        assert refused.returncode != 0 and refused.stderr.decode().count("\n") == 1, refused.stderr
        assert not (memchat_home / "default.db").exists(), body


@pytest.mark.parametrize("written, forced", [("chatgpt", "claude"), ("claude", "chatgpt")])
def test_an_export_under_the_other_format_is_named_not_imported_as_nothing(tmp_path, memchat_home, written, forced):
    (path, *_) = (write_chatgpt_export if written == "chatgpt" else write_claude_export)(tmp_path / "e")
    wrong = run_memchat("import", "--no-embed", "--format", forced, str(path))
    said = wrong.stderr.decode()
    assert wrong.returncode == 2 and said.count("\n") == 1, said
    assert f"is a {written} export, not {forced}: use --format {written}" in said
    assert not (memchat_home / "default.db").exists()  # refused before the profile was opened
    assert run_memchat("import", "--no-embed", "--format", written, str(path)).returncode == 0


def test_import_capture_says_the_cost_and_captures_in_the_background(api, tmp_path, memchat_home):
    from conftest import wait_for_detached

    (path,) = write_chatgpt_export(tmp_path / "e")
    result = run_memchat("import", "--capture", "--yes", "--no-embed", str(path))
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    assert "3 calls to claude-haiku-4-5" in err or "calls to claude-haiku-4-5" in err
    wait_for_detached(memchat_home)
    extractions = [r for r in api.requests if (r.get("tool_choice") or {}).get("name") == "record_memories"]
    assert 1 <= len(extractions) <= 3 and all(r["model"] == "claude-haiku-4-5" for r in extractions)


def test_a_session_kept_out_of_memory_stays_out_through_export_and_import(cli, tmp_path, memchat_home, monkeypatch):
    """--no-memory is "for good": a session exported as JSON and imported into another profile (or
    back into a copy that already has it) is still never injected into another conversation."""
    said = "My secret side project is codenamed Bluebird and it is a dating app"
    assert cli("--provider", "echo", "--no-memory", "ask", "--", said).exit_code == 0
    exported = tmp_path / "s1.json"
    assert cli("sessions", "export", "1", "-o", str(exported)).exit_code == 0
    assert json.loads(exported.read_text())["session"]["memory_off"] is True

    other = tmp_path / "other"
    monkeypatch.setenv("MEMCHAT_HOME", str(other))
    assert cli("import", str(exported)).exit_code == 0
    assert db_rows(other, "SELECT memory_off FROM sessions") == [(1,)]
    asked = cli(
        "--provider", "echo", "ask", "--explain", "--json", "--", "How many users does my Bluebird dating app have?"
    )
    assert asked.exit_code == 0, asked.stderr
    assert "Bluebird" not in json.dumps(json.loads(asked.stdout.splitlines()[-1]).get("memory"))
    found = cli("recall", "--json", "Bluebird")  # your own search still finds it
    assert "Bluebird" in found.stdout

    # the same session imported earlier without the flag (an older export) is turned off by the newer one
    third = tmp_path / "third"
    monkeypatch.setenv("MEMCHAT_HOME", str(third))
    data = json.loads(exported.read_text())
    data["session"]["memory_off"] = False
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data))
    assert cli("import", str(older)).exit_code == 0
    assert db_rows(third, "SELECT memory_off FROM sessions") == [(0,)]
    assert cli("import", str(exported)).exit_code == 0
    assert db_rows(third, "SELECT memory_off FROM sessions") == [(1,)]


def test_a_lone_surrogate_in_an_export_is_replaced_not_the_end_of_the_import(cli, memchat_home, tmp_path):
    """A broken emoji in an export ("\\ud83d" alone, as JSON allows) cannot be stored as text: it is
    kept as U+FFFD, and the rest of the file imports (it had stopped the whole import)."""
    from fixtures_chatgpt import chatgpt_conversations

    convs = chatgpt_conversations()
    for node in convs[0]["mapping"].values():
        if (node.get("message") or {}).get("content", {}).get("parts"):
            node["message"]["content"]["parts"] = ["a broken emoji \ud83d here"]
            node["message"]["author"]["name"] = "Ana \udc00"
    convs[0]["title"] = "Trip \ud800 plans"
    (tmp_path / "conversations.json").write_text(json.dumps(convs), encoding="utf-8")  # \\u escapes, as exports hold
    result = cli("import", str(tmp_path / "conversations.json"), "--no-embed")
    assert result.exit_code == 0, result.stderr
    texts = [t for (t,) in db_rows(memchat_home, "SELECT content FROM messages")]
    assert "a broken emoji \ufffd here" in texts
    assert ("Trip \ufffd plans",) in db_rows(memchat_home, "SELECT title FROM sessions")
