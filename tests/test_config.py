from pathlib import Path

import pytest

from memchat.config import SETTINGS, example_config, load_settings
from memchat.errors import ConfigError


def write_config(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text)
    return path


def test_precedence_default_file_env_flag(memchat_home, monkeypatch):
    write_config(memchat_home, 'model = "from-file"\nmax_tokens = 100\ntimeout = 7\n')
    monkeypatch.setenv("MEMCHAT_MAX_TOKENS", "200")
    settings = load_settings().with_overrides(timeout=9)
    assert settings.model == "from-file"
    assert settings.sources["model"].startswith("file ")
    assert settings.max_tokens == 200 and settings.sources["max_tokens"] == "env MEMCHAT_MAX_TOKENS"
    assert settings.timeout == 9 and settings.sources["timeout"] == "flag"
    assert settings.provider == "anthropic" and settings.sources["provider"] == "default"


def test_xdg_config_home_is_honoured(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMCHAT_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "cfg" / "memchat").mkdir(parents=True)
    (tmp_path / "cfg" / "memchat" / "config.toml").write_text('profile = "work"\n')
    settings = load_settings()
    assert settings.profile == "work"
    assert settings.db_path == tmp_path / "data" / "memchat" / "work.db"


def test_memchat_config_env_points_at_another_file(tmp_path, monkeypatch):
    other = tmp_path / "other.toml"
    other.write_text('model = "m2"\n')
    monkeypatch.setenv("MEMCHAT_CONFIG", str(other))
    assert load_settings().model == "m2"


@pytest.mark.parametrize(
    "text, message",
    [
        ('model = "x"\nmodel = "y"\n', "invalid TOML"),
        ("a = 1\nb = \n", "line 2"),
        ('colour = "red"\n', "unknown setting 'colour'"),
        ('max_tokens = "lots"\n', "must be a whole number"),
        ("[history]\nretention_days = 1.5\n", "must be a whole number, got 1.5"),  # was read as 1 day
        ("max_tokens = 0\n", "at least 1"),
        ('provider = "gemini"\n', "must be one of anthropic, openai, echo"),
        ("markdown = 3\n", "true or false"),
        ('profile = "../etc"\n', "profile name"),
    ],
    ids=[
        "duplicate-key",
        "unterminated",
        "unknown",
        "wrong-type",
        "fraction",
        "too-small",
        "bad-choice",
        "bool",
        "profile",
    ],
)
def test_bad_config_is_one_clear_error(memchat_home, text, message):
    path = write_config(memchat_home, text)
    with pytest.raises(ConfigError) as exc:
        load_settings()
    assert message in str(exc.value)
    if "TOML" in message or message == "line 2":
        assert str(path) in str(exc.value)


def test_bad_env_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("MEMCHAT_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="MEMCHAT_TIMEOUT"):
        load_settings()


def test_config_example_file_is_current_and_lists_every_default():
    shipped = (Path(__file__).parents[1] / "config.example.toml").read_text()
    assert shipped == example_config(), (
        "regenerate: python -c 'from memchat.config import example_config as e; print(e(), end=\"\")' > config.example.toml"
    )
    import tomllib

    # Uncommenting every "# key = value" line gives a valid file holding exactly the defaults.
    uncommented = "\n".join(
        line[2:]
        if line.startswith("# ") and " = " in line and not line.startswith("# Environment")
        else (line if line.startswith("[") else "")
        for line in shipped.splitlines()
    )
    flat: dict = {}
    for key, value in tomllib.loads(uncommented).items():
        if isinstance(value, dict):
            flat.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    assert flat == {s.name: s.default for s in SETTINGS}


def test_config_command_shows_sources(cli, memchat_home, monkeypatch):
    write_config(memchat_home, 'model = "file-model"\n')
    monkeypatch.setenv("MEMCHAT_MAX_TOKENS", "321")
    result = cli("--provider", "echo", "config", "--json")
    assert result.exit_code == 0
    import json

    data = json.loads(result.stdout)["settings"]
    assert data["model"] == {"value": "file-model", "source": f"file {memchat_home / 'config.toml'}"}
    assert data["max_tokens"] == {"value": 321, "source": "env MEMCHAT_MAX_TOKENS"}
    assert data["provider"] == {"value": "echo", "source": "flag"}


def test_config_output_never_shows_the_api_key(cli, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-123")
    for args in (("config",), ("config", "--json"), ("doctor", "--quick")):
        result = cli(*args)
        assert "SECRET" not in result.stdout + result.stderr


def test_config_init_writes_private_commented_file_once(cli, memchat_home):
    first = cli("config", "init")
    assert first.exit_code == 0
    path = memchat_home / "config.toml"
    assert path.read_text() == example_config()
    assert path.stat().st_mode & 0o777 == 0o600
    second = cli("config", "init")
    assert second.exit_code == 1 and "already exists" in second.stderr
