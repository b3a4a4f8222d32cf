"""Shared fixtures: every test gets its own memchat home and no key from the developer's shell."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest_plugins = ["tiers"]  # unit / cli / process / terminal: markers, the guard, tier times (tests/tiers.py)

from fakeapi import FakeAnthropic
from fakeopenai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    """A suite started from a background job (`... &` in a script) inherits SIGINT ignored, the
    shell's rule when job control is off, and so does every memchat process it starts: the Ctrl-C
    tests would meet a memchat that cannot be interrupted. Ctrl-C is what they test, so the suite
    (and each worker) takes SIGINT back; the processes it starts then get the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def shared_cache(tmp_path_factory):
    """One cache for the whole run, with the ONNX export of the model and its topic model prepared
    once, before any test: no test (and no memchat process a test starts) pays for them or prints
    their one-time notice, and none depends on another having run first (a script's add looks for
    what it replaces only once they are ready). MEMCHAT_TEST_CACHE keeps it between runs (handy when
    running a few tests at a time)."""
    kept = os.environ.get("MEMCHAT_TEST_CACHE")
    cache = Path(kept) if kept else tmp_path_factory.mktemp("memchat-cache")
    os.environ["MEMCHAT_CACHE_DIR"] = str(cache)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memchat.memory.judge import topics
    from memchat.memory.recall import onnx_embed
    from memchat.memory.recall.models import DEFAULT_MODEL

    if not onnx_embed.ready(DEFAULT_MODEL):
        onnx_embed.prepare(DEFAULT_MODEL)
    if not topics.is_cached(DEFAULT_MODEL):
        topics.model_for(onnx_embed.OnnxEmbedder(DEFAULT_MODEL))
    return cache


@pytest.fixture(autouse=True)
def memchat_home(tmp_path, monkeypatch, shared_cache, request):
    import tiers  # here, not at the top: pytest_plugins must load it first (for assertion rewriting)

    """Point memchat at an empty home; strip the developer's memchat, Anthropic and OpenAI settings."""
    for name in list(os.environ):
        if name.startswith(("MEMCHAT_", "ANTHROPIC_", "OPENAI_")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MEMCHAT_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    # pexpect's pseudo-terminal never answers a cursor-position request: prompt_toolkit would wait
    # about a second for one after each message and at exit (a real terminal, tmux too, answers).
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")
    # `ask` hands capture to a detached process that would talk to the shared test server
    # after the test ends; tests of capture turn it back on.
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "false")
    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(shared_cache))
    # keyring's null backend (it keeps nothing): no test, and no process a test starts, reads or writes
    # the developer's real keyring; tests of `memchat key` choose their own (the `keyring` fixture).
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    yield home
    if not any(request.node.get_closest_marker(tier) for tier in tiers.FAST):  # fast tiers start no process
        wait_for_detached(home)


def wait_for_detached(home: Path, timeout: float = 30.0) -> None:
    """A test that turned capture on may leave a detached capture running: wait for it, so it
    never answers (or eats the scripted replies of) the next test on the shared server."""
    import time

    marker = f"MEMCHAT_HOME={home}".encode()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = []
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit() and proc.name != str(os.getpid()):
                try:
                    if marker in (proc / "environ").read_bytes().split(b"\0"):
                        alive.append(proc.name)
                except OSError:
                    continue
        if not alive:
            return
        time.sleep(0.05)


@pytest.fixture(scope="session")
def _server():
    server = FakeAnthropic()
    yield server
    server.close()


@pytest.fixture
def api(_server, monkeypatch):
    """A local Messages-API server, with memchat pointed at it through the real SDK."""
    _server.reset()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.setenv("MEMCHAT_BASE_URL", _server.url)
    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    monkeypatch.setenv("MEMCHAT_TIMEOUT", "5")
    return _server


@pytest.fixture(scope="session")
def _openai_server():
    server = FakeOpenAI()
    yield server
    server.close()


@pytest.fixture
def local_api(_openai_server, monkeypatch):
    """A local Chat Completions server (as Ollama would be), with memchat's openai provider
    pointed at it through the real SDK; no key, as for a model of one's own."""
    _openai_server.reset()
    monkeypatch.setenv("MEMCHAT_PROVIDER", "openai")
    monkeypatch.setenv("MEMCHAT_MODEL", "llama3.1:8b")
    monkeypatch.setenv("OPENAI_BASE_URL", _openai_server.url)
    monkeypatch.setenv("MEMCHAT_TIMEOUT", "5")
    return _openai_server


@pytest.fixture
def keyring(tmp_path, monkeypatch):
    """A keyring that keeps secrets (tests/memory_keyring.py) for this process and every process the
    test starts; afterwards keyring's null backend again. The fixture is the file that holds them."""
    import keyring as keyring_package
    from keyring.backends import null
    from memory_keyring import FileKeyring

    store = tmp_path / "test-keyring.json"
    monkeypatch.setenv("MEMCHAT_TEST_KEYRING", str(store))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "memory_keyring.FileKeyring")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    keyring_package.set_keyring(FileKeyring())
    yield store
    keyring_package.set_keyring(null.Keyring())


@pytest.fixture
def fake(monkeypatch):
    """An in-process scripted model, registered as provider "fake" and made the configured one."""
    from fakes import FakeProvider

    from memchat import providers

    model = FakeProvider()
    monkeypatch.setitem(providers._REGISTRY, "fake", lambda settings: model)
    monkeypatch.setenv("MEMCHAT_PROVIDER", "fake")
    return model


def db_rows(
    home: Path, sql: str = "SELECT role, content, status FROM messages ORDER BY id", name: str = "default.db"
) -> list[tuple]:
    """Rows straight from the profile's database file, as a user's sqlite3 would see them."""
    import sqlite3

    conn = sqlite3.connect(home / name)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_until(check, timeout: float = 60) -> bool:
    """Poll `check` until it holds (a detached process's work landing), at most `timeout` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def run_memchat(
    *args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    """Run memchat as a real subprocess with the test's environment."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "memchat", *args],
        input=input.encode() if isinstance(input, str) else input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        env=full_env,
        timeout=timeout,
        cwd=str(ROOT),
    )


@pytest.fixture(scope="session")
def _built_cli():
    """typer's CliRunner rebuilds the Click command from the Typer app on every invoke (~50 ms,
    most of an in-process run); a process builds it once, so the suite does too."""
    import typer.main
    import typer.testing

    from memchat.cli.main import app

    built = typer.main.get_command(app)
    build = typer.testing._get_command  # typer.testing's name for the public typer.main.get_command
    typer.testing._get_command = lambda typer_app: built if typer_app is app else build(typer_app)
    yield app
    typer.testing._get_command = build


@pytest.fixture
def cli(_built_cli):
    """Invoke the Typer app in-process (fast); stderr is kept apart from stdout."""
    from typer.testing import CliRunner

    app = _built_cli
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        from memchat.cli import runner as cli_runner

        try:
            return runner.invoke(app, list(args), input=input, catch_exceptions=False)
        finally:
            while cli_runner.OPEN:  # as a process's exit would: a suite of in-process runs must not run out of files
                cli_runner.OPEN.pop().close()

    return invoke


# --- long-term memory -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def embedder(shared_cache):
    """The real bundled model (all-MiniLM-L6-v2), loaded once for the whole test session
    (from the export shared_cache prepared); the CLI run in-process shares this one."""
    from memchat.memory.recall.embed import get_embedder

    return get_embedder()


REAL_ENCODER_FIXTURES = {"embedder", "encoder", "real_encoder"}


@pytest.fixture(autouse=True)
def fake_encoder_by_default(request, monkeypatch):
    """In this process, the encoder is a FakeEmbedder unless the test is about retrieval (it asks for
    the `embedder`/`encoder` fixture or `real_encoder`). Processes a test starts use the real model."""
    if REAL_ENCODER_FIXTURES & set(request.fixturenames):
        return None
    fake = FakeEmbedder()
    monkeypatch.setattr("memchat.memory.recall.embed.configured", lambda settings, note=None: fake)
    monkeypatch.setattr("memchat.memory.recall.embed.is_loaded", lambda name=None: True)
    return fake


@pytest.fixture
def real_encoder(embedder):
    """The real model for a test that runs memchat in this process (recall quality, vectors on disk)."""
    return embedder


class FakeEmbedder:
    """Deterministic vectors from word lengths (like llm's EmbedDemo), for pure-logic tests."""

    def __init__(self, model_name: str = "fake-embedder", dim: int = 16) -> None:
        self.model_name = model_name
        self.dim = dim
        self.calls: list[list[str]] = []

    def encode(self, texts, batch_size=64):
        import numpy as np

        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for j, word in enumerate(text.split()[: self.dim]):
                out[i, j] = len(word)
            out[i, self.dim - 1] += 1.0  # never the zero vector
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def fake_embedder():
    return FakeEmbedder()


@pytest.fixture
def db(tmp_path):
    """A fresh, migrated database file."""
    from memchat.db import open_db

    database = open_db(tmp_path / "memory.db")
    yield database
    database.conn.close()


# --- the REPL in this process -----------------------------------------------------------------


@dataclass
class ChatRun:
    code: int
    out: str
    err: str


@pytest.fixture
def typed_chat(capsys):
    """The interactive REPL in this process, no pseudo-terminal: `keys` are typed through prompt_toolkit's
    pipe input (escape sequences parsed as a terminal's would be), the prompt draws on a DummyOutput,
    and memchat's own output is captured. Ctrl-D ends the chat after the keys."""

    def run(keys: str, *, session: str | None = None, continue_: bool = False, **flags: str) -> ChatRun:
        from prompt_toolkit.application import create_app_session
        from prompt_toolkit.input import create_pipe_input
        from prompt_toolkit.output import DummyOutput

        from memchat.app import Memchat
        from memchat.repl.loop import run_repl
        from memchat.ui.terminal import Environment

        capsys.readouterr()
        with create_pipe_input() as typed:
            typed.send_text(keys)
            typed.close()  # then end of input: the chat ends as on Ctrl-D, and a stuck prompt cannot hang the test
            env = Environment(stdin=sys.stdin, stdin_isatty=True, stdout_isatty=True, keys=typed, screen=DummyOutput())
            app = Memchat.load(None, **flags)
            try:  # the app session too: prompt_toolkit's own prompts (after an error) read these keys
                with create_app_session(input=typed, output=env.screen):
                    code = run_repl(app, session=session, continue_=continue_, env=env)
            finally:
                app.close()
        captured = capsys.readouterr()
        return ChatRun(int(code), captured.out, captured.err)

    return run
