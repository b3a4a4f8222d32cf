"""README's "Local models" section, run as written from a fresh home against the fake server
(tests/fakeopenai.py standing at Ollama's address: only the address is swapped)."""

import re
import shlex
from pathlib import Path

import pytest
from conftest import run_memchat

OLLAMA = "http://localhost:11434/v1"


def section() -> str:
    text = (Path(__file__).parents[1] / "README.md").read_text()
    start = text.index("### Local models")
    return text[start : text.index("\n### ", start + 1)]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), re.DOTALL)


@pytest.fixture
def fresh(local_api, monkeypatch):
    """Nothing set but what the README says (the fixture's own settings taken away)."""
    for name in ("MEMCHAT_PROVIDER", "MEMCHAT_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name)
    return local_api


def test_the_one_command_then_models_doctor_and_ask_work_as_written(fresh, memchat_home):
    export, commands = blocks("sh")
    words = shlex.split(export)
    assert words[0] == "export" and f"OPENAI_BASE_URL={OLLAMA}" in words
    env = dict(w.split("=", 1) for w in words[1:])
    env["OPENAI_BASE_URL"] = fresh.url
    ran = []
    for line in commands.strip().splitlines():
        args = shlex.split(line.split("#", 1)[0])
        assert args[0] == "memchat"
        result = run_memchat(*args[1:], env=env)
        assert result.returncode == 0, (line, result.stdout, result.stderr)
        ran.append(result.stdout.decode())
    models, doctor, ask = ran
    assert "llama3.1:8b  ← chat, memory" in models
    assert f"✓ server — {fresh.url} answered; model llama3.1:8b offered" in doctor
    assert ask.strip() == "echo: Say hello in five words."


def test_the_config_file_example_sets_the_roles_and_capabilities(fresh, memchat_home):
    (toml,) = blocks("toml")
    (memchat_home / "config.toml").write_text(toml.replace(OLLAMA, fresh.url))
    from memchat.config import load_settings

    settings = load_settings()
    chat, memory = settings.roles()
    assert (chat.provider, chat.model, chat.local) == ("openai", "llama3.1:8b", True)
    assert (memory.provider, memory.model, memory.url) == ("openai", "qwen2.5:7b", fresh.url)
    assert settings.context_window == 8192
    from memchat.providers import get_provider

    capabilities = get_provider("openai", settings).capabilities("qwen2.5:7b")
    assert (capabilities.tools, capabilities.json_mode) == (False, True)
    result = run_memchat("config")
    assert f"memory: openai qwen2.5:7b at {fresh.url} (local: no key, no cost)" in result.stdout.decode()
