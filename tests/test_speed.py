"""Import budgets of the hot paths: a fresh process must not load what it does not need.

Speed itself is measured by tests/bench/startup.py (timings have no place in a test: this
machine is noisy). What decides start-up is which libraries a path imports, and that is
exact: `python -X importtime` lists every module a process loaded. Each path below names the
heavy modules it must never load; a change that pulls one in fails here, with the chain.
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, run_memchat

# Each costs tens of milliseconds to seconds at start-up.
HEAVY = {
    "torch": "the torch runtime (seconds)",
    "sentence_transformers": "the torch encoder (seconds)",
    "anthropic": "the Anthropic SDK (~0.3 s)",
    "pydantic": "pydantic (~80 ms: typer builds validators with it for any parameter memchat.cli.command does not coerce)",
    "sqlite_utils": "sqlite-utils (~55 ms with click; only migrations need it)",
    "rich.markdown": "Markdown rendering (only a reply on a terminal needs it)",
    "prompt_toolkit": "the REPL's line editor",
    "numpy.ma": "numpy's masked arrays (~13 ms; np.unique imports them on first use)",
}
BUDGETS = {
    "--help": set(HEAVY) | {"numpy", "onnxruntime", "tokenizers", "tiktoken"},
    "recall": set(HEAVY) | {"tiktoken"},
    "ask": set(HEAVY) | {"tiktoken"},  # ordinary text is counted from memchat's rank table (memchat/tokens.py)
    "piped ask": set(HEAVY) | {"rich"},  # raw text to a pipe: no rich at all (~25 ms)
}


def imported(stderr: str) -> dict[str, str]:
    """Module -> the top-level import that brought it in, from `-X importtime` output."""
    found: dict[str, str] = {}
    pending: list[str] = []
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+\d+ \|( *)(\S+)", line)
        if not m:
            continue
        pending.append(m.group(2))
        if len(m.group(1)) <= 1:  # a top-level import: everything listed since came in with it
            for name in pending:
                found[name] = m.group(2)
            pending = []
    return found


def over_budget(stderr: str, forbidden: set[str]) -> list[str]:
    modules = imported(stderr)
    return sorted(
        f"{name} (via {root}): {HEAVY.get(name, 'not needed on this path')}"
        for name, root in modules.items()
        if name in forbidden
    )


def importtime(*args: str) -> subprocess.CompletedProcess:
    return run_memchat(*args, env={"PYTHONPROFILEIMPORTTIME": "1", "MEMCHAT_PROVIDER": "echo"})


@pytest.fixture
def migrated_profile():
    """A profile with memories and a past chat, migrated and embedded, as a user's is (real
    processes, the real encoder)."""
    for args in (
        ("memories", "add", "I keep the spare bike key under the blue pot."),
        ("ask", "what do you know about bikes?"),
        ("recall", "bike key"),
    ):
        done = run_memchat("--provider", "echo", *args)
        assert done.returncode == 0, done.stderr


def test_help_loads_no_library_it_does_not_show():
    done = importtime("--help")
    assert done.returncode == 0
    assert over_budget(done.stderr.decode(), BUDGETS["--help"]) == []


def test_recall_loads_only_the_search(migrated_profile):
    done = importtime("recall", "where is the bike key?", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "spare bike key" in done.stdout.decode()
    assert over_budget(done.stderr.decode(), BUDGETS["recall"]) == []


def test_ask_with_memory_loads_no_sdk_of_another_provider(migrated_profile):
    done = importtime("ask", "where is my bike key?")  # stdout a pipe, as in a script
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.decode().startswith("(echo) where is my bike key?")
    assert over_budget(done.stderr.decode(), BUDGETS["ask"]) == []
    assert over_budget(done.stderr.decode(), BUDGETS["piped ask"]) == []


def test_the_repl_prompt_comes_before_any_heavy_library(migrated_profile, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    log = tmp_path / "imports.txt"
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1", MEMCHAT_PROVIDER="echo", TERM="xterm")
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", f'exec "{sys.executable}" -m memchat 2>"{log}"'],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        dimensions=(30, 100),
    )
    try:
        child.expect_exact("›")
        before_prompt = log.read_text()
    finally:
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    # What the background warm-up may load while the user types (the encoder) is fine; what the
    # prompt waits for is not, nor the command-line parser (bare `memchat` goes straight to the chat),
    # nor rich (the greeting is one dim line; replies load it).
    assert over_budget(before_prompt, (set(HEAVY) - {"prompt_toolkit"}) | {"typer", "rich"}) == []


def test_every_parameter_is_of_a_type_memchat_coerces_itself():
    """A parameter of another type (a Path, an Enum) would bring typer's pydantic back to every run."""
    import typer
    import typer.main

    from memchat.cli import plain_params
    from memchat.cli.command import _annotations
    from memchat.cli.main import app

    others = []

    def walk(command, path):
        for name, annotation in _annotations(command.callback).items():
            if name != "return" and annotation is not typer.Context and not plain_params.is_plain(annotation):
                others.append(f"{path or 'memchat'}: {name}: {annotation}")
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(app), "")
    assert others == []


def test_numbers_and_flags_are_checked_without_pydantic(cli):
    bad = cli("recall", "bike", "--limit", "0")
    assert bad.exit_code == 2 and "0 is below the minimum, 1" in bad.output
    bad = cli("recall", "bike", "--limit", "ten")
    assert bad.exit_code == 2 and "'ten' is not a whole number" in bad.output
    bad = cli("recall", "bike", "--min-score", "1.5")
    assert bad.exit_code == 2 and "above the maximum" in bad.output


def test_a_search_reads_vectors_without_holding_the_whole_matrix(tmp_path):
    """The scan of a memory-mapped copy lets each chunk's pages go: exact scores, small footprint."""
    import numpy as np

    from memchat.memory.recall import scan

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((100_000, 32)).astype(np.float32)
    np.save(tmp_path / "m.npy", matrix)
    mapped = np.load(tmp_path / "m.npy", mmap_mode="r")
    vector = rng.standard_normal(32).astype(np.float32)
    started = time.perf_counter()
    scores = scan.similarities(mapped, vector)
    assert time.perf_counter() - started < 30  # a sanity bound, not a speed test
    assert np.allclose(scores, matrix @ vector, atol=1e-4)
    assert Path(tmp_path / "m.npy").exists()


def section_work(tmp_path, n: int) -> int:
    """SQLite's work (virtual machine steps, in hundreds) for a memory section and the state of its
    messages, over n memories that share no word with the message."""
    from memchat import sessions
    from memchat.db import immediate, open_db, utcnow
    from memchat.memory.judge import inject, state

    db = open_db(tmp_path / f"work-{n}.db")
    now = utcnow()
    with immediate(db):
        db.conn.executemany(
            "INSERT INTO memories (kind, text, status, created_at, updated_at, source_message_ids) "
            "VALUES ('fact', ?, 'active', ?, ?, '[1]')",
            [(f"filler note {i}", now, now) for i in range(n)],
        )
    message = sessions.add_message(db, sessions.create_session(db).id, "user", "I moved to Lisbon")
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    db.conn.set_progress_handler(step, 100)
    inject.build(db, "where do I live?", embedder=None, budget=2000, count=lambda t: len(t.split()))
    state.message_states(db, [message.id], {message.id: message.content})
    db.conn.set_progress_handler(None, 100)
    db.close()
    return steps[0]


def test_a_memory_section_does_not_read_every_memory(tmp_path):
    """Pinned, private, pending and superseded memories are read by index: a chat turn's section does
    not grow with the number of memories (a full read of 100,000 rows took ~0.1 s per query)."""
    small, large = section_work(tmp_path, 300), section_work(tmp_path, 6000)
    assert large < 2 * small + 50, (small, large)
