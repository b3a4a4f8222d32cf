"""The text rules (memchat.memory.text): one tokenizer, one stop-word list, one stemmer and one
sentence splitter, and no module keeping a private copy of any of them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memchat.memory.text import STOPWORDS, content_stems, sentence_parts, sentences, stem, tokens, words

PACKAGE = Path(__file__).resolve().parents[1] / "memchat"


@pytest.mark.parametrize(
    "family",
    [
        ("paint", "painted", "painting", "paints"),
        ("party", "parties"),
        ("city", "cities"),
        ("move", "moved", "moving", "moves"),
        ("adopt", "adopted", "adopting", "adoption"),
        ("live", "lives", "lived", "living"),
    ],
)
def test_inflections_of_a_word_share_one_stem(family):
    assert len({stem(w) for w in family}) == 1, {w: stem(w) for w in family}


@pytest.mark.parametrize(("one", "other"), [("child", "chill"), ("organ", "organise"), ("cat", "catalogue")])
def test_different_words_keep_different_stems(one, other):
    assert stem(one) != stem(other)


def test_tokens_keep_case_and_words_lower_it():
    assert tokens("Ana's co-op, 3 times") == ["Ana", "s", "co", "op", "3", "times"]
    assert words("Ana's CO-OP") == ["ana", "s", "co", "op"]
    assert content_stems("The user said she likes painting") == {stem("painting")}  # the rest is in STOPWORDS
    assert {"user", "said", "likes", "she"} <= STOPWORDS


def test_sentences_end_at_stops_and_breaks_but_not_at_abbreviations_or_initials():
    text = "Mrs. Okafor called. J. R. Smith wrote back, e.g. about the lease!\nNext: rent; then bills"
    assert sentences(text) == [
        "Mrs. Okafor called.",
        "J. R. Smith wrote back, e.g. about the lease!",
        "Next: rent;",
        "then bills",
    ]


@given(st.text(alphabet=st.sampled_from("ab .!?;\n\tMr"), max_size=60))
def test_sentence_parts_rebuild_the_text_exactly(text):
    assert "".join(part + sep for part, sep in sentence_parts(text)) == text


def _sentences_reading_all_before(text: str) -> list[str]:
    """The splitter as it read the whole sentence so far before each full stop (the reference)."""
    from memchat.memory import text as rules

    parts, last = [], 0
    for match in rules._SENTENCE_END.finditer(text + "\n"):
        at_end = match.end() > len(text)
        if match.group(0) != "\n" and not at_end and not rules._ends_sentence(text[last : match.start()]):
            continue
        parts.append(text[last : match.start()])
        last = match.end()
    return [p for p in parts if p.strip()]


@given(
    st.lists(
        st.sampled_from(
            [
                "J.",
                "R.",
                "Mrs.",
                "e.g.",
                "etc.",
                "Okafor.",
                "x" * 45 + ".",
                "a.b.",
                "!",
                "?",
                ";",
                " ",
                "  ",
                "\n",
                "word",
                ",",
            ]
        ),
        max_size=40,
    )
)
def test_a_full_stop_is_judged_by_its_own_word_alone(pieces):
    """Reading only the word before a full stop splits text of ordinary words as reading all of the
    sentence so far did (it differs only where letters and dots run on for 40 characters or more before
    a full stop, which no abbreviation does); and no call reads more than that window, so a paste that
    never ends a sentence (a bibliography's "Okafor, J. A., Smith, K. L., ...") costs its length, not its
    length squared."""
    from memchat.memory import text as rules

    text = " ".join(pieces)
    assert sentences(text) == _sentences_reading_all_before(text)
    read: list[int] = []
    original = rules._ends_sentence
    rules._ends_sentence = lambda before: (read.append(len(before)), original(before))[1]  # type: ignore[assignment]
    try:
        sentences("Okafor, J. A., Smith, K. L., " * 2_000)
    finally:
        rules._ends_sentence = original
    assert read and max(read) <= rules._WORD_BEFORE


def _private_copies(path: Path) -> list[str]:
    """Names in a module that would be a second tokenizer, stemmer, stop-word list or splitter."""
    found = []
    for node in ast.parse(path.read_text()).body:  # what a module defines for others, not locals
        names = []
        if isinstance(node, ast.FunctionDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        for name in names:
            bare = name.strip("_").lower()
            if bare in {
                "stem",
                "stemmer",
                "stop",
                "stopwords",
                "stop_words",
                "sentence",
                "sentences",
                "split_sentences",
            }:
                found.append(f"{path.relative_to(PACKAGE.parent)}: {name}")
    return found


def test_no_module_keeps_its_own_copy_of_the_text_rules():
    text_rules = PACKAGE / "memory" / "text.py"
    copies = [c for p in sorted(PACKAGE.rglob("*.py")) if p != text_rules for c in _private_copies(p)]
    assert copies == [], copies


def test_a_long_text_is_clipped_around_what_matches():
    """clip_around shows the part of a long text that a search matched: the best sentence and its
    neighbours, or in one long sentence (a list, a log line) a window around the first match."""
    from memchat.memory.text import clip_around

    lease = (
        "The tenancy runs twelve months. " * 40
        + "Call Rossi Plumbing on 0131 555 0192 for a leak. "
        + "Bins go out on Tuesdays. " * 40
    )
    shown = clip_around(lease, 200, content_stems("plumber for a leak"))
    assert "0131 555 0192" in shown and len(shown) <= 204
    packing = (
        "my packing list: "
        + "thermal socks, merino layers, head torch, " * 160
        + "and the spare charger for the camera"
    )
    shown = clip_around(packing, 160, content_stems("spare charger"))
    assert "spare charger" in shown and len(shown) <= 160 and shown.startswith("…")
    assert clip_around("short text", 160, content_stems("anything")) == "short text"
