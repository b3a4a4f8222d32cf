"""Consent holds for every way in: no extraction call before the person said yes, asked once on a
terminal whichever command comes first; and a failed ask leaves no empty session behind."""

from __future__ import annotations

import os
import sys

import pexpect
import pytest
from conftest import ROOT, db_rows, run_memchat, wait_for_detached, wait_until

PARROT = "I adopted a parrot called Kiwi and I live in Aveiro."


class Model:
    """The server's answers: an extraction that keeps the parrot (or fails, to test what a
    failure leaves), 'ok' to a chat message. Shared with tests/test_background.py."""

    def __init__(self, fail_extraction: bool = False) -> None:
        self.extractions = 0
        self.fail_extraction = fail_extraction

    def __call__(self, body: dict) -> object:
        if (body.get("tool_choice") or {}).get("name") == "record_memories":
            self.extractions += 1
            if self.fail_extraction:
                raise RuntimeError("the extraction is refused by this test")
            fact = {
                "text": "The user has a parrot called Kiwi.",
                "origin": "stated",
                "sensitive": "none",
                "sources": [1],
            }
            answer = {"facts": [fact], "events": [], "rules": []}
            if "The conversation has ended" in str(body.get("messages")):
                answer["summary"] = "The user talked about their parrot."
            return {"tool_input": answer}
        return "ok"


@pytest.fixture
def fresh(api, monkeypatch):
    """A fresh profile on which nothing is decided: no answer, memory.capture at its default."""
    monkeypatch.delenv("MEMCHAT_MEMORY_CAPTURE")
    model = Model()
    api.set_default(model)
    return model


def _tool_calls(api) -> list[dict]:
    """Memory work: calls that force a tool (extraction, decisions). A chat call may offer the
    model its recall tool; that learns nothing."""
    return [r for r in api.requests if r.get("tool_choice", {}).get("type") == "tool"]


def _consent(home):
    return db_rows(home, "SELECT value FROM profile_settings WHERE name = 'consent.capture'")


def test_a_script_on_a_fresh_profile_makes_one_call_and_learns_nothing(api, fresh, memchat_home):
    result = run_memchat("ask", PARROT)
    assert result.returncode == 0 and result.stdout == b"ok\n", result.stderr
    wait_for_detached(memchat_home)
    assert len(api.requests) == 1 and _tool_calls(api) == []  # the reply only: no extraction, no tools
    assert fresh.extractions == 0
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]
    assert _consent(memchat_home) == []  # never answered for the person
    status = run_memchat("consent").stdout.decode()
    assert status.startswith("capture: not asked yet") and "nothing is learnt" in status
    # a piped chat follows the same rule
    piped = run_memchat(input=PARROT + "\n", env={"MEMCHAT_MEMORY_CAPTURE_EVERY": "1"})
    assert piped.returncode == 0, piped.stderr
    wait_for_detached(memchat_home)
    assert _tool_calls(api) == [] and fresh.extractions == 0


def test_consent_yes_then_ask_captures(api, fresh, memchat_home):
    assert run_memchat("consent", "yes").returncode == 0
    assert run_memchat("ask", PARROT).returncode == 0
    assert wait_until(lambda: db_rows(memchat_home, "SELECT 1 FROM memories WHERE kind = 'fact'"))
    wait_for_detached(memchat_home)
    assert fresh.extractions == 1
    assert [r["tool_choice"]["name"] for r in _tool_calls(api)] == ["record_memories"]


def test_an_explicit_capture_setting_counts_as_decided(api, fresh, memchat_home):
    (memchat_home / "config.toml").write_text("[memory]\ncapture = true\n")
    assert run_memchat("ask", PARROT).returncode == 0
    assert wait_until(lambda: fresh.extractions == 1)
    wait_for_detached(memchat_home)
    assert _consent(memchat_home) == []  # decided by the config, not answered for the person


def _ask_on_a_terminal(*args: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k != "MEMCHAT_MEMORY_CAPTURE"}
    env.update(TERM="xterm-256color")
    return pexpect.spawn(
        sys.executable,
        ["-m", "memchat", "ask", *args],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=30,
        dimensions=(30, 120),
    )


def test_ask_on_a_terminal_asks_once_before_anything_is_learnt(api, fresh, memchat_home):
    child = _ask_on_a_terminal(PARROT)
    child.expect_exact("Learn memories from your chats? [Y/n]")
    assert api.requests == []  # asked before the message goes anywhere
    child.sendline("n")
    child.expect_exact("memory capture off")
    child.expect_exact("ok")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    wait_for_detached(memchat_home)
    assert _consent(memchat_home) == [("no",)]
    assert _tool_calls(api) == []
    again = _ask_on_a_terminal("and one more thing about Kiwi, my parrot")
    assert again.expect_exact(["Learn memories", "ok"]) == 1  # asked once
    again.expect(pexpect.EOF)
    wait_for_detached(memchat_home)
    assert _tool_calls(api) == []


def test_yes_on_a_terminal_lets_that_ask_be_captured(api, fresh, memchat_home):
    child = _ask_on_a_terminal(PARROT)
    child.expect_exact("[Y/n]")
    child.sendline("")
    child.expect_exact("memory capture on")
    child.expect_exact("ok")
    child.expect(pexpect.EOF)
    assert _consent(memchat_home) == [("yes",)]
    assert wait_until(lambda: db_rows(memchat_home, "SELECT 1 FROM memories WHERE kind = 'fact'"))
    wait_for_detached(memchat_home)
    assert fresh.extractions == 1


def test_ctrl_c_at_the_question_cancels_the_ask(api, fresh, memchat_home):
    child = _ask_on_a_terminal(PARROT)
    child.expect_exact("[Y/n]")
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and api.requests == []  # nothing sent, nothing stored
    assert _consent(memchat_home) == [] and _sessions(memchat_home) == []


# --- a failed ask leaves no empty session behind ------------------------------------------------


def _sessions(home) -> list[tuple]:
    return db_rows(home, "SELECT id FROM sessions ORDER BY id")


def test_an_ask_that_fails_before_storing_the_message_leaves_no_session(cli, memchat_home, monkeypatch):
    from memchat import sessions
    from memchat.errors import StoreError

    assert cli("--provider", "echo", "ask", "kept").exit_code == 0  # an earlier session stays as it is

    def full_disk(*args, **kwargs):
        raise StoreError("the database file is full (no space left on the disk)")

    monkeypatch.setattr(sessions, "add_message", full_disk)
    result = cli("--provider", "echo", "ask", "hello")
    assert result.exit_code == 1 and "full" in result.stderr
    assert _sessions(memchat_home) == [(1,)]
    failed = cli("--provider", "echo", "ask", "-c", "and more")  # an existing session is never removed
    assert failed.exit_code == 1
    assert _sessions(memchat_home) == [(1,)]


def test_an_ask_interrupted_before_storing_the_message_leaves_no_session(cli, memchat_home, monkeypatch):
    from memchat import tokens

    def interrupted(text):
        raise KeyboardInterrupt

    monkeypatch.setattr(tokens, "count", interrupted)
    result = cli("--provider", "echo", "ask", "hello")
    assert result.exit_code != 0
    assert _sessions(memchat_home) == []


def test_an_ask_the_api_refuses_keeps_the_session_with_the_message(cli, api, memchat_home):
    api.enqueue_error(401, "scripted failure")
    assert cli("ask", "hello").exit_code == 1
    assert db_rows(
        memchat_home, "SELECT s.id, m.content, m.status FROM sessions s JOIN messages m ON m.session_id = s.id"
    ) == [(1, "hello", "unanswered")]


def _extracted_texts(api) -> str:
    return " ".join(str(r.get("messages")) for r in _tool_calls(api))


def test_an_import_captured_on_request_learns_from_its_sessions_and_no_other_chat(api, fresh, memchat_home, tmp_path):
    # The profile's answer is no: its chats are kept but never learnt from. An import captured on
    # request (--capture --yes) learns from the imported sessions only, not from those chats.
    from fixtures_chatgpt import write_chatgpt_export

    assert run_memchat("consent", "no").returncode == 0
    assert run_memchat("ask", PARROT).returncode == 0
    # an hour later: the chat is idle, as a background run would pick it up
    with __import__("sqlite3").connect(memchat_home / "default.db") as conn:
        conn.execute("UPDATE messages SET created_at = '2020-01-01T00:00:00.000000Z'")
    (path,) = write_chatgpt_export(tmp_path / "e")
    imported = run_memchat("import", "--capture", "--yes", "--no-embed", str(path))
    assert imported.returncode == 0, imported.stderr
    wait_for_detached(memchat_home)
    assert fresh.extractions >= 1
    assert "adopted a parrot" not in _extracted_texts(api)  # the chat's words were never sent to learn from


def test_a_provider_given_as_a_flag_is_the_one_background_capture_uses(api, fresh, memchat_home):
    # The environment says echo (which cannot extract); the flag says anthropic: the detached
    # capture of that ask must use anthropic too, as the ask did.
    assert run_memchat("consent", "yes").returncode == 0
    result = run_memchat("--provider", "anthropic", "ask", PARROT, env={"MEMCHAT_PROVIDER": "echo"})
    assert result.returncode == 0 and result.stdout == b"ok\n", result.stderr
    wait_for_detached(memchat_home)
    assert fresh.extractions == 1


def _extracted_from(api) -> str:
    return " ".join(str(r.get("messages")) for r in _tool_calls(api))


@pytest.mark.parametrize("held_under", ["no", "not asked", "capture off by the environment"])
def test_what_was_said_under_no_is_never_learnt_by_a_later_yes(api, fresh, memchat_home, held_under):
    """A chat held while learning was not agreed stays unlearnt: the later yes (or a chat with
    /capture on) captures from then on, never those turns, nor a summary of them."""
    import sqlite3
    import subprocess

    from memchat.memory.capture.background import worker_command

    if held_under == "no":
        assert run_memchat("consent", "no").returncode == 0
    env = {"MEMCHAT_MEMORY_CAPTURE": "false"} if held_under.startswith("capture off") else {}
    assert run_memchat("ask", "My secret hobby is falconry with a hawk called Zephyrine.", env=env).returncode == 0
    assert run_memchat("consent", "yes").returncode == 0
    assert run_memchat("ask", PARROT).returncode == 0
    wait_for_detached(memchat_home)
    # the background run a chat or ask starts reads every session with turns left that is idle
    idle = "UPDATE messages SET created_at = '2026-01-01T00:00:00.000000Z'"
    with sqlite3.connect(memchat_home / "default.db") as conn:
        conn.execute(idle)
    worker = worker_command(memchat_home / "default.db", ["memories", "capture", "--background"])
    assert subprocess.run(worker, env=dict(os.environ), timeout=60).returncode == 0
    assert fresh.extractions >= 1 and "Kiwi" in _extracted_from(api)
    assert "Zephyrine" not in _extracted_from(api)
    assert not [t for (t,) in db_rows(memchat_home, "SELECT text FROM memories") if "Zephyrine" in t]
    # nor by a catch-up `memories capture`, which names no session (an adversarial pass: it learnt
    # every turn said under no, while `consent` said no session waited to be read)
    assert run_memchat("memories", "capture", "--final").returncode == 0
    assert "Zephyrine" not in _extracted_from(api)
    # the session asked for by name is learnt: `memories capture --session ID` is the user's own say
    (first,) = db_rows(memchat_home, "SELECT min(session_id) FROM messages WHERE content LIKE '%Zephyrine%'")[0]
    assert run_memchat("memories", "capture", "--session", str(first), "--final").returncode == 0
    assert "Zephyrine" in _extracted_from(api)


def test_a_turn_said_under_no_is_marked_as_it_is_stored_whatever_stops_the_process(
    api, fresh, memchat_home, monkeypatch
):
    """The mark "said under no" was written after the turn was stored and embedded: a Ctrl-C, a kill
    or a full disk in between left the turn unmarked, and a later yes learnt it (an adversarial
    pass). It is written with the words and with the reply, in their own transactions."""
    import sqlite3
    import subprocess

    from memchat.app import Memchat
    from memchat.app.profile import Profile
    from memchat.memory.capture.background import worker_command

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # as a Ctrl-C right after the reply was stored

    app = Memchat.load()
    try:
        session = app.chat.start_session()
        with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
            patched.setattr(Profile, "embed_written", stopped)
            app.chat.send(session, "My secret hobby is falconry with a hawk called Zephyrine.")
    finally:
        app.close()
    assert [r for (r,) in db_rows(memchat_home, "SELECT role FROM messages")] == ["user", "assistant"]
    assert run_memchat("consent", "yes").returncode == 0
    assert run_memchat("ask", "-c", PARROT).returncode == 0  # the same session, after the yes
    wait_for_detached(memchat_home)
    with sqlite3.connect(memchat_home / "default.db") as conn:
        conn.execute("UPDATE messages SET created_at = '2026-01-01T00:00:00.000000Z'")
    worker = worker_command(memchat_home / "default.db", ["memories", "capture", "--background"])
    assert subprocess.run(worker, env=dict(os.environ), timeout=60).returncode == 0
    assert "Kiwi" in _extracted_from(api) and "Zephyrine" not in _extracted_from(api)


def test_consent_no_given_while_a_chat_runs_stops_it_at_its_next_turn(api, fresh, memchat_home):
    """`memchat consent no` in another terminal: the chat that is running learns nothing said after
    it (not at quit, not by the detached worker, not after a later yes), and starts no worker."""
    import sqlite3
    import subprocess

    from memchat.app import Memchat
    from memchat.memory.capture.background import worker_command

    assert run_memchat("consent", "yes").returncode == 0
    app = Memchat.load()
    try:
        session = app.chat.start_session()
        app.capture.after_turn(session, app.chat.send(session, PARROT))
        assert app.capture.can_capture
        assert run_memchat("consent", "no").returncode == 0
        app.capture.after_turn(session, app.chat.send(session, "And I ride a yellow Vespa to work every day."))
        assert not app.capture.can_capture and not app.capture.end_session(session)
    finally:
        app.close()
    worker = worker_command(memchat_home / "default.db", ["memories", "capture", "--background"])
    assert subprocess.run(worker, env=dict(os.environ), timeout=60).returncode == 0
    assert fresh.extractions == 0  # the worker read the answer again: no
    assert run_memchat("consent", "yes").returncode == 0
    with sqlite3.connect(memchat_home / "default.db") as conn:  # that chat is long over
        conn.execute("UPDATE messages SET created_at = '2026-01-01T00:00:00.000000Z'")
    app = Memchat.load()
    try:  # learning goes on from the yes (the chat's turns before the no, not yet read, went with it)
        later = app.chat.start_session()
        app.capture.after_turn(
            later, app.chat.send(later, "We're moving to Porto next spring, to a flat by the river.")
        )
        app.capture.run(later.id, background=True)  # as a chat's own run does: this one, and the idle ones
    finally:
        app.close()
    assert "Porto" in _extracted_from(api) and "Vespa" not in _extracted_from(api)
