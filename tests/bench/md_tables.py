"""`--markdown` for the benchmarks: only their Markdown tables on stdout, everything else on stderr.

A benchmark prints its tables among progress lines and notes; `tables_only(True)` at the start
of its main() leaves stdout to the tables (lines that start with `|`, one blank line between two
tables), which is what `readme_figures.py` puts into README.md.
"""

from __future__ import annotations

import sys
from typing import TextIO


class _TablesOnly:
    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.pending = ""
        self.tables = 0
        self.in_table = False

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self._line(line)
        return len(text)

    def _line(self, line: str) -> None:
        if line.startswith("|"):
            if not self.in_table and self.tables:
                self.out.write("\n")  # one blank line between two tables
            self.tables += not self.in_table
            self.in_table = True
            self.out.write(line + "\n")
        else:
            self.in_table = False
            self.err.write(line + "\n")

    def flush(self) -> None:
        self.out.flush()
        self.err.flush()

    def isatty(self) -> bool:
        return False


def tables_only(enabled: bool) -> None:
    """From now on, when `enabled`, stdout carries only Markdown tables."""
    if enabled:
        sys.stdout = _TablesOnly(sys.stdout, sys.stderr)  # type: ignore[assignment]
