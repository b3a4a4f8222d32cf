"""The REPL: most of it in this process (keys typed through prompt_toolkit's pipe input, the
`typed_chat` fixture), and what only a real terminal shows (streaming, Ctrl-C mid-reply, signals, a
narrow screen, start-up) in a pseudo-terminal with pexpect. All against the local Messages-API server."""

import os
import signal
import subprocess
import sys

import pexpect
from conftest import ROOT, db_rows
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

PROMPT = "›"  # the renderer splits "› " with escape codes: match the glyph


# --- in this process: the prompt, its keys, slash commands, output -------------------------------


def test_alt_enter_makes_one_multi_line_message(api, typed_chat):
    run = typed_chat("first line\x1b\rsecond line\r")  # Alt-Enter arrives as Esc, Enter
    assert "echo: first line" in run.out
    assert api.requests[-1]["messages"][-1]["content"] == "first line\nsecond line"


def test_bracketed_paste_stays_one_message(api, typed_chat):
    typed_chat("\x1b[200~pasted one\npasted two\x1b[201~\r")
    assert len(api.requests) == 1
    assert api.requests[0]["messages"][-1]["content"] == "pasted one\npasted two"


def completions(text: str, *, sessions: list | None = None) -> list[tuple[str, str]]:
    """What the REPL's completer offers for `text` typed at the prompt (as pgcli tests its completer)."""
    from memchat.app import Memchat
    from memchat.repl.completer import SlashCompleter
    from memchat.repl.loop import Repl

    app = Memchat.load(None)
    try:
        found = SlashCompleter(Repl(app, interactive=True)).get_completions(Document(text), CompleteEvent())
        return [(c.text, c.display_meta_text) for c in found]
    finally:
        app.close()


def test_slash_command_completion_and_title(api, typed_chat, memchat_home):
    assert ("/title", "Rename this session.") in completions("/tit")  # the menu, while typing
    run = typed_chat("start\r/title Webhook bug\r/help\r/nonsense\rstill alive?\r")
    assert "session 1: Webhook bug" in run.out
    assert "/retry" in run.out
    assert "unknown command /nonsense" in run.err
    assert "echo: still alive" in run.out
    assert db_rows(memchat_home, "SELECT title FROM sessions") == [("Webhook bug",)]


def test_resume_completion_offers_session_ids(api, typed_chat):
    typed_chat("make a session\r")
    assert [text for text, _ in completions("/resume ")] == ["1"]
    run = typed_chat("/resume 1\r")
    assert "resumed session 1" in run.out


def test_ctrl_c_leaves_a_history_search(api, typed_chat):
    typed_chat("hello one\r\x12hel\x03two\r")  # Ctrl-R searches, Ctrl-C leaves the search
    # The search was left: the new line is sent, not the found one.
    assert api.requests[-1]["messages"][-1]["content"] == "two"


def test_ctrl_c_at_the_prompt_clears_the_line(api, typed_chat):
    run = typed_chat("half typed\x03fresh\r")
    assert "echo: fresh" in run.out
    assert api.requests[-1]["messages"][-1]["content"] == "fresh"


def test_continue_restores_the_stack_and_shows_recent_turns(api, typed_chat):
    typed_chat("my name is Ada\r")
    run = typed_chat("what is my name?\r", continue_=True)
    assert "my name is Ada" in run.out.split("echo: what is my name")[0]  # shown before the new turn
    assert api.requests[-1]["messages"] == [
        {"role": "user", "content": "my name is Ada"},
        {"role": "assistant", "content": "echo: my name is Ada"},
        {"role": "user", "content": "what is my name?"},
    ]


def test_api_error_keeps_the_repl_alive_and_retry_resends(api, typed_chat, memchat_home):
    api.enqueue_error(401, "invalid x-api-key")
    run = typed_chat("first try\r/retry\r")
    assert "rejected the key" in run.err
    assert "echo: first try" in run.out
    assert run.code == 0
    assert db_rows(memchat_home) == [("user", "first try", "ok"), ("assistant", "echo: first try", "ok")]


def test_undo_drops_the_last_exchange_from_what_is_sent(api, typed_chat, memchat_home):
    run = typed_chat("keep this\rregret this\r/undo\rafter undo\r")
    assert "undone" in run.out
    assert [m["content"] for m in api.requests[-1]["messages"]] == ["keep this", "echo: keep this", "after undo"]
    assert ("user", "regret this", "undone") in db_rows(memchat_home)


def test_the_echo_provider_shows_no_tokens_it_never_had(typed_chat):
    run = typed_chat("hello there\r", provider="echo")
    after = run.out.split("(echo) hello there\n", 1)[1]
    status = after.splitlines()[0]
    assert status.endswith(" s") and " in · " not in status and "$" not in status


def test_an_unwritable_state_directory_costs_the_input_history_not_the_chat(tmp_path, monkeypatch, typed_chat):
    """XDG_STATE_HOME that cannot be written (here a file where a directory should be): the chat
    says once that its input history lasts this chat only, and works."""
    blocked = tmp_path / "state"
    blocked.write_text("not a directory")
    monkeypatch.delenv("MEMCHAT_HOME")
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    run = typed_chat("still here?\r", provider="echo")
    assert run.err.count("kept for this chat only") == 1
    assert "(echo) still here?" in run.out
    assert run.code == 0
    assert blocked.read_text() == "not a directory"


def test_a_key_pasted_at_the_prompt_reaches_neither_the_input_history_nor_the_database(typed_chat, memchat_home):
    key = "sk-ant-api03-CANARYq7Zx9LmN0pQrStUvWxYz1234567890abcdefGHIJ-AAAA"
    run = typed_chat(f"my key is {key}\r", provider="echo")
    assert run.code == 0 and "replaced with [redacted key]" in run.out + run.err
    assert "CANARY" not in run.out  # the echo of what was sent
    for path in memchat_home.rglob("*"):
        if path.is_file():
            assert b"CANARY" not in path.read_bytes(), path  # the input history file included
    assert any("history" in p.name for p in memchat_home.rglob("*"))  # there is one to look in


# --- piped: one message per line (the CLI in this process) ---------------------------------------


def test_piped_stdin_reads_messages_line_by_line_and_prints_plain(api, cli, memchat_home):
    result = cli(input="first\n/title Piped\nsecond\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "echo: first\nsession 1: Piped\necho: second\n"
    assert [r[1] for r in db_rows(memchat_home)] == ["first", "echo: first", "second", "echo: second"]


def test_a_piped_chat_exits_1_when_any_message_failed(api, cli, memchat_home, monkeypatch):
    assert cli(input="fine\n").exit_code == 0
    stored = len(db_rows(memchat_home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "")
    no_key = cli(input="hi\nthere\n")
    assert no_key.exit_code == 1
    assert "export ANTHROPIC_API_KEY=sk-ant-..." in no_key.stderr  # the hint, not "[redacted key]"
    assert no_key.stderr.count("\n") == 1 and "preparing" not in no_key.stderr  # said once, before any work
    assert len(db_rows(memchat_home)) == stored  # nothing half-done stored
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000")
    monkeypatch.setenv("MEMCHAT_MAX_RETRIES", "0")
    api.enqueue_error(500, "boom")
    failed_call = cli(input="first\nsecond\n")
    assert failed_call.exit_code == 1, failed_call.stderr
    assert failed_call.stdout.endswith("echo: second\n")  # the chat went on after the failure
    assert cli(input="/nosuchcommand\n").exit_code == 1


# --- in a real terminal: streaming, Ctrl-C mid-reply, signals, a narrow screen, start-up ---------


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


def exit_status(child):
    """The child's exit code once it has ended. pexpect's close() alone hangs up on a child that is
    still exiting 0.1 s after closing its terminal (seen under a loaded suite), which read as
    death by SIGHUP (exitstatus None) where the code was 143."""
    child.expect(pexpect.EOF)
    child.wait()
    child.close()
    return child.exitstatus


def quit_(child):
    # Keys typed while a reply streams go to the terminal in cooked mode, where Ctrl-D is
    # not a character: wait for the prompt (raw mode) before sending it, unless the last thing
    # the test waited for was that prompt.
    if child.after != PROMPT:
        child.expect_exact(PROMPT)
    child.sendcontrol("d")
    return exit_status(child)


def test_message_streams_reply_and_ctrl_d_exits_zero(api, memchat_home):
    api.enqueue_text("Hello from the **fake** Claude.", input_tokens=11, output_tokens=7)
    child = spawn()
    child.sendline("hi there")
    child.expect("Hello from the")
    child.expect("11 in · 7 out")
    assert quit_(child) == 0
    assert api.requests[-1]["messages"] == [{"role": "user", "content": "hi there"}]
    assert db_rows(memchat_home) == [("user", "hi there", "ok"), ("assistant", "Hello from the **fake** Claude.", "ok")]


def test_a_session_deleted_in_another_terminal_leaves_the_chat_in_a_new_one(api, memchat_home):
    """Every message after `sessions delete` in another terminal had failed on a foreign key, and
    /retry with it: the next message now starts a new session and says so."""
    child = spawn("--provider", "echo")
    child.sendline("first words")
    child.expect_exact("(echo) first words")
    child.expect_exact(PROMPT)
    deleted = subprocess.run(
        [sys.executable, "-m", "memchat", "sessions", "delete", "1", "--yes"], cwd=str(ROOT), capture_output=True
    )
    assert deleted.returncode == 0, deleted.stderr
    child.sendline("second words")
    child.expect_exact("was deleted elsewhere")
    child.expect_exact("(echo) second words")
    assert quit_(child) == 0
    assert db_rows(memchat_home, "SELECT session_id, content FROM messages WHERE role = 'user'") == [
        (2, "second words")
    ]


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


def test_sigterm_ends_the_chat_keeping_the_partial_reply(api, memchat_home):
    """A `kill` mid-reply: the partial reply is kept (marked interrupted), the chat ends, exit 143."""
    api.enqueue_text("alpha beta gamma delta epsilon zeta eta theta", delay=0.3)
    child = spawn()
    child.sendline("count in greek")
    child.expect_exact("beta")
    child.kill(signal.SIGTERM)
    assert exit_status(child) == 143
    rows = db_rows(memchat_home)
    assert rows[0] == ("user", "count in greek", "ok")
    assert rows[1][2] == "interrupted" and rows[1][1].startswith("alpha beta")
    idle = spawn("--provider", "echo")  # at the prompt: it ends too
    idle.kill(signal.SIGTERM)
    assert exit_status(idle) == 143


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
    assert exit_status(child) == 143
    assert db_rows(memchat_home, "SELECT status FROM memories") == [("active",)]  # nothing was forgotten


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
