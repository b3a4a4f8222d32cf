import json
import sqlite3

import pytest
from conftest import db_rows

from memchat import sessions
from memchat.db import open_db


def seed(cli, *prompts):
    for p in prompts:
        assert cli("--provider", "echo", "ask", p).exit_code == 0


def test_list_shows_sessions_newest_first_as_table_and_json(cli):
    seed(cli, "first topic", "second topic")
    table = cli("sessions", "list")
    assert table.exit_code == 0
    assert table.stdout.index("second topic") < table.stdout.index("first topic")
    rows = json.loads(cli("sessions", "list", "--json").stdout)
    assert [(s["id"], s["title"], s["message_count"]) for s in rows] == [(2, "second topic", 2), (1, "first topic", 2)]


def test_show_prints_the_transcript(cli):
    seed(cli, "hello there")
    result = cli("sessions", "show", "1")
    assert result.exit_code == 0
    assert (
        "## message 1 · You" in result.stdout
        and "## message 2 · Assistant" in result.stdout
        and "hello there" in result.stdout
        and "(echo) hello there" in result.stdout
    )


def test_messages_are_called_by_one_id_everywhere_and_can_be_opened(cli, memchat_home):
    """recall cites "message N"; sessions show, --around and pin take that same N, whatever the session."""
    seed(cli, "the first topic")
    for text in ("my locker code is 4417", "and the bike is blue", "thanks", "one more thing"):
        assert cli("--provider", "echo", "ask", "-c", text).exit_code == 0
    seed(cli, "another session entirely")
    found = json.loads(cli("recall", "locker code", "--json", "--all").stdout)
    locker = next(h for h in found if h["type"] == "message" and "4417" in h["text"])
    mid, sid = locker["id"], locker["session_id"]
    shown = cli("sessions", "show", str(sid)).stdout
    assert f"## message {mid} · " in shown
    around = cli("sessions", "show", str(sid), "--around", str(mid), "-C", "1").stdout
    assert f"## message {mid} · " in around and "my locker code is 4417" in around
    assert around.count("## message") == 3 and "## message 1 " not in around
    assert cli("sessions", "pin", str(sid), str(mid)).exit_code == 0
    assert db_rows(memchat_home, f"SELECT pinned FROM messages WHERE id = {mid}") == [(1,)]
    other = cli("sessions", "pin", "2", str(mid))
    assert other.exit_code == 1 and f"message {mid} is not in session 2" in other.stderr


def test_times_are_shown_in_local_time_to_the_minute(cli, monkeypatch):
    import re
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+05:30: a shift no rounding can hide
    time.tzset()
    try:
        seed(cli, "what time is it")
        stamp = db_rows_one(cli)
        shown = cli("sessions", "show", "1").stdout
        from datetime import datetime, timedelta

        utc = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        local = (utc + timedelta(hours=5, minutes=30)).strftime("%Y-%m-%d %H:%M")
        assert f"started {local} " in shown
        assert not re.search(r"\d{2}:\d{2}:\d{2}", shown)  # no seconds, no microseconds
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_rename_then_show_uses_the_new_title(cli):
    seed(cli, "x")
    assert cli("sessions", "rename", "1", "Webhook", "bug").stdout == "session 1: Webhook bug\n"
    assert cli("sessions", "show", "1").stdout.startswith("# Webhook bug")


def test_delete_needs_yes_when_not_interactive_and_removes_messages(cli, memchat_home):
    seed(cli, "secret plans", "keep me")
    refused = cli("sessions", "delete", "1")
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert cli("sessions", "delete", "1", "--yes").exit_code == 0
    conn = sqlite3.connect(memchat_home / "default.db")
    assert conn.execute("SELECT count(*) FROM messages WHERE content LIKE '%secret plans%'").fetchone()[0] == 0
    assert [r[0] for r in conn.execute("SELECT id FROM sessions")] == [2]


def test_export_markdown_and_json_to_private_file(cli, tmp_path):
    seed(cli, "export me")
    out = tmp_path / "s.json"
    assert cli("sessions", "export", "1", "--format", "json", "-o", str(out)).exit_code == 0
    assert out.stat().st_mode & 0o777 == 0o600
    data = json.loads(out.read_text())
    assert data["format"] == "memchat-session"
    assert [(m["role"], m["content"]) for m in data["messages"]] == [
        ("user", "export me"),
        ("assistant", "(echo) export me"),
    ]
    md = cli("sessions", "export", "1")
    assert md.stdout.startswith("# export me") and "(echo) export me" in md.stdout


def test_bad_session_ids_are_clear_errors(cli):
    seed(cli, "x")
    assert cli("sessions", "show", "99").stderr == "memchat: no session 99 (see `memchat sessions list`)\n"
    bad = cli("sessions", "show", "abc")
    assert bad.exit_code == 2 and bad.stderr == "memchat: session id must be a number, got 'abc'\n"
    assert (
        cli("sessions", "export", "1", "--format", "pdf").stderr
        == "memchat: unknown export format 'pdf': use md or json\n"
    )


def test_profiles_have_separate_databases(cli, memchat_home):
    assert cli("--provider", "echo", "--profile", "work", "ask", "work thing").exit_code == 0
    assert (memchat_home / "work.db").exists()
    assert json.loads(cli("sessions", "list", "--json").stdout) == []
    assert "work thing" in cli("--profile", "work", "sessions", "list").stdout


def test_failed_turn_leaves_user_message_unanswered_and_excluded_from_next_call(tmp_path):
    from memchat import tokens
    from memchat.context import compile_context

    db = open_db(tmp_path / "x.db")
    s = sessions.create_session(db)
    failed = sessions.add_message(db, s.id, "user", "lost call", status="unanswered")
    sessions.record_reply(db, failed.id, "", status="incomplete", error="boom")
    current = sessions.add_message(db, s.id, "user", "try again", status="unanswered")
    sent = compile_context(
        history=sessions.messages(db, s.id),
        current=current,
        system="",
        summary=None,
        summary_through=None,
        window=200_000,
        reserve=1000,
        strategy="tokens",
        window_turns=20,
        count=tokens.count,
    ).messages
    assert sent == [{"role": "user", "content": "try again"}]
    assert sessions.get_message(db, failed.id).status == "unanswered"


@pytest.mark.parametrize(
    "typed", ["١", "１", "1_0", "²"], ids=["arabic-indic", "fullwidth", "underscore", "superscript"]
)
def test_ids_are_ascii_digits_only(cli, typed):
    # int() reads all of these as numbers: "/resume ١" used to open session 1.
    seed(cli, "x")
    bad = cli("sessions", "show", typed)
    assert bad.exit_code == 2 and bad.stderr.startswith("memchat: session id must be a number")
    assert cli("memories", "show", typed).exit_code == 2


def db_rows_one(cli) -> str:
    return json.loads(cli("sessions", "list", "--json").stdout)[0]["created_at"]
