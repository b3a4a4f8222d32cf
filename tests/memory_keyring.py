"""A keyring backend for tests, so that no test reads or writes the developer's real keyring.

`FileKeyring` keeps its passwords in the JSON file MEMCHAT_TEST_KEYRING names (a test's temporary
directory), so a key `memchat key set` stored in one process is found by the next; tests point
keyring at it with PYTHON_KEYRING_BACKEND=memory_keyring.FileKeyring (this directory on PYTHONPATH)
or keyring.set_keyring in-process. Its module is not keyrings.alt's, so memchat takes it for a real
OS keyring: it stands in for the Secret Service a desktop has.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ["MEMCHAT_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        return json.loads(self._path.read_text()) if self._path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}\0{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}\0{username}"] = password
        self._path.write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}\0{username}", None) is None:
            raise PasswordDeleteError("not stored")
        self._path.write_text(json.dumps(data))
