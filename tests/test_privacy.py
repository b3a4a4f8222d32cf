"""Privacy: the API key is never written anywhere; profiles never see each other's memories."""

import json
import os

from conftest import run_memchat

from memchat.db import open_db
from memchat.memory.store.memories import MemoryStore

KEY = "sk-ant-CANARY-7f3b9e1d"


def every_file(root):
    for dirpath, _, names in os.walk(root):
        for name in names:
            yield os.path.join(dirpath, name)


def test_the_api_key_never_reaches_disk_output_or_errors(api, memchat_home, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    outputs = []
    outputs.append(run_memchat("ask", "remember that my locker code is 4411"))
    api.enqueue_error(401, "invalid x-api-key")
    outputs.append(run_memchat("ask", "-c", "and again"))
    outputs.append(run_memchat("config"))
    outputs.append(run_memchat("config", "--json"))
    outputs.append(run_memchat("doctor", "--quick"))
    outputs.append(run_memchat("sessions", "export", "1", "--format", "json", "-o", str(tmp_path / "s.json")))
    outputs.append(run_memchat("memories", "export", "-o", str(tmp_path / "m.json")))
    outputs.append(run_memchat("--provider", "echo", input=f"hello\n/export json {tmp_path / 'repl.json'}\n"))
    for result in outputs:
        assert KEY.encode() not in result.stdout + result.stderr
    for path in [*every_file(memchat_home), *every_file(tmp_path)]:
        with open(path, "rb") as fh:
            assert KEY.encode() not in fh.read(), path


def test_profiles_never_see_each_others_memories(api, memchat_home):
    for profile, secret in (("work", "The user's badge number is W-5521."), ("home", "The user's bike lock is 0931.")):
        MemoryStore(open_db(memchat_home / f"{profile}.db")).add(secret, kind="fact", origin="stated")
    for profile, mine, theirs in (("work", "W-5521", "0931"), ("home", "0931", "W-5521")):
        recalled = run_memchat("--profile", profile, "recall", "badge number bike lock", "--json").stdout.decode()
        assert mine in recalled and theirs not in recalled
        listed = run_memchat("--profile", profile, "memories", "list", "--json").stdout.decode()
        assert mine in listed and theirs not in listed
        result = run_memchat("--profile", profile, "ask", "what are my badge number and bike lock code?")
        assert result.returncode == 0
        system = api.requests[-1]["system"]
        assert mine in system and theirs not in system
    assert json.loads(run_memchat("--profile", "home", "config", "--json").stdout)["database"].endswith("home.db")


def test_forget_all_leaves_no_trace_in_rows_indexes_vectors_or_summaries(memchat_home, embedder):
    from memchat import sessions

    db = open_db(memchat_home / "default.db")
    store = MemoryStore(db)
    s = sessions.create_session(db)
    sessions.update_session(db, s.id, summary="- The user keeps bees in Wrexham Glebe. Next: ask about honey.")
    store.add("User keeps bees at Wrexham Glebe allotment", key="user.hobby")
    store.add("Prefers answers in Welsh", kind="rule")
    store.add(
        "Session 1 (2026-11-29): the user described their Wrexham Glebe beehives.",
        kind="event",
        key=f"session.{s.id}.summary",
        origin="inferred",
    )
    db.conn.close()
    assert run_memchat("recall", "beehives").returncode == 0  # vectors (and their on-disk copy) now exist
    result = run_memchat("memories", "forget", "--all", "--yes")
    assert result.returncode == 0 and b"forgot 3 memories" in result.stdout
    assert b"redacted 1 sentence of session summaries" in result.stderr
    files = [p for p in every_file(memchat_home) if "default.db" in p]
    assert files and not any(".vectors" in p for p in files)  # the vector copy went with them
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        for needle in (b"Wrexham", b"wrexham", b"Welsh", b"welsh", b"beehive", b"keeps bees"):
            assert needle not in data, (needle, path)
    listed = json.loads(run_memchat("memories", "list", "--status", "all", "--json").stdout)
    assert [(m["status"], m["text"]) for m in listed] == [("forgotten", "")] * 3
    summary = json.loads(run_memchat("sessions", "show", "1", "--json").stdout)["session"]["summary"]
    assert summary == "- [forgotten] Next: ask about honey."
