"""The tiers themselves (tests/tiers.py): each test gets the tier its code says, a fast-tier test that
starts a process fails, and the run ends with the time of each tier. Driven through an inner pytest
run in this process (pytester), with the tiers plugin loaded as the suite loads it."""

import pytest

pytest_plugins = ["pytester"]

INNER_CONFTEST = """
import sys
sys.path.insert(0, {tests!r})
sys.path.insert(0, {here!r})
pytest_plugins = ["tiers"]


def pytest_configure(config):
    import tiers

    if "heavy_stand_in" not in tiers.HEAVY_MODULES:  # torch itself would take 15 s to load
        tiers.HEAVY_MODULES.append("heavy_stand_in")
"""

INNER_TESTS = """
import subprocess
import sys

import pytest


def run_python():
    return subprocess.run([sys.executable, "-c", "pass"]).returncode


@pytest.fixture
def cli():
    return "an in-process CLI"


def test_pure():
    assert 1 + 1 == 2


def test_in_process_cli(cli):
    assert cli


def test_through_a_helper():
    assert run_python() == 0


def test_on_a_terminal():
    import pexpect  # noqa: F401


def test_with_the_torch_encoder():
    from memchat.memory.recall.models import load_sentence_transformer

    assert load_sentence_transformer


def test_loads_a_heavy_module_unseen():
    import heavy_stand_in  # noqa: F401


@pytest.mark.unit
def test_marked_unit_but_starts_a_process():
    run_python()


@pytest.mark.cli
def test_marked_cli_swallows_the_refusal():
    try:
        run_python()
    except Exception:
        pass
"""


@pytest.fixture
def inner(pytester):
    from pathlib import Path

    pytester.makeconftest(INNER_CONFTEST.format(tests=str(Path(__file__).parent), here=str(pytester.path)))
    pytester.makepyfile(test_inner=INNER_TESTS, heavy_stand_in="")
    return pytester


def tiers_collected(result) -> dict[str, str]:
    return {line.split("::")[1].split()[0]: line.split()[-1] for line in result.outlines if line.startswith("TIER ")}


def test_each_test_gets_the_tier_its_code_says(inner):
    inner.makeconftest(
        inner.path.joinpath("conftest.py").read_text()
        + "\ndef pytest_collection_finish(session):\n"
        + "    for item in session.items:\n"
        + "        print('TIER', item.nodeid, dict(item.user_properties)['tier'])\n"
    )
    result = inner.runpytest_inprocess("--collect-only", "-q", "-s")
    assert tiers_collected(result) == {
        "test_pure": "unit",
        "test_in_process_cli": "cli",
        "test_through_a_helper": "process",  # found through the helper it calls
        "test_on_a_terminal": "terminal",
        "test_with_the_torch_encoder": "torch",
        "test_loads_a_heavy_module_unseen": "unit",  # the code says nothing: the guard catches it
        "test_marked_unit_but_starts_a_process": "unit",  # an explicit marker wins
        "test_marked_cli_swallows_the_refusal": "cli",
    }


def test_a_fast_tier_test_that_starts_a_process_or_loads_torch_fails(inner):
    result = inner.runpytest_inprocess("-q", "-m", "unit or cli", "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 2 and outcomes.get("failed") == 3, result.outlines
    assert "errors" not in outcomes  # one failure per offender, not a second one at teardown
    text = "\n".join(result.outlines)
    assert "a unit-tier test started a process (subprocess)" in text
    assert "a cli-tier test started a process (subprocess)" in text  # even when the code caught it
    assert "a unit-tier test loaded heavy_stand_in; mark it @pytest.mark.torch" in text


def test_the_run_ends_with_each_tiers_count_and_time(inner):
    result = inner.runpytest_inprocess("-q", "-m", "unit or cli")
    result.stdout.fnmatch_lines(
        [
            "*tier times (summed test durations)*",
            "unit * 3 tests * s",
            "cli * 2 tests * s",
            "all * 5 tests * s",
            "wall clock * s",
        ]
    )


@pytest.mark.process  # xdist starts its workers as processes
def test_tier_times_add_up_across_xdist_workers(inner):
    result = inner.runpytest_inprocess("-q", "-n", "2", "-m", "unit or cli")
    result.stdout.fnmatch_lines(["*tier times*", "unit * 3 tests * s", "cli * 2 tests * s", "all * 5 tests * s"])
