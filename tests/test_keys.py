"""API keys kept for you: `memchat key set|show|remove`, the OS keyring after the environment
variable, and refusal of a keyring that would write the key in plain text. Every test runs on a
test keyring (tests/memory_keyring.py) or keyring's null backend, never the developer's own."""

from __future__ import annotations

import json

import pexpect
import pytest
from conftest import ROOT, run_memchat

STORED = "sk-ant-api03-KEYRINGKEY-0000-1111-2222-3333-abcd"
FROM_ENV = "sk-ant-api03-ENVIRONKEY-9999-8888-7777-6666-wxyz"


def _set(key: str = STORED, *args: str, env: dict | None = None):
    return run_memchat("key", "set", *args, input=key + "\n", env=env)


def _no_key_in(*outputs: bytes | str) -> None:
    for out in outputs:
        text = out.decode() if isinstance(out, bytes) else out
        assert "KEYRINGKEY" not in text and "ENVIRONKEY" not in text


def test_a_stored_key_is_used_when_the_variable_is_unset(api, keyring, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    done = _set()
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.decode()
        == "stored the anthropic key (sk-ant-…abcd) in the OS keyring (memory_keyring.FileKeyring)\n"
    )
    assert json.loads(keyring.read_text()) == {"memchat api key\0anthropic": STORED}
    asked = run_memchat("ask", "hello")
    assert asked.returncode == 0, asked.stderr
    assert api.headers[-1]["authorization"] == f"Bearer {STORED}"
    _no_key_in(done.stdout, done.stderr, asked.stdout, asked.stderr)


def test_the_variable_comes_before_the_keyring(api, keyring, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FROM_ENV)
    done = _set()
    assert done.returncode == 0 and "ANTHROPIC_API_KEY is set, and comes first" in done.stderr.decode()
    assert run_memchat("ask", "hello").returncode == 0
    assert api.headers[-1]["authorization"] == f"Bearer {FROM_ENV}"


def test_show_masks_the_key_and_names_its_source(keyring, monkeypatch):
    assert _set().returncode == 0
    shown = run_memchat("key", "show")
    assert shown.returncode == 0
    assert shown.stdout.decode().splitlines() == [
        "anthropic: sk-ant-…abcd from the OS keyring (memory_keyring.FileKeyring)",
        "openai: no key (set OPENAI_API_KEY, or `memchat key set openai`)",
    ]
    assert run_memchat("key", "show", "openai").returncode == 1
    monkeypatch.setenv("ANTHROPIC_API_KEY", FROM_ENV)
    env = run_memchat("key", "show", "anthropic")
    assert env.returncode == 0 and env.stdout.decode() == "anthropic: sk-ant-…wxyz from ANTHROPIC_API_KEY\n"
    _no_key_in(shown.stdout, shown.stderr, env.stdout, env.stderr)


def test_remove_deletes_the_key_and_a_call_then_says_how_to_set_one(keyring, monkeypatch):
    monkeypatch.delenv("MEMCHAT_PROVIDER", raising=False)
    assert _set().returncode == 0
    gone = run_memchat("key", "remove")
    assert gone.returncode == 0 and gone.stdout.decode() == "removed the anthropic key from the OS keyring\n"
    assert json.loads(keyring.read_text()) == {}
    again = run_memchat("key", "remove")
    assert again.returncode == 1 and again.stderr.decode() == "memchat: the OS keyring holds no anthropic key\n"
    asked = run_memchat("ask", "hello")
    said = asked.stderr.decode()
    assert asked.returncode == 1 and said.count("\n") == 1
    assert "ANTHROPIC_API_KEY" in said and "memchat key set" in said and "Traceback" not in said


def test_the_openai_key_is_kept_apart_and_its_variable_comes_first(keyring, monkeypatch):
    from memchat import keys

    assert _set("sk-proj-OPENAIKEY-1234567890", "openai").returncode == 0
    assert keys.stored_key("openai") == "sk-proj-OPENAIKEY-1234567890" and keys.stored_key("anthropic") is None
    assert keys.key_source("openai") == keys.Source("keyring", "the OS keyring (memory_keyring.FileKeyring)")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-from-env-000000")
    assert keys.stored_key("openai") == "sk-proj-from-env-000000"
    assert keys.key_source("openai") == keys.Source("env", "OPENAI_API_KEY")


def _plaintext():
    """Shaped like keyrings.alt's PlaintextKeyring, which writes keys to a file as they are."""
    from keyring.backend import KeyringBackend

    class Plaintext(_Kept, KeyringBackend):
        __module__ = "keyrings.alt.file"
        priority = 1  # type: ignore[assignment]

        def delete_password(self, service, username):
            self.kept.pop((service, username), None)

    return Plaintext()


class _Kept:
    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.kept.get((service, username))

    def set_password(self, service, username, password):
        self.kept[(service, username)] = password


def _insecure(name: str):
    from keyring.backends import fail, null

    return {"null": null.Keyring, "fail": fail.Keyring, "plaintext": _plaintext}[name]()


@pytest.mark.parametrize("backend", ["null", "fail", "plaintext"])
def test_a_keyring_that_would_keep_the_key_in_plain_text_is_refused(backend, monkeypatch):
    import keyring as keyring_package

    from memchat import keys
    from memchat.errors import MemchatError

    insecure = _insecure(backend)
    keyring_package.set_keyring(insecure)
    try:
        with pytest.raises(MemchatError) as refused:
            keys.store("anthropic", STORED)
        if backend == "plaintext":
            insecure.set_password(keys.KEYRING_SERVICE, "anthropic", STORED)  # put there by someone else
        assert keys.stored_key("anthropic") is None and keys.key_source("anthropic") is None  # never read from it
    finally:
        from keyring.backends import null

        keyring_package.set_keyring(null.Keyring())
    said = refused.value.message
    assert said.startswith("not stored: ") and said.endswith("set ANTHROPIC_API_KEY in your environment instead")
    assert "\n" not in said and ("plain file" in said if backend == "plaintext" else "no OS keyring" in said)
    if backend == "plaintext":
        assert insecure.kept == {(keys.KEYRING_SERVICE, "anthropic"): STORED}  # only what the test put there


@pytest.mark.parametrize("backend", ["keyring.backends.null.Keyring", "keyring.backends.fail.Keyring"])
def test_key_set_on_a_machine_without_a_secret_service_says_to_use_the_variable(backend):
    done = run_memchat("key", "set", input=STORED + "\n", env={"PYTHON_KEYRING_BACKEND": backend})
    said = done.stderr.decode()
    assert done.returncode == 1 and said.count("\n") == 1 and said.startswith("memchat: not stored: ")
    assert "set ANTHROPIC_API_KEY in your environment instead" in said
    _no_key_in(done.stdout, done.stderr)


@pytest.mark.parametrize(
    ("args", "key", "said"),
    [
        (["nonesuch"], STORED, "memchat keeps keys for anthropic, openai, not 'nonesuch'"),
        (["echo"], STORED, "memchat keeps keys for anthropic, openai, not 'echo'"),
        ([], "", "the key is empty"),
        ([], "sk-ant two words", "that is not an API key"),
        ([], "sk-ant-\x1b[2Jkey", "that is not an API key"),
    ],
    ids=["unknown provider", "echo", "empty", "spaces", "escape"],
)
def test_key_set_refuses_bad_input_in_one_line(keyring, args, key, said):
    done = _set(key, *args)
    assert done.returncode == 2 and done.stderr.decode().count("\n") == 1 and said in done.stderr.decode()
    assert not keyring.exists()


@pytest.mark.parametrize("where", ["env", "keyring"])
def test_doctor_and_config_say_where_the_key_came_from_never_the_key(keyring, monkeypatch, where):
    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    if where == "env":
        monkeypatch.setenv("ANTHROPIC_API_KEY", FROM_ENV)
        source = "ANTHROPIC_API_KEY"
    else:
        assert _set().returncode == 0
        source = "the OS keyring (memory_keyring.FileKeyring)"
    doctor = run_memchat("doctor", "--quick")
    assert f"API key — from {source} (not shown)" in doctor.stdout.decode()
    config = run_memchat("config")
    assert f"API key: anthropic's from {source} (not shown)" in " ".join(config.stdout.decode().split())
    shown = json.loads(run_memchat("config", "--json").stdout)
    assert shown["api_key"] == {"provider": "anthropic", "source": where, "where": source}
    _no_key_in(doctor.stdout, doctor.stderr, config.stdout, config.stderr)


def test_doctor_without_any_key_names_both_fixes(monkeypatch):
    monkeypatch.setenv("MEMCHAT_PROVIDER", "anthropic")
    doctor = run_memchat("doctor", "--quick")
    out = doctor.stdout.decode()
    assert doctor.returncode == 1
    assert "ANTHROPIC_API_KEY is not set and the OS keyring holds no anthropic key" in out
    assert "memchat key set anthropic" in out


def test_key_set_on_a_terminal_reads_the_key_hidden(keyring):
    import os
    import sys

    child = pexpect.spawn(
        sys.executable, ["-m", "memchat", "key", "set"], env=dict(os.environ), cwd=str(ROOT), encoding="utf-8"
    )
    child.expect_exact("anthropic API key (not shown as you type): ")
    child.sendline(STORED)
    child.expect_exact("stored the anthropic key (sk-ant-…abcd)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "KEYRINGKEY" not in (child.before or "") and json.loads(keyring.read_text())


@pytest.mark.parametrize("bad", ["sk-ant-SECRETPART\nline2", "sk-ant-SECRET PART", "sk-ant-SECRETé"], ids=repr)
def test_a_key_no_header_can_carry_is_one_line_and_never_echoed(api, monkeypatch, bad):
    monkeypatch.setenv("ANTHROPIC_API_KEY", bad)
    result = run_memchat("ask", "hello")
    assert result.returncode != 0
    err = result.stderr.decode()
    assert err.count("\n") == 1 and "ANTHROPIC_API_KEY holds a character an API key never has" in err
    assert "SECRET" not in err and "SECRET" not in result.stdout.decode()
    assert api.requests == []


def test_a_short_key_shows_only_its_last_two_characters(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "abcdefghijklmnop")
    result = run_memchat("key", "show", "openai")
    assert result.returncode == 0 and result.stdout.decode() == "openai: …op from OPENAI_API_KEY\n"
