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


def own_count(text: str) -> int | None:
    """The table's count (None: a piece too long for it), asserting the text may take that path."""
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
    counted = {t: own_count(t) for t in texts if tokens._plain(t)}
    counted = {t: n for t, n in counted.items() if n is not None}
    assert len(counted) > 0.9 * len(texts)  # what memchat counts is almost always the table's to count
    mismatched = [t[:60] for t, n in counted.items() if n != tiktoken_count(t)]
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


def counted_in_a_fresh_process(tmp_path: Path, cache: Path, *, limit_file_size: int | None = None) -> Path:
    """Count a plain and a non-plain text in a new process (nothing loaded, nothing set by other
    tests) with the cache at `cache` and a temporary directory of its own, which it returns."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"} | {
        "TMPDIR": str(temp),
        "MEMCHAT_CACHE_DIR": str(cache),
    }
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit_file_size}, {limit_file_size}))\n"
    code = (limit if limit_file_size else "") + (
        "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"  # a full file system: EFBIG, not a kill
        "from memchat import tokens\n"
        "assert tokens.count('hello there') == 2\n"
        "assert tokens.count('I \u2764\ufe0f it, e\u0301') == len(tokens._encoding().encode('I \u2764\ufe0f it, e\u0301'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    return temp


def test_parsing_the_encoding_writes_nothing_outside_memchats_cache(tmp_path):
    """tiktoken copies a file it parses into a cache of its own, the shared temporary directory by
    default: not this one (memchat keeps its own parsed copy, 0600 in a 0700 directory)."""
    cache = tmp_path / "cache"
    temp = counted_in_a_fresh_process(tmp_path, cache)
    assert list(temp.rglob("*")) == []
    assert len(list((cache / "tiktoken").glob("*.ranks"))) == 1


def test_a_cache_that_cannot_be_written_still_counts(tmp_path):
    """A file where the cache directory would be (stops root too, unlike permissions): counting
    works, nothing is written anywhere, and the file is untouched."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache would be")
    temp = counted_in_a_fresh_process(tmp_path, blocked)
    assert blocked.read_text() == "a file where the cache would be" and list(temp.rglob("*")) == []


def test_a_full_disk_leaves_no_partial_cache_file(tmp_path):
    """Files over 1 MB cannot be written (the table is 2.8 MB, the parsed encoding 1.6 MB): counting
    works, and no half-written temporary file is left to fill the disk further on every run."""
    cache = tmp_path / "cache"
    counted_in_a_fresh_process(tmp_path, cache, limit_file_size=1_000_000)
    assert [p.name for p in (cache / "tiktoken").iterdir()] == []


def test_a_long_piece_goes_to_tiktoken(table, tiktoken_count):
    """Merging rescans a piece at each step: one of thousands of bytes (a DNA sequence, a run of one
    letter) would take seconds here and milliseconds in tiktoken."""
    built = tokens._table()
    assert built is not None
    for text in ("a" * 20_000, "What gene is this? " + "ACGT" * 2_000, "é" * 5_000, "-" * 300):
        assert tokens._fast_count(text, built) is None
        assert tokens.count(text) == tiktoken_count(text)


def test_building_the_table_and_loading_tiktoken_never_overlap(table, monkeypatch):
    """Each sets the process's umask for the files it writes and puts it back: two threads doing so
    at once leave a cache file 0644, or the umask 077 for the rest of the process. `ask` builds the
    table in a thread while its turn counts a message that may need tiktoken."""
    import threading
    import time

    spans: dict[str, tuple[float, float]] = {}
    build, load = tokens._Ranks.build, tokens._parsed

    def slow_build(ranks):
        start = time.monotonic()
        time.sleep(0.3)  # long enough for the main thread to start loading meanwhile
        built = build(ranks)
        spans["table"] = (start, time.monotonic())
        return built

    def timed_parse(directory):
        start = time.monotonic()
        parsed = load(directory)
        if threading.current_thread() is threading.main_thread():
            spans["tiktoken"] = (start, time.monotonic())
        return parsed

    monkeypatch.setattr(tokens._Ranks, "build", staticmethod(slow_build))
    monkeypatch.setattr(tokens, "_parsed", timed_parse)
    before = os.umask(0o022)
    try:
        thread = threading.Thread(target=tokens.prepare)
        thread.start()
        time.sleep(0.05)
        tokens.count("I \u2764\ufe0f it")  # U+FE0F is a mark: tiktoken's to count
        thread.join()
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
    (a, b), (c, d) = spans["table"], spans["tiktoken"]
    assert b <= c or d <= a, spans
