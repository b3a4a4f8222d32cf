"""One JSON convention for every `--json`: a single document that `jq` reads whole, `[]` when a
listing is empty (never nothing); JSON lines only under `--jsonl`, on the long listings."""

from __future__ import annotations

import json

import pytest

# Every command with a --json flag, and a run of it on the profile `_seeded` builds.
JSON_RUNS = {
    "ask": ["ask", "--json", "-c", "and my dentist?"],
    "recall": ["recall", "dentist", "--json"],
    "sessions list": ["sessions", "list", "--json"],
    "sessions show": ["sessions", "show", "1", "--json"],
    "memories list": ["memories", "list", "--json"],
    "memories show": ["memories", "show", "1", "--json"],
    "memories history": ["memories", "history", "1", "--json"],
    "audit": ["audit", "--json"],
    "usage": ["usage", "--json"],
    "config": ["config", "--json"],
    "context": ["context", "--json"],
    "log": ["log", "--json"],
}
ON_A_LOCAL_SERVER = {"models": ["models", "--json"]}  # Claude's API lists no models here: test_models_...
LISTINGS = ("recall", "sessions list", "memories list", "memories history", "audit", "usage", "log")
STREAMED = {  # the listings that also offer --jsonl
    "sessions list": ["sessions", "list"],
    "memories list": ["memories", "list"],
    "audit": ["audit"],
}
EMPTY = [
    ["sessions", "list", "--json"],
    ["memories", "list", "--json"],
    ["memories", "list", "--status", "superseded", "--json"],
    ["memories", "list", "--kind", "rule", "--pinned", "--json"],
    ["audit", "--json"],
    ["usage", "--json"],
    ["usage", "--since", "7d", "--json"],
    ["log", "--json"],
    ["log", "--query", "nothing like this", "--json"],
    ["recall", "anything at all", "--json"],
    ["sessions", "list", "--jsonl"],
    ["memories", "list", "--jsonl"],
    ["audit", "--jsonl"],
]


def _commands_with(option: str) -> set[str]:
    import typer

    from memchat.cli.main import app

    found: set[str] = set()

    def walk(command, path: str) -> None:
        if any(option in getattr(p, "opts", ()) for p in command.params):
            found.add(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(app), "")
    return found


def test_every_json_flag_is_held_to_the_convention():
    """A new --json joins the runs below (and so the checks) or this fails."""
    assert _commands_with("--json") == set(JSON_RUNS) | set(ON_A_LOCAL_SERVER)
    assert _commands_with("--jsonl") == set(STREAMED)


@pytest.mark.parametrize("args", EMPTY, ids=" ".join)
def test_an_empty_listing_is_an_empty_array_or_no_lines(cli, args):
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    if "--jsonl" in args:
        assert result.stdout == ""
    else:
        assert json.loads(result.stdout) == []


@pytest.fixture
def seeded(cli, api):
    """Two of everything a listing shows: sessions, memories (one pinned), audit lines, history
    entries, usage rows (two models), recall hits."""
    api.enqueue_text("Dr. Okafor.", input_tokens=100, output_tokens=10)
    api.enqueue_text("Noted.", input_tokens=200, output_tokens=20)
    api.enqueue_text("Fridays.", input_tokens=300, output_tokens=30)
    for args in (
        ["memories", "add", "My dentist is Dr. Okafor, on Fridays."],
        ["memories", "add", "Always answer in British English.", "--kind", "rule"],
        ["memories", "pin", "1"],
        ["ask", "who is my dentist?"],
        ["ask", "-m", "claude-haiku-4-5", "thanks, dentist noted"],
    ):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.stderr)
    return cli


@pytest.mark.parametrize("command", sorted(JSON_RUNS))
def test_every_json_output_is_one_document(seeded, command):
    result = seeded(*JSON_RUNS[command])
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)  # JSON lines of two or more objects would not parse
    if command in LISTINGS:
        assert isinstance(document, list) and len(document) >= 2, document
    else:
        assert isinstance(document, dict)


@pytest.mark.parametrize("command", sorted(STREAMED))
def test_jsonl_is_the_same_objects_one_per_line(seeded, command):
    args = STREAMED[command]
    whole = json.loads(seeded(*args, "--json").stdout)
    lines = seeded(*args, "--jsonl").stdout.splitlines()
    assert len(lines) == len(whole) >= 2
    assert [json.loads(line) for line in lines] == whole


def test_json_and_jsonl_together_are_a_usage_error(cli):
    result = cli("memories", "list", "--json", "--jsonl")
    assert result.exit_code == 2
    assert "either --json" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_ask_json_says_which_memory_was_sent_without_explain(seeded):
    out = json.loads(seeded("ask", "--json", "-c", "and on which day?").stdout)
    sent = {(m["kind"], m["id"]): m for m in out["memory"]}
    assert sent["fact", 1] == {"kind": "fact", "id": 1, "text": "My dentist is Dr. Okafor, on Fridays.", "score": None}
    assert sent["rule", 2]["text"] == "Always answer in British English."
    assert all(set(m) == {"kind", "id", "text", "score"} for m in out["memory"])  # compact
    explained = json.loads(seeded("ask", "--json", "--explain", "-c", "and the time?").stdout)
    assert {(m["section"], m["reason"]) for m in explained["memory"]} >= {("pinned", "pinned"), ("rules", "rule")}


def test_models_json_is_one_array_of_servers(cli, local_api):
    result = cli(*ON_A_LOCAL_SERVER["models"])
    assert result.exit_code == 0, result.stderr
    (server,) = json.loads(result.stdout)
    assert server["provider"] == "openai" and server["roles"] == {"llama3.1:8b": ["chat", "memory"]}
