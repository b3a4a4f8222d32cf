"""Tab that helps: session ids with their titles, most recent first, in the REPL (/resume) and in
bash, zsh and fish (`sessions show`, every `--session`), through typer's completion protocol."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import ROOT, run_memchat
from test_repl import PROMPT, quit_, spawn

# Created in this order; then session 1 is used again, so the most recent first is 1, 3, 2.
TITLES = {1: "Trip to Oslo", 2: "Webhook bug", 3: "Why is the sky blue"}
RECENT_FIRST = [1, 3, 2]


@pytest.fixture
def three_sessions(memchat_home):
    for title in TITLES.values():
        assert run_memchat("--provider", "echo", "ask", title).returncode == 0
    assert run_memchat("--provider", "echo", "ask", "--session", "1", "and the ferry?").returncode == 0
    return memchat_home


def _complete(shell: str, line: str) -> str:
    words = line.split(" ")
    env = {
        "bash": {"_MEMCHAT_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(len(words) - 1)},
        "zsh": {"_MEMCHAT_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": line},
        "fish": {
            "_MEMCHAT_COMPLETE": "complete_fish",
            "_TYPER_COMPLETE_ARGS": line,
            "_TYPER_COMPLETE_FISH_ACTION": "get-args",
        },
    }[shell]
    result = run_memchat(env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


EXPECTED = {
    "zsh": [f'"{i}":"{TITLES[i]}' for i in RECENT_FIRST],
    "fish": [f"{i}\t{TITLES[i]}" for i in RECENT_FIRST],
    "bash": [f"{i} -- {TITLES[i]}" for i in RECENT_FIRST],
}
LINES = [
    "memchat sessions show ",
    "memchat sessions export ",
    "memchat --session ",
    "memchat -s ",
    "memchat chat --session ",
    "memchat ask --session ",
    "memchat ask -s ",
    "memchat usage --session ",
    "memchat recall x --session ",
    "memchat context -s ",
    "memchat memories capture --session ",
]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_session_argument_completes_ids_with_titles_most_recent_first(three_sessions, shell):
    for line in LINES:
        out = _complete(shell, line)
        at = [out.find(entry) for entry in EXPECTED[shell]]
        assert all(i >= 0 for i in at) and at == sorted(at), (line, out)


def test_bash_inserts_a_lone_match_as_the_bare_id(three_sessions):
    assert _complete("bash", "memchat sessions show 2").split("\n")[0] == "2"
    assert _complete("bash", "memchat ask --session 3").split("\n")[0] == "3"


def test_the_bash_script_keeps_the_order_in_a_real_bash(three_sessions, tmp_path):
    """The completion script (as `_MEMCHAT_COMPLETE=source_bash` prints it), run by bash itself: COMPREPLY in memchat's order,
    registered with nosort (bash before 4.4 falls back to the plain registration)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "memchat"
    wrapper.write_text(f'#!/bin/sh\nexec "{os.sys.executable}" -m memchat "$@"\n')
    wrapper.chmod(0o755)
    script = (
        'eval "$(_MEMCHAT_COMPLETE=source_bash memchat)"; COMP_WORDS=(memchat sessions show ""); COMP_CWORD=3; '
        '_memchat_completion memchat; printf "%s\\n" "${COMPREPLY[@]}"; complete -p memchat'
    )
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "SHELL": "/bin/bash"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == EXPECTED["bash"]
    assert lines[3] == "complete -o default -o nosort -F _memchat_completion memchat"


def test_the_fish_script_keeps_the_order(memchat_home):
    script = run_memchat(env={"_MEMCHAT_COMPLETE": "source_fish"}).stdout.decode()
    assert script.startswith("complete --command memchat --no-files --keep-order ")


def _ready(child, last_title: str) -> None:
    """Wait until the REPL has answered a command: keys typed before it reads the terminal in raw
    mode can be lost."""
    child.sendline("/sessions")
    child.expect_exact(last_title)
    child.expect_exact(PROMPT)


def test_repl_resume_tab_lists_ids_with_titles_most_recent_first(api, three_sessions):
    child = spawn(cols=120)
    _ready(child, TITLES[2])
    child.send("/resume ")
    child.expect_exact(TITLES[2])  # the last of the menu, shown as the line is typed
    menu = child.before
    at = [menu.find(TITLES[i]) for i in RECENT_FIRST[:2]]
    assert all(i >= 0 for i in at) and at == sorted(at), menu
    # Tab once the menu is there (a Tab that lands before it only opens it, unselected): the first
    # entry is selected and drawn again, highlighted.
    child.send("\t")
    child.expect_exact(TITLES[RECENT_FIRST[0]])
    child.send("\r")
    child.expect("resumed session 1")  # the first entry, selected by Tab: the most recent
    quit_(child)


def test_repl_completion_titles_are_sanitized(api, memchat_home):
    assert run_memchat("--provider", "echo", "ask", "evil \x1b]0;pwned\x07 title").returncode == 0
    child = spawn()
    _ready(child, "title")
    child.send("/resume ")
    child.expect_exact("title")  # the menu, shown as the line is typed
    assert "\x1b]0;pwned" not in child.before and "\x07" not in child.before
    child.send("\t")  # once the menu is there: it selects the entry and draws it again
    child.expect_exact("title")
    assert "\x1b]0;pwned" not in child.before and "\x07" not in child.before
    child.send("\r")
    child.expect("resumed session 1")
    quit_(child)


def test_install_completion_writes_the_scripts_that_keep_the_order(tmp_path):
    """`--install-completion` writes memchat's scripts (order kept) where bash and fish load them."""
    env = {"HOME": str(tmp_path), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}  # name the shell
    for shell in ("bash", "fish"):
        done = run_memchat("--install-completion", shell, env=env)
        assert done.returncode == 0, done.stderr
        assert f"{shell} completion installed in" in done.stdout.decode()
    bash = (tmp_path / ".bash_completions" / "memchat.sh").read_text()
    assert "complete -o default -o nosort -F _memchat_completion memchat" in bash
    assert f"source '{tmp_path / '.bash_completions' / 'memchat.sh'}'" in (tmp_path / ".bashrc").read_text()
    fish = (tmp_path / ".config" / "fish" / "completions" / "memchat.fish").read_text()
    assert fish.startswith("complete --command memchat --no-files --keep-order ")


def test_install_completion_appends_once_to_the_powershell_profile(tmp_path):
    """PowerShell says where its profile is; the script is appended there once, and a second
    install adds nothing. A PowerShell that cannot answer gives one line and exit 1."""
    bin_dir, profile = tmp_path / "bin", tmp_path / "Documents" / "PowerShell" / "profile.ps1"
    bin_dir.mkdir()
    fake = bin_dir / "pwsh"  # answers `pwsh -NoProfile -Command echo $profile` as PowerShell does
    fake.write_text(f'#!/bin/sh\n[ "$1" = "-NoProfile" ] || exit 3\necho "{profile}"\n')
    fake.chmod(0o755)
    env = {
        "HOME": str(tmp_path),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1",
    }
    for _ in range(2):
        done = run_memchat("--install-completion", "pwsh", env=env)
        assert done.returncode == 0, done.stderr
        assert f"pwsh completion installed in {profile}" in done.stdout.decode()
    text = profile.read_text()
    assert text.count("Register-ArgumentCompleter -Native -CommandName memchat") == 1
    assert '$Env:_MEMCHAT_COMPLETE = "complete_powershell"' in text
    fake.write_text("#!/bin/sh\nexit 1\n")
    broken = run_memchat("--install-completion", "pwsh", env=env)
    assert broken.returncode == 1
    assert broken.stderr.decode().strip() == "Could not ask pwsh where its profile is."
