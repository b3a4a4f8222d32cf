"""The architecture holds: layers import only downwards, no import cycle, every module says why it exists.

Layers, top first: shells (memchat.cli, memchat.repl, memchat.mcp) > memchat.ui (terminal
output, used by the shells) and memchat.app (the use cases) > the core (everything else),
which never prints and knows no terminal library. Imports are read from the source, lazy
ones inside functions included; imports under `if TYPE_CHECKING:` are for types only and
never run, so they are not dependencies.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memchat"
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


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def _imports(name: str, *, types_too: bool = False) -> set[str]:
    """Every module `name` imports at run time (with `types_too`, under TYPE_CHECKING as well):
    memchat modules resolved, others by top package."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    skip = set() if types_too else _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for target in targets:
            if target.startswith("memchat"):
                while target not in MODULES:
                    target = target.rpartition(".")[0]
                if target != name:
                    found.add(target)
            else:
                found.add(target.split(".")[0])
    return found


GRAPH = {name: _imports(name) for name in MODULES}
WITH_TYPES = {name: _imports(name, types_too=True) for name in MODULES}


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
        return ("memchat.db", "memchat.engine", "sqlite3", "sqlite_utils")
    if _in(name, "memchat.repl"):
        return ("memchat.cli", "memchat.mcp", "memchat.db", "memchat.engine", "sqlite3", "sqlite_utils")
    if _in(name, "memchat.mcp"):
        return (
            "memchat.cli",
            "memchat.repl",
            "memchat.ui",
            "memchat.db",
            "memchat.engine",
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


def test_every_module_says_why_it_exists():
    # Size is held by ruff's complexity rules (C901, PLR0912, PLR0915 in pyproject.toml), per
    # function, not by a line count per file.
    silent = sorted(name for name, path in MODULES.items() if not ast.get_docstring(ast.parse(path.read_text())))
    assert silent == [], f"modules without a docstring: {silent}"


def test_the_checker_sees_lazy_imports_and_ignores_type_only_ones():
    # cli.main imports its command modules at the top; the REPL's loop imports prompt_toolkit inside a
    # function; app.profile names the engine only for types.
    assert "memchat.cli.ask" in GRAPH["memchat.cli.main"]
    assert "prompt_toolkit" in GRAPH["memchat.repl.loop"]
    assert "memchat.engine" in GRAPH["memchat.app.profile"]  # at run time, inside a property
    assert "sqlite_utils" not in GRAPH["memchat.app.profile"]
    # The REPL's protocol names the application only for types: a type-only edge, counted for cycles.
    assert "memchat.app" in WITH_TYPES["memchat.repl.state"]
    assert "memchat.app" not in GRAPH["memchat.repl.state"]
