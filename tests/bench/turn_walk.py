#!/usr/bin/env python3
"""Count the walk: what one REPL line and one `memchat recall` cross on their way.

    python tests/bench/turn_walk.py            # this checkout
    PYTHONPATH=/other/checkout python tests/bench/turn_walk.py   # another one, to compare

In one process, on a fresh profile with the offline echo provider and memory on (a few memories
and an earlier session, so there is something to search, and the encoder loaded first, as the
REPL's warm-up leaves it), it runs one REPL line through `Repl.handle` and one `memchat recall`
through the Typer app, and counts:

- modules crossed: memchat modules with a function called (sys.setprofile);
- calls between modules: calls from a function of one memchat module into another (a
  generator's resumption counts as a call, as sys.setprofile reports it), and how many of them
  the application layer made (memchat.app, and memchat.engine where it still exists);
- SQL statements: run on any connection (sqlite3's trace callback; a trigger's own statements
  are not counted);
- write transactions: BEGIN IMMEDIATE statements.

Prints a Markdown table. Counts, not times: the same on any machine.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


@dataclass
class Walk:
    modules: set[str] = field(default_factory=set)
    calls: int = 0
    own_calls: int = 0  # of them, made by the application layer (the turn, the services, the profile)
    statements: int = 0
    writes: int = 0
    edges: dict[str, int] = field(default_factory=dict)  # "caller -> callee.function": how often
    sql: list[str] = field(default_factory=list)


class Counter:
    """Counts while `walk` is set; every connection opened in this process reports to it."""

    def __init__(self) -> None:
        self.walk: Walk | None = None
        self.last = ""
        connect = sqlite3.connect

        def traced(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn = connect(*args, **kwargs)
            conn.set_trace_callback(self.statement)
            return conn

        sqlite3.connect = traced  # type: ignore[assignment]  # open_db looks it up on the module at call time

    def statement(self, sql: str) -> None:
        # A trigger's statements report their parent statement again: counted once.
        if self.walk is not None and not sql.lstrip().startswith("--") and sql != self.last:
            self.walk.statements += 1
            self.walk.sql.append(" ".join(sql.split())[:100])
            self.walk.writes += sql.lstrip().upper().startswith("BEGIN IMMEDIATE")
        self.last = sql

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or self.walk is None:
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith("memchat"):
            return
        self.walk.modules.add(callee)
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller.startswith("memchat") and caller != callee:
            self.walk.calls += 1
            self.walk.own_calls += caller.startswith(("memchat.app", "memchat.engine"))
            edge = f"{caller} -> {callee}.{frame.f_code.co_name}"
            self.walk.edges[edge] = self.walk.edges.get(edge, 0) + 1

    @contextlib.contextmanager
    def counting(self) -> Any:
        self.walk = Walk()
        sys.setprofile(self.profile)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                yield self.walk
        finally:
            sys.setprofile(None)
            self.walk_done, self.walk = self.walk, None


def _services(app: Any) -> tuple[Any, Any]:
    """(chat, memories): the services, or the one object that was both before them."""
    return (app.chat, app.memories) if hasattr(app, "chat") else (app, app)


def main() -> None:
    home = tempfile.mkdtemp(prefix="memchat-walk-")
    os.environ.update(MEMCHAT_HOME=home, MEMCHAT_PROVIDER="echo", MEMCHAT_MEMORY_CAPTURE="false")
    counter = Counter()

    import memchat
    from memchat.app import Memchat
    from memchat.repl.loop import Repl

    app = Memchat.load()
    chat, memories = _services(app)
    for text in ("My dentist is Dr Ruiz on Fridays", "I prefer email to phone calls", "rule: answer briefly"):
        memories.remember(text)
    earlier = chat.start_session()
    chat.send(earlier, "We are planning a trip to Lisbon in June.")
    app.embedder()  # loaded, as the REPL's warm-up leaves it
    repl = Repl(app, interactive=False)
    with contextlib.redirect_stdout(io.StringIO()):
        repl.handle("When is my dentist appointment?")  # the session exists: the next line is a steady one

    with counter.counting() as turn:
        repl.handle("And how should you contact me about the Lisbon trip?")
    app.close()

    from typer.testing import CliRunner

    from memchat.cli import common
    from memchat.cli.main import app as cli

    with counter.counting() as recall:
        result = CliRunner().invoke(cli, ["recall", "dentist appointment"], catch_exceptions=False)
        while common.OPEN:
            common.OPEN.pop().close()
    assert result.exit_code == 0, result.output

    print(f"code: {Path(memchat.__file__).parent.parent}\n")
    print("| walk | modules crossed | calls between modules (by the app layer) | SQL statements | write transactions |")
    print("|---|---:|---:|---:|---:|")
    for name, walk in (("one REPL line", turn), ("`memchat recall`", recall)):
        print(f"| {name} | {len(walk.modules)} | {walk.calls} ({walk.own_calls}) | {walk.statements} | {walk.writes} |")
    if "--detail" in sys.argv:  # where the calls and statements come from
        for name, walk in (("one REPL line", turn), ("memchat recall", recall)):
            print(f"\n{name}: {', '.join(sorted(walk.modules))}")
            for edge, n in sorted(walk.edges.items(), key=lambda e: -e[1]):
                print(f"  {n:4}  {edge}")
            print(*(f"  sql: {q}" for q in walk.sql), sep="\n")


if __name__ == "__main__":
    main()
