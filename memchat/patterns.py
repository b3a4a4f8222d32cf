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
    """`re.compile(source, flags)`, compiled when first used. `\\p{Lu}` and `\\p{Ll}` stand for a
    capital and a small letter of any European script, as in the `regex` module (UPPER, LOWER)."""
    source = source.replace(r"\p{Lu}", UPPER).replace(r"\p{Ll}", LOWER)
    return cast("re.Pattern[str]", _Lazy(source, int(flags)))


def _letters(upper: bool) -> str:
    """The capital (or small) letters of the Latin, Greek and Cyrillic scripts, as a character
    class's ranges: `[A-Z]` misses the É of Élodie, the Ł of Łukasz and the Ö of Örebro."""
    blocks = (range(0x41, 0x250), range(0x370, 0x530))
    codes = [c for block in blocks for c in block if (chr(c).isupper() if upper else chr(c).islower())]
    spans: list[list[int]] = []
    for c in codes:
        if spans and c == spans[-1][1] + 1:
            spans[-1][1] = c
        else:
            spans.append([c, c])
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in spans)


UPPER_LETTERS = _letters(upper=True)  # inside a character class: f"[{UPPER_LETTERS}'-]"
LOWER_LETTERS = _letters(upper=False)
UPPER = f"[{UPPER_LETTERS}]"  # a capital letter where a name starts, whatever the flags' case
LOWER = f"[{LOWER_LETTERS}]"
