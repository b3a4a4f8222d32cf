"""`memchat doctor`: every check names what is wrong in plain words."""

import re

import pytest


def test_doctor_reports_missing_key_without_failing_elsewhere(cli):
    result = cli("doctor", "--quick")
    assert result.exit_code == 1
    assert "✗ API key" in result.stdout and "export ANTHROPIC_API_KEY" in result.stdout
    assert "✓ database" in result.stdout and "mode 0o600" in result.stdout
    assert "✓ tokenizer (offline)" in result.stdout


def test_doctor_passes_with_key_and_never_prints_it(cli, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-VISIBLE-SECRET")
    result = cli("doctor", "--quick")
    assert result.exit_code == 0, result.stdout
    assert "VISIBLE-SECRET" not in result.stdout + result.stderr
    assert "✓ API key" in result.stdout


def test_doctor_loads_the_bundled_embedding_model_offline(cli, real_encoder):
    result = cli("--provider", "echo", "doctor")
    assert result.exit_code == 0, result.stdout
    assert "✓ embedding model (offline)" in result.stdout and "384 dimensions" in result.stdout


def test_doctor_names_a_corrupt_database(cli, tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"nope" * 500)
    result = cli("--provider", "echo", "--db", str(bad), "doctor", "--quick")
    assert result.exit_code == 1
    assert "✗ database" in result.stdout and "not a memchat database or is corrupt" in result.stdout


def test_doctor_warns_about_private_files_others_can_read(cli, memchat_home):
    home = memchat_home
    assert cli("--provider", "echo", "memories", "add", "I keep my passport in the blue drawer.").exit_code == 0
    (home / "default.db").chmod(0o644)
    (home / "config.toml").write_text('provider = "echo"\n')
    (home / "config.toml").chmod(0o604)
    result = cli("doctor", "--quick")
    assert "! private files" in result.stdout
    assert "default.db is mode 0o644: everyone can read it" in result.stdout
    assert "config.toml is mode 0o604" in result.stdout
    home.chmod(0o777)
    try:
        result = cli("doctor", "--quick")
    finally:
        home.chmod(0o700)
    assert "others can add, replace or remove files in it" in result.stdout
    # doctor looks at modes; it never changes them (the user may have reasons)
    assert (home / "default.db").stat().st_mode & 0o777 == 0o644


def test_doctor_names_an_import_cut_short(cli, memchat_home):
    home = memchat_home
    from memchat.db import open_db

    assert cli("--provider", "echo", "doctor", "--quick").exit_code == 0
    db = open_db(home / "default.db")
    db.conn.execute(
        "INSERT INTO sessions (created_at, updated_at, source, external_id, importing) "
        "VALUES ('2026-01-01', '2026-01-01', 'jsonl', 'x', 1)"
    )
    db.conn.commit()
    db.conn.close()
    result = cli("--provider", "echo", "doctor", "--quick")
    assert "! imports" in result.stdout and "run the same `memchat import FILE` again" in result.stdout


def _server_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line[2:].startswith("server"))


def test_doctor_reaches_the_server_with_the_key_and_says_how_long_it_took(cli, api, real_encoder):
    result = cli("doctor")
    assert result.exit_code == 0, result.stdout
    line = _server_line(result.stdout)
    assert line.startswith("✓") and api.url in line and "key accepted" in line and re.search(r"\(\d+\.\d s\)", line)
    assert api.requests == []  # a free count_tokens call: no message was generated


@pytest.mark.parametrize(
    ("status", "said"),
    [(401, "rejected the key (401)"), (404, "was not found (404)"), (529, "overloaded (529)")],
)
def test_doctor_names_what_the_server_refused(cli, api, status, said):
    api.enqueue_error(status)
    result = cli("doctor")
    assert result.exit_code == 1
    line = _server_line(result.stdout)
    assert line.startswith("✗") and said in line
    assert "sk-ant" not in result.stdout


def test_doctor_names_the_url_of_a_dead_server(cli, api, monkeypatch):
    monkeypatch.setenv("MEMCHAT_BASE_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    result = cli("doctor")
    assert result.exit_code == 1
    line = _server_line(result.stdout)
    assert line.startswith("✗") and "cannot reach the API at http://127.0.0.1:9" in line


def test_doctor_quick_and_keyless_never_call_the_server(cli, api, monkeypatch):
    api.enqueue_error(401)
    assert "skipped (--quick)" in _server_line(cli("doctor", "--quick").stdout)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert "not tried without a key" in _server_line(cli("doctor").stdout)
    assert api.pending == 1  # the scripted refusal was never consumed


def test_models_lists_what_claude_offers_and_who_uses_which(cli, api):
    result = cli("models")
    assert result.exit_code == 0, result.stderr
    assert "claude-sonnet-5-5  ← chat" in result.stdout and "claude-haiku-4-5   ← memory" in result.stdout
