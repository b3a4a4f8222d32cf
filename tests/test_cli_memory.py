"""`memchat recall`, `memchat memories ...`, `memchat reindex` and the REPL's memory commands."""

import json
import os
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from conftest import db_rows, run_memchat

HIT_FIELDS = [
    "type",
    "id",
    "kind",
    "text",
    "score",
    "when",
    "source",
    "session_id",
    "message_id",
    "role",
    "name",
    "status",
    "pinned",
    "key",
    "bm25_rank",
    "vector_rank",
    "cosine",
    "fused",
    "previous_id",
    "next_id",
    "weak",
]
MEMORY_FIELDS = [
    "id",
    "kind",
    "text",
    "key",
    "value",
    "status",
    "pinned",
    "origin",
    "confidence",
    "sensitive",
    "importance",
    "source_message_ids",
    "valid_from",
    "valid_to",
    "superseded_by",
    "created_at",
    "updated_at",
    "last_used_at",
    "use_count",
    "embedding_model",
    "private",
]


def listed(result):
    """A --json listing: one JSON array, whole."""
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert isinstance(rows, list)
    return rows


def test_add_list_show_and_history_through_a_new_value(cli):
    assert (
        cli("memories", "add", "I live in Berlin", "--key", "user.city", "--value", "Berlin").stdout
        == "memory 1 (fact): I live in Berlin\n"
    )
    moved = cli("memories", "add", "I moved from Berlin to Lisbon", "--key", "user.city", "--value", "Lisbon")
    assert moved.stdout == "memory 2 (fact): I moved from Berlin to Lisbon\n  supersedes memory 1: I live in Berlin\n"
    cli("memories", "add", "--kind", "rule", "Answer in British English")
    table = cli("memories", "list").stdout
    assert "I moved from Berlin to Lisbon" in table and "Answer in British English" in table and "Berlin\n" not in table
    rows = listed(cli("memories", "list", "--status", "all", "--json"))
    assert list(rows[0]) == MEMORY_FIELDS
    assert [(r["id"], r["status"], r["superseded_by"]) for r in rows] == [
        (1, "superseded", 2),
        (2, "active", None),
        (3, "active", None),
    ]
    assert [r["id"] for r in listed(cli("memories", "list", "--kind", "rule", "--json"))] == [3]
    show = cli("memories", "show", "1").stdout
    assert "status         superseded" in show and "superseded by  #2" in show
    history = listed(cli("memories", "history", "1", "--json"))
    assert [(h["action"], h["old_text"], h["new_text"], h["actor"]) for h in history] == [
        ("add", None, "I live in Berlin", "user"),
        ("supersede", "I live in Berlin", "I moved from Berlin to Lisbon", "user"),
    ]
    assert "supersede" in cli("memories", "history", "1").stdout
    missing = cli("memories", "show", "9")
    assert (missing.exit_code, missing.stderr) == (1, "memchat: no memory 9 (see `memchat memories list`)\n")


def test_recall_prints_a_table_or_a_json_array(cli, embedder):
    cli("memories", "add", "The webhook bug was a wrong signing secret on staging")
    cli("--provider", "echo", "ask", "we left the webhook bug at the retry handler")
    table = cli("recall", "where", "did", "we", "leave", "the", "webhook", "bug?")
    assert table.exit_code == 0
    header = table.stdout.splitlines()[0].split("\t")
    assert header == ["score", "weak", "kind", "text", "when", "source"]  # into a pipe (see below)
    assert "memory #1 · manual" in table.stdout and "session 1 · message 1" in table.stdout
    hits = json.loads(cli("recall", "webhook bug", "--json", "--limit", "2").stdout)
    assert len(hits) == 2 and list(hits[0]) == HIT_FIELDS
    assert {h["type"] for h in hits} == {"memory", "message"} and all(isinstance(h["score"], float) for h in hits)
    only = json.loads(cli("recall", "webhook", "--kind", "message", "--session", "1", "--json").stdout)
    assert {(h["kind"], h["session_id"]) for h in only} == {("message", 1)}
    none = cli("recall", "webhook", "--kind", "rule")
    assert none.exit_code == 0 and none.stdout == "" and "nothing in memory matches these filters" in none.stderr
    assert json.loads(cli("recall", "webhook", "--kind", "rule", "--json").stdout) == []
    bad = cli("recall", "x", "--since", "soon")
    assert bad.exit_code == 2 and "not a date" in bad.stderr


def test_recall_into_a_pipe_prints_each_hit_whole_on_one_tab_separated_line(cli, embedder, monkeypatch):
    checklist = "Kestrel deploy checklist: " + ", ".join(f"step {n} drains queue {n}" for n in range(40))
    cli("memories", "add", checklist)
    cli("memories", "add", "Kestrel is the staging server")
    cli("memories", "add", "I like oat milk")
    piped = cli("recall", "Kestrel deploy")
    lines = piped.stdout.splitlines()
    assert lines[0].split("\t") == ["score", "weak", "kind", "text", "when", "source"]
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 3 and all(len(row) == 6 for row in rows)
    assert checklist in [row[3] for row in rows] and len(checklist) > 600  # whole, where the table cuts and wraps it
    assert all(float(row[0]) >= 0 and row[1] in ("", "weak") for row in rows)  # a number, for sort -g
    assert [row[1] for row in rows if row[3] == "I like oat milk"] == ["weak"]
    assert {row[5] for row in rows} == {"memory #1 · manual", "memory #2 · manual", "memory #3 · manual"}
    monkeypatch.setenv("TTY_COMPATIBLE", "0")  # told it is no terminal, as Rich reads it: still the lines
    assert cli("recall", "Kestrel deploy").stdout == piped.stdout
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # told to draw as on a terminal: the table
    table = re.sub(r"\x1b\[[0-9;]*m", "", cli("recall", "Kestrel deploy").stdout)
    assert "\t" not in table and table.splitlines()[0].split() == ["score", "kind", "text", "when", "source"]
    assert checklist not in table.replace("\n", " ")  # cut and wrapped in its column


@pytest.mark.process  # memchat runs the editor as a process
def test_edit_with_text_or_editor_pin_and_unpin(cli, monkeypatch, tmp_path):
    cli("memories", "add", "Drinks green tea")
    assert cli("memories", "edit", "1", "--text", "Drinks black tea").stdout == "memory 1: Drinks black tea\n"
    no_tty = cli("memories", "edit", "1")
    assert no_tty.exit_code == 2 and "--text" in no_tty.stderr
    monkeypatch.setattr("memchat.cli.memories.stdin_is_tty", lambda: True)
    monkeypatch.setenv("EDITOR", "sed -i s/black/oolong/")
    assert cli("memories", "edit", "1").stdout == "memory 1: Drinks oolong tea\n"
    assert cli("memories", "pin", "1").stdout == "pinned memory 1: Drinks oolong tea\n"
    assert [m["id"] for m in listed(cli("memories", "list", "--pinned", "--json"))] == [1]
    assert cli("memories", "unpin", "1").stdout == "unpinned memory 1: Drinks oolong tea\n"
    assert listed(cli("memories", "list", "--pinned", "--json")) == []
    actions = [h["action"] for h in listed(cli("memories", "history", "1", "--json"))]
    assert actions == ["add", "edit", "edit", "pin", "unpin"]


def test_pinning_a_private_matter_says_it_will_go_with_every_message(cli):
    # A pin sends a memory with every call, "How do IBAN checksums work?" too: pinning a diagnosis
    # says so, where the help had promised only "always a candidate".
    cli("memories", "add", "I was diagnosed with Crohn's disease in 2020")
    cli("memories", "add", "I live in Dundee")
    pinned = cli("memories", "pin", "1")
    assert pinned.exit_code == 0 and pinned.stdout == "pinned memory 1: I was diagnosed with Crohn's disease in 2020\n"
    assert "every message" in pinned.stderr and "health" in pinned.stderr
    assert cli("memories", "pin", "2").stderr == ""
    assert "every message" in cli("memories", "pin", "--help").stdout
    # added pinned, or a matter the word lists had missed (a court judgment for a debt), says so too
    added = cli("memories", "add", "--pin", "I have a county court judgment for an unpaid phone bill")
    assert added.exit_code == 0 and "every message" in added.stderr
    # a private memory is never sent, pinned or not: no such note
    assert cli("memories", "add", "--private", "I was treated for bulimia in my twenties").exit_code == 0
    assert "every message" not in cli("memories", "pin", "4").stderr


def test_forget_asks_or_needs_yes_and_query_shows_what_goes(cli, memchat_home, embedder):
    cli("memories", "add", "My bank PIN hint is the dog's birthday")
    cli("memories", "add", "Likes hiking in the Alps")
    cli("memories", "add", "The dog is called Pixel")
    refused = cli("memories", "forget", "1")
    assert refused.exit_code == 2 and "--yes" in refused.stderr and "bank PIN" in refused.stderr
    assert db_rows(memchat_home, "SELECT status FROM memories WHERE id = 1") == [("active",)]
    assert (
        cli("memories", "forget", "1", "--yes").stdout
        == "forgot 1 memory: 1\n  1: My bank PIN hint is the dog's birthday\n"
    )
    by_query = cli("memories", "forget", "--query", "dog", "--yes")
    assert "Pixel" in by_query.stderr and by_query.stdout == "forgot 1 memory: 3\n  3: The dog is called Pixel\n"
    assert db_rows(memchat_home, "SELECT id, status, text FROM memories ORDER BY id") == [
        (1, "forgotten", ""),
        (2, "active", "Likes hiking in the Alps"),
        (3, "forgotten", ""),
    ]
    assert "nothing to forget" in cli("memories", "forget", "--query", "submarines", "--yes").stderr
    assert cli("memories", "forget", "--all", "--yes").stdout == "forgot 1 memory: 2\n  2: Likes hiking in the Alps\n"
    assert cli("memories", "forget", "1", "--all").exit_code == 2
    assert cli("memories", "forget").exit_code == 2


def test_export_and_import_memories_round_trip(cli, tmp_path):
    cli("memories", "add", "I live in Berlin", "--key", "user.city")
    cli("memories", "add", "I live in Lisbon", "--key", "user.city")
    cli("memories", "add", "--kind", "rule", "--pin", "Use metric units")
    out = tmp_path / "memories.json"
    assert cli("memories", "export", "-o", str(out)).exit_code == 0
    assert out.stat().st_mode & 0o777 == 0o600
    data = json.loads(out.read_text())
    assert (data["format"], data["version"], len(data["memories"])) == ("memchat-memories", 1, 3)
    md = cli("memories", "export", "--format", "md").stdout
    assert "## Facts" in md and "- Use metric units _(pinned)_" in md
    other = tmp_path / "other.db"
    assert cli("--db", str(other), "memories", "import", str(out)).stdout == "imported 3 memories (0 already present)\n"
    assert cli("--db", str(other), "memories", "import", str(out)).stdout == "imported 0 memories (3 already present)\n"
    rows = listed(cli("--db", str(other), "memories", "list", "--status", "all", "--json"))
    by_text = {r["text"]: r for r in rows}
    assert by_text["I live in Lisbon"]["status"] == "active" and by_text["Use metric units"]["pinned"]
    assert by_text["I live in Berlin"]["superseded_by"] == by_text["I live in Lisbon"]["id"]
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**data, "version": 2}))
    too_new = cli("memories", "import", str(newer))
    assert too_new.exit_code == 2 and "newer memchat (memories format version 2" in too_new.stderr
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"format": "memchat-session", "version": 1}))
    wrong = cli("memories", "import", str(session))
    assert wrong.exit_code == 2 and "conversations are imported with `memchat import`" in wrong.stderr


def test_recall_after_a_model_change_asks_for_reindex_which_fixes_it(cli, memchat_home, embedder):
    cli("memories", "add", "The staging server is called Kestrel")
    cli("--provider", "echo", "ask", "kestrel needs a reboot")
    assert cli("recall", "staging server").exit_code == 0  # embeds everything with the current model
    import sqlite3

    conn = sqlite3.connect(memchat_home / "default.db")
    conn.execute("UPDATE memories SET embedding_model = 'old-model'")
    conn.execute("UPDATE message_vectors SET model = 'old-model'")
    conn.commit()
    conn.close()
    stale = cli("recall", "staging server")
    assert stale.exit_code == 1 and "run `memchat reindex`" in stale.stderr and "'old-model'" in stale.stderr
    done = cli("reindex")
    assert done.stdout == "reindexed with all-MiniLM-L6-v2: 1 memory and 2 messages embedded\n"
    assert db_rows(memchat_home, "SELECT DISTINCT model FROM message_vectors") == [("all-MiniLM-L6-v2",)]
    hits = json.loads(cli("recall", "staging server", "--json").stdout)
    assert hits[0]["text"] == "The staging server is called Kestrel" and hits[0]["vector_rank"] == 1
    assert cli("reindex").stdout == "reindexed with all-MiniLM-L6-v2: 0 memories and 0 messages embedded\n"


def test_repl_memory_commands(cli, memchat_home, embedder):
    script = (
        "\n".join(
            [
                "/remember rule: answer in British English",
                "/remember I like green tea",
                "/memories",
                "/recall green tea",
                "/pin-memory 2",
                "/unpin-memory #2",
                "/forget 2",
                "/memories rule",
                "/forget",
                "/pin-memory 99",
            ]
        )
        + "\n"
    )
    result = cli("--provider", "echo", input=script)
    out = result.stdout
    assert "remembered #1 (rule): answer in British English" in out and "remembered #2 (fact): I like green tea" in out
    assert re.search(r"^\d\.\d{3} +fact +#2  I like green tea$", out, re.M)  # /recall: score, kind, id, text
    assert "pinned #2: I like green tea" in out and "unpinned #2: I like green tea" in out and "forgot #2" in out
    assert "usage: /forget ID" in result.stderr and "no memory 99" in result.stderr
    assert db_rows(memchat_home, "SELECT id, status, origin FROM memories") == [
        (1, "active", "stated"),
        (2, "forgotten", "stated"),
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["memories", "list", "--status", "gone"],
        ["memories", "add", "x", "--kind", "opinion"],
        ["recall", "x", "--kind", "opinion"],
    ],
    ids=["status", "add-kind", "recall-kind"],
)
def test_bad_choices_are_usage_errors(cli, args):
    result = cli(*args)
    assert result.exit_code == 2 and "must be one of" in result.stderr


def test_forget_all_on_many_memories_lists_the_first_and_counts_the_rest(cli, memchat_home):
    from memchat.db import open_db
    from memchat.memory.store.memories import MemoryStore

    store = MemoryStore(open_db(memchat_home / "default.db"))
    for i in range(60):
        store.add(f"Storage unit {i} holds box number {i * 3}.")
    dry = cli("memories", "forget", "--all", "--dry-run")
    assert "would forget 60 memories: 1-60" in dry.stderr
    assert "... and 10 more" in dry.stderr
    done = cli("memories", "forget", "--all", "--yes")
    assert done.exit_code == 0
    assert "forgot 60 memories: 1-60" in done.stdout
    assert "  1: Storage unit 0 holds box number 0." in done.stdout
    assert "... and 10 more" in done.stdout
    assert store.find(status=("active", "pending", "superseded")) == []


@pytest.mark.parametrize(
    ("editor", "said"),
    [
        ("/nonexistent/editor", "cannot run the editor '/nonexistent/editor': no such program"),
        ("false", "the editor 'false' exited with code 1; nothing was changed"),
        ("'unclosed", "cannot read $EDITOR"),
    ],
)
@pytest.mark.process  # memchat runs the editor as a process
def test_a_bad_editor_is_one_line_and_changes_nothing(monkeypatch, editor, said):
    from memchat.errors import UsageError
    from memchat.ui.editor import edit_in_editor

    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    with pytest.raises(UsageError, match=re.escape(said)):
        edit_in_editor("My passport is in the blue drawer.\n")


@pytest.mark.process  # memchat runs the editor as a process
def test_the_editor_sees_a_private_file_that_is_gone_afterwards(monkeypatch, tmp_path):
    from memchat.ui.editor import edit_in_editor

    seen = tmp_path / "seen"
    script = tmp_path / "ed.sh"
    script.write_text(
        f'#!/bin/sh\nstat -c %a "$1" > {seen}\nstat -c %a "$(dirname "$1")" >> {seen}\n'
        f'sed -i s/blue/red/ "$1"\necho "$1" >> {seen}\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(script))
    assert edit_in_editor("My passport is in the blue drawer.\n") == "My passport is in the red drawer.\n"
    mode, dir_mode, path = seen.read_text().split()
    assert (mode, dir_mode) == ("600", "700")
    assert not Path(path).exists() and not Path(path).parent.exists()
    monkeypatch.setenv("VISUAL", "true")
    assert edit_in_editor("unchanged\n") is None


def test_memories_edit_with_a_bad_editor_exits_2_in_a_terminal(memchat_home):
    pexpect = pytest.importorskip("pexpect")
    from conftest import ROOT

    env = dict(os.environ, EDITOR="/nonexistent/editor", MEMCHAT_PROVIDER="echo")
    env.pop("VISUAL", None)
    assert run_memchat("memories", "add", "The spare key is in the blue pot.").returncode == 0
    child = pexpect.spawn(
        sys.executable, ["-m", "memchat", "memories", "edit", "1"], env=env, cwd=str(ROOT), encoding="utf-8", timeout=30
    )
    child.expect(pexpect.EOF)
    child.close()
    assert "memchat: cannot run the editor '/nonexistent/editor': no such program" in child.before
    assert "internal error" not in child.before and child.exitstatus == 2


def test_an_instruction_for_some_of_the_work_is_a_rule(cli):
    # "When you suggest meals, keep weeknight cooking under 30 minutes" was stored as a fact and went
    # with "how many seconds are in a week?" (a blind set); a clause to the assistant before a fact
    # leaves it a fact.
    for text, kind in (
        ("When you suggest recipes, keep them vegetarian", "rule"),
        ("If you write code for me, always use Rust", "rule"),
        ("If you see Tom, he owes me a fiver", "fact"),
        ("When you were last asked, my sister lived in Porto", "fact"),
        # said of what the user asks, or as a bare imperative (a blind set's three, stored as facts)
        ("If I ask for a script, assume Bash unless I say otherwise", "rule"),
        ("Whenever I ask about a word, give its Welsh too", "rule"),
        ("Quote distances in miles and weights in kilos", "rule"),
        ("If I want a takeaway, I order from Dishoom", "fact"),
    ):
        assert cli("memories", "add", text).exit_code == 0
        kinds = {m["text"]: m["kind"] for m in json.loads(cli("memories", "list", "--json").stdout)}
        assert kinds[text] == kind, text


@pytest.mark.parametrize(
    ("said", "kind", "stored"),
    [
        ("remember that rule: always answer in British English", "rule", "Always answer in British English"),
        ("Remember: I prefer Go examples", "rule", "I prefer Go examples"),
        ("please remember to call me Sam", "rule", "Call me Sam"),
        ("what do you remember about me?", None, None),  # a question, not a request to keep something
        ("remember that I prefer tea over coffee", "fact", "I prefer tea over coffee"),
        ("remember that my sister lives in Porto", "fact", "My sister lives in Porto"),
    ],
)
def test_instructions_to_the_assistant_are_kept_as_rules_and_sent_as_such(cli, fake, said, kind, stored):
    assert cli("ask", said).exit_code == 0
    memories = json.loads(cli("memories", "list", "--json").stdout)
    if kind is None:
        assert memories == []
        return
    assert [(m["kind"], m["text"]) for m in memories] == [(kind, stored)]
    assert cli("ask", "what should I cook tonight?").exit_code == 0
    system = fake.requests[-1]["system"]
    if kind == "rule":
        assert f"## How to work with you\n- {stored}" in system  # every call, whatever the message


@pytest.mark.parametrize(
    ("typed", "kind", "stored"),
    [
        ("Remember that rule: always answer in British English", "rule", "always answer in British English"),
        ("remember: I prefer Go examples", "rule", "I prefer Go examples"),
        ("Please remember, never use emojis", "rule", "never use emojis"),
        ("remember that my sister is Ana", "fact", "my sister is Ana"),
        ("Remember the milk", "fact", "Remember the milk"),  # not a request: the words are the memory
    ],
)
def test_memories_add_reads_a_request_to_remember_like_the_chat_does(cli, typed, kind, stored):
    result = cli("memories", "add", typed)
    assert result.exit_code == 0 and f"({kind}): {stored}" in result.stdout


def test_adding_what_is_already_there_says_so(cli):
    first = cli("memories", "add", "I prefer Go examples")
    assert first.exit_code == 0 and "memory 1 (rule): I prefer Go examples" in first.stdout
    again = cli("memories", "add", "i prefer go examples.")
    assert again.exit_code == 0
    assert "already remembered as memory 1 (rule)" in again.stdout
    assert "memory 2 (fact)" in cli("memories", "add", "--kind", "fact", "The spare key is in the blue pot.").stdout
    assert "memory 3 (rule): no emojis" in cli("memories", "add", "rule: no emojis").stdout
    assert len(json.loads(cli("memories", "list", "--json").stdout)) == 3


def test_a_listing_cut_short_by_its_reader_exits_quietly(memchat_home):
    """`memchat memories list --json | head -1`: no error, exit 0, like the plain listing."""
    import subprocess

    from conftest import ROOT

    from memchat.db import open_db
    from memchat.memory.store.memories import MemoryStore

    store = MemoryStore(open_db(memchat_home / "default.db"))
    for i in range(400):
        store.add(f"Memory number {i} about nothing much")
    for args in (
        ["memories", "list", "--jsonl"],
        ["memories", "list", "--json"],
        ["memories", "list"],
        ["audit", "--json"],
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "memchat", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(ROOT)
        )
        proc.stdout.readline()
        proc.stdout.close()  # the reader had enough
        err = proc.stderr.read()
        assert proc.wait(timeout=30) == 0, (args, err)
        assert err == b"", err


# --- an empty listing says what was asked for, not "no memories yet" ------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--status", "superseded"], "no superseded memories"),
        (["--status", "pending"], "no pending memories"),
        (["--kind", "rule"], "no rules"),
        (["--kind", "event", "--status", "all"], "no events"),
        (["--pinned"], "no pinned memories"),
        (["--kind", "fact", "--status", "forgotten"], "no forgotten facts"),
        (["--kind", "rule", "--pinned", "--status", "active"], "no active pinned rules"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_an_empty_filtered_listing_names_its_filters(cli, args, said):
    assert cli("memories", "add", "--kind", "fact", "My dentist is Dr. Okafor.").exit_code == 0
    result = cli("memories", "list", *args)
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.strip() == said


def test_an_empty_unfiltered_listing_tells_an_empty_memory_from_an_old_one(cli):
    assert "no memories yet: add one with" in cli("memories", "list").stderr
    assert cli("memories", "add", "--key", "user.city", "--value", "Berlin", "I live in Berlin").exit_code == 0
    assert cli("memories", "add", "--key", "user.city", "--value", "Lisbon", "I live in Lisbon").exit_code == 0
    assert cli("memories", "forget", "2", "--yes").exit_code == 0  # Lisbon, and Berlin it replaced
    said = cli("memories", "list").stderr
    assert "no active or pending memories (2 forgotten: `memchat memories list --status all`" in said
    assert "yet" not in said


def test_the_chats_memories_command_names_its_filter_too(cli):
    out = cli("--provider", "echo", "chat", input="/memories rule\n/memories\n").stdout
    assert "no rules" in out and "no memories yet: /remember TEXT adds one" in out
    assert cli("memories", "add", "Always answer in British English.", "--kind", "rule").exit_code == 0
    out = cli("--provider", "echo", "chat", input="/memories fact\n").stdout
    assert "no facts" in out and "yet" not in out


def test_repl_remember_with_a_key_supersedes_the_active_value(cli, memchat_home):
    first = cli("memories", "add", "--key", "user.city", "I live in Berlin")
    assert first.exit_code == 0
    result = cli("--provider", "echo", input="/remember key=user.city I live in Lisbon\n/remember rule: be brief\n")
    assert result.exit_code == 0, result.stderr
    assert "remembered #2 (fact): I live in Lisbon" in result.stdout
    assert "supersedes #1: I live in Berlin" in result.stdout
    assert db_rows(memchat_home, "SELECT id, key, status, superseded_by FROM memories ORDER BY id") == [
        (1, "user.city", "superseded", 2),
        (2, "user.city", "active", None),
        (3, None, "active", None),
    ]
    history = cli("memories", "history", "1").stdout
    assert "supersede" in history and "I live in Berlin" in history  # the old value is kept as history


@pytest.mark.parametrize(
    "key", ["user.", ".city", "user..city", "user/city", "_user.city", "city", "user.-", "user._city"], ids=str
)
def test_repl_remember_refuses_a_malformed_key_as_the_cli_does(cli, memchat_home, key):
    from_cli = cli("memories", "add", "--key", key, "I live in Lisbon")
    from_repl = cli("--provider", "echo", input=f"/remember key={key} I live in Lisbon\n")
    assert from_cli.exit_code == 2 and from_repl.exit_code == 1  # a piped chat with a failed line exits 1
    assert from_repl.stderr == from_cli.stderr and from_cli.stderr.count("\n") == 1
    assert "a key is entity.attribute" in from_repl.stderr and "Traceback" not in from_repl.stderr
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]


def test_a_key_is_one_key_whatever_its_case(cli, memchat_home):
    # `User.City` and `user.city` are one fact with one current value, from every place a key is given
    assert cli("memories", "add", "--key", "User.City", "I live in Berlin").exit_code == 0
    result = cli("--provider", "echo", input="/remember key=user.CITY I live in Lisbon\n")
    assert "supersedes #1: I live in Berlin" in result.stdout, result.stdout
    assert db_rows(memchat_home, "SELECT id, key, status FROM memories ORDER BY id") == [
        (1, "user.city", "superseded"),
        (2, "user.city", "active"),
    ]


def test_repl_remember_with_an_empty_key_says_how(cli, memchat_home):
    assert cli("memories", "add", "I like green tea").exit_code == 0
    result = cli("--provider", "echo", input="/remember key= I live in Lisbon\n/remember key=user.city\n")
    assert result.stderr.count("usage: /remember") == 2
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(1,)]


def test_an_import_reads_null_as_absent_and_refuses_importance_outside_0_to_1(cli, tmp_path):
    """`"importance": null` had been an internal error; Infinity, 5 or -1 were stored, and a recall's
    score became NaN, which its JSON then printed as no JSON parser takes."""
    head = {"format": "memchat-memories", "version": 1}
    given = tmp_path / "given.json"
    given.write_text(
        json.dumps({**head, "memories": [{"text": "The boat is moored at Lymington", "importance": None}]})
    )
    done = cli("memories", "import", str(given))
    assert done.exit_code == 0, done.stderr
    assert [m["importance"] for m in listed(cli("memories", "list", "--json"))] == [0.5]
    for bad in ("Infinity", "NaN", "5", "-1"):
        given.write_text(
            '{"format": "memchat-memories", "version": 1, "memories": [{"text": "x", "confidence": ' + bad + "}]}"
        )
        refused = cli("memories", "import", str(given))
        assert refused.exit_code == 2 and "'confidence' must be a number from 0 to 1" in refused.stderr, bad
    hits = json.loads(cli("recall", "--json", "boat").stdout)  # strict JSON: no NaN anywhere
    assert hits and all(isinstance(h["score"], float) for h in hits)


def test_an_export_with_keys_of_an_older_memchat_imports_with_todays_keys(cli, tmp_path):
    # exports written before keys needed a dot and were kept in lower case restore, not fail
    given = tmp_path / "given.json"
    memories = [
        {"text": "I live in Berlin", "key": "city", "created_at": "2026-01-01T00:00:00Z"},
        {"text": "I live in Lisbon", "key": "User.City", "created_at": "2026-02-01T00:00:00Z"},
        {"text": "Our dog is Rex", "key": "Pet . Dog", "created_at": "2026-02-01T00:00:00Z"},
    ]
    given.write_text(json.dumps({"format": "memchat-memories", "version": 1, "memories": memories}))
    done = cli("memories", "import", str(given))
    assert done.exit_code == 0, done.stderr
    rows = {m["text"]: (m["key"], m["status"]) for m in listed(cli("memories", "list", "--status", "all", "--json"))}
    assert rows == {
        "I live in Berlin": ("user.city", "superseded"),
        "I live in Lisbon": ("user.city", "active"),
        "Our dog is Rex": ("pet.dog", "active"),
    }
    given.write_text(
        json.dumps({"format": "memchat-memories", "version": 1, "memories": [{"text": "x", "key": "a/b"}]})
    )
    refused = cli("memories", "import", str(given))
    assert refused.exit_code == 2 and "memory 1: 'key' must be entity.attribute" in refused.stderr


def test_an_add_that_is_stored_is_not_reported_as_failed_when_the_search_near_it_cannot_write(cli, monkeypatch):
    """Adding a memory then looks for what it may change; that search embeds what has no vector
    yet, and on a full disk it failed: the add said "cannot write to the database" though the memory
    was stored (a second try said "already remembered")."""
    from memchat.errors import StoreError
    from memchat.memory.capture import policy

    assert cli("memories", "add", "I live in Leeds").exit_code == 0

    def full(*args, **kwargs):
        raise StoreError("cannot write to the database: disk I/O error (is the disk full?)")

    monkeypatch.setattr(policy, "stated_neighbours", full)
    added = cli("memories", "add", "I moved to York in the spring")
    assert added.exit_code == 0, added.stderr
    assert added.stdout.startswith("memory 2 (fact): I moved to York")
    assert "cannot write" not in added.stderr


def test_a_forget_on_a_full_disk_says_so_and_does_not_blame_another_process(cli, monkeypatch, memchat_home):
    from memchat.cli.common import NO_ROOM, SCRUB_PENDING
    from memchat.memory.forget import scrub

    assert cli("memories", "add", "My locker code is 4471").exit_code == 0
    real = scrub._files

    def no_room(db, *, compact):
        vacuumed, checkpointed, _ = real(db, compact=False)
        return False, checkpointed, compact  # the VACUUM had no room for its copy

    monkeypatch.setattr(scrub, "_files", no_room)
    done = cli("memories", "forget", "1", "--yes")
    assert done.exit_code == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert " ".join(NO_ROOM.split()) in said and " ".join(SCRUB_PENDING.split()) not in said
    assert cli("--provider", "echo", "ask", "an old chat about the allotment").exit_code == 0
    with sqlite3.connect(memchat_home / "default.db") as conn:
        conn.execute("UPDATE messages SET created_at = '2020-01-01T00:00:00Z'")
    purged = cli("purge", "--older-than", "30d", "--yes")
    assert purged.exit_code == 0 and "no room to compact" in " ".join(purged.stderr.split()), purged.stdout
    compacted = cli("profile", "compact")
    assert compacted.exit_code != 0 and "no room to compact" in compacted.stderr


def test_a_forget_whose_scrub_a_full_disk_stops_says_what_was_done_and_what_is_left(cli, monkeypatch, memchat_home):
    """With a few hundred kB free, forget took the memory out, then its scrub (the checkpoint) hit
    the full disk: it said only "the disk is full", exit 1, as if nothing was forgotten (an
    adversarial pass). It now says it forgot, and that the last traces wait for room; the next
    command with room finishes them."""
    from memchat.errors import StoreError
    from memchat.memory.forget import scrub

    assert cli("memories", "add", "My locker code is 4471").exit_code == 0
    real = scrub.finish
    monkeypatch.setattr(
        scrub, "finish", lambda db: (_ for _ in ()).throw(StoreError("cannot write to the database: the disk is full"))
    )
    done = cli("memories", "forget", "1", "--yes")
    assert done.exit_code == 1 and done.stdout.startswith("forgot 1 memory: 1"), (done.stdout, done.stderr)
    said = " ".join(done.stderr.split())
    assert "the disk is full" in said and "taken out by the next memchat command with room" in said
    assert db_rows(memchat_home, "SELECT status FROM memories") == [("forgotten",)]
    assert db_rows(memchat_home, "SELECT count(*) FROM pending_scrubs") != [(0,)]  # owed, recorded
    monkeypatch.setattr(scrub, "finish", real)
    assert cli("memories", "list").exit_code == 0
    assert db_rows(memchat_home, "SELECT count(*) FROM pending_scrubs") == [(0,)]  # finished with room


def test_a_kind_label_with_nothing_after_it_is_no_memory(cli, memchat_home):
    """ "rule:" alone (a /remember, `memories add`, or "remember that rule:" in a chat) labels
    nothing: refused in one line, never stored as the text "rule:"."""
    assert cli("memories", "add", "rule:").exit_code == 2
    piped = cli("--provider", "echo", input="/remember rule:\n/remember fact:   \nremember that rule:\n/capture ON\n")
    assert "usage: /remember" in piped.stderr and "usage: /capture" not in piped.stderr
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]


def test_the_listing_and_the_details_say_which_memories_are_private(cli):
    # the person must be able to see what they marked: the table, the REPL's lines and `show`
    from memchat.ui.memory import memory_lines

    assert cli("memories", "add", "--private", "My locker code is 77-12-90").exit_code == 0
    assert cli("memories", "add", "I like tea").exit_code == 0
    rows = {line.split()[0]: line for line in cli("memories", "list").stdout.splitlines()[1:]}
    assert "private" in rows["1"] and "private" not in rows["2"]
    assert "private     yes" in cli("memories", "show", "1").stdout
    assert "private     no" in cli("memories", "show", "2").stdout
    from memchat.app import Memchat

    app = Memchat.load(None)
    try:
        lines = memory_lines(app.store.find()).splitlines()
    finally:
        app.close()
    assert [("(private)" in line) for line in lines] == [True, False]


def test_memories_add_dash_reads_the_memory_from_stdin_as_ask_does(cli):
    # `memories add -` stored the text "-" (an adversarial pass): `-` alone reads stdin, as `ask -` does
    done = cli("memories", "add", "-", input="I'm vegan since 2019\n")
    assert done.exit_code == 0 and "I'm vegan since 2019" in done.stdout
    assert "I'm vegan since 2019" in cli("memories", "list").stdout
    empty = cli("memories", "add", "-", input="")
    assert empty.exit_code == 2 and "nothing to remember on stdin" in empty.stderr
    assert "-" not in [line.split()[-1] for line in cli("memories", "list").stdout.splitlines()[1:] if line.strip()]
    # and `memories edit --text -` likewise: it had stored "-" as the memory (the fuzz test)
    edited = cli("memories", "edit", "1", "--text", "-", input="I'm vegetarian since 2024\n")
    assert edited.exit_code == 0 and "I'm vegetarian since 2024" in cli("memories", "show", "1").stdout
    nothing = cli("memories", "edit", "1", "--text", "-", input="")
    assert nothing.exit_code == 2 and "nothing to change to on stdin" in nothing.stderr
    assert "I'm vegetarian since 2024" in cli("memories", "show", "1").stdout
