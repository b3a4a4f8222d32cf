"""Test tiers: every test is `unit`, `cli`, `torch`, `process` or `terminal`, and the suite says what
each tier cost.

- unit: in this process, no CLI, no child process, no terminal.
- cli: the Typer app in this process (the `cli` fixture, CliRunner).
- torch: loads sentence-transformers, so torch and transformers: 15-40 s of imports before its first
  line runs (the default encoder is ONNX and never needs them; non-default models and the fallback do).
- process: starts a real memchat (or python) process.
- terminal: drives a real pseudo-terminal (pexpect).

A test's tier is its explicit marker if it has one, else read from what it uses: the fixtures it asks
for and the code it runs (its own source, and the helpers and fixtures it calls, followed a few
levels): pexpect means terminal; subprocess, `run_memchat` or `sys.executable` mean process; naming
sentence-transformers or torch means torch; the `cli` fixture means cli; anything else is unit. The
rule reads source, so it can be wrong: a guard makes a unit or cli test fail the moment it starts a
process, or when it loaded torch, and an explicit marker then puts it right.

At the end the suite prints, per tier, how many tests ran and their summed duration; the durations
travel in each report's user_properties, so this works under pytest-xdist too (`-n 2`).
"""

from __future__ import annotations

import functools
import inspect
import io
import os
import platform
import subprocess
import sys
import textwrap
import time
import tokenize
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

TIERS = ("unit", "cli", "torch", "process", "terminal")
FAST = ("unit", "cli")
# Names in a test's code (or the code it calls: not its strings or comments) that put it in a slower tier.
_TERMINAL = {"pexpect", "tmux"}
_PROCESS = {"subprocess", "Popen", "run_memchat", "executable", "fork", "multiprocessing"}
_TORCH = {"torch", "transformers", "sentence_transformers", "load_sentence_transformer", "SentenceTransformerEmbedder"}
# What the guard watches for in a fast tier (a name, so tests/test_tiers.py can watch a module of its own).
HEAVY_MODULES = ["torch"]
_DEPTH = 4  # helpers calling helpers: deep enough for this suite, cheap to read


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(TierTimes(), "memchat-tier-times")
    # The anthropic and openai SDKs send the platform in their headers, and the stdlib asks
    # `uname -p` for it once per process: ask now, so which test pays it never depends on order.
    platform.platform()


# --- which tier ---------------------------------------------------------------------------------


@functools.cache
def _names(obj: Any) -> frozenset[str]:
    """The identifiers in the code of `obj` (strings and comments left out)."""
    try:
        text = textwrap.dedent(inspect.getsource(obj))
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return frozenset(tok.string for tok in tokens if tok.type == tokenize.NAME)
    except (OSError, TypeError, SyntaxError, tokenize.TokenError):
        return frozenset()


def _tier_of_code(funcs: list[Callable[..., Any]]) -> str | None:
    """The slowest tier the code of `funcs` reaches."""
    tiers = {_tier_of_one(f) for f in funcs}
    return next((tier for tier in reversed(TIERS) if tier in tiers), None)


@functools.cache
def _tier_of_one(func: Callable[..., Any]) -> str | None:
    """The slowest tier the code of `func` reaches, following the functions and classes it names
    in its module (test helpers, imported helpers) a few levels deep. Cached: every test shares
    the autouse fixtures, and a module's tests share its helpers."""
    seen: set[int] = set()
    found: str | None = None
    todo = [(func, 0)]
    while todo:
        obj, depth = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        names = _names(obj)
        if names & _TERMINAL:
            return "terminal"
        if names & _PROCESS:
            found = "process"
        elif names & _TORCH and found is None:
            found = "torch"
        if depth >= _DEPTH:
            continue
        namespace = getattr(inspect.getmodule(obj), "__dict__", {})
        for name in names:
            target = namespace.get(name)
            if (inspect.isfunction(target) or inspect.isclass(target)) and _is_test_code(target):
                todo.append((target, depth + 1))
    return found


def _is_test_code(obj: Any) -> bool:
    """Only the suite's own code is read: memchat's code starting a process is what the guard is for."""
    module = inspect.getmodule(obj)
    path = getattr(module, "__file__", "") or ""
    if module is not None and module.__name__ == __name__:
        return False  # the guard's own fixture
    return os.sep + "tests" + os.sep in path or os.path.basename(path).startswith(("test_", "conftest"))


def tier_of(item: pytest.Item) -> str:
    for tier in TIERS:
        if item.get_closest_marker(tier) is not None:
            return tier
    info = getattr(item, "_fixtureinfo", None)
    fixtures = [d.func for defs in (info.name2fixturedefs.values() if info else []) for d in defs]
    fixtures = [f for f in fixtures if _is_test_code(f)]  # pytest's own (tmp_path, ...) start nothing
    test = getattr(item, "obj", None)
    found = _tier_of_code([test, *fixtures] if test is not None else fixtures)
    if found:
        return found
    return "cli" if "cli" in getattr(item, "fixturenames", ()) else "unit"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if item.get_closest_marker(tier) is None:
            item.add_marker(tier)
        item.user_properties.append(("tier", tier))


# --- the guard: a fast-tier test never starts a process ----------------------------------------


class ProcessInFastTier(BaseException):
    """A BaseException: code that catches Exception (a forgiving REPL, a capture worker) must not hide it."""


_SPAWNERS = [(subprocess.Popen, "_execute_child")] + [
    (os, name) for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system") if hasattr(os, name)
]


_STARTED = pytest.StashKey[list[str]]()
_LOADED_BEFORE = pytest.StashKey[set[str]]()


@pytest.fixture(autouse=True)
def _no_process_in_fast_tiers(request: pytest.FixtureRequest) -> Iterator[None]:
    tier = next((t for t in TIERS if request.node.get_closest_marker(t) is not None), "unit")
    if tier not in FAST:
        yield
        return
    started = request.node.stash.setdefault(_STARTED, [])
    request.node.stash[_LOADED_BEFORE] = {name for name in HEAVY_MODULES if name in sys.modules}

    def refuse(what: str) -> Callable[..., Any]:
        def spawn(*args: Any, **kwargs: Any) -> Any:
            started.append(what)
            raise ProcessInFastTier(_refusal(tier, what))

        return spawn

    mp = pytest.MonkeyPatch()
    for owner, name in _SPAWNERS:
        mp.setattr(owner, name, refuse("subprocess" if owner is subprocess.Popen else f"os.{name}"))
    try:
        yield
    finally:
        mp.undo()


def _refusal(tier: str, what: str) -> str:
    return (
        f"a {tier}-tier test started a process ({what}); mark it @pytest.mark.process "
        "(or terminal), or keep it in this process"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test whose code caught the refusal (a forgiving REPL, a capture worker) still fails."""
    report = yield
    if call.when != "call" or not report.passed or _LOADED_BEFORE not in item.stash:
        return report  # not a fast-tier test (the guard's fixture stashes only for those)
    tier = next((t for t in TIERS if item.get_closest_marker(t) is not None), "unit")
    started = item.stash.get(_STARTED, [])
    loaded = [name for name in HEAVY_MODULES if name in sys.modules and name not in item.stash[_LOADED_BEFORE]]
    if started:
        report.outcome, report.longrepr = "failed", _refusal(tier, ", ".join(started))
    elif loaded:
        # Seen only when nothing before it in this worker loaded it: a fast-tier run never does.
        report.outcome = "failed"
        report.longrepr = f"a {tier}-tier test loaded {', '.join(loaded)}; mark it @pytest.mark.torch"
    return report


# --- tier times ---------------------------------------------------------------------------------


class TierTimes:
    """Counts and summed durations per tier, from the test reports: on the controller under xdist
    (the reports arrive from the workers, tier in user_properties), in the process otherwise. One
    per pytest run, so an inner run (pytester) keeps its own."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tier = str(dict(report.user_properties).get("tier", ""))
        if not tier:
            return
        times = self.times.setdefault(tier, [0, 0.0])
        times[1] += report.duration
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            times[0] += 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.times:
            return
        terminalreporter.section("tier times (summed test durations)")
        rows = [(tier, self.times[tier][0], self.times[tier][1]) for tier in TIERS if tier in self.times]
        rows.append(("all", sum(r[1] for r in rows), sum(r[2] for r in rows)))
        for tier, count, seconds in rows:
            terminalreporter.write_line(f"{tier:<9} {int(count):>4} tests {seconds:>8.1f} s")
        terminalreporter.write_line(f"wall clock {time.monotonic() - self.started:.1f} s")
