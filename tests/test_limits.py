"""One large message must not make every later call slow, nor get in at all past the limit.

Every way in (an `ask` argument or stdin, a REPL paste, `memories add`, MCP `remember`) refuses
text over MAX_MESSAGE_CHARS in one line; and what a turn does with stored text (ranking, the
gate, snippets, embedding) reads a bounded window of it, whatever the largest message holds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from conftest import db_rows, run_memchat

from memchat import sessions
from memchat.db import open_db
from memchat.errors import MAX_MESSAGE_CHARS
from memchat.memory.recall import index
from memchat.memory.text import ASIDES, TEXT_WINDOW

OVER = "word " * (MAX_MESSAGE_CHARS // 5 + 1)


def test_every_way_in_refuses_a_message_over_the_limit_in_one_line(cli, memchat_home):
    for args, stdin in (
        (["--provider", "echo", "ask", OVER], None),
        (["--provider", "echo", "ask"], OVER),
        (["memories", "add", OVER], None),
    ):
        result = cli(*args, input=stdin)
        assert result.exit_code == 2, (args[:2], result.stderr[:300])
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and f"at most {MAX_MESSAGE_CHARS:,}" in lines[0] and len(lines[0]) < 300
    # the REPL says so and goes on with the next message
    repl = cli("--provider", "echo", input=f"{OVER}\nhello after\n")
    assert f"at most {MAX_MESSAGE_CHARS:,}" in repl.stderr and "(echo) hello after" in repl.stdout
    assert all(n <= MAX_MESSAGE_CHARS for (n,) in db_rows(memchat_home, "SELECT length(content) FROM messages"))
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]


@pytest.mark.process
def test_endless_input_is_refused_without_reading_it_all(memchat_home, tmp_path):
    """`yes | memchat ask` had grown to gigabytes before anything was said, and so had one endless
    line to a piped chat or to `memchat mcp`: each stops reading past the limit and says so."""

    def fed(feeder: str, *args: str) -> subprocess.CompletedProcess:
        # a pipeline of its own: a memchat that never stops reading is killed with its feeder, not
        # left running (subprocess's timeout ends bash alone)
        with subprocess.Popen(
            ["bash", "-c", f'{feeder} | "$0" -m memchat "$@"', sys.executable, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        ) as proc:
            try:
                out, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                raise
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    asked = fed("yes", "--provider", "echo", "ask")  # endless short lines
    assert asked.returncode == 2 and f"at most {MAX_MESSAGE_CHARS:,}" in asked.stderr.decode()
    one_line = f"yes | tr -d '\\n' | head -c {10 * MAX_MESSAGE_CHARS}"  # past any limit, held by none
    chat = fed(f"{{ {one_line}; echo; echo hello after; }}", "--provider", "echo")
    assert chat.returncode == 1 and "(echo) hello after" in chat.stdout.decode(), chat.stderr[-300:]
    assert f"at most {MAX_MESSAGE_CHARS:,}" in chat.stderr.decode()
    served = fed(f"{{ {one_line}; echo; }}", "mcp")  # a parse error, and the server ends with its input
    assert b"Parse error: a message is at most" in served.stdout, served.stderr[-300:]


@pytest.mark.process  # the MCP server runs as a process
def test_mcp_remember_refuses_a_memory_over_the_limit(memchat_home):
    from test_mcp import _serve

    async def calls(s):
        return await s.call_tool("remember", {"text": OVER})

    _, result = _serve(calls)
    assert result.is_error and f"at most {MAX_MESSAGE_CHARS:,}" in result.content[0].text


def test_a_turn_reads_a_window_of_a_huge_stored_message(cli, api, memchat_home, real_encoder):
    """A message stored before the limit existed (or by an older import): 5 MB whose words match."""
    db = open_db(memchat_home / "default.db")
    huge = "deploy log: database timeout retried, release gate green. " * 90_000
    sessions.add_message(db, sessions.create_session(db).id, "user", huge)
    index.catch_up(db, real_encoder)
    assert len(index.message_text("Ana", huge)) <= TEXT_WINDOW + 10  # what the encoder is given
    db.close()
    hits = json.loads(cli("recall", "--json", "database timeout in the deploy log").stdout)
    assert hits and all(len(h["text"]) <= TEXT_WINDOW + 2 for h in hits)
    assert cli("ask", "what did the deploy log say about the database timeout?").exit_code == 0
    system = api.requests[-1].get("system", "")
    assert "database timeout" in system and len(system) < 20_000  # a snippet of it, not 5 MB
    found = run_memchat("recall", "--json", "release gate")  # a fresh process, as a user runs it
    assert found.returncode == 0 and len(found.stdout) < 200_000


def test_an_import_cuts_a_message_over_the_limit_and_says_so(cli, memchat_home, tmp_path):
    lines = [
        {"session": "s1", "role": "user", "content": "here is the whole log"},
        {"session": "s1", "role": "assistant", "content": OVER},
    ]
    source = tmp_path / "history.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = cli("import", str(source), "--no-embed")
    assert result.exit_code == 0 and f"cut 1 message to {MAX_MESSAGE_CHARS:,} characters" in result.stdout
    (longest,) = db_rows(memchat_home, "SELECT max(length(content)) FROM messages")[0]
    assert MAX_MESSAGE_CHARS < longest < MAX_MESSAGE_CHARS + 100  # kept up to the limit, with a note


def test_a_memory_too_long_to_send_is_found_by_recall_and_never_judged(
    cli, api, memchat_home, real_encoder, monkeypatch
):
    """A pasted document kept as a memory: `recall` finds it, but no rule of the memory section reads
    it at any turn (three 100 kB memories had made every later turn 1.6 s) and it is not sent unasked;
    the short memories beside it are judged and sent as ever."""
    from memchat.memory.judge import sensitive
    from memchat.memory.store.memories import LONGEST_SENT

    packing = "My packing list for the Tromsø trip: " + "thermal socks, merino base layers, head torch, " * 1_500
    assert len(packing) > LONGEST_SENT
    added = cli("memories", "add", packing)
    assert added.exit_code == 0 and "is not sent with a request unasked" in added.stderr
    assert cli("memories", "add", "I'm flying to Tromsø on 2027-02-14 to see the northern lights").exit_code == 0
    short = cli("memories", "add", "I really feel the cold")
    assert short.exit_code == 0 and "unasked" not in short.stderr
    read: list[int] = []
    categories = sensitive.categories
    monkeypatch.setattr(sensitive, "categories", lambda text: (read.append(len(text)), categories(text))[1])
    assert cli("ask", "What should I pack for my Tromsø trip? Thermal socks?").exit_code == 0
    system = api.requests[-1].get("system", "")
    assert "flying to Tromsø" in system and "merino base layers" not in system
    assert read and max(read) <= LONGEST_SENT  # the rules read the short ones and the request, never the list
    hits = json.loads(cli("recall", "--json", "packing list thermal socks merino").stdout)
    assert any(h["text"].startswith("My packing list for the Tromsø trip") for h in hits)


def test_the_note_on_a_long_memory_is_shown_where_it_is_true(cli, memchat_home):
    """Pinned memories and rules are sent as they are (budget permitting) and private ones never
    unasked: only a long memory that is none of those is told as found but not sent; and an edit
    that makes one long says so too."""
    from memchat.memory.store.memories import LONGEST_SENT

    long_text = "Notes on the boiler service history and the landlord's letters. " * (LONGEST_SENT // 60)
    assert len(long_text) > LONGEST_SENT
    for extra in (("--pin",), ("--kind", "rule"), ("--private",)):
        added = cli("memories", "add", long_text + " ".join(extra), *extra)
        assert added.exit_code == 0 and "not sent with a request unasked" not in added.stderr, extra
    short = cli("memories", "add", "The boiler is a Worcester Bosch combi")
    assert short.exit_code == 0 and "unasked" not in short.stderr
    memory_id = short.stdout.split()[1]
    edited = cli("memories", "edit", memory_id, "--text", long_text)
    assert edited.exit_code == 0
    (note,) = [line for line in edited.stderr.splitlines() if "not sent with a request unasked" in line]
    assert f"memory {memory_id} is" in note


def test_a_huge_request_is_judged_by_its_ends(cli, api, memchat_home, real_encoder, monkeypatch):
    """A question with 300 kB pasted after it: the memory it needs is still sent, and the rules that
    judge the request read its first and last TEXT_WINDOW characters, not all of it (a 128 kB paste
    had cost 1.2 s of rules before the call, a 1 MB one ~8 s)."""
    from memchat.memory.judge import sensitive

    assert cli("memories", "add", "I'm lactose intolerant").exit_code == 0
    read: list[int] = []
    categories = sensitive.categories
    monkeypatch.setattr(sensitive, "categories", lambda text: (read.append(len(text)), categories(text))[1])
    leaflet = "Our café menu. Flat white, latte, cappuccino, cortado. Croissant, pain au chocolat. " * 3_500
    asked = cli("ask", "-", input=f"What should I get at the café this morning? Here is their menu:\n{leaflet}")
    assert asked.exit_code == 0, asked.stderr
    assert "lactose intolerant" in api.requests[-1].get("system", "")
    assert read and max(read) <= 2 * TEXT_WINDOW + ASIDES + 10


def test_a_question_in_the_middle_of_a_paste_is_still_judged(cli, api, memchat_home, real_encoder):
    """Judging a long request by its ends keeps, from the part between them, what asks something or
    speaks of the user: a question put in the middle of pasted minutes still gets its medicine."""
    assert cli("memories", "add", "I take sertraline 50 mg every morning").exit_code == 0
    minutes = "Minutes: the group reviewed the draft timetable, the catering contract and the room bookings. " * 90
    aside = "Quick one before I forget: is it OK to have a glass of wine at the office party tonight with my tablets? "
    assert len(minutes) > TEXT_WINDOW
    assert cli("ask", "-", input=minutes + aside + minutes).exit_code == 0
    assert "sertraline" in api.requests[-1].get("system", "")


def test_recall_shows_the_part_of_a_long_memory_that_matches(cli, memchat_home, real_encoder):
    """A table cell holds 300 characters: for a long memory, the sentences the query matches."""
    lease = "Lease notes. " + "The tenancy runs twelve months; the deposit is protected. " * 120
    lease += "Emergency plumber: Rossi Plumbing, 0131 555 0192."
    assert cli("memories", "add", lease).exit_code == 0
    shown = cli("recall", "emergency plumber")
    assert shown.exit_code == 0 and "0131 555 0192" in shown.stdout
    assert "0131 555 0192" in "".join(h["text"] for h in json.loads(cli("recall", "--json", "plumber").stdout))


def test_a_run_of_a_million_spaces_is_counted_and_the_message_kept(cli, memchat_home):
    """tiktoken's regex runs out of stack on a run of ~1M spaces (a message under the 1 MiB limit):
    the count goes in pieces, the message is stored and answered (it had been lost to an internal error)."""
    message = "hello" + " " * 1_000_000 + "world"
    result = cli("--provider", "echo", "ask", "-", input=message)
    assert result.exit_code == 0, result.stderr[:300]
    assert db_rows(memchat_home, "SELECT length(content) FROM messages WHERE role = 'user'") == [(len(message),)]


def test_text_rules_are_linear_on_the_shapes_that_made_them_square(tmp_path):
    """A "<" before a long run of spaces (the data-tag check tried every split of the run: 16 kB took
    5 s) and a text of many distinct words (a search's words deduplicated through a list's `in`: a
    1 MB memory took 98 s to add): run at sizes where the square would take hours, in a process that
    must finish within the timeout."""
    code = (
        "from memchat.text import neutralise\n"
        "from memchat.memory.text import fts_words\n"
        "out = neutralise('<' + ' ' * 400_000 + 'memory>x')\n"
        "assert '<' not in out and out.endswith('memory›x')\n"
        "assert len(fts_words(' '.join(f'w{i}' for i in range(200_000)))) == 32\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr.decode()[-500:]


def test_a_long_memory_is_echoed_by_its_start_and_shown_whole_on_request(cli, memchat_home):
    document = "Clause: the tenant keeps the garden tidy. " * 2_000 + "THE END"
    added = cli("memories", "add", document)
    assert added.exit_code == 0 and len(added.stdout) < 2_300 and f"({len(document):,} characters" in added.stdout
    memory_id = added.stdout.split()[1]
    assert "THE END" in cli("memories", "show", memory_id).stdout.replace("\n", "")


def test_an_import_says_how_many_memories_are_too_long_to_send(cli, memchat_home, tmp_path):
    document = "Clause: the tenant keeps the garden tidy. " * 200
    added = cli("memories", "add", document)
    cli("memories", "add", "I'm lactose intolerant")
    exported = tmp_path / "memories.json"
    assert cli("memories", "export", "-f", "json", "-o", str(exported)).exit_code == 0
    assert cli("memories", "forget", added.stdout.split()[1], "--yes").exit_code == 0
    imported = cli("memories", "import", str(exported))
    assert imported.exit_code == 0 and "imported 1 memory" in imported.stdout
    assert "1 memory of them is too long to send with a request unasked" in imported.stderr + imported.stdout
