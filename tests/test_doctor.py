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
