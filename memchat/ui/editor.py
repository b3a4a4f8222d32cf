"""Editing text in the user's own editor ($VISUAL, $EDITOR, else vi), for `memchat memories edit`."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile

from memchat.errors import UsageError


def edit_in_editor(text: str) -> str | None:
    """Let the user change text in $VISUAL/$EDITOR (else vi); None if they left it unchanged.

    The text is private (a memory): it goes to a 0600 file in a 0700 directory of its own,
    removed afterwards. An editor that cannot run, or exits with an error, is one line.
    """
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        command = shlex.split(editor)
    except ValueError as exc:
        raise UsageError(f"cannot read $EDITOR {editor!r}: {exc}") from None
    if not command or shutil.which(command[0]) is None:
        raise UsageError(f"cannot run the editor {editor!r}: no such program (set $EDITOR, or pass --text)")
    directory = tempfile.mkdtemp(prefix="memchat-edit-")  # 0700
    path = os.path.join(directory, "memory.txt")
    try:
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as f:
            f.write(text)
        try:
            done = subprocess.run([*command, path], check=False)
        except OSError as exc:
            raise UsageError(f"cannot run the editor {editor!r}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise UsageError(f"the editor {editor!r} exited with code {done.returncode}; nothing was changed")
        with open(path, encoding="utf-8", errors="replace") as f:
            edited = f.read()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return None if edited == text else edited
