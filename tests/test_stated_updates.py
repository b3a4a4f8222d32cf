""" "Remember that ..." when memory already holds an older value: the memory model, shown the close
memories, decides whether the statement updates one (scripted decide_memory answers from the local
Messages-API server), and the old value becomes history rather than a second active fact."""

from __future__ import annotations

import json

from conftest import db_rows


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
