"""README's `--help` excerpts are what memchat prints now (tests/bench/readme_figures.py --check)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

FIGURES = ROOT / "tests" / "bench" / "readme_figures.py"


def figures(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(FIGURES), *args], capture_output=True, text=True, timeout=120)


def test_readme_help_excerpts_are_current():
    done = figures("--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_stale_excerpt_is_found_and_rewritten_in_place(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(
        "# before\n\n<!-- figures: help key show -->\n```\nold text\n```\n<!-- /figures -->\n\n"
        "| a table | no marker |\n\n<!-- figures: startup --runs 1 -->\n| kept | as is |\n<!-- /figures -->\nafter\n"
    )
    stale = figures("--check", "--readme", str(readme))
    assert stale.returncode == 1
    assert "-old text" in stale.stdout and "out of date: help key show" in stale.stderr
    assert "old text" in readme.read_text()  # --check changes nothing

    assert figures("--readme", str(readme)).returncode == 0  # no names: the cheap blocks only
    text = readme.read_text()
    assert "$ memchat key show --help\nUsage: memchat key show [OPTIONS] [PROVIDER]" in text
    assert "old text" not in text
    assert text.startswith("# before\n") and text.endswith("<!-- /figures -->\nafter\n")
    assert "| kept | as is |" in text  # a benchmark is re-run only when named
    assert figures("--check", "--readme", str(readme)).returncode == 0


def test_an_unknown_block_name_is_one_line_and_exit_1(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- figures: help -->\n<!-- /figures -->\n")
    done = figures("nosuch", "--readme", str(readme))
    assert done.returncode == 1
    assert done.stderr.strip() == "readme_figures: README has no block named nosuch (--list shows them)"
