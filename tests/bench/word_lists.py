#!/usr/bin/env python3
"""The precision of memchat's word lists on labelled examples (tests/word_lists.py).

python tests/bench/word_lists.py [--markdown]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent))

import word_lists  # tests/word_lists.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    parser.parse_args()
    print(word_lists.table(word_lists.measures()))


if __name__ == "__main__":
    main()
