""" "Remember that ..." when memory already holds an older value: the memory model, shown the close
memories, decides whether the statement updates one (scripted decide_memory answers from the local
Messages-API server), and the old value becomes history rather than a second active fact. A memory
added by hand (`memories add`, /remember) asks the person instead, on a terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
from conftest import ROOT, db_rows, run_memchat
from test_repl import PROMPT, quit_, spawn


def _add(cli, text: str) -> None:
    result = cli("memories", "add", text)
    assert result.exit_code == 0, result.stderr


def _memories(home) -> list[tuple]:
    return db_rows(home, "SELECT id, text, status, superseded_by FROM memories ORDER BY id")


def _decisions(api) -> list[dict]:
    return [r for r in api.requests if r.get("tool_choice", {}).get("name") == "decide_memory"]


def test_a_stated_change_supersedes_the_old_value_without_a_key(cli, api, memchat_home, embedder):
    _add(cli, "The Heron milestone is on May 20")
    _add(cli, "I play the cello")
    api.enqueue_text("Noted: June 3.")
    api.enqueue_tool_use("decide_memory", {"action": "update", "target": 1})
    result = cli("ask", "Remember that the Heron milestone moved to June 3")
    assert result.exit_code == 0, result.stderr
    assert "memory 3 replaces memory 1 (The Heron milestone is on May 20)" in result.stderr
    (decision,) = _decisions(api)
    shown = decision["messages"][0]["content"]
    assert "{1} The Heron milestone is on May 20" in shown and "cello" not in shown
    assert _memories(memchat_home) == [
        (1, "The Heron milestone is on May 20", "superseded", 3),
        (2, "I play the cello", "active", None),
        (3, "The Heron milestone moved to June 3", "active", None),
    ]
    history = cli("memories", "history", "1")
    assert history.exit_code == 0 and "supersede" in history.stdout and "June 3" in history.stdout
    # and the next call is sent the current date only
    api.enqueue_text("June 3.")
    assert cli("ask", "--json", "--explain", "When is the Heron milestone?").exit_code == 0
    sent = api.requests[-1]["system"]
    assert "June 3" in sent and "May 20" not in sent


def test_a_statement_in_other_words_still_reaches_the_decision(cli, api, memchat_home, embedder):
    _add(cli, "I live in Lyon")
    api.enqueue_text("Lisbon, lovely.")
    api.enqueue_tool_use("decide_memory", {"action": "update", "target": 1})
    assert cli("ask", "Remember that I moved to Lisbon last month").exit_code == 0
    assert [row[2] for row in _memories(memchat_home)] == ["superseded", "active"]


def test_new_information_beside_a_close_memory_keeps_both(cli, api, memchat_home, embedder):
    _add(cli, "My dentist is Dr. Okafor")
    api.enqueue_text("Noted.")
    api.enqueue_tool_use("decide_memory", {"action": "add"})
    assert cli("ask", "Remember that my doctor is Dr. Silva").exit_code == 0
    assert len(_decisions(api)) == 1
    assert [row[2] for row in _memories(memchat_home)] == ["active", "active"]


def test_nothing_close_means_no_extra_call(cli, api, memchat_home, embedder):
    _add(cli, "I play the cello")
    api.enqueue_text("Noted.")
    assert cli("ask", "Remember that I am lactose intolerant").exit_code == 0
    assert _decisions(api) == [] and len(api.requests) == 1


def test_a_failed_decision_keeps_what_was_said_and_the_reply(cli, api, memchat_home, embedder):
    _add(cli, "The Heron milestone is on May 20")
    api.enqueue_text("Noted.")
    api.enqueue_error(400, "bad request")
    result = cli("ask", "Remember that the Heron milestone moved to June 3")
    assert result.exit_code == 0 and "Traceback" not in result.stderr
    assert [row[2] for row in _memories(memchat_home)] == ["active", "active"]  # nothing half-done
    assert db_rows(memchat_home, "SELECT status FROM messages WHERE role = 'assistant'") == [("ok",)]


def test_a_question_about_the_past_is_neither_stored_nor_decided(cli, api, memchat_home, embedder):
    _add(cli, "We went to Paris in 2019")
    api.enqueue_text("Yes, in 2019.")
    assert cli("ask", "Remember when we went to Paris?").exit_code == 0
    assert _decisions(api) == [] and len(_memories(memchat_home)) == 1


def test_a_private_memory_is_never_shown_to_the_memory_model_nor_replaced(cli, api, memchat_home, embedder):
    _add(cli, "My bank card PIN is 1234")
    assert cli("memories", "edit", "1", "--private").exit_code == 0
    api.enqueue_text("Noted.")
    assert cli("ask", "Remember that my bank card PIN is 9999").exit_code == 0
    assert _decisions(api) == [] and "1234" not in json.dumps(api.requests)
    assert [row[2] for row in _memories(memchat_home)] == ["active", "active"]


def test_a_new_value_of_a_private_fact_stays_private(cli, memchat_home):
    assert cli("memories", "add", "--key", "user.pin", "--private", "My PIN is 1234").exit_code == 0
    assert cli("memories", "add", "--key", "user.pin", "My PIN is 9999").exit_code == 0
    assert db_rows(memchat_home, "SELECT text, status, private FROM memories ORDER BY id") == [
        ("My PIN is 1234", "superseded", 1),
        ("My PIN is 9999", "active", 1),
    ]


# --- `memories add`: the person says what a new statement replaces -----------------------------------

_SAID_BEFORE = (
    "Home is a flat in Leith, Edinburgh",
    "I teach chemistry at Hillside Academy",
    "Our car is a 2016 Skoda Fabia",
    "I play the trombone in a brass band",
)


def test_memories_add_names_what_a_change_in_other_words_may_replace(cli, memchat_home, embedder):
    """A new home, job or car shares few words with the old one (0.16 between the two homes here):
    a script is told on stderr which memory it may replace and how to say so; nothing changes unasked."""
    for text in _SAID_BEFORE:
        _add(cli, text)
    changes = {
        "We moved down to Norwich in the spring": 1,
        "I've started a new job as a lab manager at Quadram": 2,
        "We traded the Skoda in for a second-hand Nissan Leaf": 3,
    }
    for new_id, (text, old_id) in enumerate(changes.items(), len(_SAID_BEFORE) + 1):
        result = cli("memories", "add", text)
        assert result.exit_code == 0, result.stderr
        assert f"close to memory {old_id} (" in result.stderr
        assert f"memchat memories edit {new_id} --replaces {old_id}" in result.stderr
    for text in ("I'm reading Middlemarch", "My brother lives in Glasgow"):  # new, and another person's home
        result = cli("memories", "add", text)
        assert result.exit_code == 0 and "close to memory" not in result.stderr, result.stderr
    assert {row[2] for row in _memories(memchat_home)} == {"active"}
    done = cli("memories", "edit", "5", "--replaces", "1")
    assert done.exit_code == 0 and "memory 5 replaces memory 1 (Home is a flat in Leith, Edinburgh)" in done.stdout
    assert _memories(memchat_home)[0] == (1, "Home is a flat in Leith, Edinburgh", "superseded", 5)
    history = cli("memories", "history", "1")
    assert "supersede" in history.stdout and "Norwich" in history.stdout
    assert cli("ask", "--provider", "echo", "--json", "--explain", "Where do I live?").exit_code == 0
    sent = json.loads(cli("ask", "--provider", "echo", "--json", "--explain", "Where do I live?").stdout)["memory"]
    assert "Leith" not in json.dumps(sent) and "Norwich" in json.dumps(sent)


def test_a_script_is_told_of_a_close_private_memory_by_its_id_alone(cli, memchat_home, embedder):
    assert cli("memories", "add", "--private", "My bank card PIN is 1234").exit_code == 0
    result = cli("memories", "add", "My bank card PIN is now 9999")
    assert result.exit_code == 0 and "close to memory 1 (private)" in result.stderr, result.stderr
    assert "1234" not in result.stderr + result.stdout
    assert cli("memories", "edit", "2", "--replaces", "1").exit_code == 0
    assert _memories(memchat_home)[0][2] == "superseded"
    assert db_rows(memchat_home, "SELECT private FROM memories WHERE id = 2") == [(1,)]  # the new value stays private


def test_memories_add_replaces_in_one_step_and_refuses_what_it_cannot_replace(cli, memchat_home, embedder):
    _add(cli, "I drive a 2015 Honda Fit")
    done = cli("memories", "add", "We now drive a Kia Niro EV", "--replaces", "1")
    assert done.exit_code == 0 and "supersedes memory 1: I drive a 2015 Honda Fit" in done.stdout
    assert "close to" not in done.stderr  # said already
    before = _memories(memchat_home)
    for bad, code, said in (
        ("99", 1, "no memory 99"),
        ("1", 2, "memory 1 is superseded; only an active memory can be replaced"),
        ("x", 2, "memchat:"),
    ):
        result = cli("memories", "add", "We drive a bike now", "--replaces", bad)
        assert result.exit_code == code and said in result.stderr and "Traceback" not in result.stderr
    assert _memories(memchat_home) == before  # nothing stored by a refused add
    again = cli("memories", "edit", "2", "--replaces", "2")
    assert again.exit_code == 2 and "cannot replace itself" in again.stderr


def test_a_script_adding_to_a_large_profile_is_not_slowed_by_the_look(cli, memchat_home, embedder, monkeypatch):
    """From COPY_FROM memories on, the search would first rewrite the vector copy (0.75 s at
    100,000): a script, which nobody is there to ask, does not look; a terminal still does."""
    for text in _SAID_BEFORE:
        _add(cli, text)
    monkeypatch.setattr("memchat.memory.recall.vector_file.COPY_FROM", len(_SAID_BEFORE))
    quiet = cli("memories", "add", "We moved down to Norwich in the spring")
    assert quiet.exit_code == 0 and "close to" not in quiet.stderr
    monkeypatch.setattr("memchat.memory.recall.vector_file.COPY_FROM", 1000)
    told = cli("memories", "add", "We're in Ipswich now")
    assert told.exit_code == 0 and "close to memory " in told.stderr


def test_a_script_does_not_do_the_one_time_preparation_to_look(memchat_home, tmp_path, embedder):
    """On a new machine judging by meaning needs its one-time preparation (the encoder's export, the
    topic model: seconds); a script's add does not do it to look, so scripts starting at once stay
    quick. Once the first `ask` has done it, a script is told."""
    import shutil

    # the encoder's export copied (it takes torch, ~15 s here); the topic model still to embed
    shutil.copytree(Path(os.environ["MEMCHAT_CACHE_DIR"]) / "onnx", tmp_path / "new-cache" / "onnx")
    fresh_cache = {"MEMCHAT_CACHE_DIR": str(tmp_path / "new-cache")}
    for text in (_SAID_BEFORE[0], "We moved down to Norwich in the spring"):
        done = run_memchat("memories", "add", text, env=fresh_cache)
        assert done.returncode == 0 and done.stderr.decode() == "", done.stderr
    assert not (tmp_path / "new-cache" / "topics").exists()
    assert run_memchat("--provider", "echo", "ask", "where do I live?", env=fresh_cache).returncode == 0
    told = run_memchat("memories", "add", "We're in Ipswich now", env=fresh_cache)
    assert told.returncode == 0 and "close to memory" in told.stderr.decode(), told.stderr


def test_with_the_torch_encoder_a_quick_add_stays_quick(memchat_home, embedder):
    """sentence-transformers takes seconds to load in every process: `memories add` does not load it
    to look for what a statement may replace (onnxruntime's encoder, the default, is light)."""
    torch = {"MEMCHAT_MEMORY_ENCODER": "torch"}
    assert run_memchat("memories", "add", _SAID_BEFORE[0], env=torch).returncode == 0
    done = run_memchat("memories", "add", "We moved down to Norwich in the spring", env=torch)
    assert done.returncode == 0 and "close to" not in done.stderr.decode(), done.stderr
    light = run_memchat("memories", "add", "We're in Ipswich now")
    assert light.returncode == 0 and "close to memory" in light.stderr.decode()


def test_memories_add_on_a_terminal_asks_which_memory_it_replaces(memchat_home, embedder):
    for text in _SAID_BEFORE:
        assert run_memchat("memories", "add", text).returncode == 0

    def add(text: str) -> pexpect.spawn:
        return pexpect.spawn(
            sys.executable, ["-m", "memchat", "memories", "add", text], cwd=str(ROOT), encoding="utf-8", timeout=60
        )

    child = add("We moved down to Norwich in the spring")
    child.expect("close to what memchat holds:")
    child.expect("Home is a flat in Leith")
    child.expect("does memory 5 replace one of them")
    child.sendline("7")  # not one of them: asked again
    child.expect("not one of")
    child.expect("does memory 5 replace one of them")
    child.sendline("1")
    child.expect("supersedes memory 1: Home is a flat in Leith")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    child = add("I've started a new job as a lab manager at Quadram")
    child.expect("does memory 6 replace one of them")
    child.sendline("")  # Enter: both kept
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert _memories(memchat_home)[:2] == [
        (1, "Home is a flat in Leith, Edinburgh", "superseded", 5),
        (2, "I teach chemistry at Hillside Academy", "active", None),
    ]


def test_remember_in_the_repl_asks_too_and_replace_says_it_later(memchat_home, embedder):
    for text in _SAID_BEFORE:
        assert run_memchat("memories", "add", text).returncode == 0
    child = spawn("--provider", "echo")
    child.sendline("/remember We moved down to Norwich in the spring")
    child.expect("remembered #5")
    child.expect("#1: Home is a flat in Leith")
    child.expect("does #5 replace one of them")
    child.sendline("")  # both kept for now
    child.expect_exact(PROMPT)
    child.sendline("/replace 5 1")
    child.expect("#5 replaces #1 \\(Home is a flat in Leith, Edinburgh\\), kept as history")
    child.sendline("/replace 5 1")
    child.expect("memory 1 is superseded")
    assert quit_(child) == 0
    assert _memories(memchat_home)[0] == (1, "Home is a flat in Leith, Edinburgh", "superseded", 5)
