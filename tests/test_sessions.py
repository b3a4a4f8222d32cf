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


# --- deleting several sessions: ids, ranges, --empty ----------------------------------------------


def _session_ids(memchat_home) -> list[int]:
    return [r[0] for r in db_rows(memchat_home, "SELECT id FROM sessions ORDER BY id")]


def test_delete_takes_several_ids_and_ranges_one_line_each(cli, memchat_home):
    seed(cli, "alpha one", "bravo two", "charlie three", "delta four", "golf five", "foxtrot six")
    result = cli("sessions", "delete", "2", "4-5", "--yes")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "deleted session 2\ndeleted session 4\ndeleted session 5\n"
    assert _session_ids(memchat_home) == [1, 3, 6]
    for word in ("bravo", "delta", "golf"):
        assert db_rows(memchat_home, f"SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '{word}'") == [(0,)]
    assert db_rows(memchat_home, "SELECT count(*) FROM messages") == [(6,)]
    # a range may have gaps (sessions deleted before): it deletes the ones there are
    assert cli("sessions", "delete", "1-3", "--yes").stdout == "deleted session 1\ndeleted session 3\n"
    (audit,) = [e for e in json.loads(cli("audit", "--json").stdout) if "1, 3" in e["detail"]]
    assert audit["action"] == "delete session"


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["1", "99"], 1, "no session 99"),
        (["2", "3-1"], 2, "range 3-1 runs backwards: write 1-3"),
        (["2", "10-20"], 1, "no session in 10-20"),
        (["x"], 2, "session id must be a number"),
        (["2-"], 2, "session id must be a number"),
        (["0-2"], 2, "session id must be a positive number"),
        ([], 2, "ids or ranges (3 5 7-9), or --empty"),
    ],
    ids=["unknown id", "backwards", "empty range", "word", "open range", "zero", "nothing"],
)
def test_a_bad_id_or_range_deletes_nothing_and_says_why_in_one_line(cli, memchat_home, args, code, said):
    seed(cli, "one", "two", "three")
    result = cli("sessions", "delete", *args, "--yes")
    assert result.exit_code == code and said in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert _session_ids(memchat_home) == [1, 2, 3]


def test_deleting_several_asks_first_and_lists_them(cli, memchat_home):
    seed(cli, "one", "two", "three")
    refused = cli("sessions", "delete", "1-2")  # not a terminal, no --yes: refused, not guessed
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert "  1: one, 2 messages" in refused.stderr and "  2: two, 2 messages" in refused.stderr
    assert _session_ids(memchat_home) == [1, 2, 3]


def _age_messages(home, minutes: int) -> None:
    """Every message written `minutes` earlier than it was, as time passing would."""
    from datetime import UTC, datetime, timedelta

    conn = sqlite3.connect(home / "default.db")
    with conn:
        for mid, at in conn.execute("SELECT id, created_at FROM messages").fetchall():
            then = datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC) - timedelta(minutes=minutes)
            conn.execute(
                "UPDATE messages SET created_at = ? WHERE id = ?", (then.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), mid)
            )
    conn.close()


def test_delete_empty_removes_the_sessions_a_failed_ask_left(cli, api, memchat_home):
    api.enqueue_error(400, "bad request")
    assert cli("ask", "this one fails").exit_code == 1  # your message is kept, unanswered, in session 1
    api.enqueue_text("fine")
    assert cli("ask", "this one works").exit_code == 0
    api.enqueue_error(400, "bad request")
    assert cli("ask", "fails again").exit_code == 1
    assert cli("--provider", "echo", "chat", input="undone soon\n/undo\n").exit_code == 0  # no reply that stands
    assert _session_ids(memchat_home) == [1, 2, 3, 4]
    recent = cli("sessions", "delete", "--empty", "--yes")  # an ask may still be waiting for its reply
    assert recent.exit_code == 0 and recent.stdout == "" and _session_ids(memchat_home) == [1, 2, 3, 4]
    _age_messages(memchat_home, minutes=sessions.SETTLED_MINUTES + 1)
    result = cli("sessions", "delete", "--empty", "--yes")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "deleted session 1\ndeleted session 3\ndeleted session 4\n"
    assert _session_ids(memchat_home) == [2]
    assert db_rows(memchat_home, "SELECT count(*) FROM messages WHERE content LIKE '%fails%'") == [(0,)]
    again = cli("sessions", "delete", "--empty", "--yes")
    assert again.exit_code == 0 and again.stdout == "" and "no session without a reply" in again.stderr
    assert cli("sessions", "delete", "--empty", "2", "--yes").stdout == "deleted session 2\n"  # with ids: both


def test_deleting_sessions_together_forgets_what_was_drawn_from_them_together(cli, memchat_home, real_encoder):
    """A fact drawn from messages of two sessions goes when both go (one after the other would keep it,
    its sources half gone); its words leave the file."""
    from test_trust import raw_bytes

    from memchat.memory.store.memories import MemoryStore

    seed(cli, "My tapir is called Quentilius.", "Quentilius eats figs.", "Bread recipes, unrelated.")
    store = MemoryStore(open_db(memchat_home / "default.db"))
    both = store.add("The user's tapir Quentilius eats figs.", source_message_ids=[1, 3])
    kept = store.add("The user bakes bread.", source_message_ids=[5])
    assert cli("recall", "tapir").exit_code == 0  # vectors (and the vector copy) exist now
    result = cli("sessions", "delete", "1", "2", "--yes")
    assert result.exit_code == 0 and f"forgot 1 memory drawn only from them: {both.id}" in result.stderr
    assert store.get(both.id).status == "forgotten" and store.get(kept.id).status == "active"
    assert b"Quentilius" not in raw_bytes(memchat_home / "default.db")
