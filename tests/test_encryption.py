"""Encryption at rest: an encrypted profile leaves no plaintext anywhere under its home, works for
chat, recall, import and export, refuses cleanly without its key, and converts both ways safely."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time

import pexpect
import pytest
from conftest import ROOT, run_memchat

from memchat.db import open_db

KEY = {"MEMCHAT_DB_KEY": "correct horse battery staple"}
SECRET_FACT = "My passport number is ZX9123456."
SECRET_TURN = "I keep my spare key under the blue pot."
MARKERS = (b"ZX9123456", b"blue pot", b"spare key")


def _everything_under(home) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file() and "onnx" not in p.parts)


def _plain_profile(home, env=None):
    for args in (("memories", "add", SECRET_FACT), ("--provider", "echo", "ask", SECRET_TURN), ("recall", "spare key")):
        result = run_memchat(*args, env=env)
        assert result.returncode == 0, result.stderr
    assert any(m in _everything_under(home) for m in MARKERS)  # the point of encrypting


@pytest.fixture(scope="module")
def encrypted_template(tmp_path_factory, shared_cache):
    """One profile built and encrypted per module (each a few processes), copied into each test's home."""
    import shutil

    home = tmp_path_factory.mktemp("encrypted-template")
    env = {name: "" for name in os.environ if name.startswith(("MEMCHAT_", "ANTHROPIC_"))}
    env.update(MEMCHAT_HOME=str(home), MEMCHAT_CACHE_DIR=str(shared_cache), MEMCHAT_MEMORY_CAPTURE="false")
    env = {k: v for k, v in env.items() if v} | {"HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MEMCHAT_", "ANTHROPIC_"))} | env
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(clean)
    try:
        _plain_profile(home)
        result = run_memchat("profile", "encrypt", "--yes", env=KEY)
        assert result.returncode == 0, result.stderr
        assert "MEMCHAT_DB_KEY" in result.stdout.decode() and KEY["MEMCHAT_DB_KEY"] not in result.stdout.decode()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    shutil.rmtree(home / "onnx", ignore_errors=True)
    return home


@pytest.fixture
def encrypted(encrypted_template, memchat_home):
    import shutil

    for item in encrypted_template.iterdir():
        (shutil.copytree if item.is_dir() else shutil.copy2)(item, memchat_home / item.name)
    return memchat_home


def test_an_encrypted_profile_leaves_no_plaintext_and_still_works(api, encrypted, tmp_path):
    home = encrypted
    assert not any(m in _everything_under(home) for m in MARKERS)
    api.enqueue_text("It is under the blue pot.")
    asked = run_memchat("ask", "-c", "where is my spare key?", env=KEY)
    assert asked.returncode == 0, asked.stderr
    assert api.requests[-1]["messages"][0]["content"] == SECRET_TURN  # the conversation, read back decrypted
    found = json.loads(run_memchat("recall", "--json", "passport number", env=KEY).stdout)
    assert any("ZX9123456" in h["text"] for h in found)
    (tmp_path / "more.jsonl").write_text(
        json.dumps({"session": "s", "role": "user", "content": "My locker is 4417692"}) + "\n"
    )
    assert run_memchat("import", str(tmp_path / "more.jsonl"), env=KEY).returncode == 0
    out = tmp_path / "memories.json"
    assert run_memchat("memories", "export", "-o", str(out), env=KEY).returncode == 0
    assert b"ZX9123456" in out.read_bytes()  # an export is yours, in the clear, where you asked
    assert not any(m in _everything_under(home) for m in (*MARKERS, b"4417692"))  # still nothing in the profile
    assert not list(home.glob("*.vectors"))  # no vector copy beside an encrypted database
    doctor = run_memchat("doctor", "--quick", env=KEY).stdout.decode()
    assert "encrypted (SQLCipher)" in doctor


def test_the_vector_copy_is_never_written_for_an_encrypted_database(encrypted):
    from memchat.memory.recall.vector_file import disk_dir

    os.environ.update(KEY)
    try:
        db = open_db(encrypted / "default.db")
        assert db.encrypted and disk_dir(db) is None
    finally:
        del os.environ["MEMCHAT_DB_KEY"]


@pytest.mark.parametrize("key", [None, "wrong horse"], ids=["no key", "wrong key"])
def test_without_its_key_a_profile_refuses_in_one_line_and_is_not_changed(encrypted, key):
    before = hashlib.sha256((encrypted / "default.db").read_bytes()).hexdigest()
    env = {"MEMCHAT_DB_KEY": key} if key else {}
    for args in (["memories", "list"], ["recall", "passport"], ["--provider", "echo", "ask", "hi"]):
        result = run_memchat(*args, env=env)
        err = result.stderr.decode()
        assert result.returncode == 1 and err.count("\n") == 1 and "Traceback" not in err, (args, err)
        assert ("no key was found" if key is None else "is wrong") in err
        assert "ERROR" not in err and (key or "correct horse") not in err
    assert hashlib.sha256((encrypted / "default.db").read_bytes()).hexdigest() == before
    # nothing beside it but the empty lock file every process that opens a profile shares
    assert sorted(p.name for p in encrypted.glob("default.db*")) == ["default.db", "default.db.lock"]
    assert (encrypted / "default.db.lock").stat().st_size == 0


def test_decrypt_gives_back_the_same_profile_in_plain_sqlite(encrypted):
    assert run_memchat("profile", "decrypt", "--yes", env=KEY).returncode == 0
    assert (encrypted / "default.db").read_bytes()[:16] == b"SQLite format 3\x00"
    listed = run_memchat("memories", "list", "--json").stdout.decode()
    assert "ZX9123456" in listed
    assert "not encrypted" in run_memchat("profile", "status").stdout.decode()


def test_a_conversion_cut_short_is_finished_on_the_next_open(encrypted):
    db = encrypted / "default.db"
    old = encrypted / "default.db.old"
    os.replace(db, old)  # a crash between the two renames: the new file never arrived
    (encrypted / "default.db.converting").write_bytes(b"half a copy")
    assert "ZX9123456" in run_memchat("memories", "list", env=KEY).stdout.decode()  # the old file is back
    assert not old.exists() and not (encrypted / "default.db.converting").exists()
    old.write_bytes(b"the plain copy left behind")  # a crash after the swap: the old one is shredded
    assert run_memchat("memories", "list", env=KEY).returncode == 0
    assert not old.exists()


def test_a_conversion_killed_while_writing_leaves_no_plaintext_copy_or_history(encrypted):
    """Killed while the copy was being written (no .old yet), or after the swap but before the
    plaintext input history was shredded: the next open removes what was left."""
    half = encrypted / "default.db.converting"
    half.write_bytes(b"SQLite format 3\x00" + SECRET_TURN.encode())
    (encrypted / "default.db.converting-wal").write_bytes(SECRET_TURN.encode())
    history = encrypted / "history-default"
    history.write_text(f"\n# 2026-01-01 10:00:00\n+{SECRET_TURN}\n")
    # Just written, but no conversion holds the profile: the next command removes it at once
    assert "ZX9123456" in run_memchat("memories", "list", env=KEY).stdout.decode()
    assert not half.exists() and not (encrypted / "default.db.converting-wal").exists() and not history.exists()
    assert not any(m in _everything_under(encrypted) for m in MARKERS)


def test_a_copy_a_running_conversion_is_writing_is_left_to_it(encrypted, monkeypatch):
    import fcntl

    from memchat import locks
    from memchat.errors import StoreError

    monkeypatch.setattr(locks, "CONVERSION_WAIT_SECONDS", 0.2)
    monkeypatch.setenv("MEMCHAT_DB_KEY", KEY["MEMCHAT_DB_KEY"])
    half = encrypted / "default.db.converting"
    half.write_bytes(b"SQLite format 3\x00" + SECRET_TURN.encode())
    # a conversion holds the profile's lock alone while it writes the copy (its own descriptor)
    fd = os.open(encrypted / "default.db.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(StoreError, match="being encrypted or decrypted"):
            open_db(encrypted / "default.db")
        assert half.exists()
    finally:
        os.close(fd)
    open_db(encrypted / "default.db").close()  # the conversion is gone: its copy with it
    assert not half.exists()


def test_profile_status_finishes_a_conversion_cut_short(encrypted):
    db, old = encrypted / "default.db", encrypted / "default.db.old"
    old.write_bytes(b"SQLite format 3\x00" + SECRET_TURN.encode())  # killed after the swap
    shown = run_memchat("profile", "status", env=KEY).stdout.decode()
    assert "encrypted (SQLCipher)" in shown and not old.exists()
    os.replace(db, old)  # killed between the renames: the old file goes back
    shown = run_memchat("profile", "status", env=KEY).stdout.decode()
    assert "not created yet" not in shown and "encrypted (SQLCipher)" in shown and db.exists()


def test_a_locked_encrypted_profile_says_it_is_busy_not_that_the_key_is_wrong(encrypted, monkeypatch):
    import sqlcipher3.dbapi2 as sc

    from memchat import db as database
    from memchat import encryption
    from memchat.errors import StoreError

    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setenv("MEMCHAT_DB_KEY", KEY["MEMCHAT_DB_KEY"])
    holder = sc.connect(str(encrypted / "default.db"), timeout=1)
    holder.execute(encryption.key_pragma(KEY["MEMCHAT_DB_KEY"]))
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, holding the file
    try:
        with pytest.raises(StoreError) as refused:
            open_db(encrypted / "default.db")
        assert "another memchat is writing" in str(refused.value) and "wrong" not in str(refused.value)
    finally:
        holder.rollback()
        holder.close()
    open_db(encrypted / "default.db").close()  # the same key opens it once the writer is done


def test_encrypt_refuses_while_another_process_has_the_profile_open(memchat_home):
    _plain_profile(memchat_home)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]); "
            "c.execute('SELECT 1 FROM sessions').fetchall(); print('open', flush=True); time.sleep(60)",
            str(memchat_home / "default.db"),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline() == b"open\n"
        result = run_memchat("profile", "encrypt", "--yes", env=KEY)
        assert result.returncode != 0 and "close every memchat" in result.stderr.decode()
        assert (memchat_home / "default.db").read_bytes()[:16] == b"SQLite format 3\x00"
    finally:
        holder.kill()
        holder.wait()


def test_the_repl_of_an_encrypted_profile_keeps_no_input_history(encrypted, memchat_home, monkeypatch):
    from test_repl import spawn

    monkeypatch.setenv("MEMCHAT_DB_KEY", KEY["MEMCHAT_DB_KEY"])
    child = spawn("--provider", "echo")
    child.sendline("my bike lock code is 5521873")
    child.expect_exact("(echo) my bike lock")  # the reply, not the typed line
    child.expect_exact("›")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    time.sleep(0.2)
    assert b"5521873" not in _everything_under(memchat_home)


def test_encryption_without_sqlcipher_says_how_to_get_it(memchat_home):
    code = (
        "import sys; sys.modules['sqlcipher3'] = None\n"
        "from memchat.cli.main import main; sys.argv = ['memchat', 'profile', 'encrypt', '--yes']; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=dict(os.environ, **KEY), cwd=str(ROOT)
    )
    said = result.stderr.decode()
    # a command that works both from PyPI and from a clone (where 'memchat[encrypt]' finds nothing)
    assert result.returncode != 0 and "pip install sqlcipher3 keyring" in said and "-e '.[encrypt]'" in said


def test_the_database_file_is_never_opened_beside_a_live_connection(memchat_home, monkeypatch):
    """Closing any descriptor of a file drops every POSIX lock the process holds on it: reading the
    database's header while a connection holds its locks let another process write under them
    (a two-REPL run corrupted its database that way). The header is read once, before."""
    import builtins

    from memchat.app import Memchat

    path = memchat_home / "default.db"
    open_db(path).conn.close()
    first = open_db(path)
    opened: list[str] = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(os.path.abspath(str(file)) if isinstance(file, (str, os.PathLike)) else "")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    with first.conn:
        first.conn.execute("CREATE TABLE IF NOT EXISTS probe (x)")  # a write: this connection holds the lock
        open_db(path).conn.close()  # another thread's own connection, as the REPL's warm-up makes
        assert Memchat.load().encrypted is False
    assert os.path.abspath(path) not in opened


def _big_plain_profile(home, messages: int) -> None:
    """A plain profile with many messages, so that a conversion takes a while."""
    from memchat import sessions as sess
    from memchat.db import open_db

    db = open_db(home / "default.db")
    sid = sess.create_session(db).id
    rows = [
        (
            sid,
            "user",
            f"note {i}: the quick brown fox jumps over the lazy dog " * 4,
            "2026-01-01T00:00:00.000000Z",
            "ok",
        )
        for i in range(messages)
    ]
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content, created_at, status) VALUES (?, ?, ?, ?, ?)", rows
    )
    db.conn.commit()
    db.close()


def test_a_writer_racing_an_encryption_never_loses_an_acknowledged_write(memchat_home):
    """Processes that start while `profile encrypt` runs wait for it (or say the profile is being
    converted): every memory a writer was told it stored is in the encrypted profile."""
    _big_plain_profile(memchat_home, 20_000)
    env = dict(os.environ, **KEY)
    converter = subprocess.Popen(
        [sys.executable, "-m", "memchat", "profile", "encrypt", "--yes"],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # the race: writers that start after the conversion has checked that no one else has the file
    converting = memchat_home / "default.db.converting"
    while not converting.exists() and converter.poll() is None:
        time.sleep(0.01)
    acknowledged, refused = [], []
    deadline = time.monotonic() + 60
    i = 0
    while converter.poll() is None and time.monotonic() < deadline or i < 3:
        text = f"Racing fact number {i} is {9000000 + i}"
        done = run_memchat("memories", "add", text, env=KEY)
        if done.returncode == 0:
            acknowledged.append(text)
        else:
            said = done.stderr.decode()
            assert "damaged" not in said and "Traceback" not in said, said
            assert said.count("\n") == 1, said
            refused.append(said)
        i += 1
    _, err = converter.communicate(timeout=60)
    assert converter.returncode == 0, err
    assert (memchat_home / "default.db").read_bytes()[:16] != b"SQLite format 3\x00"  # encrypted
    stored = run_memchat("memories", "list", "--json", env=KEY).stdout.decode()
    assert acknowledged and all(text in stored for text in acknowledged)
    assert not (memchat_home / "default.db.converting-journal").exists()


def test_an_encrypt_that_lost_a_race_to_another_keeps_the_winners_key(memchat_home, keyring, monkeypatch):
    # Two `profile encrypt` at once: the one that finds the profile converted by the other when it
    # gets it alone must neither replace nor, failing, delete the key the file is now encrypted with
    # (that lost the whole profile). The loser is played in this process with the stale view it had
    # when it looked, before the winner's swap.
    from memchat import encryption
    from memchat.app import Memchat
    from memchat.errors import UsageError

    _plain_profile(memchat_home)
    won = run_memchat("profile", "encrypt", "--yes")
    assert won.returncode == 0, won.stderr
    stored = json.loads(keyring.read_text())
    assert len(stored) == 1
    app = Memchat.load(provider="echo")
    app.store.find()  # opened with the winner's key, from the keyring
    looked = encryption.is_encrypted
    views = iter([False])  # what it saw when it looked, before the swap; the file itself from then on
    monkeypatch.setattr(encryption, "is_encrypted", lambda path: next(views, looked(path)))
    try:
        with pytest.raises(UsageError, match="already encrypted"):
            app.privacy.encrypt()
    finally:
        app.close()
    monkeypatch.setattr(encryption, "is_encrypted", looked)
    assert json.loads(keyring.read_text()) == stored
    recalled = run_memchat("recall", "passport")
    assert recalled.returncode == 0 and b"ZX9123456" in recalled.stdout, recalled.stderr
