"""Token counts: memchat's own count of ordinary text (a rank table, no tiktoken load) is the
number tiktoken gives, on every text; what it does not cover goes to tiktoken."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memchat import tokens

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tiktoken_count():
    enc = tokens._encoding.__wrapped__()  # an Encoding of its own: this process keeps the table path

    def count(text: str) -> int:
        return len(enc.encode(text, disallowed_special=()))

    return count


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A cache of this test's own: the table is built in it, as on a machine's first count."""
    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(tmp_path / "cache"))
    caches = (tokens._read_table, tokens._piece_count, tokens._fast_count, tokens._encoding)
    for cache in caches:  # tiktoken once loaded counts everything: unload it too
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


def own_count(text: str) -> int:
    """The table's count, asserting the text took that path."""
    assert tokens._plain(text) and len(text) <= tokens.FAST_LIMIT, repr(text[:60])
    built = tokens._table()
    assert built is not None
    return tokens._fast_count(text, built)


# Characters where the two regex engines could part: apostrophes and contractions, every kind of
# ASCII whitespace (\x1c-\x1f are spaces to Python, not to Unicode), digits in runs, underscores,
# letters and punctuation beyond ASCII, emoji, and text with no letters at all.
PIECES = st.sampled_from(
    "'s|'S|'ll|'Ve|'re|'d|'|'t|\r\n|\n\n|  |   |\t|\x0b|\x0c|\x1c|\x1f|\x00|\x7f|_|__|1234567|3.14|-|—|’|“|€|°|…"
    "|café|naïve|Zürich|Ж|中文|ア|한|😀|ß|İ|e.g.|https://a.io/x?y=1| the|THE|Don|Hello|world|x|!!|?|  \n |\r| 'tis".split(
        "|"
    )
)
MIXED = st.lists(st.one_of(PIECES, st.characters(codec="utf-8", exclude_categories=("Cs",))), max_size=40).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(MIXED)
def test_every_text_counts_as_tiktoken_counts_it(table, tiktoken_count, text):
    """Through whichever path the text takes: the table for ordinary characters, tiktoken for the rest."""
    assert tokens.count(text) == tiktoken_count(text)
    if tokens._plain(text):
        assert own_count(text) == tiktoken_count(text)


def test_every_short_mix_of_the_boundary_characters_counts_as_tiktoken(table, tiktoken_count):
    """Exhaustively, every string of up to five characters from the ones the two regex engines
    class differently or that end a piece: spaces of both kinds, newlines, an apostrophe, a digit."""
    alphabet = [" ", "\n", "\r", "\t", "\x1c", "\x1f", "'", "s", "1", "_", "é", "-"]
    texts = [""]
    for _ in range(5):
        texts = [t + c for t in texts for c in alphabet if len(t) < 5] + texts
    texts = list(set(texts))
    assert len(texts) > 250_000
    mismatched = [t for t in texts if own_count(t) != tiktoken_count(t)]
    assert not mismatched[:5]


def test_ordinary_texts_are_counted_by_the_table_exactly(table, tiktoken_count):
    """README, memchat's own source and the judgement set's memories and prompts: ordinary prose,
    code, lists and tables, in pieces of up to 3,000 characters."""
    texts = []
    for path in [ROOT / "README.md", *sorted((ROOT / "memchat").rglob("*.py"))]:
        source = path.read_text()
        texts += [source[i : i + 3_000] for i in range(0, len(source), 3_000)]
    judgement = ROOT.parent / "shared" / "eval" / "judgement_dev.json"
    if judgement.exists():  # beside the checkout on a developer's machine; CI's clone has README and source
        texts += [s for s in _strings(json.loads(judgement.read_text())) if tokens._plain(s)]
    plain = [t for t in texts if tokens._plain(t)]
    assert len(plain) > 0.9 * len(texts)  # what memchat counts is almost always the table's to count
    mismatched = [t[:60] for t in plain if own_count(t) != tiktoken_count(t)]
    assert not mismatched


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_what_the_table_does_not_cover_goes_to_tiktoken(table, tiktoken_count):
    for text in ("e\u0301te\u0301", "no\u00a0break", "Ⅻ chapters", "x" * (tokens.FAST_LIMIT + 1), "\u017fs"):
        assert not (tokens._plain(text) and len(text) <= tokens.FAST_LIMIT)
        assert tokens.count(text) == tiktoken_count(text)


def test_a_damaged_table_is_built_again(table, tiktoken_count, tmp_path):
    text = "I'm lactose intolerant, so what should I get at the café?"
    assert tokens.count(text) == tiktoken_count(text)
    (built,) = (tmp_path / "cache" / "tiktoken").glob("*.ranks")
    assert stat.S_IMODE(built.stat().st_mode) == 0o600
    whole = built.read_bytes()
    flipped = whole[:2_000_000] + bytes([whole[2_000_000] ^ 1]) + whole[2_000_001:]  # a rank or key changed
    for damage in (whole[:1000], whole[:-10], flipped, b"", b"x" * 5_000):
        built.write_bytes(damage)
        tokens._read_table.cache_clear()
        tokens._fast_count.cache_clear()
        assert tokens.count(text) == tiktoken_count(text)
        assert built.read_bytes() == whole  # built again


def test_a_cache_that_cannot_be_written_still_counts(table, tiktoken_count, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache would be")  # stops root too, unlike permissions
    monkeypatch.setenv("MEMCHAT_CACHE_DIR", str(blocked))
    text = "Which winter tyres should I buy?"
    assert tokens.count(text) == tiktoken_count(text)
    assert blocked.read_text() == "a file where the cache would be"


def test_tiktokens_copy_of_its_file_stays_in_memchats_cache(tmp_path):
    """Parsing the encoding (to build the table, or for tiktoken) copies its file into a cache:
    memchat's own (0700), never the shared temporary directory."""
    temp, cache = tmp_path / "tmp", tmp_path / "cache"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"} | {
        "TMPDIR": str(temp),
        "MEMCHAT_CACHE_DIR": str(cache),
    }
    code = "from memchat import tokens; assert tokens.count('hello there') == 2; assert tokens.count('e\u0301') > 0"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    assert list(temp.rglob("*")) == []
    assert len(list((cache / "tiktoken").glob("*.ranks"))) == 1
