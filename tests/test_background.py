"""Background work never dies silently: the detached worker cannot be shadowed by the working
directory, and when capture last ran, what waits and the last failure are there to see."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import db_rows, run_memchat, wait_for_detached, wait_until
from test_consent import PARROT, Model


def memchat_from(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """memchat as the user runs it (the installed command, which never imports from the working
    directory), started in `cwd`."""
    full = {**os.environ, **(env or {})}
    script = Path(sys.executable).parent / "memchat"
    command = [str(script)] if script.exists() else [sys.executable, "-P", "-m", "memchat"]
    return subprocess.run(
        [*command, *args], cwd=str(cwd), env=full, capture_output=True, stdin=subprocess.DEVNULL, timeout=60
    )


def log_file() -> Path:
    from memchat.config import state_dir

    return state_dir() / "memchat.log"


def clone_beside(tmp_path: Path) -> Path:
    """A working directory holding a folder named memchat (a clone, seen from its parent)."""
    cwd = tmp_path / "projects"
    (cwd / "memchat").mkdir(parents=True)
    (cwd / "memchat" / "__init__.py").write_text("")
    return cwd


def test_a_memchat_folder_in_the_working_directory_does_not_stop_background_capture(
    api, memchat_home, tmp_path, monkeypatch
):
    model = Model()
    api.set_default(model)
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    cwd = clone_beside(tmp_path)
    result = memchat_from(cwd, "ask", PARROT)
    assert result.returncode == 0, result.stderr
    assert wait_until(lambda: db_rows(memchat_home, "SELECT 1 FROM memories WHERE kind = 'fact'"))
    wait_for_detached(memchat_home)
    assert model.extractions == 1
    assert db_rows(memchat_home, "SELECT text FROM memories WHERE kind = 'fact'") == [
        ("The user has a parrot called Kiwi.",)
    ]
    doctor = memchat_from(cwd, "doctor", "--quick").stdout.decode()
    line = next(x for x in doctor.splitlines() if "capture" in x and "last ran" in x)
    assert "0 sessions wait" in line and "error" not in line


def test_a_worker_that_fails_says_why_in_the_log_and_doctor_shows_it(api, memchat_home, tmp_path, monkeypatch):
    api.set_default(Model(fail_extraction=True))
    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    result = memchat_from(tmp_path, "ask", PARROT)
    assert result.returncode == 0, result.stderr
    wait_for_detached(memchat_home)
    log = log_file()
    assert wait_until(lambda: log.exists() and "background capture failed" in log.read_text())
    failures = [x for x in log.read_text().splitlines() if "background capture failed" in x]
    assert len(failures) == 1 and "500" in failures[0]
    assert PARROT not in log.read_text()  # the log never holds what was said
    doctor = memchat_from(tmp_path, "doctor", "--quick").stdout.decode()
    line = next(x for x in doctor.splitlines() if "capture" in x and "last error" in x)
    assert "1 session waits to be read" in line and "500" in line
    status = memchat_from(tmp_path, "consent").stdout.decode()
    assert "last error" in status and "1 session waits" in status


def _spawned_worker_logs(memchat_home, db, what: str) -> list[str]:
    from memchat.memory.capture.background import spawn_detached

    spawn_detached(db, ["memories", "capture", "--background"], what=what)
    log = log_file()
    assert wait_until(lambda: log.exists() and f"background {what} failed" in log.read_text())
    wait_for_detached(memchat_home)
    return [x for x in log.read_text().splitlines() if f"background {what} failed" in x]


@pytest.mark.process  # memchat starts the capture worker as a process
def test_a_worker_that_cannot_import_memchat_writes_one_line_to_the_log(memchat_home, tmp_path, monkeypatch):
    broken = tmp_path / "site" / "memchat"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a broken install')\n")
    monkeypatch.setenv("PYTHONPATH", str(broken.parent))  # still honoured by the worker: it wins here
    lines = _spawned_worker_logs(memchat_home, memchat_home / "default.db", "capture")
    assert len(lines) == 1 and "ImportError: a broken install" in lines[0]
    assert f"({memchat_home / 'default.db'})" in lines[0]


@pytest.mark.process  # memchat starts the capture worker as a process
@pytest.mark.parametrize("key", ["", "sk-ant-test-0000"], ids=["no-key", "no-database"])
def test_a_worker_that_fails_before_capturing_writes_one_line_to_the_log(memchat_home, tmp_path, monkeypatch, key):
    if key:
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    folder = tmp_path / "not-a-database"
    folder.mkdir()
    lines = _spawned_worker_logs(memchat_home, folder, "capture")
    said = "directory" if key else "no Anthropic API key"
    assert len(lines) == 1 and said in lines[0]
    from memchat.log import last_worker_failure

    failure = last_worker_failure(folder)
    assert failure is not None and failure.what == "capture" and said in failure.reason
    assert last_worker_failure(memchat_home / "default.db") is None  # another profile's failure is not ours


def test_a_worker_ended_by_sigterm_says_so_in_the_log(api, memchat_home, monkeypatch):
    """Background work never dies silently: a `kill` of the worker mid-extraction is one line."""
    import signal

    # the extraction call waits: the worker is killed in the middle of it
    worker = _worker_waiting_on_its_model(api, memchat_home, monkeypatch, ["--session", "1"])
    try:
        assert wait_until(lambda: len(api.requests) >= 1, timeout=30)
        time.sleep(0.3)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 143
    finally:
        worker.kill()
        worker.wait()
    lines = [x for x in log_file().read_text().splitlines() if "background capture failed" in x]
    assert len(lines) == 1 and lines[0].endswith("ended by SIGTERM")


@pytest.mark.process  # a worker is a process of its own
def test_a_worker_a_running_chat_started_is_reaped_when_it_ends(memchat_home):
    """A chat goes on after starting a worker: the finished worker leaves no <defunct> process behind."""
    from memchat.memory.capture.background import spawn_detached

    def zombies() -> list[str]:
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == os.getpid():
                found.append(stat.parent.name)
        return found

    spawn_detached(memchat_home / "default.db", ["--version"], what="version")
    time.sleep(1.0)
    assert wait_until(lambda: not zombies(), timeout=20), zombies()


def test_consent_no_stops_a_capture_worker_waiting_on_its_model(api, memchat_home, monkeypatch):
    """A worker whose model does not answer retried for minutes after `consent no` (and held the
    profile against `profile encrypt` as long): saying no now ends it. A chat's own capture thread
    is never touched (only a detached `--background` worker)."""
    worker = _worker_waiting_on_its_model(api, memchat_home, monkeypatch, ["--background", "--session", "1"])
    try:
        assert wait_until(lambda: len(api.requests) >= 1, timeout=30)
        started = time.monotonic()
        assert run_memchat("consent", "no").returncode == 0
        assert worker.wait(timeout=30) == 143 and time.monotonic() - started < 15
    finally:
        worker.kill()
        worker.wait()
    assert db_rows(memchat_home, "SELECT count(*) FROM memories") == [(0,)]


def _worker_waiting_on_its_model(api, memchat_home, monkeypatch, flags: list[str]) -> subprocess.Popen:
    """A capture worker (`memories capture FLAGS`) of one exchange, whose extraction call waits."""
    from memchat import sessions
    from memchat.db import open_db
    from memchat.memory.capture.background import worker_command

    monkeypatch.setenv("MEMCHAT_MEMORY_CAPTURE", "true")
    db = open_db(memchat_home / "default.db")
    said = sessions.create_session(db)
    sessions.add_message(db, said.id, "user", PARROT)
    sessions.add_message(db, said.id, "assistant", "Kiwi is a lovely name.")
    db.close()
    api.enqueue_hang(60)
    return subprocess.Popen(
        worker_command(memchat_home / "default.db", ["memories", "capture", *flags], what="capture"),
        env=dict(os.environ),
        start_new_session=True,
    )
