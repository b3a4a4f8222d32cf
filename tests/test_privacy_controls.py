"""Consent, retention windows and purge, the audit trail: the controls a private memory owes its user."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pexpect
from conftest import ROOT, db_rows, run_memchat
from test_repl import quit_

from memchat.db import open_db
from memchat.memory.store.memories import MemoryStore


def _spawn_fresh(env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "MEMCHAT_MEMORY_CAPTURE"}  # nothing decided yet
    env.update(TERM="xterm-256color", **(env_extra or {}))
    env.pop("NO_COLOR", None)
    return pexpect.spawn(
        sys.executable,
        ["-m", "memchat"],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=15,
        dimensions=(30, 120),
    )


def _consent(home):
    return db_rows(home, "SELECT value FROM profile_settings WHERE name = 'consent.capture'")


def test_the_first_chat_asks_once_and_enter_means_yes(memchat_home):
    child = _spawn_fresh()
    child.expect_exact("Learn memories from your chats? [Y/n]")
    child.sendline("")
    child.expect_exact("memory capture on")
    quit_(child)
    assert _consent(memchat_home) == [("yes",)]
    again = _spawn_fresh()
    index = again.expect_exact(["Learn memories", "›"])
    assert index == 1  # asked once
    again.sendcontrol("d")
    again.expect(pexpect.EOF)


def test_an_unclear_answer_is_asked_again_not_taken_for_no(memchat_home):
    child = _spawn_fresh()
    child.expect_exact("Learn memories from your chats? [Y/n]")
    child.sendline("maybe")
    child.expect_exact("Please answer y or n")
    child.sendline("y")
    child.expect_exact("memory capture on")
    child.expect_exact("›")
    child.sendline("/capture off")
    child.expect_exact("memory capture is off for this chat")
    quit_(child)
    assert _consent(memchat_home) == [("yes",)]


def test_no_turns_capture_off_for_the_profile_even_when_the_config_says_capture(api, memchat_home):
    from conftest import wait_for_detached

    child = _spawn_fresh({"MEMCHAT_MEMORY_CAPTURE_EVERY": "1"})
    child.expect_exact("[Y/n]")
    child.sendline("n")
    child.expect_exact("memory capture off")
    child.expect_exact("›")
    child.sendline("I live in Lisbon and my dentist is Dr. Okafor.")
    child.expect_exact("echo: I live in Lisbon")  # the reply, then the prompt back in raw mode
    child.expect_exact("›")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert _consent(memchat_home) == [("no",)]
    assert run_memchat("ask", "my sister is called Ana", env={"MEMCHAT_MEMORY_CAPTURE": "true"}).returncode == 0
    wait_for_detached(memchat_home)
    assert not any((r.get("tool_choice") or {}).get("name") == "record_memories" for r in api.requests)
    assert run_memchat("consent").stdout.decode().startswith("capture: no")
    assert "consent: no" in run_memchat("config").stdout.decode()
    assert "consent" in run_memchat("doctor", "--quick").stdout.decode()
    assert run_memchat("consent", "yes").returncode == 0
    assert _consent(memchat_home) == [("yes",)]


def test_a_script_never_blocks_on_the_question(memchat_home):
    env = {k: v for k, v in os.environ.items() if k != "MEMCHAT_MEMORY_CAPTURE"}
    result = subprocess.run(
        [sys.executable, "-m", "memchat", "--provider", "echo"],
        input=b"hello\n",
        capture_output=True,
        env=env,
        cwd=str(ROOT),
        timeout=60,
    )
    assert result.returncode == 0 and b"Learn memories" not in result.stdout + result.stderr
    assert _consent(memchat_home) == []  # never answered for the user


def _old_and_new_conversations(cli, tmp_path, memchat_home):
    """Two sessions of 200 days ago (one word each no other place has), one of today."""
    old = (datetime.now(UTC) - timedelta(days=200)).isoformat()
    lines = [
        {
            "session": "old-a",
            "role": "user",
            "content": "My locker combination is Zanzibarquux 4417.",
            "timestamp": old,
        },
        {"session": "old-a", "role": "assistant", "content": "Noted: Zanzibarquux 4417.", "timestamp": old},
        {"session": "old-b", "role": "user", "content": "The wifi password is Plumbagorix.", "timestamp": old},
        {
            "session": "new",
            "role": "user",
            "content": "I am planning a trip to Porto.",
            "timestamp": datetime.now(UTC).isoformat(),
        },
    ]
    path = tmp_path / "history.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert cli("import", str(path)).exit_code == 0  # embedded: vectors in the database and its copy
    assert cli("recall", "locker combination").exit_code == 0  # the vector copy is written
    store = MemoryStore(open_db(memchat_home / "default.db"))
    store.add("The user's dentist is Dr. Okafor.", kind="fact", origin="stated")  # facts never expire
    return store


def _all_bytes_under(home) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


def test_purge_older_than_leaves_no_bytes_of_old_transcripts_and_keeps_the_rest(cli, tmp_path, memchat_home):
    _old_and_new_conversations(cli, tmp_path, memchat_home)
    assert b"Zanzibarquux" in _all_bytes_under(memchat_home)
    dry = cli("purge", "--older-than", "90d", "--dry-run")
    assert dry.exit_code == 0 and "would purge: 3 messages, 2 whole sessions" in dry.stdout
    assert db_rows(memchat_home, "SELECT count(*) FROM messages") == [(4,)]  # a dry run deletes nothing
    refused = cli("purge", "--older-than", "90d")  # no terminal to ask on
    assert refused.exit_code != 0 and "--yes" in refused.stderr
    done = cli("purge", "--older-than", "90d", "--yes")
    assert done.exit_code == 0 and done.stdout.startswith("purged 3 messages")
    raw = _all_bytes_under(memchat_home)
    assert b"Zanzibarquux" not in raw and b"Plumbagorix" not in raw  # database, WAL, vector copy, history, log
    assert db_rows(memchat_home, "SELECT content FROM messages") == [("I am planning a trip to Porto.",)]
    assert db_rows(memchat_home, "SELECT title FROM sessions") == [("new",)]
    assert db_rows(memchat_home, "SELECT text FROM memories WHERE status = 'active'") == [
        ("The user's dentist is Dr. Okafor.",)
    ]
    hits = json.loads(cli("recall", "--json", "--all", "locker combination").stdout)
    assert not any("Zanzibarquux" in h["text"] for h in hits)
    assert "nothing to purge" in cli("purge", "--older-than", "90d", "--yes").stdout


def test_windows_expire_events_and_guesses_never_stated_or_pinned_facts(cli, memchat_home, monkeypatch):
    store = MemoryStore(open_db(memchat_home / "default.db"))
    old_event = store.add("The user had a flat tyre on the A1.", kind="event", origin="inferred")
    pinned_event = store.add("The user's wedding is on 12 June.", kind="event", origin="stated", pinned=True)
    guess = store.add("The user may be anxious.", kind="fact", origin="inferred", sensitive=True, status="pending")
    stated = store.add("The user is allergic to penicillin.", kind="fact", origin="stated")
    old_city = store.add("The user lives in Berlin.", kind="fact", key="user.city", value="Berlin", origin="stated")
    store.add("The user lives in Lisbon.", kind="fact", key="user.city", value="Lisbon", origin="stated")
    long_ago = (datetime.now(UTC) - timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    conn = sqlite3.connect(memchat_home / "default.db")
    with conn:
        conn.execute(
            "UPDATE memories SET created_at = ?, updated_at = ?, valid_to = coalesce(valid_to, NULL)",
            (long_ago, long_ago),
        )
        conn.execute("UPDATE memories SET valid_to = ? WHERE status = 'superseded'", (long_ago,))
    conn.close()
    monkeypatch.setenv("MEMCHAT_MEMORY_EVENT_RETENTION_DAYS", "365")  # pending_days: 90 by default
    assert cli("purge", "--yes").exit_code == 0
    status = dict(db_rows(memchat_home, "SELECT id, status FROM memories"))
    assert status[old_event.id] == status[guess.id] == "forgotten"
    assert status[pinned_event.id] == status[stated.id] == "active"
    assert status[old_city.id] == "superseded"  # an old value goes only when asked
    assert cli("purge", "--older-than", "1y", "--superseded", "--yes").exit_code == 0
    assert dict(db_rows(memchat_home, "SELECT id, status FROM memories"))[old_city.id] == "forgotten"
    assert b"Berlin" not in (memchat_home / "default.db").read_bytes()


def test_purge_refuses_nonsense_and_a_forever_configuration(cli, memchat_home, monkeypatch):
    for bad in ("yesterday", "0d", "-5d", "90", "99999999d", "9999999999999999999999y"):
        result = cli("purge", "--older-than", bad, "--yes")
        assert result.exit_code != 0 and result.stderr.count("\n") == 1, bad
    monkeypatch.setenv("MEMCHAT_HISTORY_RETENTION_DAYS", "999999999")  # older than time: nothing, no crash
    assert "nothing to purge" in cli("purge", "--yes").stdout
    monkeypatch.delenv("MEMCHAT_HISTORY_RETENTION_DAYS")
    monkeypatch.setenv("MEMCHAT_MEMORY_PENDING_DAYS", "0")
    forever = cli("purge", "--yes")
    assert forever.exit_code != 0 and "forever" in forever.stderr


def test_windows_are_applied_in_the_background_when_a_chat_starts(cli, tmp_path, memchat_home):
    from conftest import wait_for_detached

    _old_and_new_conversations(cli, tmp_path, memchat_home)
    child = _spawn_fresh({"MEMCHAT_HISTORY_RETENTION_DAYS": "30", "MEMCHAT_MEMORY_CAPTURE": "false"})
    child.expect_exact("›")
    deadline = time.monotonic() + 20  # while the user reads the prompt, a detached process purges
    while time.monotonic() < deadline and len(db_rows(memchat_home, "SELECT id FROM messages")) > 1:
        time.sleep(0.1)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    wait_for_detached(memchat_home)
    assert db_rows(memchat_home, "SELECT content FROM messages") == [("I am planning a trip to Porto.",)]
    assert b"Zanzibarquux" not in _all_bytes_under(memchat_home)
    audit = json.loads(run_memchat("audit", "--json").stdout)
    assert any(e["action"] == "purge" and e["origin"] == "retention" for e in audit)


def test_the_audit_trail_names_every_write_and_data_event_with_its_origin_never_the_text(cli, tmp_path, memchat_home):
    assert cli("memories", "add", "My dentist is Dr. Okafor").exit_code == 0
    assert cli("memories", "forget", "1", "--yes").exit_code == 0
    assert cli("memories", "export", "-o", str(tmp_path / "m.json")).exit_code == 0
    assert cli("consent", "no").exit_code == 0
    _old_and_new_conversations(cli, tmp_path, memchat_home)
    assert cli("purge", "--older-than", "90d", "--yes").exit_code == 0
    result = cli("audit", "--json")
    entries = json.loads(result.stdout)
    seen = [(e["action"], e["origin"]) for e in entries]
    for expected in [
        ("add", "user"),
        ("forget", "user"),
        ("export memories", "user"),
        ("consent", "user"),
        ("import conversations", "import"),
        ("purge", "user"),
    ]:
        assert expected in seen, (expected, seen)
    assert [e["at"] for e in entries] == sorted(e["at"] for e in entries)
    assert "Okafor" not in result.stdout
    assert tmp_path.name not in result.stdout and "m.json" not in result.stdout  # nor a file's name
    table = cli("audit", "--since", "today").stdout
    assert "import conversations" in table and "retention" not in table
