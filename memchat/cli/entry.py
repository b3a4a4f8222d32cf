"""The `memchat` command's entry point.

Bare `memchat` in a terminal is the chat: it opens without importing typer and the command
modules (about 0.1 s of the REPL's start-up). Anything else, arguments or the shell asking for
completions, goes to the command line, memchat.cli.main.
"""

from __future__ import annotations

import os
import sys

from memchat.cli.runner import CliState, open_chat, run


def main() -> None:
    if sys.argv[1:] or any(name.startswith("_MEMCHAT") for name in os.environ):
        from memchat.cli.main import main as command_line

        command_line()
        return

    def chat() -> None:
        code = open_chat(CliState(), session=None, continue_=False)
        if code:
            raise SystemExit(code)

    run(chat)
