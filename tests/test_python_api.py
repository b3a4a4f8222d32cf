"""README's "Python API" section, run as written: the one import, a Profile and its services."""

import re
from pathlib import Path


def example() -> str:
    text = (Path(__file__).parents[1] / "README.md").read_text()
    start = text.index("### Python API")
    (code,) = re.findall(r"```python\n(.*?)```", text[start : text.index("\n## ", start)], re.DOTALL)
    return code


def test_the_readme_example_runs_as_written(capsys):
    exec(compile(example(), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "(echo) Remember that my build server is bobcat-7"
    assert any("bobcat-7" in line for line in printed[1:])  # the recall found what the turn remembered


def test_the_services_share_one_profile():
    from memchat.app import Memchat

    app = Memchat.load(provider="echo")
    try:
        session = app.chat.start_session()
        app.chat.send(session, "remember that my dentist is Dr Ruiz")
        assert [m.text for m in app.store.find()] == ["My dentist is Dr Ruiz"]
        assert app.memories.profile is app.chat.profile is app.capture.profile is app.privacy.profile is app
    finally:
        app.close()
