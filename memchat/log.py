"""A private log file for background work (capture, warm-up): never the terminal, never memory text."""

from __future__ import annotations

import logging

_configured = False


def get_logger() -> logging.Logger:
    global _configured
    logger = logging.getLogger("memchat")
    if not _configured:
        _configured = True
        logger.propagate = False
        try:
            from memchat.config import state_dir
            from memchat.files import touch_private

            path = touch_private(state_dir() / "memchat.log")
            handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        except OSError:
            handler = logging.NullHandler()
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return logger
