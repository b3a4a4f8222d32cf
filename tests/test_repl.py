"""The real REPL in a pseudo-terminal (pexpect), talking to the local Messages-API server."""

import os
import signal
import subprocess
import sys

import pexpect
from conftest import ROOT, db_rows

PROMPT = "›"  # the renderer splits "› " with escape codes: match the glyph


def spawn(*args, rows=30, cols=100):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env["TERM"] = "xterm-256color"
    child = pexpect.spawn(
        sys.executable,
        ["-m", "memchat", *args],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=15,
        dimensions=(rows, cols),
    )
    child.expect_exact(PROMPT)
    return child


def quit_(child):
    # Keys typed while a reply streams go to the terminal in cooked mode, where Ctrl-D is
    # not a character: wait for the prompt (raw mode) before sending it, unless the last thing
    # the test waited for was that prompt.
    if child.after != PROMPT:
        child.expect_exact(PROMPT)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_message_streams_reply_and_ctrl_d_exits_zero(api, memchat_home):
    api.enqueue_text("Hello from the **fake** Claude.", input_tokens=11, output_tokens=7)
    child = spawn()
    child.sendline("hi there")
    child.expect("Hello from the")
    child.expect("11 in · 7 out")
    assert quit_(child) == 0
    assert api.requests[-1]["messages"] == [{"role": "user", "content": "hi there"}]
    assert db_rows(memchat_home) == [("user", "hi there", "ok"), ("assistant", "Hello from the **fake** Claude.", "ok")]


def test_alt_enter_makes_one_multi_line_message(api):
    child = spawn()
    child.send("first line")
    child.send("\x1b\r")  # Alt-Enter arrives as Esc, Enter
    child.send("second line\r")
    child.expect("echo: first line")
    quit_(child)
    assert api.requests[-1]["messages"][-1]["content"] == "first line\nsecond line"


def test_bracketed_paste_stays_one_message(api):
    child = spawn()
    child.send("\x1b[200~pasted one\npasted two\x1b[201~")
    child.send("\r")
    child.expect("echo: pasted one")
    quit_(child)
    assert len(api.requests) == 1
    assert api.requests[0]["messages"][-1]["content"] == "pasted one\npasted two"


def test_slash_command_completion_and_title(api, memchat_home):
    child = spawn()
    child.sendline("start")
    child.expect_exact(PROMPT)
    child.send("/tit")
    child.expect_exact("Rename this session.")  # the menu, while typing
    child.send("\t")
    child.expect(r"7m\s*/title")  # completion runs in a thread: typing on waits until it is selected
    child.send(" Webhook bug\r")
    child.expect("session 1: Webhook bug")
    child.sendline("/help")
    child.expect("/retry")
    child.sendline("/nonsense")
    child.expect("unknown command /nonsense")
    child.sendline("still alive?")
    child.expect("echo: still alive")
    quit_(child)
    assert db_rows(memchat_home, "SELECT title FROM sessions") == [("Webhook bug",)]


def test_resume_completion_offers_session_ids(api):
    child = spawn()
    child.sendline("make a session")
    child.expect("echo: make a session")
    child.expect_exact(PROMPT)
    child.send("/resume ")
    child.send("\t")
    child.expect(r"7m 1\s")  # the completion, selected (reverse video) once it has landed
    child.send("\r")
    child.expect("resumed session 1")
    quit_(child)


def test_ctrl_c_mid_stream_keeps_partial_reply_and_returns_to_prompt(api, memchat_home):
    api.enqueue_text("alpha beta gamma delta epsilon zeta eta theta iota kappa", delay=0.25)
    child = spawn()
    child.sendline("count in greek")
    child.expect("beta")
    child.sendintr()
    child.expect("interrupted")
    child.expect_exact(PROMPT)
    child.sendline("next")
    child.expect("echo: next")
    quit_(child)
    stored = db_rows(memchat_home)
    assert stored[0] == ("user", "count in greek", "ok")
    assert stored[1][2] == "interrupted" and stored[1][1].startswith("alpha beta")
    assert "kappa" not in stored[1][1]
    # The partial reply is part of the conversation the model sees next.
    assert api.requests[-1]["messages"][1]["content"] == stored[1][1]


def test_ctrl_c_mid_reply_shows_the_partial_reply_once(api, memchat_home):
    """The terminal used to echo "^C" past the live region's padded last column: the line wrapped
    and the partial reply stayed on screen twice. Keys are not echoed while a reply streams."""
    api.enqueue_text("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu", delay=0.2)
    child = spawn(cols=100)
    child.sendline("count in greek")
    child.expect("gamma")
    child.sendintr()
    child.expect("interrupted")
    shown = child.before
    assert "^C" not in shown
    child.expect_exact(PROMPT)
    quit_(child)


def test_ctrl_c_leaves_a_history_search(api):
    child = spawn()
    child.sendline("hello one")
    child.expect("echo: hello one")
    child.expect_exact(PROMPT)
    child.sendcontrol("r")
    child.send("hel")
    child.expect("reverse-i-search")
    child.sendcontrol("c")
    child.send("two\r")
    child.expect("echo: two")  # the search was left: the new line is sent, not the found one
    quit_(child)
    assert api.requests[-1]["messages"][-1]["content"] == "two"


def test_ctrl_c_at_the_prompt_clears_the_line(api):
    child = spawn()
    child.send("half typed")
    child.sendcontrol("c")
    child.send("fresh\r")
    child.expect("echo: fresh")
    quit_(child)
    assert api.requests[-1]["messages"][-1]["content"] == "fresh"


def test_continue_restores_the_stack_and_shows_recent_turns(api, memchat_home):
    child = spawn()
    child.sendline("my name is Ada")
    child.expect("echo: my name is Ada")
    quit_(child)
    child = spawn("--continue")
    assert "my name is Ada" in child.before
    child.sendline("what is my name?")
    child.expect("echo: what is my name")
    quit_(child)
    assert api.requests[-1]["messages"] == [
        {"role": "user", "content": "my name is Ada"},
        {"role": "assistant", "content": "echo: my name is Ada"},
        {"role": "user", "content": "what is my name?"},
    ]


def test_api_error_keeps_the_repl_alive_and_retry_resends(api, memchat_home):
    api.enqueue_error(401, "invalid x-api-key")
    child = spawn()
    child.sendline("first try")
    child.expect("rejected the key")
    child.expect_exact(PROMPT)
    child.sendline("/retry")
    child.expect("echo: first try")
    quit_(child)
    assert db_rows(memchat_home) == [("user", "first try", "ok"), ("assistant", "echo: first try", "ok")]


def test_undo_drops_the_last_exchange_from_what_is_sent(api, memchat_home):
    child = spawn()
    child.sendline("keep this")
    child.expect_exact(PROMPT)
    child.sendline("regret this")
    child.expect("echo: regret this")
    child.expect_exact(PROMPT)
    child.sendline("/undo")
    child.expect("undone")
    child.sendline("after undo")
    child.expect("echo: after undo")
    quit_(child)
    assert [m["content"] for m in api.requests[-1]["messages"]] == ["keep this", "echo: keep this", "after undo"]
    assert ("user", "regret this", "undone") in db_rows(memchat_home)


def test_exit_command_and_narrow_no_color_terminal(api, monkeypatch):
    env = dict(os.environ, NO_COLOR="1", TERM="xterm-256color")
    child = pexpect.spawn(
        sys.executable, ["-m", "memchat"], env=env, cwd=str(ROOT), encoding="utf-8", timeout=15, dimensions=(12, 30)
    )
    child.expect_exact(PROMPT)
    child.sendline("a fairly long message that wraps on a narrow terminal")
    child.expect("wraps")
    child.expect_exact(PROMPT)
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "\x1b[31m" not in child.before  # NO_COLOR: no red/colour codes in the reply


def test_piped_stdin_reads_messages_line_by_line_and_prints_plain(api, memchat_home):
    proc = subprocess.run(
        [sys.executable, "-m", "memchat"],
        input=b"first\n/title Piped\nsecond\n",
        capture_output=True,
        cwd=str(ROOT),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == "echo: first\nsession 1: Piped\necho: second\n"
    assert [r[1] for r in db_rows(memchat_home)] == ["first", "echo: first", "second", "echo: second"]


def test_a_piped_chat_exits_1_when_any_message_failed(api, memchat_home, monkeypatch):
    def chat(lines: bytes, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "memchat"],
            input=lines,
            capture_output=True,
            cwd=str(ROOT),
            timeout=60,
            env={**os.environ, **env},
        )

    assert chat(b"fine\n").returncode == 0
    stored = len(db_rows(memchat_home))
    no_key = chat(b"hi\nthere\n", ANTHROPIC_API_KEY="")
    assert no_key.returncode == 1
    err = no_key.stderr.decode()
    assert "export ANTHROPIC_API_KEY=sk-ant-..." in err  # the hint, not "[redacted key]"
    assert err.count("\n") == 1 and "preparing" not in err  # said once, before any work
    assert len(db_rows(memchat_home)) == stored  # nothing half-done stored
    api.enqueue_error(500, "boom")
    failed_call = chat(b"first\nsecond\n", MEMCHAT_MAX_RETRIES="0")
    assert failed_call.returncode == 1, failed_call.stderr
    assert failed_call.stdout.decode().endswith("echo: second\n")  # the chat went on after the failure
    assert chat(b"/nosuchcommand\n").returncode == 1


def test_launch_to_prompt_does_not_wait_for_heavy_imports(api):
    # The prompt must come up before the SDK is imported (it warms in the background).
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1", TERM="xterm-256color")
    child = pexpect.spawn(
        sys.executable,
        ["-X", "importtime", "-m", "memchat"],
        env=env,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=15,
        dimensions=(30, 100),
    )
    child.expect_exact(PROMPT)
    before_prompt = child.before
    quit_(child)
    imported = {line.rsplit("|", 1)[-1].strip() for line in before_prompt.splitlines() if "import time:" in line}
    assert "prompt_toolkit" in imported
    assert not {"anthropic", "torch", "sentence_transformers"} & imported


def test_an_unwritable_state_directory_costs_the_input_history_not_the_chat(tmp_path, monkeypatch):
    """XDG_STATE_HOME that cannot be written (here a file where a directory should be): the chat
    says once that its input history lasts this chat only, and works."""
    blocked = tmp_path / "state"
    blocked.write_text("not a directory")
    monkeypatch.delenv("MEMCHAT_HOME")
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    child = spawn("--provider", "echo")
    assert "kept for this chat only" in child.before
    child.sendline("still here?")
    child.expect_exact("(echo) still here?")
    quit_(child)
    assert child.exitstatus == 0
    assert blocked.read_text() == "not a directory"


def test_escape_sequences_typed_raw_are_dropped_not_a_crash(api):
    """ESC [ 0 m typed or sent raw looks to prompt_toolkit like a mouse report it cannot parse: it is
    dropped, the rest of the line is kept, and the chat goes on (it used to end in "Unhandled
    exception in event loop" with the rest of the line lost)."""
    child = spawn("--provider", "echo")
    child.send("abc \x1b[0m def \x1b[31m ghi")
    child.sendline("")
    child.expect_exact("(echo) abc")
    child.expect_exact(PROMPT)
    shown = child.before
    assert "Unhandled exception" not in shown and "def" in shown and "ghi" in shown, shown
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_sigterm_ends_the_chat_keeping_the_partial_reply(api, memchat_home):
    """A `kill` mid-reply: the partial reply is kept (marked interrupted), the chat ends, exit 143."""
    api.enqueue_text("alpha beta gamma delta epsilon zeta eta theta", delay=0.3)
    child = spawn()
    child.sendline("count in greek")
    child.expect_exact("beta")
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 143
    rows = db_rows(memchat_home)
    assert rows[0] == ("user", "count in greek", "ok")
    assert rows[1][2] == "interrupted" and rows[1][1].startswith("alpha beta")
    idle = spawn("--provider", "echo")  # at the prompt: it ends too
    idle.kill(signal.SIGTERM)
    idle.expect(pexpect.EOF)
    idle.close()
    assert idle.exitstatus == 143


def test_a_slow_first_token_says_the_reply_is_awaited(api, memchat_home):
    """No blank screen while the model (or a retry) is slow: a line counts the seconds, and the
    reply replaces it."""
    api.enqueue_text("here it is", chunks=["here it is"], delay=2.2)
    child = spawn()
    child.sendline("take your time")
    child.expect_exact("waiting for the reply")
    child.expect_exact("(Ctrl-C stops)")
    child.expect_exact("here it is")
    quit_(child)


def test_sigterm_while_any_command_waits_exits_143(memchat_home):
    """Not only a reply: a command waiting on a question ends with the signal's code too."""
    assert (
        subprocess.run(
            [sys.executable, "-m", "memchat", "memories", "add", "The spare key is in the blue pot"], cwd=str(ROOT)
        ).returncode
        == 0
    )
    child = pexpect.spawn(
        sys.executable, ["-m", "memchat", "memories", "forget", "1"], cwd=str(ROOT), encoding="utf-8", timeout=15
    )
    child.expect_exact("for good? [y/N]")
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 143
    assert db_rows(memchat_home, "SELECT status FROM memories") == [("active",)]  # nothing was forgotten


def test_the_echo_provider_shows_no_tokens_it_never_had(memchat_home):
    child = spawn("--provider", "echo")
    child.sendline("hello there")
    child.expect_exact("(echo) hello there")
    child.expect(r"\r\n([^\r\n]*\d\.\d s)")
    assert " in · " not in child.match.group(1) and "$" not in child.match.group(1)
    assert quit_(child) == 0
