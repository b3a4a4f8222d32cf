"""`--help` reads like a man page for every command: plain words for values, examples that run."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest
from conftest import run_memchat

from memchat.cli import help as cli_help


def _commands():
    import typer.main

    from memchat.cli.main import app

    root = typer.main.get_command(app)
    found = []

    def walk(command, path):
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(root, [])
    return found


COMMANDS = _commands()


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "memchat")
def test_every_command_has_plain_help_with_examples(cli, path):
    result = cli(*path, "--help")  # in-process: the speed of --help is tests/test_speed.py's
    text = result.stdout
    assert result.exit_code == 0, result.stderr
    assert "Examples:" in text and "  memchat" in text.split("Examples:")[1]
    # No Python types, no braces around required arguments, no x>=1 ranges.
    assert not re.search(r"<(?:str|int|float|list|bool)|\{[A-Z]|\[\[|x[<>]=", text), text


def test_every_example_names_a_real_command_and_real_options(cli):
    """An example that names a command or an option that does not exist would teach an error."""
    known = {" ".join(p) for p in COMMANDS}
    for key, examples in cli_help.EXAMPLES.items():
        assert key in known, f"examples for a command that does not exist: {key!r}"
        for line, what in examples:
            assert what.endswith("."), what
            words = shlex.split(line.split("|")[-1].split(" -- ")[-1].strip())  # after a pipe, or a launcher
            while words and "=" in words[0]:
                words = words[1:]  # VAR=value before the command
            assert words[0] == "memchat"
            path = []  # the longest run of leading words that names a command
            for word in words[1:]:
                if " ".join([*path, word]) in known:
                    path.append(word)
                else:
                    break
            help_text = cli(*path, "--help").stdout
            for option in (w for w in words if w.startswith("-") and w != "-"):
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text), (line, option)


def _complete(args: str, shell: str = "zsh") -> str:
    env = {"_MEMCHAT_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": args}
    if shell == "bash":
        env = {"_MEMCHAT_COMPLETE": "complete_bash", "COMP_WORDS": args, "COMP_CWORD": str(len(args.split()) - 1)}
    result = run_memchat(env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


def test_shell_completion_completes_commands_options_and_ids(memchat_home):
    assert "memories" in _complete("memchat mem", "bash")
    assert '"forget"' in _complete("memchat memories f")
    assert "--purge-sources" in _complete("memchat memories forget --p")
    assert run_memchat("memories", "add", "My dentist is Dr. Okafor").returncode == 0
    assert run_memchat("--provider", "echo", "ask", "plan the trip").returncode == 0
    assert '"1":"My dentist is Dr. Okafor"' in _complete("memchat memories show ")
    assert '"1":"plan the trip' in _complete("memchat sessions show ")
    # typer finds the shell from the process tree (not from the argument): run it from bash, as a user does
    script = subprocess.run(
        ["bash", "-c", f"{shlex.quote(sys.executable)} -m memchat --show-completion; exit $?"],
        capture_output=True,
        timeout=60,
    )
    assert script.returncode == 0 and "_MEMCHAT_COMPLETE" in script.stdout.decode(), script.stderr


def test_completion_of_ids_without_a_profile_completes_nothing_quietly(memchat_home):
    assert _complete("memchat memories show ").strip() == "_files"  # nothing of ours: the shell's default
    assert not (memchat_home / "default.db").exists()  # completing never creates a profile


@pytest.mark.parametrize("path", [p for p in COMMANDS if p], ids=" ".join)
def test_a_command_built_alone_behaves_as_in_the_whole_app(cli, path):
    """A process builds only the command it runs (memchat.cli.command.only_the_command): its
    help, and its errors for a missing value, must read as they do with every command built."""
    from typer.testing import CliRunner

    from memchat.cli.command import only_the_command
    from memchat.cli.main import app

    alone = only_the_command(app, ["--profile", "p", *path, "--help"])
    assert alone is not app
    for args in ([*path, "--help"], [*path, "--limit"]):
        whole = cli(*args)
        single = CliRunner().invoke(alone, args, catch_exceptions=False)
        assert (single.exit_code, single.stdout, single.stderr) == (whole.exit_code, whole.stdout, whole.stderr)


@pytest.mark.parametrize(
    "argv, runs",
    [
        (["recall", "x"], "recall"),
        (["-p", "work", "--no-memory", "ask", "hi"], "ask"),
        (["--db=/tmp/x.db", "-c", "memories", "list"], "memories"),
        ([], ""),  # the chat: the root's own callback, no command
        (["--no-memory"], ""),
        (["--help", "recall"], None),  # the root's help lists every command
        (["--version"], None),
        (["recal", "x"], None),  # "No such command 'recal'. Did you mean 'recall'?"
        (["--verbose", "recall"], None),  # not a root option: click's error must see the whole app
    ],
)
def test_only_what_can_run_is_built(argv, runs, monkeypatch):
    from memchat.cli.command import only_the_command
    from memchat.cli.main import app

    built = only_the_command(app, argv)
    if runs is None:
        assert built is app
    else:
        names = [c.name for c in built.registered_commands] + [g.name for g in built.registered_groups]
        assert names == ([runs] if runs else [])
    monkeypatch.setenv("_MEMCHAT_COMPLETE", "complete_bash")  # completion lists every command
    assert only_the_command(app, argv) is app


@pytest.mark.parametrize(
    "argv, says, help_of",
    [
        (["--bogus"], "no such option: --bogus", "memchat"),
        (["recall"], "missing argument 'QUERY'", "memchat recall"),
        (["recal", "x"], "no such command 'recal'. Did you mean 'recall'?", "memchat"),
        (
            ["recall", "--limit", "lots", "tea"],
            "invalid value for '--limit' / '-n': 'lots' is not a whole number",
            "memchat recall",
        ),
        (["--profile"], "option '--profile' requires an argument", "memchat"),
    ],
)
def test_a_mistyped_command_line_is_one_line_that_says_where_help_is(memchat_home, argv, says, help_of):
    result = run_memchat(*argv)
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [f"memchat: {says} (see '{help_of} -h')"], result.stderr
    assert result.stdout == b""


def test_help_and_version_still_exit_cleanly(memchat_home):
    assert run_memchat("--version").stdout.startswith(b"memchat ")
    shown = run_memchat("recall", "-h")
    assert shown.returncode == 0 and shown.stdout.startswith(b"Usage: memchat recall")
