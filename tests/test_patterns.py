"""Patterns compiled at first use (memchat.patterns) behave as compiled ones, and every one compiles."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import memchat
from memchat.patterns import _Lazy, pattern


def _lazy_in(value: object, depth: int = 0) -> list[_Lazy]:
    if isinstance(value, _Lazy):
        return [value]
    if depth > 2:
        return []
    if isinstance(value, dict):
        return [p for v in value.values() for p in _lazy_in(v, depth + 1)]
    if isinstance(value, list | tuple | set | frozenset):
        return [p for v in value for p in _lazy_in(v, depth + 1)]
    return []


def test_every_pattern_memchat_holds_compiles():
    # A pattern is compiled at its first use, so a typo in a rarely used one would only show in a
    # user's turn: here each one in any module's globals is compiled (a bad one raises re.error).
    found = 0
    for info in pkgutil.walk_packages(memchat.__path__, "memchat."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            for lazy in _lazy_in(value):
                assert isinstance(lazy.pattern, str)  # read from the compiled pattern: compiles it
                found += 1
    assert found > 150  # the judgement modules' word patterns are among them


def test_a_lazy_pattern_answers_as_the_compiled_one():
    source, flags = r"\b(wool|silk)\b", re.IGNORECASE
    lazy, compiled = pattern(source, flags), re.compile(source, flags)
    text = "I avoid Wool and silk"
    assert lazy.findall(text) == compiled.findall(text) == ["Wool", "silk"]
    assert lazy.sub("x", text) == compiled.sub("x", text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.pattern == source and lazy.flags == compiled.flags and lazy.groups == 1
    assert lazy.match(text) is None and lazy.fullmatch("silk") is not None


def test_a_bad_pattern_fails_when_first_used_not_when_made():
    bad = pattern(r"(unclosed")
    with pytest.raises(re.error):
        bad.search("anything")
    with pytest.raises(AttributeError):
        bad.no_such_method  # noqa: B018 - only the pattern's own attributes exist
