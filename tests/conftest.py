"""Shared fixtures: every test gets its own memchat home and no key from the developer's shell."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakeapi import FakeAnthropic

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    """One cache for the whole run: the ONNX export of the model is made once, not per test."""
    return tmp_path_factory.mktemp("memchat-cache")


@pytest.fixture(autouse=True)
def memchat_home(tmp_path, monkeypatch, shared_cache):
    """Point memchat at an empty home; strip the developer's memchat and Anthropic settings."""
    for name in list(os.environ):
        if name.startswith(("MEMCHAT_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("MEMCHAT_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    # `ask` hands capture to a detached process that would talk to the shared test server
    # after the test ends; tests of capture turn it back on.
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "false")
    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(shared_cache))
    return home


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


@pytest.fixture
def cli():
    """Invoke the Typer app in-process (fast); stderr is kept apart from stdout."""
    from typer.testing import CliRunner

    from memchat.cli.main import app

    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke


# --- long-term memory -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def embedder(shared_cache):
    """The real bundled model (all-MiniLM-L6-v2), loaded once for the whole test session.

    memchat keeps loaded models per process, so the CLI run in-process shares this one.
    It is session-scoped, so it runs before memchat_home sets the cache: point it there
    too, or it would make a second ONNX export in the developer's ~/.cache.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["MEMCHAT_CACHE_DIR"] = str(shared_cache)
    from memchat.memory.embed import get_embedder

    return get_embedder()


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
