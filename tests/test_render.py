import io

import pytest
from rich.console import Console
from rich.markdown import Markdown

from memchat.text import sanitize
from memchat.ui.stream import ReplyWriter, _stable_split

DOC = (
    "Intro paragraph with **bold**.\n\n"
    "```python\ndef add(a, b):\n\n    return a + b\n```\n\n"
    "A list:\n\n- one\n- two\n\n"
    "1. first\n2. second\n\n"
    "Closing line."
)


def console() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=60, color_system=None)


@pytest.mark.parametrize("size", [1, 3, 7, 50, len(DOC)], ids=lambda n: f"chunks-of-{n}")
def test_streamed_markdown_prints_the_same_as_rendering_it_whole(size, monkeypatch):
    monkeypatch.setattr(ReplyWriter, "_draw", lambda self: None)  # the live region is transient
    streamed = console()
    writer = ReplyWriter(markdown=True, console=streamed)
    for i in range(0, len(DOC), size):
        writer.write(DOC[i : i + size])
    writer.close()
    whole = console()
    whole.print(Markdown(DOC, code_theme="monokai"))
    assert streamed.file.getvalue() == whole.file.getvalue()


def test_split_never_cuts_inside_a_code_fence():
    text = "para\n\n```\ncode\n\nmore code\n"
    assert _stable_split(text) == len("para\n\n")


def test_escape_sequences_and_control_characters_never_reach_the_terminal():
    hostile = "\x1b[31mred\x1b[0m \x1b]0;evil title\x07ok\x00\x08 done\r\nnext\tline"
    assert sanitize(hostile) == "red ok done\nnext\tline"


def test_plain_writer_strips_escapes_from_model_text(cli, api):
    api.enqueue_text("\x1b[2J\x1b[31mcleared?\x1b[0m fine")
    result = cli("ask", "hi")
    assert result.stdout == "cleared? fine\n"


def test_a_slow_redraw_is_not_repeated_for_every_chunk(monkeypatch):
    """The unfinished block is redrawn whole; once a redraw takes longer than the 50 ms between
    redraws, every chunk had redrawn it (a long paragraph took minutes). Now a redraw waits twice as
    long as the last one took."""
    import time

    writer = ReplyWriter(markdown=True, console=Console(file=io.StringIO(), force_terminal=True, width=80))
    draws = []

    def slow_draw() -> None:
        draws.append(1)
        time.sleep(0.06)  # a redraw of a long block on a slow terminal

    monkeypatch.setattr(writer, "_draw", slow_draw)
    for _ in range(100):
        writer.write("word ")  # one paragraph, never finished: all of it is the live block
    assert 1 <= len(draws) <= 5
