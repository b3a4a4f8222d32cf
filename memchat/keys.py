"""API keys kept for you: a provider's environment variable first, else the OS keyring.

`memchat key set` stores a key in the OS keyring (the optional `keyring` package: the Secret
Service on Linux, Keychain on macOS, the Credential Locker on Windows) and nowhere else. A
keyring backend that would write the key to a plain file (keyrings.alt's, or keyring's null and
fail stand-ins on a machine with no secret service) is refused: there the environment variable
is the place. Every provider looks its key up here (`stored_key`), so the order is the same for
all of them; nothing here prints, and no key is ever logged or shown whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from memchat.errors import MemchatError, NeedsKeyError, UsageError
from memchat.text import is_secret

# Which environment variable holds each provider's key (the first provider is the default).
KEY_ENV_VARS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
KEYRING_SERVICE = "memchat api key"  # the keyring's entry: this service, the provider's name as user
MAX_KEY_CHARS = 4096


@dataclass(frozen=True)
class Source:
    """Where a provider's key comes from: `kind` is "env" or "keyring"; `where` says it in words."""

    kind: str
    where: str


def env_var(provider: str) -> str:
    """The environment variable of a provider that takes a key; UsageError for any other."""
    try:
        return KEY_ENV_VARS[provider]
    except KeyError:
        raise UsageError(
            f"memchat keeps keys for {', '.join(KEY_ENV_VARS)}, not {provider!r} (echo needs none)"
        ) from None


def secure_keyring() -> Any:
    """A keyring backend that really keeps secrets, or None (see `keyring_status`)."""
    return _keyring()[0]


def keyring_status() -> str:
    """'' when a secret-keeping keyring is there, else why not, in words."""
    return _keyring()[1]


def _keyring() -> tuple[Any, str]:
    try:
        import keyring
        from keyring.backends import chainer, fail, null
    except ImportError:
        return None, "the keyring package is not installed (pip install keyring)"
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # noqa: BLE001 - a broken keyringrc or backend: no keyring
        return None, f"the OS keyring cannot be opened ({type(exc).__name__})"

    def insecure(b: Any) -> bool:
        return isinstance(b, (fail.Keyring, null.Keyring)) or type(b).__module__.startswith("keyrings.alt")

    candidates = list(backend.backends) if isinstance(backend, chainer.ChainerBackend) else [backend]
    kept = [b for b in candidates if not insecure(b)]
    if kept:
        return kept[0], ""
    plain = [b for b in candidates if type(b).__module__.startswith("keyrings.alt")]
    if plain:
        return None, f"the only keyring here ({_name(plain[0])}) would keep the key in a plain file"
    return None, "there is no OS keyring here (no secret service is running)"


def _name(backend: Any) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _env_key(provider: str) -> str:
    return os.environ.get(env_var(provider), "").strip()


def _keyring_key(provider: str) -> str | None:
    backend = secure_keyring()
    if backend is None:
        return None
    try:
        stored = backend.get_password(KEYRING_SERVICE, provider)
    except Exception:  # noqa: BLE001 - locked, cancelled, D-Bus gone: no key from it
        return None
    return stored.strip() if stored and stored.strip() else None


def stored_key(provider: str) -> str | None:
    """The provider's key: its environment variable if set, else the OS keyring's, else None.
    NeedsKeyError when it holds what no HTTP header can carry (a line break, a space, a non-ASCII
    character): sent, the HTTP library's error would quote the key back."""
    env = _env_key(provider)
    where = env_var(provider) if env else "the OS keyring's key"
    key = env or _keyring_key(provider)
    if key:
        is_secret(key)  # whatever a server says back, this key is taken out of it
    if key and not header_safe(key):
        raise NeedsKeyError(
            f"{where} holds a character an API key never has (a line break, a space or a non-ASCII "
            "character): set it again, copied whole"
        )
    return key


def header_safe(key: str) -> bool:
    """Printable ASCII without spaces: what an Authorization header can carry."""
    return all("!" <= c <= "~" for c in key)


def key_source(provider: str) -> Source | None:
    """Where `stored_key` finds the key (never the key itself), or None when there is none."""
    if _env_key(provider):
        return Source("env", env_var(provider))
    if _keyring_key(provider):
        return Source("keyring", f"the OS keyring ({_name(secure_keyring())})")
    return None


def check_key(key: str) -> str:
    """A key as typed or piped: one line of visible characters, no spaces inside."""
    key = key.strip()
    if not key:
        raise UsageError("the key is empty")
    if len(key) > MAX_KEY_CHARS or not header_safe(key):
        raise UsageError("that is not an API key: one line of visible ASCII characters, no spaces")
    return key


def store(provider: str, key: str) -> Source:
    """Keep the key in the OS keyring; refused (MemchatError) where it would land in plain text."""
    variable = env_var(provider)
    key = check_key(key)
    backend, why = _keyring()
    if backend is None:
        raise MemchatError(f"not stored: {why}; set {variable} in your environment instead")
    try:
        backend.set_password(KEYRING_SERVICE, provider, key)
        kept = backend.get_password(KEYRING_SERVICE, provider) == key
    except Exception as exc:  # noqa: BLE001 - locked, cancelled, D-Bus gone
        raise MemchatError(
            f"the OS keyring refused the key ({type(exc).__name__}); set {variable} in your environment instead"
        ) from None
    if not kept:
        raise MemchatError(f"the OS keyring did not keep the key; set {variable} in your environment instead")
    return Source("keyring", f"the OS keyring ({_name(backend)})")


def remove(provider: str) -> bool:
    """Delete the provider's key from the OS keyring; False when none was stored there."""
    env_var(provider)
    if _keyring_key(provider) is None:
        return False
    backend = secure_keyring()
    try:
        backend.delete_password(KEYRING_SERVICE, provider)
    except Exception as exc:  # noqa: BLE001 - locked, cancelled, D-Bus gone
        raise MemchatError(f"the OS keyring would not delete the key ({type(exc).__name__})") from None
    return True


_PUBLIC_PREFIXES = ("sk-ant-", "sk-proj-", "sk-")  # the parts every key of a kind shares


def masked(key: str) -> str:
    """Enough of a key to tell which one it is, never enough to guess: 'sk-ant-…c3d4'. Only the
    public prefix and the last 4 of a long key; the last 2 of a short one (a self-hosted server's)."""
    if len(key) < 32:
        return "…" + key[-2:] if len(key) >= 12 else "…"
    prefix = next((p for p in _PUBLIC_PREFIXES if key.startswith(p)), "")
    return f"{prefix}…{key[-4:]}"


def missing_key(provider: str, label: str, example: str) -> str:
    """The one line that says how to give a provider its key (NeedsKeyError's message)."""
    variable = env_var(provider)
    return (
        f"no {label} API key: set it with `export {variable}={example}` or keep it in the OS keyring with "
        f"`memchat key set{'' if provider == 'anthropic' else ' ' + provider}`, or try memchat offline with "
        "--provider echo"
    )
