"""Shell completion that keeps memchat's order: ids come most recent first, and the shells are told
not to re-sort them (bash `-o nosort`, fish `--keep-order`). zsh keeps its own sorted menu.

The completions themselves are typer's (`_MEMCHAT_COMPLETE=complete_bash memchat ...`); the
scripts that ask for them are memchat's, below, and reach the user three ways: `--show-completion`
and `--install-completion` (their callbacks are `show` and `install`, given to typer's two options
by `command.Group`), and `_MEMCHAT_COMPLETE=source_bash memchat` (`command.Group.main`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import typer

_BASH = """
%(func)s() {
    local IFS=$'\n'
    COMPREPLY=( $( env COMP_WORDS="${COMP_WORDS[*]}" \\
                   COMP_CWORD=$COMP_CWORD \\
                   %(var)s=complete_bash $1 ) )
    return 0
}

complete -o default -o nosort -F %(func)s %(prog)s 2>/dev/null || complete -o default -F %(func)s %(prog)s
"""  # bash before 4.4 (macOS's 3.2) has no `nosort`: the plain registration then still completes

_ZSH = """
#compdef %(prog)s

%(func)s() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" %(var)s=complete_zsh %(prog)s)
}

compdef %(func)s %(prog)s
"""

_FISH = (
    "complete --command %(prog)s --no-files --keep-order --arguments "
    '"(env %(var)s=complete_fish _TYPER_COMPLETE_FISH_ACTION=get-args _TYPER_COMPLETE_ARGS=(commandline -cp) '
    '%(prog)s)" --condition "env %(var)s=complete_fish _TYPER_COMPLETE_FISH_ACTION=is-args '
    '_TYPER_COMPLETE_ARGS=(commandline -cp) %(prog)s"'
)

_POWERSHELL = """
Import-Module PSReadLine
Set-PSReadLineKeyHandler -Chord Tab -Function MenuComplete
$scriptblock = {
    param($wordToComplete, $commandAst, $cursorPosition)
    $Env:%(var)s = "complete_powershell"
    $Env:_TYPER_COMPLETE_ARGS = $commandAst.ToString()
    $Env:_TYPER_COMPLETE_WORD_TO_COMPLETE = $wordToComplete
    %(prog)s | ForEach-Object {
        $commandArray = $_ -Split ":::"
        $command = $commandArray[0]
        $helpString = $commandArray[1]
        [System.Management.Automation.CompletionResult]::new(
            $command, $command, 'ParameterValue', $helpString)
    }
    $Env:%(var)s = ""
    $Env:_TYPER_COMPLETE_ARGS = ""
    $Env:_TYPER_COMPLETE_WORD_TO_COMPLETE = ""
}
Register-ArgumentCompleter -Native -CommandName %(prog)s -ScriptBlock $scriptblock
"""

SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH, "powershell": _POWERSHELL, "pwsh": _POWERSHELL}


def script(shell: str, prog: str = "memchat") -> str:
    """The completion script for `shell`; exit 1 with a message for a shell memchat has none for."""
    if shell not in SCRIPTS:
        typer.echo(f"Shell {shell} not supported.", err=True)
        raise typer.Exit(1)
    func = "_" + "".join(c for c in prog.replace("-", "_") if c.isalnum() or c == "_") + "_completion"
    return (SCRIPTS[shell] % {"func": func, "prog": prog, "var": complete_var(prog)}).strip()


def complete_var(prog: str) -> str:
    return "_{}_COMPLETE".format(prog.replace("-", "_").upper())


def show(ctx: Any, param: Any, value: Any) -> Any:
    """--show-completion: print the script for the shell memchat runs in (or the one named)."""
    if not value or ctx.resilient_parsing:
        return value
    typer.echo(script(_shell(value), ctx.find_root().info_name or "memchat"))
    raise typer.Exit()


def install(ctx: Any, param: Any, value: Any) -> Any:
    """--install-completion: write the script where the shell loads it from, as typer would."""
    if not value or ctx.resilient_parsing:
        return value
    shell, prog = _shell(value), ctx.find_root().info_name or "memchat"
    writers = {"bash": _install_bash, "zsh": _install_zsh, "fish": _install_fish}
    if shell not in writers and shell not in ("powershell", "pwsh"):
        typer.echo(f"Shell {shell} is not supported.")
        raise typer.Exit(1)
    text = script(shell, prog)
    path = _install_powershell(shell, text) if shell not in writers else writers[shell](prog, text)
    typer.secho(f"{shell} completion installed in {path}", fg="green")
    typer.echo("Completion will take effect once you restart the terminal")
    raise typer.Exit()


def source_requested(prog: str) -> str | None:
    """The shell of `_MEMCHAT_COMPLETE=source_<shell>`: the shell asks for the script itself."""
    instruction = os.environ.get(complete_var(prog), "")
    action, _, shell = instruction.partition("_")
    return shell if action == "source" and shell in SCRIPTS else None


def _shell(value: Any) -> str:
    if isinstance(value, str):  # typer's test mode names the shell instead of detecting it
        return value
    import shellingham  # type: ignore[import-untyped]  # typer's dependency, and its way of finding the shell

    try:
        return str(shellingham.detect_shell()[0])
    except shellingham.ShellDetectionFailure:
        return os.path.basename(os.environ.get("SHELL", "")) or sys.platform


def _install_bash(prog: str, text: str) -> Path:
    path = Path.home() / ".bash_completions" / f"{prog}.sh"
    _add_line(Path.home() / ".bashrc", f"source '{path}'")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _install_zsh(prog: str, text: str) -> Path:
    rc = Path.home() / ".zshrc"
    _add_line(rc, "fpath+=~/.zfunc; autoload -Uz compinit; compinit")
    if "zstyle" not in rc.read_text():  # the user's own menu style stays
        _add_line(rc, "zstyle ':completion:*' menu select")
    path = Path.home() / ".zfunc" / f"_{prog}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _install_fish(prog: str, text: str) -> Path:
    path = Path.home() / ".config" / "fish" / "completions" / f"{prog}.fish"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{text}\n")
    return path


def _install_powershell(shell: str, text: str) -> Path:
    """Append the script to the user's PowerShell profile, whose path only PowerShell knows. Unlike
    typer, memchat leaves the execution policy alone: changing it is the user's call, and the
    default (RemoteSigned) already runs a local profile."""
    try:
        asked = subprocess.run([shell, "-NoProfile", "-Command", "echo", "$profile"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        typer.echo(f"Could not ask {shell} where its profile is.", err=True)
        raise typer.Exit(1) from None
    path = Path(asked.stdout.decode("utf-8", "replace").strip())
    path.parent.mkdir(parents=True, exist_ok=True)
    content = path.read_text() if path.is_file() else ""
    if text not in content:  # installing twice adds nothing
        with path.open("a") as profile:
            profile.write(f"{text}\n")
    return path


def _add_line(rc: Path, line: str) -> None:
    """Append `line` to a shell's start-up file unless it is already there."""
    rc.parent.mkdir(parents=True, exist_ok=True)
    content = rc.read_text() if rc.is_file() else ""
    if line not in content:
        rc.write_text(f"{content.rstrip(chr(10))}\n{line}\n" if content else f"{line}\n")


def labelled(pairs: list[tuple[str, str]]) -> list[tuple[str, str]] | list[str]:
    """Ids with their titles for the shell asking. zsh and fish show a description beside each
    value; bash shows only values, so with several matches each value is 'ID -- title' (bash then
    inserts only what they share: the id's first digits), and a single match is the bare id."""
    if os.environ.get("_MEMCHAT_COMPLETE") != "complete_bash":
        return pairs
    if len(pairs) == 1:
        return [pairs[0][0]]
    return [f"{value} -- {' '.join(title.split())}" if title else value for value, title in pairs]
