"""Shell completion that keeps memchat's order: ids come most recent first, and the shells are told
not to re-sort them (bash `-o nosort`, fish `--keep-order`). zsh keeps its own sorted menu.

typer's completion scripts are templates in `typer._completion_shared` (for --install-completion and
--show-completion) and on its completion classes (for `_MEMCHAT_COMPLETE=source_*`); `install`
adjusts both, and leaves them as they are if typer's internals move (tests/test_help.py says so).
"""

from __future__ import annotations

import os
from types import ModuleType

_classes: ModuleType | None
_shared: ModuleType | None
try:  # typer's own modules: loaded by `import typer` already, so this costs nothing at start-up
    from typer import _completion_classes as _classes
    from typer import _completion_shared as _shared
except ImportError:  # moved in a newer typer: the scripts stay as typer writes them
    _classes = _shared = None

# Bash before 4.4 (macOS's 3.2) has no `nosort`: the plain registration then still completes.
_BASH = "complete -o default -F {func} {prog}"
_BASH_KEEPING_ORDER = "complete -o default -o nosort -F {func} {prog} 2>/dev/null || " + _BASH
_FISH = "complete --command %(prog_name)s --no-files"
_FISH_KEEPING_ORDER = "complete --command %(prog_name)s --no-files --keep-order"


def install() -> bool:
    """Patch typer's bash and fish scripts to keep the order completions come in."""
    classes, shared = _classes, _shared
    if classes is None or shared is None:
        return False
    bash = shared.COMPLETION_SCRIPT_BASH
    plain = _BASH.format(func="%(complete_func)s", prog="%(prog_name)s")
    if plain not in bash or _FISH not in shared.COMPLETION_SCRIPT_FISH:
        return False
    keeping = bash.replace(plain, _BASH_KEEPING_ORDER.format(func="%(complete_func)s", prog="%(prog_name)s"))
    fish = shared.COMPLETION_SCRIPT_FISH.replace(_FISH, _FISH_KEEPING_ORDER)
    shared._completion_scripts["bash"] = classes.BashComplete.source_template = keeping
    shared._completion_scripts["fish"] = classes.FishComplete.source_template = fish
    return True


def labelled(pairs: list[tuple[str, str]]) -> list[tuple[str, str]] | list[str]:
    """Ids with their titles for the shell asking. zsh and fish show a description beside each
    value; bash shows only values, so with several matches each value is 'ID -- title' (bash then
    inserts only what they share: the id's first digits), and a single match is the bare id."""
    if os.environ.get("_MEMCHAT_COMPLETE") != "complete_bash":
        return pairs
    if len(pairs) == 1:
        return [pairs[0][0]]
    return [f"{value} -- {' '.join(title.split())}" if title else value for value, title in pairs]
