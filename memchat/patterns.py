"""Regular expressions compiled at their first use, not when their module is imported.

The judgement modules hold a few hundred patterns, and compiling them all cost a fresh `ask`
about 0.1 s before it could send anything, though one request reads a fraction of them.
`pattern(...)` takes what `re.compile` takes and returns an object that compiles on the first
call of any of its methods; from then on they are the compiled pattern's own (no extra cost).
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _Lazy:
    __slots__ = ("_source", "_flags", "pattern", "flags", "groups", "groupindex", *_METHODS)

    def __init__(self, source: str, flags: int) -> None:
        self._source, self._flags = source, flags

    def __getattr__(self, name: str) -> Any:  # only for a slot not set yet: the first use
        if name.startswith("_") or name not in self.__slots__:
            raise AttributeError(name)
        compiled = re.compile(self._source, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.pattern, self.flags = compiled.pattern, compiled.flags
        self.groups, self.groupindex = compiled.groups, compiled.groupindex
        return getattr(self, name)

    def __repr__(self) -> str:
        return f"pattern({self._source!r})"


def pattern(source: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(source, flags)`, compiled when first used."""
    return cast("re.Pattern[str]", _Lazy(source, int(flags)))
