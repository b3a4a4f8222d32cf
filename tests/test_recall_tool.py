"""The chat model's own memory search: a `recall` tool it may call mid-reply, through the real SDK
against the local Messages-API server (tool_use turns scripted), bounded, shown and counted."""

from __future__ import annotations

import json

from conftest import db_rows
from test_repl import quit_, spawn


def _remember(cli, text: str, *extra: str) -> None:
    result = cli("memories", "add", text, *extra)
    assert result.exit_code == 0, result.stderr


def _tool_results(request: dict) -> list[dict]:
    last = request["messages"][-1]
    return [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def test_the_model_searches_memory_and_answers_from_what_it_found(cli, api, memchat_home):
    _remember(cli, "My dentist is Dr. Okafor on Rue Cler")
    api.enqueue_tool_use("recall", {"query": "dentist"}, text="Let me check.", id="toolu_1")
    api.enqueue_text("Your dentist is Dr. Okafor.", input_tokens=700, output_tokens=20)
    result = cli("ask", "Who was that doctor I told you about?")
    assert result.exit_code == 0, result.stderr
    assert "Let me check." in result.stdout and "Your dentist is Dr. Okafor." in result.stdout
    # one line for the user, after the reply
    assert "the model searched memory for 'dentist': 1 found" in result.stderr

    first, second = api.requests
    assert [t["name"] for t in first["tools"]] == ["recall"]
    (found,) = _tool_results(second)
    assert found["tool_use_id"] == "toolu_1" and "Dr. Okafor on Rue Cler" in found["content"]
    assert second["messages"][-2]["role"] == "assistant"  # the model's own tool call, repeated
    # the stored reply is the whole answer; the turn's cost is both calls
    ((content, input_tokens),) = db_rows(
        memchat_home, "SELECT content, input_tokens FROM messages WHERE role = 'assistant'"
    )
    assert content == "Let me check.\n\nYour dentist is Dr. Okafor."
    assert input_tokens > 700
    assert db_rows(memchat_home, "SELECT COUNT(*) FROM usage WHERE purpose = 'chat'") == [(2,)]


def test_the_search_shows_the_part_of_a_long_memory_that_answers(cli, api, memchat_home):
    """A pasted document kept as a memory is too long to send unasked; the model's search is how it
    reaches it, so the search shows the sentences that match, not the document's first lines."""
    lease = (
        "Lease notes for the flat. "
        + "The tenancy runs for twelve months and the deposit is held in a protection scheme. " * 80
        + "For a burst pipe or a leak call the emergency plumber Rossi Plumbing on 0131 555 0192. "
        + "Bins go out on Tuesdays. " * 40
    )
    _remember(cli, lease)
    api.enqueue_tool_use("recall", {"query": "emergency plumber for a leak"}, text="Checking.", id="toolu_9")
    api.enqueue_text("Call Rossi Plumbing.")
    assert cli("ask", "Water is coming through the ceiling, who do I call?").exit_code == 0
    (found,) = _tool_results(api.requests[-1])
    assert "Rossi Plumbing on 0131 555 0192" in found["content"] and len(found["content"]) < 1_000


def test_what_the_model_searched_is_listed_as_sent_with_the_message(cli, api):
    _remember(cli, "Our cat is called Miso")
    api.enqueue_tool_use("recall", {"query": "cat's name"})
    api.enqueue_text("Miso.")
    result = cli("ask", "--json", "--explain", "Write a two-line poem.")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    searched = [m for m in out["memory"] if m["section"] == "searched"]
    assert [m["text"] for m in searched] == ["Our cat is called Miso"]
    assert searched[0]["kind"] == "fact" and searched[0]["id"] == 1  # a memory, by its memory id
    assert "cat's name" in searched[0]["reason"]


def test_searches_are_bounded_and_a_model_that_keeps_asking_still_ends(cli, api, memchat_home):
    _remember(cli, "I play the cello")
    api.enqueue_tool_use("recall", {"query": "hobby"}, id="toolu_0")
    # two calls in one turn: the second is refused, and the next call must answer in text
    api.enqueue_tool_use("recall", {"query": "music"}, id="toolu_1")
    api.enqueue_text("You play the cello.")
    api.enqueue_tool_use("recall", {"query": "never asked"}, id="toolu_9")  # left in the queue
    result = cli("ask", "What do I do for fun?")
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 3
    assert [r.get("tool_choice") for r in api.requests] == [{"type": "auto"}, {"type": "auto"}, {"type": "none"}]
    assert result.stderr.count("the model searched memory for") == 2
    assert db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'assistant'") == [("You play the cello.",)]


def test_the_search_for_a_message_about_someone_else_finds_none_of_your_private_matters(cli, api, real_encoder):
    # The section keeps your diagnosis from "my cousin was diagnosed with..."; the model's own search
    # for its words had found it all the same
    _remember(cli, "I take lamotrigine 200 mg for bipolar disorder")
    _remember(cli, "I live in Cork and work as a surveyor")
    api.enqueue_tool_use("recall", {"query": "bipolar lamotrigine"}, text="Checking.", id="toolu_5")
    api.enqueue_text("Here is how to support him.")
    assert cli("ask", "My cousin was just diagnosed with bipolar disorder; how can I support him?").exit_code == 0
    (found,) = _tool_results(api.requests[-1])
    assert "200 mg" not in found["content"], found
    api.enqueue_tool_use("recall", {"query": "bipolar lamotrigine"}, text="Checking.", id="toolu_6")
    api.enqueue_text("Go easy on it.")
    assert cli("ask", "Can I have a few beers with my medication tonight?").exit_code == 0
    (found,) = _tool_results(api.requests[-1])
    assert "200 mg" in found["content"], found  # your own case: the search finds it


def test_the_search_never_returns_a_private_memory_nor_an_unknown_tools_call(cli, api):
    _remember(cli, "My IBAN is DE44 5001 0517 5407 3249 31", "--private")
    _remember(cli, "I bank with Sparkasse")
    api.enqueue_tool_use("recall", {"query": "IBAN bank account number"}, id="toolu_a")
    api.enqueue_tool_use("shell", {"cmd": "ls"}, id="toolu_b")
    api.enqueue_text("Done.")
    result = cli("ask", "What's my account?")
    assert result.exit_code == 0, result.stderr
    found = _tool_results(api.requests[1])[0]["content"]
    assert "Sparkasse" in found and "DE44" not in found
    unknown = _tool_results(api.requests[2])[0]
    assert unknown["is_error"] is True and "unknown tool" in unknown["content"]


def test_no_tool_is_offered_without_memory_to_search_or_with_memory_off(cli, api, memchat_home):
    api.enqueue_text("Hello.")
    assert cli("ask", "hi").exit_code == 0  # an empty profile: nothing to search
    _remember(cli, "I live in Lyon")
    api.enqueue_text("ok")
    assert cli("ask", "--no-memory", "where?").exit_code == 0
    (memchat_home / "config.toml").write_text("[memory]\nrecall_tool = false\n")
    api.enqueue_text("ok")
    assert cli("ask", "where do I live?").exit_code == 0
    assert [r.get("tools") for r in api.requests] == [None, None, None]


def test_a_failed_second_call_keeps_the_first_text_and_the_message(cli, api, memchat_home):
    _remember(cli, "I drive a 2019 Skoda Octavia")
    api.enqueue_tool_use("recall", {"query": "car"}, text="Checking your car.")
    api.enqueue_error(400, "bad request")
    result = cli("ask", "Which winter tyres fit my car?")
    assert result.exit_code != 0
    assert "Traceback" not in result.stderr
    rows = db_rows(memchat_home, "SELECT role, content, status FROM messages ORDER BY id")
    assert rows[0][:2] == ("user", "Which winter tyres fit my car?")
    assert rows[1] == ("assistant", "Checking your car.", "incomplete")


def test_the_repl_notes_the_search_after_the_reply_and_why_lists_it(api, cli):
    _remember(cli, "My sister Ana lives in Porto")
    api.enqueue_tool_use("recall", {"query": "sister"})
    api.enqueue_text("Ana lives in Porto.")
    child = spawn()
    child.sendline("write a two-line poem")
    child.expect_exact("Ana lives in Porto.")
    child.expect_exact("the model searched memory for 'sister': 1 found")
    child.sendline("/why")
    child.expect_exact("searched")
    child.expect_exact("My sister Ana lives in Porto")
    assert quit_(child) == 0


def test_a_local_model_searches_memory_through_chat_completions_tool_calls(cli, local_api):
    _remember(cli, "My dentist is Dr. Okafor on Rue Cler")
    local_api.enqueue_tool_call("recall", {"query": "dentist"}, text="Checking.")
    local_api.enqueue_text("Dr. Okafor.")
    # (a request of the user's own: for one about no one the search finds nothing that reads as health)
    result = cli("ask", "Write me a two-line poem about my week.")
    assert result.exit_code == 0, result.stderr
    assert "Dr. Okafor." in result.stdout and "searched memory for 'dentist'" in result.stderr
    first, second = local_api.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["recall"]
    answer = next(m for m in second["messages"] if m["role"] == "tool")
    assert "Rue Cler" in answer["content"]


def test_a_local_model_declared_without_tools_is_never_offered_the_search(cli, local_api, memchat_home):
    _remember(cli, "I live in Lyon")
    (memchat_home / "config.toml").write_text('[models."llama3.1:8b"]\ntools = false\n')
    local_api.enqueue_text("ok")
    assert cli("ask", "where do I live?").exit_code == 0
    assert "tools" not in local_api.requests[0]


def test_a_model_that_keeps_calling_after_being_told_to_answer_fails_the_turn_in_one_line(cli, api, memchat_home):
    _remember(cli, "I play the cello")
    for n in range(3):  # two searches, then a call that must answer in text and asks again
        api.enqueue_tool_use("recall", {"query": f"hobby {n}"}, id=f"toolu_{n}")
    result = cli("ask", "What do I do for fun?")
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert "the model kept asking to search memory and gave no answer" in result.stderr
    assert result.stderr.count("\n") <= 3
    assert db_rows(memchat_home, "SELECT content FROM messages WHERE role = 'user'") == [("What do I do for fun?",)]


def test_a_local_models_malformed_search_is_answered_and_the_turn_goes_on(cli, local_api):
    _remember(cli, "My dentist is Dr. Okafor")
    local_api.enqueue_tool_call("recall", '{"query": "dentist', text="Let me check.")
    local_api.enqueue_text("Dr. Okafor, I think.")
    result = cli("ask", "Write a two-line poem.")
    assert result.exit_code == 0, result.stderr
    assert "Dr. Okafor, I think." in result.stdout
    answer = next(m for m in local_api.requests[1]["messages"] if m["role"] == "tool")
    assert "arguments were not read" in answer["content"]
    assert "tools" not in local_api.requests[1] or local_api.requests[1].get("tool_choice") != "none"


def test_the_last_call_to_a_local_model_offers_no_tools(cli, local_api):
    """Some servers (Ollama) ignore tool_choice "none": the call that must answer offers none."""
    _remember(cli, "I play the cello")
    local_api.enqueue_tool_call("recall", {"query": "hobby"})
    local_api.enqueue_tool_call("recall", {"query": "music"})
    local_api.enqueue_text("The cello.")
    assert cli("ask", "What do I do for fun?").exit_code == 0
    assert ["tools" in r for r in local_api.requests] == [True, True, False]
