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


def internal_error(exc: BaseException) -> str:
    """One line for the user about an unexpected exception (a bug); the frames go to the log.

    Only the frames and the exception type are logged: an exception's message may quote
    memory text, and the log never holds that.
    """
    import traceback

    from memchat.config import state_dir

    frames = "".join(traceback.format_tb(exc.__traceback__))
    get_logger().error("internal error %s\n%s", type(exc).__name__, frames)
    from memchat.text import redact_secrets

    said = redact_secrets(str(exc).splitlines()[0][:200]) if str(exc) else "no message"
    return (
        f"internal error ({type(exc).__name__}: {said}); "
        f"this is a bug: please report it with the frames logged in {state_dir() / 'memchat.log'}"
    )
