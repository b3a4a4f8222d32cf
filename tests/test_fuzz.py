"""Property-based fuzzing (hypothesis) of every door through which untrusted input enters memchat.

What is fuzzed:

1. `memchat recall QUERY...`, in-process with the real embedding model, over stored memories and a
   stored conversation: arbitrary query words (escape sequences, NUL, FTS5 syntax, Rich markup;
   and, apart, lone surrogates: what Python makes of undecodable argv bytes), and fuzzed --kind,
   --since, --until (dates at the ends of the calendar), --session and --limit values.
2. Memory text: `memories add TEXT` and `memories edit ID --text TEXT`, one kind of hostility at
   a time (C0 controls and ESC/CSI/OSC/DCS sequences, Rich markup, undecodable bytes, blanks and
   NUL) and all mixed, plus 1 MB of text; `--key`/`--value`, and that a new value for a key is
   kept; each followed by `memories show --json` (stored verbatim?), `memories list` and `show`.
3. REPL slash commands: every registered command (name and aliases, any case) with fuzzed
   arguments (hostile text, huge and odd numbers), fed in-process to `Repl.handle()` exactly as
   the non-TTY line loop feeds it; plain message lines (stored as typed?); lines carrying
   undecodable bytes; and two real subprocess runs of the loop (`memchat --no-memory < script`)
   with raw bytes: NUL, ESC, invalid UTF-8.
4. Configuration: every setting in config.toml with values aimed at its type (huge, negative and
   non-finite numbers, wrong types, escaped NUL and ESC, markup), whole files of raw bytes or
   hostile key names, and MEMCHAT_* environment values; against `memchat config` (JSON and
   table) and `memchat ask` with the echo provider.
5. Import files for `memchat import` and `memchat memories import`: generated JSON lines,
   session exports and memories exports with a wrong type in any field, raw bytes and any JSON;
   and fixed pathological files (1 MB message and memory, NUL, invalid UTF-8, a lone surrogate,
   100000 levels of nesting, a 5000-digit number, ids beyond 64 bits, a newer version, an unknown
   format, an empty file, a directory, binary, PNG and SQLite files).

The property, everywhere: a command either works - and then stores exactly what it was given
and prints no raw control characters - or it fails with exit code 1 or 2 and one short
`memchat: ...` line on stderr (Click's usage errors: a few lines). Never a Python traceback (an
exception escaping the in-process CLI, which runs with catch_exceptions=False, is the traceback a
user would see) nor the last-resort "internal error ... this is a bug" line, never a raw ESC or
other C0 control character other than newline and tab in the output, never a change to data
stored before a command that failed.

649 generated examples and 58 fixed cases (two 1 MB memories, 28 pathological files x 2
commands) in about a minute. MEMCHAT_FUZZ_SCALE=10 runs ten times as many;
MEMCHAT_FUZZ_SHRINK=1 turns hypothesis' shrinking back on (slow: hundreds of CLI runs per bug).
Without shrinking, hypothesis stops a test at its first failing example: that is why each kind
of hostile input has a test of its own, so that one bug does not hide the next.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
from conftest import run_memchat
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from memchat.memory.store.kinds import kind_of

# Shrinking a failure costs hundreds of CLI runs: off by default to keep the file near a minute even
# while it finds bugs (every generated input is short already). MEMCHAT_FUZZ_SHRINK=1 turns it on.
PHASES = (Phase.explicit, Phase.reuse, Phase.generate) + (
    (Phase.shrink,) if os.environ.get("MEMCHAT_FUZZ_SHRINK") else ()
)
# MEMCHAT_FUZZ_SCALE=10 runs ten times as many examples (a deeper search; minutes, not one).
SCALE = float(os.environ.get("MEMCHAT_FUZZ_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, round(n * SCALE))


FUZZ = dict(
    deadline=None,
    phases=PHASES,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

# --- what "clean" means -----------------------------------------------------------------------

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")  # C0, ESC included; newline and tab are fine
MAX_ERROR_LINE = 1000  # "one clear line", not a megabyte of echoed input
MB = 1 << 20


def assert_no_raw_controls(text: str, what: str) -> None:
    found = RAW_CONTROL.search(text)
    assert found is None, (
        f"raw control character {found.group()!r} reached {what}: "
        f"{text[max(0, found.start() - 60) : found.start() + 60]!r}"
    )


def assert_clean_failure(result, codes=(1, 2), what: str = "") -> str:
    """Exit code 1 or 2 and one short `memchat: ...` line (Click's usage errors too)."""
    err = result.stderr
    assert result.exit_code in codes, f"{what}: exit {result.exit_code}, stderr {err!r}, stdout {result.stdout[:300]!r}"
    assert_no_bug_report(err)
    assert_no_raw_controls(err, f"stderr of {what}")
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memchat: "), f"{what}: not one memchat line: {err[:2000]!r}"
    assert len(lines[0]) <= MAX_ERROR_LINE, f"{what}: a {len(lines[0])}-character error line: {lines[0][:300]!r}..."
    return err


def assert_no_bug_report(err: str) -> None:
    """Neither a traceback nor the last-resort "internal error ... this is a bug" line: both mean
    that an exception escaped the code meant to handle the input."""
    assert "Traceback" not in err, err[-3000:]
    bug = re.search(r"^memchat: internal error.*$", err, re.M)
    assert bug is None, bug.group() if bug else ""


def run(cli, *args, input=None):
    """The in-process CLI; closes the database connections each run leaves open."""
    try:
        return cli(*args, input=input)
    finally:
        fresh_process_state()


def fresh_process_state() -> None:
    """What a new process would start from: no open databases, no Rich consoles with a half-written
    buffer (a print that raised would otherwise leak its text into every later test)."""
    from memchat.cli import runner
    from memchat.ui import console

    while runner.OPEN:
        runner.OPEN.pop().close()
    console._out = console._err = None


class Snapshot(dict):
    def __repr__(self) -> str:  # short in hypothesis' reports, which print every fixture
        return "<snapshot: " + ", ".join(f"{len(rows)} {table}" for table, rows in self.items()) + ">"


def snapshot(path: Path) -> Snapshot:
    """Everything a user stored, read with plain sqlite3; also proves the file is intact."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return Snapshot(
            {
                "sessions": conn.execute("SELECT id, title, created_at FROM sessions ORDER BY id").fetchall(),
                "messages": conn.execute("SELECT id, session_id, role, content FROM messages ORDER BY id").fetchall(),
                "memories": conn.execute("SELECT id, kind, text, key, value FROM memories ORDER BY id").fetchall(),
            }
        )
    finally:
        conn.close()


def assert_kept(before: dict, after: dict) -> None:
    """Nothing stored earlier is gone or changed (new rows may follow)."""
    for table, rows in before.items():
        assert after[table][: len(rows)] == rows, f"{table} stored before the command changed"


# --- hostile text -----------------------------------------------------------------------------

ESCAPES = [
    "\x1b[31mred\x1b[0m",
    "\x1b[2J\x1b[H",
    "\x1b]0;owned\x07",
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "\x1bP+q544e\x1b\\",
    "\x1b[6n",
    "\x1b",
    "\x1bc",
    "\x9b31m",
    "\x07",
    "\x08\x08",
    "\x7f",
    "\x0b\x0c",
    "\x1c\x1d\x1e\x1f",
    "\x0e\x0f",
    "\t",
    "\r",
]
MARKUP = [
    "[/x]",
    "[bold]b[/bold]",
    "[link=https://evil.example]x[/link]",
    "[",
    "]",
    "\\[",
    "[/]",
    "[red]",
    "[@click=app.bell]x[/]",
    ":smile:",
]
ODD = [
    "%s%n",
    "{0}",
    "{text}",
    '"',
    "'",
    "\\",
    "*",
    "NEAR(a b)",
    "col:val",
    "-",
    "--x",
    "#1",
    "\u00a0",
    "'; DROP TABLE memories; --",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\u2028",
    "\x85",
    "🙂",
    "ä",
    "\U0010ffff",
]
BLANK = [" ", "\n", "\t", "\x00", "a\x00b", "\u3000", "\u2029"]
HOSTILE = ESCAPES + MARKUP + ODD + BLANK
LINE_BREAKS = str.maketrans({"\n": " ", "\r": " "})
# Printable text (no controls, no markup brackets) around the pieces of one kind of hostility.
WORDS_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"], exclude_characters="[]"), max_size=12
)


def undecodable(high_only: bool = False) -> st.SearchStrategy[str]:
    """What Python makes of undecodable bytes in argv, environ and stdin: lone surrogates."""
    raw = st.binary(min_size=1, max_size=12)
    if high_only:  # no ASCII control characters: only the bytes >= 0x80
        raw = raw.map(lambda b: bytes(x | 0x80 for x in b))
    return raw.map(lambda b: b.decode("utf-8", "surrogateescape"))


# Kinds of hostile text, fuzzed apart so that one bug does not hide the next (hypothesis stops at
# the first failure without its shrink phase), and all together.
TEXT_PIECES = {
    "escapes": st.sampled_from(ESCAPES) | WORDS_TEXT,
    "markup": st.sampled_from(MARKUP) | WORDS_TEXT,
    "undecodable": undecodable(high_only=True) | WORDS_TEXT,
    "blank-and-nul": st.sampled_from(BLANK) | WORDS_TEXT,
    "unicode": st.sampled_from(HOSTILE) | st.text(max_size=12),  # everything but undecodable bytes
    "anything": st.sampled_from(HOSTILE) | st.text(max_size=12) | undecodable(),
}


def hostile_text(kind: str = "anything", min_size: int = 1, max_size: int = 5) -> st.SearchStrategy[str]:
    return st.lists(TEXT_PIECES[kind], min_size=min_size, max_size=max_size).map("".join)


def has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


# --- 1. memchat recall ------------------------------------------------------------------------

RECALL_MEMORIES = [
    "The staging server is called Kestrel",
    "I am allergic to peanuts",
    "The \x1b]0;owned\x07 billing service belongs to the \x1b[31m payments \x1b[0m team",
    "My sister Ana lives in Porto",
    "The standup moved to 10:00 on Tuesdays",
    "I am training for the Lisbon half marathon",
    "The laptop is a ThinkPad with 32 GB",
    "Dinner with Marco on Friday",
    "Grandma's lasagne needs ricotta",
    "The bakery sells pastel de nata",
    "Avoid the sushi place near the office",
    "The database runs PostgreSQL 16",
    "Prefers short answers",
]
PLANTED = {"kestrel": 1, "peanuts": 2, "billing": 3, "ricotta": 9}


@pytest.fixture
def recall_data(cli, memchat_home, embedder):
    for text in RECALL_MEMORIES:
        assert run(cli, "memories", "add", "--", text).exit_code == 0
    asked = run(cli, "--provider", "echo", "ask", "--", "we left the kestrel webhook at the retry handler")
    assert asked.exit_code == 0
    assert run(cli, "recall", "warm", "up").exit_code == 0  # embeds everything once
    return snapshot(memchat_home / "default.db")


def check_hits(result, recall_data, options: dict) -> list[dict]:
    hits = json.loads(result.stdout)
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert len(hits) <= int(options.get("--limit", 10))
    stored = {("memory", row[0]) for row in recall_data["memories"]}
    stored |= {("message", row[0]) for row in recall_data["messages"]}
    assert {(h["type"], h["id"]) for h in hits} <= stored, "a hit that is not in the database"
    return hits


@pytest.mark.parametrize("kind", ["unicode", "undecodable"])
@settings(max_examples=examples(20), **FUZZ)
@given(data=st.data())
def test_recall_any_query_finds_or_fails_cleanly(cli, memchat_home, recall_data, kind, data):
    words = data.draw(st.lists(hostile_text(kind), min_size=1, max_size=3), label="words")
    planted = data.draw(st.sampled_from([None, *PLANTED]), label="planted")
    json_out = data.draw(st.booleans(), label="json_out")
    query = ([planted] if planted else []) + words
    # --all: whatever junk comes with a stored word, it is found (the bar could hide it otherwise)
    result = run(cli, "recall", "--all", *(["--json"] if json_out else []), "--", *query)
    if result.exit_code != 0:
        assert_clean_failure(result, codes=(2,), what=f"recall {query!r}")
        assert not " ".join(query).strip() or has_surrogate(" ".join(query)), "a plain query failed"
    else:
        assert " ".join(query).strip(), "an empty query must be refused"
        assert_no_raw_controls(result.stdout + result.stderr, "the output of `memchat recall`")
        if json_out:
            hits = check_hits(result, recall_data, {})
            if planted:  # a stored word is found, whatever junk comes with it
                assert ("memory", PLANTED[planted]) in {(h["type"], h["id"]) for h in hits}
    assert_kept(recall_data, snapshot(memchat_home / "default.db"))


DATES = st.one_of(
    st.sampled_from(
        [
            "2026-01-01",
            "0001-01-01T00:00:00+14:00",
            "9999-12-31T23:59:59-14:00",
            "9999-12-31",
            "0001-01-01",
            "2026-13-01",
            "2026-02-30",
            "yesterday",
            "",
            " ",
            "\x00",
            "1e9",
            "Z",
        ]
    ),
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    # the first and the last days a datetime can hold, with a UTC offset that leaves the range
    st.datetimes(max_value=datetime(1, 1, 2)).map(lambda d: d.isoformat() + "+05:00"),
    st.datetimes(min_value=datetime(9999, 12, 31)).map(lambda d: d.isoformat() + "-05:00"),
    hostile_text("unicode", max_size=2),
)
RECALL_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "--kind": st.sampled_from(["fact", "event", "rule", "message", "FACT", "opinion", ""])
        | hostile_text("unicode", max_size=1),
        "--since": DATES,
        "--until": DATES,
        "--session": st.sampled_from(["1", "#1", "0", "-1", "2", "1.0", "9" * 20, "١"])
        | hostile_text("unicode", max_size=1),
        "--limit": st.sampled_from(["1", "3", "0", "-1", "1000000", "9" * 20, "x"]),
        "--min-score": st.sampled_from(["0", "0.5", "1", "-0.1", "1.5", "nan", "inf", "x", ""]),
    },
)


@settings(max_examples=examples(40), **FUZZ)
@given(options=RECALL_OPTIONS.filter(bool), planted=st.sampled_from(list(PLANTED)))
def test_recall_filters_take_any_value(cli, memchat_home, recall_data, options, planted):
    flags = [f"{name}={value}" for name, value in options.items()]
    result = run(cli, "recall", "--json", "--all", *flags, "--", planted, "bug")
    if result.exit_code != 0:
        assert_clean_failure(result, codes=(1, 2), what=f"recall {flags}")
    else:
        hits = check_hits(result, recall_data, options)
        if options.get("--kind") in ("fact", "event", "rule", "message"):
            assert {h["kind"] for h in hits} <= {options["--kind"]}
    assert_kept(recall_data, snapshot(memchat_home / "default.db"))


# --- 2. memory text ---------------------------------------------------------------------------


@pytest.fixture
def canary_memory(cli, memchat_home):
    assert run(cli, "memories", "add", "--key", "user.city", "--", "Canary: I live in Lisbon").exit_code == 0
    return snapshot(memchat_home / "default.db")


def stored_text(cli, memory_id: int) -> str:
    shown = run(cli, "memories", "show", str(memory_id), "--json")
    assert shown.exit_code == 0, shown.stderr
    return json.loads(shown.stdout)["text"]


def check_views(cli, memory_id: int) -> None:
    for args in (("memories", "list"), ("memories", "show", str(memory_id))):
        out = run(cli, *args)
        assert out.exit_code == 0, f"memchat {' '.join(args)}: {out.stderr}"
        assert_no_raw_controls(out.stdout + out.stderr, f"the output of `memchat {' '.join(args)}`")


def added_memory_id(stdout: str) -> int:
    """The id `memories add` reports, for a new memory or for the same text remembered before
    (examples of one test share a profile, so hypothesis can draw a text twice)."""
    found = re.match(r"(?:already remembered as )?memory (\d+) ", stdout)
    assert found, f"memories add printed no memory id: {stdout[:200]!r}"
    return int(found.group(1))


def must_refuse(text: str) -> bool:
    # "-" alone is the stdin marker (`memories add -` reads the memory from a pipe): with nothing piped
    # it is refused as "nothing to remember", as an empty text is; so is a text that shows nothing
    # (escape sequences, zero-width and format characters only: what a terminal would show of it)
    from memchat.text import is_blank

    return is_blank(text) or "\x00" in text or text == "-"


def add_edit_and_view(cli, db_path: Path, text: str, new_text: str) -> None:
    """`memories add`, then `edit --text`: stored verbatim (stripped) and shown clean, or refused cleanly."""
    before = snapshot(db_path)
    added = run(cli, "memories", "add", "--", text)
    if added.exit_code != 0:  # only for no text, NUL, or text that is not valid Unicode
        assert must_refuse(text) or has_surrogate(text), f"memories add {text[:200]!r} failed: {added.stderr}"
        assert_clean_failure(added, codes=(2,), what="memories add")
        assert snapshot(db_path) == before
        return
    assert not must_refuse(text), f"memories add accepted {text[:200]!r}"
    assert_no_raw_controls(added.stdout, "the output of `memchat memories add`")
    memory_id = added_memory_id(added.stdout)
    # as typed, but for a leading request or label memchat documents ("remember that", "rule:", and
    # "to ..." as in "/remember to renew my passport": a task): what is kept is the rest, unaltered
    stored = stored_text(cli, memory_id)
    assert stored == kind_of(text)[1] and text.strip().endswith(stored), (text, stored)
    check_views(cli, memory_id)

    before = snapshot(db_path)
    edited = run(cli, "memories", "edit", str(memory_id), f"--text={new_text}")
    if edited.exit_code == 0:
        assert not must_refuse(new_text), f"memories edit accepted {new_text[:200]!r}"
        assert_no_raw_controls(edited.stdout, "the output of `memchat memories edit`")
        assert stored_text(cli, memory_id) == new_text.strip()
        check_views(cli, memory_id)
    else:
        assert must_refuse(new_text) or has_surrogate(new_text), f"edit to {new_text[:200]!r} failed: {edited.stderr}"
        assert_clean_failure(edited, codes=(2,), what="memories edit")
        assert snapshot(db_path) == before
    assert stored_text(cli, 1) == "Canary: I live in Lisbon"


@pytest.mark.parametrize("kind", list(TEXT_PIECES))
@settings(max_examples=examples(10), **FUZZ)
@given(data=st.data())
def test_memory_text_is_stored_verbatim_or_refused_and_never_printed_raw(cli, memchat_home, canary_memory, kind, data):
    text = data.draw(hostile_text(kind), label="text")
    new_text = data.draw(hostile_text(kind), label="new_text")
    add_edit_and_view(cli, memchat_home / "default.db", text, new_text)


@settings(max_examples=examples(15), **FUZZ)
@given(key=hostile_text("unicode", max_size=3), value=hostile_text("unicode", max_size=3))
def test_memory_key_and_value_are_stored_and_never_printed_raw(cli, memchat_home, canary_memory, key, value):
    before = snapshot(memchat_home / "default.db")
    text = f"My favourite tea, take {len(before['memories'])}"  # a new memory each time
    added = run(cli, "memories", "add", f"--key={key}", f"--value={value}", "--", text)
    if added.exit_code != 0:
        assert_clean_failure(added, codes=(2,), what="memories add --key --value")
        assert snapshot(memchat_home / "default.db") == before
        return
    memory_id = added_memory_id(added.stdout)
    shown = json.loads(run(cli, "memories", "show", str(memory_id), "--json").stdout)
    assert (shown["key"], shown["value"]) == (key.strip().lower() or None, value)  # keys are kept in lower case
    for args in (("memories", "list"), ("memories", "show", str(memory_id))):
        out = run(cli, *args)
        assert out.exit_code == 0, out.stderr
        assert_no_raw_controls(out.stdout + out.stderr, f"the output of `memchat {' '.join(args)}`")


@settings(max_examples=examples(10), **FUZZ)
@given(
    text=hostile_text("unicode", max_size=2),
    values=st.lists(WORDS_TEXT.filter(str.strip), min_size=2, max_size=3, unique=True),
)
def test_a_new_value_for_a_key_is_kept(cli, memchat_home, text, values):
    """`--key user.city` promises: a new value supersedes the old - also when the text is the same."""
    for value in values:
        added = run(cli, "memories", "add", "--key=user.city", f"--value={value}", "--", text)
        if added.exit_code != 0:
            assert_clean_failure(added, codes=(2,), what="memories add --key --value")
            assert must_refuse(text)
            return
    current = json.loads(run(cli, "memories", "list", "--json").stdout)[-1]
    assert (current["key"], current["value"]) == ("user.city", values[-1]), "the newest value was dropped"


@pytest.mark.parametrize(
    "text, new_text",
    [
        ("All work and no play makes Jack a dull boy. " * (MB // 44), "short again"),
        ("short", "\x1b]0;owned\x07 " * (MB // 14)),
    ],
    ids=["add-words", "edit-escapes"],
)
def test_a_megabyte_memory(cli, memchat_home, canary_memory, text, new_text):
    add_edit_and_view(cli, memchat_home / "default.db", text, new_text)


# --- 3. REPL slash commands -------------------------------------------------------------------


def _commands() -> dict[str, tuple[list[str], str]]:
    """Each command's name and aliases, and its argument synopsis ("ID", "[md|json] [FILE]", ...)."""
    from memchat.repl.registry import commands

    return {c.name: ([c.name, *c.aliases], c.args) for c in commands()}


COMMANDS = _commands()
NUMBERS = st.one_of(
    st.integers(min_value=-2, max_value=8),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**20]),
    st.sampled_from(["#1", "# 1", "1.5", "1e3", "0x1f", "١", "²", "9" * 20, " 7 ", "1_0", "-0"]),
).map(str)
ARG_WORDS = st.sampled_from(["confirm", "reject", "md", "json", "markdown", "on", "off", "rule:", "event:", "fact:"])


def repl_text(kind: str = "unicode", max_size: int = 4) -> st.SearchStrategy[str]:
    return hostile_text(kind, max_size=max_size).map(lambda s: s.translate(LINE_BREAKS))


def repl_args(kind: str = "unicode") -> st.SearchStrategy[str]:
    return st.one_of(
        st.just(""),
        NUMBERS,
        repl_text(kind),
        ARG_WORDS,
        st.tuples(ARG_WORDS, NUMBERS | repl_text(kind, max_size=2)).map(" ".join),
    )


REPL_ARG = repl_args()


def args_for(name: str) -> st.SearchStrategy[str]:
    """Any argument, weighted towards the command's own grammar: its words (md, confirm, on ...)
    followed by anything, and numbers - edge ones included - where it takes an ID or N."""
    synopsis = COMMANDS[name][1]
    strategies = [REPL_ARG]
    words = re.findall(r"\b[a-z]+\b", synopsis)
    if words:
        strategies.append(
            st.tuples(st.sampled_from(words), st.just("") | NUMBERS | repl_text(max_size=2)).map(" ".join)
        )
    if re.search(r"\b(ID|N)\b", synopsis):
        strategies += [NUMBERS, NUMBERS]
    return st.one_of(*strategies)


def command_line(name: str, arg: str, shout: bool = False) -> str:
    if name == "export":  # files go to the test's own directory, never elsewhere
        arg = arg.replace("/", "_").replace("~", "_")
    line = f"/{name} {arg}" if arg else f"/{name}"
    return "  " + line.upper() if shout else line


# What the commands that show stored things (/history, /why, /memories, /export ...) must survive.
STORED_HOSTILE = "[/x] \x1b]0;owned\x07 \x1b[31mred\x1b[0m [bold]b[/bold] \x07\x08 hello there"


@pytest.fixture
def repl_data(cli, memchat_home, tmp_path, monkeypatch, embedder):
    monkeypatch.chdir(tmp_path)  # /export writes relative paths here
    asked = run(cli, "--provider", "echo", "ask", "--", "Canary message about herons " + STORED_HOSTILE)
    assert asked.exit_code == 0
    added = run(cli, "memories", "add", "--", "Canary memory: the heron nests by the river " + STORED_HOSTILE)
    assert added.exit_code == 0
    return snapshot(memchat_home / "default.db")


def counts(snap: dict) -> tuple[int, ...]:
    return tuple(len(rows) for rows in snap.values())


def run_repl_lines(db_path: Path, before: dict, lines: list[str]) -> dict:
    """Feed lines to a non-interactive Repl, as `memchat < file` does; check output and database.

    stdout and stderr are UTF-8 with surrogateescape, as Python sets them up under this machine's
    C.UTF-8 locale, so undecodable input bytes go back out as the same bytes."""
    from memchat.app import Memchat
    from memchat.repl.loop import Repl

    streams = {
        name: io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True)
        for name in ("stdout", "stderr")
    }
    fresh_process_state()
    app = Memchat.load(provider="echo")
    try:
        with contextlib.redirect_stdout(streams["stdout"]), contextlib.redirect_stderr(streams["stderr"]):
            repl = Repl(app, interactive=False)
            for line in lines:
                repl.handle(line)  # a MemchatError is caught in there: anything else is a traceback
    finally:
        app.close()
        fresh_process_state()
    out, err = (streams[name].buffer.getvalue().decode("utf-8", "surrogateescape") for name in ("stdout", "stderr"))
    assert_no_raw_controls(out, "the REPL's stdout")
    assert_no_raw_controls(err, "the REPL's stderr")
    assert_no_bug_report(err)
    for line in err.splitlines():
        assert line.startswith("memchat: "), f"stray stderr line: {line!r}"
        assert len(line) <= MAX_ERROR_LINE, f"a {len(line)}-character error line"
    after = snapshot(db_path)
    assert all(a >= b for a, b in zip(counts(after), counts(before), strict=False)), "rows were deleted"
    assert after["messages"][0] == before["messages"][0]  # /undo marks a message, it never rewrites one
    return after


@pytest.mark.parametrize("name", sorted(COMMANDS))
@settings(max_examples=examples(6), **FUZZ)
@given(data=st.data())
def test_every_slash_command_takes_any_argument(memchat_home, repl_data, name, data):
    # Session 1 and memory 1 hold hostile text (see repl_data): resume it, or start a new one.
    prelude = data.draw(
        st.sampled_from([["/resume 1"], ["/resume 1", "hello there"], ["hello there"], []]), label="prelude"
    )
    calls = data.draw(
        st.lists(st.tuples(st.sampled_from(COMMANDS[name][0]), args_for(name), st.booleans()), min_size=1, max_size=3),
        label="calls",
    )
    run_repl_lines(memchat_home / "default.db", repl_data, prelude + [command_line(*c) for c in calls])


@settings(max_examples=examples(25), **FUZZ)
@given(
    lines=st.lists(
        repl_text()
        | st.text(max_size=4).map(lambda s: "/" + s.translate(LINE_BREAKS))
        | repl_text().map(lambda s: "//" + s),
        min_size=1,
        max_size=4,
    )
)
def test_any_message_line_is_stored_as_typed(memchat_home, repl_data, lines):
    """Plain lines go to the (echo) model and are stored exactly; unknown /commands are one line; a
    line holding NUL is refused (SQLite and every reader would cut it there), never stored cut."""
    after = run_repl_lines(memchat_home / "default.db", repl_data, lines)
    stored = {row[3] for row in after["messages"] if row[2] == "user"}
    for line in lines:
        sent = message_sent(line)
        if sent is not None and "\x00" in sent:
            assert sent not in stored and not any("\x00" in s for s in stored), f"message {sent!r} was stored"
            continue
        assert sent is None or sent in stored, f"message {sent!r} was not stored"


ALL_NAMES = sorted({alias for names, _ in COMMANDS.values() for alias in names})


@settings(max_examples=examples(20), **FUZZ)
@given(
    lines=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(ALL_NAMES), repl_args("undecodable"), st.booleans()).map(
                lambda c: command_line(*c)
            ),
            repl_text("undecodable"),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_undecodable_bytes_in_any_line(memchat_home, repl_data, lines):
    """`memchat < file` with bytes that are not UTF-8 (Python hands them over as lone surrogates):
    each line is handled or refused in one line, and the loop goes on."""
    run_repl_lines(memchat_home / "default.db", repl_data, lines)


def message_sent(line: str) -> str | None:
    """What the REPL sends for a line: None for blank lines and /commands; // escapes a slash."""
    from memchat.text import is_blank

    text = line.rstrip()
    if is_blank(text) or (text.lstrip().startswith("/") and not text.lstrip().startswith("//")):
        return None  # (a line that shows nothing, zero-width characters only, is blank)
    return text[1:] if text.startswith("//") else text


SUBPROCESS_FIXED = [
    b"hello \x1b]0;owned\x07 there \x1b[2J",
    b"/title \x1b[31mred\x1b[0m title \x00 with NUL",
    b"/remember rule: \x1b]8;;https://evil.example\x1b\\answer in British English",
    b"/sessions 3",
    b"/history",
    b"/context",
    b"/memories",
    b"/system be \x07 brief",
    b"/review",
    b"/why",
    b"/summary",
    b"/pin",
    b"/unpin",
    b"/model \x1b[31mclaude",
    b"/capture on",
    b"/nonsense \x1b[31m",
    b"/forget 99",
    b"a message with a NUL \x00 byte",
    b"/undo",
    b"/retry",
    b"//literal slash",
    b"/help",
    b"caf\xe9 is not UTF-8 \xff\xfe",  # last, so that everything above runs even if these crash
    b"/remember invalid \xc3\x28 UTF-8",
]


# /export would write into the repository (the subprocess runs there); /recall is left to the
# in-process tests, and --no-memory keeps the embedding model out of these processes.
@settings(**{**FUZZ, "max_examples": 2, "phases": (Phase.explicit, Phase.generate)})  # each example is a process
@given(
    extra=st.lists(
        st.one_of(
            st.tuples(
                st.sampled_from(sorted(set(ALL_NAMES) - {"export", "exit", "quit", "q", "recall"})),
                REPL_ARG,
                st.booleans(),
            ).map(lambda c: command_line(*c)),
            repl_text(),
        ),
        min_size=5,
        max_size=25,
    )
)
def test_the_pipe_loop_survives_a_hostile_script(memchat_home, repl_data, extra):
    before = snapshot(memchat_home / "default.db")
    script = [line.encode("utf-8", "surrogateescape") for line in extra] + SUBPROCESS_FIXED
    proc = run_memchat("--provider", "echo", "--no-memory", input=b"\n".join(script) + b"\n", timeout=120)
    out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    assert_no_raw_controls(out, "the REPL's stdout")
    after = snapshot(memchat_home / "default.db")
    assert_kept(before, after)
    sent = [message_sent(line.decode("utf-8", "surrogateescape")) for line in script[:-2]]
    stored = {row[3] for row in after["messages"] if row[2] == "user"}
    refused = [text for text in sent if text is not None and "\x00" in text]  # NUL: said, not stored cut
    missing = [
        text
        for text in sent
        if text is not None and text not in stored and not has_surrogate(text) and text not in refused
    ]
    assert not missing, f"messages that were sent but not stored: {missing}"
    assert not (set(refused) & stored) and (not refused or "contains a NUL character" in err), err[-1500:]
    assert_no_bug_report(err)
    # A piped chat exits 1 when any line failed (and says which), else 0: never a crash's code.
    assert proc.returncode == (1 if err.strip() else 0), err[-1500:]
    assert_no_raw_controls(err, "the REPL's stderr")
    assert all(line.startswith("memchat: ") for line in err.splitlines()), err


# --- 4. configuration ---------------------------------------------------------------------------


def _settings() -> list:
    from memchat.config import SETTINGS

    return list(SETTINGS)


SETTINGS_TABLE = _settings()


def toml_string(text: str) -> str:
    """A TOML basic string holding text (control characters as \\u escapes)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def safe_path_text(text: str) -> str:
    """Values for `db` stay inside the test's directory: no separators, no ~user."""
    return text.replace("/", "_").replace("~", "_").replace("\\u002f", "_").replace("\\u002F", "_")


TOML_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(
        [
            "inf",
            "-inf",
            "nan",
            "+inf",
            "1e400",
            "-1e400",
            "-0.0",
            "0.5",
            "1.5e3",
            "9" * 30,
            "0x7fffffffffffffff",
            "-9223372036854775809",
            "true",
            "false",
            "1979-05-27T07:32:00Z",
            "1979-05-27",
            "07:32:00",
            "[]",
            "[1, 2]",
            "{}",
            "{a = 1}",
            '""',
            '"\\u0000"',
            '"a\\u0000b"',
            '"\\u001b[31mred"',
            '"\\u001b]0;owned\\u0007"',
            '"[/x]"',
            "'literal'",
            '"""multi\nline"""',
            '"echo"',
            '"anthropic"',
            '"compact"',
            '"window"',
            '"auto"',
            '"torch"',
            '"work-profile"',
            '"memchat.db"',
            '"."',
            '".."',
            '"~"',
            "1",
            "0",
            "-1",
            "10",
            "256",
        ]
    ),
    st.text(max_size=30).map(toml_string),
    st.text(max_size=10),  # usually not TOML at all
)
# Values aimed at each type of setting, then anything.
TOML_FOR_TYPE = {
    float: st.one_of(
        st.sampled_from(
            ["0", "0.05", "1", "1.0", "-0.1", "1.5", "inf", "-inf", "nan", "1e400", '"0.3"', '"x"', "true"]
        ),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
    ),
    int: st.one_of(
        st.sampled_from(
            [
                "inf",
                "-inf",
                "nan",
                "1e400",
                "0.5",
                "1.5",
                "-1",
                "0",
                "9" * 30,
                "0x7fffffffffffffff",
                "9223372036854775808",
                "-9223372036854775809",
                "true",
                '"12"',
                '" 12 "',
                '"twelve"',
                '"\\u0000"',
                "[]",
                "{}",
                "1979-05-27",
            ]
        ),
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats().map(lambda f: repr(f).replace("inf", "inf").lower()),
    ),
    str: st.one_of(
        st.sampled_from(
            [
                '""',
                '" "',
                '"\\u0000"',
                '"a\\u0000b"',
                '"\\u001b[31mred"',
                '"\\u001b]0;owned\\u0007"',
                '"[/x]"',
                "'literal'",
                '"""multi\nline"""',
                "12",
                "true",
                "[]",
                '"."',
                '".."',
                '"~"',
            ]
        ),
        st.text(max_size=30).map(toml_string),
    ),
    bool: st.sampled_from(["true", "false", "1", "0", '"yes"', '"true"', '"maybe"', "[]", '"\\u0000"']),
}
HOSTILE_KEYS = ['"\\u001b[31mevil"', '"\\u001b]0;owned\\u0007"', '"[/x]"', "colour", '"a.b"', '""', '"\\u0000"']


@st.composite
def setting_files(draw, setting) -> bytes:
    """The setting with any value, aimed at its type."""
    choices = [toml_string(c) for c in setting.choices or ()]
    value = draw(
        st.one_of(
            TOML_FOR_TYPE[type(setting.default)],
            TOML_FOR_TYPE[type(setting.default)],
            st.sampled_from(choices) if choices else st.nothing(),
            TOML_VALUES,
        )
    )
    if setting.name == "db":
        value = safe_path_text(value)
    head, _, key = setting.name.rpartition(".")
    return (f"[{head}]\n" if head else "").encode() + f"{key} = {value}\n".encode("utf-8", "surrogateescape")


ENV_VALUES = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "-1",
            "1",
            "256",
            "9" * 30,
            "1e400",
            "inf",
            "nan",
            "1.5",
            "0x10",
            "true",
            "false",
            "yes",
            "on",
            "2",
            "echo",
            "anthropic",
            "window",
            "tokens",
            "bf16",
            "onnx",
            "work",
            "../etc",
            "memchat.db",
            "~",
            "١٢",
            " 12 ",
            "1_000",
        ]
    ),
    # An environment cannot hold NUL. Undecodable bytes are left out too: printed back by the
    # in-process runner, whose stdout is strict UTF-8, they would fail in the test harness.
    st.lists(st.sampled_from(HOSTILE) | st.text(max_size=12), min_size=1, max_size=5).map(
        lambda parts: "".join(parts).replace("\x00", "").encode("utf-8", "replace").decode("utf-8")
    ),
)


@st.composite
def env_settings(draw) -> dict[str, str]:
    chosen = draw(st.lists(st.sampled_from(SETTINGS_TABLE), min_size=1, max_size=3, unique_by=lambda s: s.name))
    env = {}
    for setting in chosen:
        value = draw(ENV_VALUES)
        env[setting.env_var] = safe_path_text(value) if setting.name == "db" else value
    return env


@pytest.fixture
def config_data(cli, memchat_home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative `db` lands here
    assert run(cli, "--provider", "echo", "ask", "--", "Canary message about herons").exit_code == 0
    return snapshot(memchat_home / "default.db")


@pytest.mark.parametrize("name", [s.name for s in SETTINGS_TABLE])
@settings(max_examples=examples(5), **FUZZ)
@given(data=st.data())
def test_any_setting_value_in_config_toml(cli, memchat_home, config_data, name, data):
    setting = next(s for s in SETTINGS_TABLE if s.name == name)
    check_config(cli, memchat_home, config_data, data.draw(setting_files(setting), label="config.toml"), {})


ANY_TOML_FILE = st.one_of(
    st.binary(max_size=60),
    hostile_text().map(lambda s: s.encode("utf-8", "surrogateescape")),
    st.tuples(
        st.sampled_from(["", "[memory]\n", "[history]\n", "[model]\n", "[[memory]]\n"]),
        st.sampled_from(HOSTILE_KEYS),
        TOML_VALUES,
    ).map(lambda t: f"{t[0]}{t[1]} = {t[2]}\n".encode()),
)


@settings(max_examples=examples(20), **FUZZ)
@given(config=ANY_TOML_FILE)
def test_any_config_toml_file(cli, memchat_home, config_data, config):
    check_config(cli, memchat_home, config_data, config, {})


@settings(max_examples=examples(30), **FUZZ)
@given(env=env_settings())
def test_any_memchat_environment_value(cli, memchat_home, config_data, env):
    check_config(cli, memchat_home, config_data, None, env)


def check_config(cli, memchat_home: Path, config_data: dict, config: bytes | None, env: dict[str, str]) -> None:
    """`memchat config` (JSON and table) and `memchat ask` (echo) with this file and environment:
    they work, with the values as given, or fail with one clear line and exit 1."""
    path = memchat_home / "config.toml"
    if config is not None:
        path.write_bytes(config)
    try:
        with pytest.MonkeyPatch.context() as mp:
            for name, value in env.items():
                mp.setenv(name, value)
            shown = run(cli, "config", "--json")
            table = run(cli, "config")
            asked = run(cli, "--provider", "echo", "ask", "--no-memory", "--plain", "--", "hello there")
    finally:
        path.unlink(missing_ok=True)
    assert table.exit_code == shown.exit_code
    if shown.exit_code == 0:
        assert_no_raw_controls(table.stdout + table.stderr, "the output of `memchat config`")
        values = json.loads(shown.stdout)["settings"]
        for name, value in env.items():
            setting = next(s for s in SETTINGS_TABLE if s.env_var == name)
            assert values[setting.name]["source"] == f"env {name}"
            if isinstance(setting.default, str):
                assert values[setting.name]["value"] == value  # strings from the environment are kept as given
    else:
        assert_clean_failure(shown, codes=(1,), what="memchat config --json")
        assert_clean_failure(table, codes=(1,), what="memchat config")
    if asked.exit_code == 0:
        assert shown.exit_code == 0
        assert asked.stdout == "(echo) hello there\n"
    else:
        assert_clean_failure(asked, what="memchat ask")
    assert_kept(config_data, snapshot(memchat_home / "default.db"))


# --- 5. import files --------------------------------------------------------------------------

JSON_TEXT = st.one_of(
    st.text(max_size=20), st.sampled_from(HOSTILE), st.characters(categories=["Cs"]), hostile_text(max_size=3)
)
JSON_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(), JSON_TEXT
)
ANY_JSON = st.recursive(
    JSON_SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """The right kind of value nine times in ten, any JSON value (mostly the wrong type) else."""
    return st.integers(0, 9).flatmap(lambda i: valid if i else ANY_JSON)


def drop_one_sometimes(strategy: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    return st.tuples(strategy, st.integers(0, 40)).map(
        lambda t: {k: v for i, (k, v) in enumerate(t[0].items()) if i != t[1]}
    )


TIMESTAMPS = st.one_of(
    st.datetimes().map(lambda d: d.isoformat()),
    st.integers(-(10**11), 10**11),
    st.sampled_from(
        [
            "2024-05-01T10:00:00Z",
            "2024-05-01 10:00",
            "0001-01-01T00:00:00+14:00",
            "9999-12-31T23:59:59-14:00",
            "yesterday",
            1e300,
            -1e300,
            float("nan"),
            1.5,
        ]
    ),
)
# Message and memory text: ordinary, hostile, and lone surrogates from \ud800-style JSON escapes.
CONTENT = st.one_of(st.text(min_size=1, max_size=30), hostile_text(), st.characters(categories=["Cs"]))
BIG_INTS = st.integers(-(2**70), 2**70)
JSONL_LINE = drop_one_sometimes(
    st.fixed_dictionaries(
        {
            "session": mostly(st.sampled_from(["trip", "7", 7, "x\x1b[31m"])),
            "role": mostly(st.sampled_from(["user", "assistant"])),
            "content": mostly(CONTENT),
            "timestamp": mostly(TIMESTAMPS),
            "name": mostly(st.sampled_from(["Ana", "\x1b]0;Bo\x07"])),
            "id": mostly(st.integers(0, 10**30).map(str) | BIG_INTS),
        }
    )
)
SESSION_MESSAGE = drop_one_sometimes(
    st.fixed_dictionaries(
        {
            "id": mostly(BIG_INTS),
            "role": mostly(st.sampled_from(["user", "assistant"])),
            "content": mostly(CONTENT),
            "created_at": mostly(TIMESTAMPS),
            "status": mostly(st.sampled_from(["ok", "interrupted", "undone", "weird"])),
            "pinned": ANY_JSON,
            "model": mostly(st.text(max_size=8)),
        }
    )
)
SESSION_EXPORT = drop_one_sometimes(
    st.fixed_dictionaries(
        {
            "format": mostly(st.just("memchat-session")),
            "version": mostly(st.sampled_from([1, 1, 1, 0, -1, 2, 10**30])),
            "session": mostly(
                drop_one_sometimes(
                    st.fixed_dictionaries(
                        {
                            "id": mostly(BIG_INTS),
                            "created_at": mostly(TIMESTAMPS.map(str)),
                            "title": mostly(JSON_TEXT),
                            "model": mostly(st.text(max_size=8)),
                            "system": mostly(JSON_TEXT),
                            "summary": mostly(JSON_TEXT),
                        }
                    )
                )
            ),
            "messages": mostly(st.lists(SESSION_MESSAGE, max_size=4)),
        }
    )
)
MEMORY_RECORD = drop_one_sometimes(
    st.fixed_dictionaries(
        {
            "text": mostly(CONTENT),
            "kind": mostly(st.sampled_from(["fact", "event", "rule", "opinion"])),
            "status": mostly(st.sampled_from(["active", "pending", "superseded", "forgotten"])),
            "origin": mostly(st.sampled_from(["stated", "inferred", "manual", "dreamt"])),
            "key": mostly(st.sampled_from([None, "user.city", "user.\x1b[31mpet", ""])),
            "value": mostly(JSON_TEXT),
            "confidence": mostly(st.floats()),
            "importance": mostly(st.floats()),
            "created_at": mostly(TIMESTAMPS.map(str)),
            "valid_from": mostly(TIMESTAMPS.map(str)),
            "valid_to": mostly(st.none() | TIMESTAMPS.map(str)),
            "id": mostly(BIG_INTS),
            "superseded_by": mostly(st.none() | BIG_INTS),
            "pinned": ANY_JSON,
            "sensitive": ANY_JSON,
        }
    )
)
MEMORIES_EXPORT = drop_one_sometimes(
    st.fixed_dictionaries(
        {
            "format": mostly(st.just("memchat-memories")),
            "version": mostly(st.sampled_from([1, 1, 1, 0, -1, 2, 10**30])),
            "exported_at": ANY_JSON,
            "memories": mostly(st.lists(MEMORY_RECORD, max_size=4)),
        }
    )
)


def dump(obj, pretty: bool) -> bytes:
    return json.dumps(obj, indent=2 if pretty else None).encode()  # ASCII: lone surrogates become \ud800 escapes


def import_rows(parsed) -> list[dict]:
    if isinstance(parsed, list):
        return parsed
    if isinstance(parsed, dict) and isinstance(parsed.get("messages"), list):
        return parsed["messages"]
    return []


def imported_message_is_stored(db_path: Path, parsed, row: dict) -> bool:
    """A message known by an id may be an earlier import of that id; one without is stored as given."""
    conn = sqlite3.connect(db_path)
    try:
        if isinstance(parsed, dict):  # a session export: known by session created_at#id and message id
            session = parsed["session"]
            if session["id"] == 1:
                return True  # may be "exported from this very database": skipped by design
            where = (
                "s.source = 'memchat' AND s.external_id = ? AND m.external_id = ?",
                (f"{session['created_at']}#{session['id']}", str(row["id"])),
            )
        elif row.get("id") is not None:
            where = (
                "s.source = 'jsonl' AND s.external_id = ? AND m.external_id = ?",
                (str(row["session"]), str(row["id"])),
            )
        else:
            where = (
                "s.source = 'jsonl' AND s.external_id = ? AND m.content = ?",
                (str(row["session"]), row["content"]),
            )
        return (
            conn.execute(
                "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE " + where[0], where[1]
            ).fetchone()[0]
            > 0
        )
    finally:
        conn.close()


def check_import(cli, command: tuple[str, ...], path: Path, db_path: Path, parsed=None):
    """Run an import: on success what the file holds is stored; on failure nothing changed."""
    before = snapshot(db_path)
    result = run(cli, *command, str(path))
    after = snapshot(db_path)
    if result.exit_code != 0:
        assert_clean_failure(result, what=f"memchat {' '.join(command)}")
        assert after == before, "a refused import changed the database"
        return result
    assert_no_raw_controls(result.stdout, f"the output of `memchat {' '.join(command)}`")
    assert_kept(before, after)
    if command[0] == "import":
        added = int(re.search(r"imported (\d+) message", result.stdout).group(1))
        assert len(after["messages"]) == len(before["messages"]) + added
        lost = [r for r in import_rows(parsed) if not imported_message_is_stored(db_path, parsed, r)]
        assert not lost, f"imported messages that are not in the database: {lost}"
    else:
        added = int(re.match(r"imported (\d+) memor", result.stdout).group(1))
        assert len(after["memories"]) == len(before["memories"]) + added
        stored = {row[2] for row in after["memories"]}
        assert all(r["text"].strip() in stored for r in parsed["memories"]), "imported memories were lost"
    return result


BOTH_IMPORTS = pytest.mark.parametrize(
    "command", [("import", "--no-embed"), ("memories", "import")], ids=["import", "memories-import"]
)


@pytest.fixture
def import_data(cli, memchat_home):
    assert run(cli, "--provider", "echo", "ask", "--", "Canary message about herons").exit_code == 0
    assert run(cli, "memories", "add", "--key", "user.city", "--", "Canary: I live in Lisbon").exit_code == 0
    return memchat_home / "default.db"


def import_and_check(cli, tmp_path, db_path, command, content: bytes, parsed) -> None:
    path = tmp_path / "fuzzed-import.json"
    path.write_bytes(content)
    check_import(cli, command, path, db_path, parsed)
    canary = snapshot(db_path)
    assert canary["messages"][0][3] == "Canary message about herons"
    assert canary["memories"][0][2] == "Canary: I live in Lisbon"


@settings(max_examples=examples(30), **FUZZ)
@given(rows=st.lists(JSONL_LINE, min_size=1, max_size=5), newline=st.sampled_from(["\n", "\n\n", "\r\n"]))
def test_json_lines_are_imported_whole_or_refused_whole(cli, tmp_path, import_data, rows, newline):
    content = newline.join(json.dumps(r) for r in rows).encode() + b"\n"
    import_and_check(cli, tmp_path, import_data, ("import", "--no-embed"), content, rows)


@settings(max_examples=examples(30), **FUZZ)
@given(export=SESSION_EXPORT, pretty=st.booleans())
def test_session_exports_are_imported_whole_or_refused_whole(cli, tmp_path, import_data, export, pretty):
    import_and_check(cli, tmp_path, import_data, ("import", "--no-embed"), dump(export, pretty), export)


@settings(max_examples=examples(30), **FUZZ)
@given(export=MEMORIES_EXPORT, pretty=st.booleans())
def test_memories_exports_are_imported_whole_or_refused_whole(cli, tmp_path, import_data, export, pretty):
    import_and_check(cli, tmp_path, import_data, ("memories", "import"), dump(export, pretty), export)


@BOTH_IMPORTS
@settings(max_examples=examples(15), **FUZZ)
@given(
    content=st.binary(max_size=80)
    | ANY_JSON.map(lambda obj: dump(obj, False))
    | hostile_text().map(lambda s: s.encode("utf-8", "surrogateescape"))
)
def test_any_bytes_are_refused_cleanly(cli, tmp_path, import_data, command, content):
    import_and_check(cli, tmp_path, import_data, command, content, None)


def _line_with(content) -> bytes:
    return json.dumps({"session": "s", "role": "user", "content": content}).encode() + b"\n"


def _session_export(**changes) -> bytes:
    base = {
        "format": "memchat-session",
        "version": 1,
        "session": {"id": 5, "created_at": "2024-01-01T00:00:00Z"},
        "messages": [{"id": 1, "role": "user", "content": "hi", "created_at": "2024-01-01T00:00:00Z"}],
    }
    return json.dumps({**base, **changes}).encode()


def _memories_export(**changes) -> bytes:
    return json.dumps({"format": "memchat-memories", "version": 1, "memories": [{"text": "hi"}], **changes}).encode()


def _sqlite_file(tmp_path: Path) -> bytes:
    conn = sqlite3.connect(tmp_path / "some.db")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    return (tmp_path / "some.db").read_bytes()


PATHOLOGICAL = {
    "empty": b"",
    "whitespace": b" \n\t\n",
    "bom-only": b"\xef\xbb\xbf",
    "nul-bytes": b"\x00" * 64,
    "raw-nul-in-string": b'{"session": "s", "role": "user", "content": "a\x00b"}\n',
    "escaped-nul": _line_with("a\x00b"),
    "invalid-utf8": b'{"session": "s", "role": "user", "content": "caf\xe9"}\n',
    "lone-surrogate": _line_with("a\ud800b"),
    "binary": bytes(range(256)) * 4,
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
    "sqlite": None,  # made from a real database file
    "nested-arrays": b"[" * 100_000,
    "nested-objects": b'{"a":' * 100_000,
    "nested-content": b'{"session": "s", "role": "user", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
    "5000-digit-number": b'{"session": "s", "role": "user", "content": "x", "timestamp": ' + b"9" * 5000 + b"}\n",
    "huge-session-id": _session_export(session={"id": 10**20, "created_at": "2024-01-01T00:00:00Z"}),
    "huge-message-id": _session_export(messages=[{"id": 10**20, "role": "user", "content": "hi"}]),
    "newer-session-version": _session_export(version=2),
    "newer-memories-version": _memories_export(version=2),
    "string-version": _session_export(version="2"),
    "unknown-format": b'{"format": "chatgpt-export", "version": 1, "conversations": []}',
    "hostile-format": json.dumps({"format": "\x1b]0;owned\x07" + "x" * 5000, "version": 1}).encode(),
    "top-level-list": b'[{"session": "s", "role": "user", "content": "hi"}]',
    "top-level-null": b"null",
    "megabyte-garbage": b"{" + b"x" * MB,
    "megabyte-message": _line_with("x" * MB),
    "megabyte-memory": _memories_export(memories=[{"text": "x" * MB}]),
}
MUST_WORK = {"import": {"megabyte-message", "huge-message-id"}, "memories": {"megabyte-memory"}}


@BOTH_IMPORTS
@pytest.mark.parametrize("case", sorted(PATHOLOGICAL) + ["directory"])
def test_pathological_import_files(cli, tmp_path, import_data, command, case):
    if case == "directory":
        path = tmp_path / "a-directory"
        path.mkdir()
    else:
        path = tmp_path / f"{case}.json"
        path.write_bytes(PATHOLOGICAL[case] if PATHOLOGICAL[case] is not None else _sqlite_file(tmp_path))
    works = case in MUST_WORK[command[0]]
    result = check_import(cli, command, path, import_data, json.loads(PATHOLOGICAL[case]) if works else None)
    if works:
        assert result.exit_code == 0
        return
    assert result.exit_code == 2, f"{case} should be refused: {result.stdout!r}"
    err = result.stderr
    if case == f"newer-{'memories' if command[0] == 'memories' else 'session'}-version":
        assert "newer memchat" in err and "version 2" in err
    if case == "unknown-format":
        assert "chatgpt-export" in err
    if case == "directory":
        assert "directory" in err
