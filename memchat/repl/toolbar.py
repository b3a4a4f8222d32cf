"""The REPL's bottom toolbar: model, session, context-window use, memory status."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memchat.repl.state import ReplState


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def toolbar_text(repl: ReplState) -> str:
    settings = repl.settings
    model = repl.app.provider.model_name(settings.model)
    parts = [
        model if settings.provider == "anthropic" or model == settings.provider else f"{settings.provider}:{model}"
    ]
    parts.append(f"session {repl.session.id}" if repl.session else "new session")
    used = repl.context_tokens()
    window = settings.context_window
    parts.append(f"{_k(used)}/{_k(window)} tokens ({100 * used / window:.0f}%)")
    if repl.app.preparing:
        parts.append("preparing the encoder (once, a few seconds): memory searches by words meanwhile")
    status = repl.memory_status()
    if status:
        parts.append(status)
    parts.append("/help")
    return " " + "  │  ".join(parts) + " "
