"""One plain line for every way a model call can fail, shared by the SDK-backed providers.

The anthropic and openai SDKs are generated alike: both raise APIStatusError (with
status_code and the JSON body), APITimeoutError, APIConnectionError and APIError. So one
`explain` serves both, given the SDK module, and a user reads the same sentence whichever
server failed; only the key's environment variable differs.
"""

from __future__ import annotations

import ipaddress
import re
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from memchat.errors import ConfigError, ProviderError

# Error types of an error reported inside a stream that had started fine (HTTP 200), and the
# status they stand for (Anthropic's `error` event; a Chat Completions server's `error` chunk).
_STREAM_ERROR_STATUS = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
}


# What memchat sends that a server's error must never carry back into a message that is shown,
# logged and stored with the failed turn: the memory section, a transcript, the request's JSON. A
# forget cannot reach a copy kept in an error line or the log.
_QUOTES_THE_REQUEST = re.compile(
    r"<(?:memory|new_turns|earlier_turns|transcript|turn|existing_memories|session_summary|previous_summary)\b"
    r"""|["'](?:messages|system|tools|tool_choice)["']\s*:""",
    re.IGNORECASE,
)
DETAIL_CHARS = 300  # an API's own message is a sentence or two; more is the server quoting something


def api_message(exc: Any) -> str:
    """The API's own error message from an error body, else the exception text: one line, at most
    DETAIL_CHARS, and never what memchat sent (_QUOTES_THE_REQUEST)."""
    detail = " ".join(_raw_message(exc).split())
    if _QUOTES_THE_REQUEST.search(detail):
        return "the server's message quoted the request back, so it is not shown or kept"
    return detail if len(detail) <= DETAIL_CHARS else detail[:DETAIL_CHARS] + "…"


def _raw_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)  # Anthropic and OpenAI nest it; an OpenAI stream error is the inner object
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str) and err:
            return err  # some compatible servers (Ollama) answer {"error": "text"}
    return str(getattr(exc, "message", "") or exc)


_CREDENTIAL = re.compile(r"(?i)(bearer\s+|x-api-key['\"]?[:,]?\s*['\"]?|api[_-]?key=)[^\s'\",)]+")


def cause(exc: BaseException) -> str:
    """What actually failed under the SDK's "Connection error.": refused, no such host, TLS..."""
    seen = exc
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    text = str(seen).strip().rstrip(".") or type(seen).__name__
    # An HTTP library may quote the header it refused ("Illegal header value b'Bearer sk-...'"):
    # never a key in a message, which is shown, logged and stored with the failed turn.
    text = _CREDENTIAL.sub(r"\1…", text)
    return f"{text}; check that the server is up and the URL is right"


def explain(
    exc: BaseException,
    *,
    sdk: ModuleType,
    model: str,
    retries: int,
    timeout: float,
    url: str,
    key_env: str,
    partial: str = "",
) -> ProviderError:
    """Turn an SDK exception (of `sdk`, the anthropic or openai module) into one line a user can act on."""
    kept = " The partial reply was kept (marked incomplete)." if partial else ""
    if isinstance(exc, sdk.APIStatusError):
        return _refused(exc, model=model, retries=retries, partial=partial, kept=kept, key_env=key_env)
    if isinstance(exc, sdk.APITimeoutError):
        tries = f", {retries + 1} tries" if retries else ""
        return ProviderError(
            f"the API at {url} did not answer within {timeout:g} s (timeout{tries}).{kept}", partial=partial
        )
    if isinstance(exc, sdk.APIConnectionError):
        if partial:
            return ProviderError(f"the connection dropped mid-reply from {url}.{kept}", partial=partial)
        return ProviderError(f"cannot reach the API at {url}: {cause(exc)}", partial=partial)
    if isinstance(exc, sdk.APIError):  # an error chunk inside a started stream (openai): no status of its own
        return _refused(exc, model=model, retries=0, partial=partial, kept=kept, key_env=key_env, status=200)
    # A connection cut mid-stream surfaces as an httpx error the SDK does not wrap.
    name = type(exc).__name__
    if partial:
        return ProviderError(f"the reply stream broke ({name}).{kept}", partial=partial)
    if isinstance(exc, (AssertionError, ValueError, AttributeError, KeyError, TypeError)):
        # the SDK could not read what came back: a 200 that is not the API (a wifi login page, a
        # base_url that names a web site) had read "the API call failed (AssertionError: )"
        return ProviderError(
            f"the server at {url} answered, but not as the API does ({name} reading its reply): check "
            "base_url, or a login page (hotel or office wifi) may be in the way",
            partial=partial,
        )
    return ProviderError(f"the API call failed ({name}: {exc})", partial=partial)


def _refused(
    exc: Any, *, model: str, retries: int, partial: str, kept: str, key_env: str, status: int | None = None
) -> ProviderError:
    """An error status from the API, or an error reported inside a stream."""
    status = exc.status_code if status is None else status
    detail = api_message(exc)
    if status == 200:
        # An error inside a stream that had started fine: the kind is in the body, and nothing
        # was retried (a started stream never is).
        kind = getattr(exc, "type", None) or getattr(exc, "code", None) or ""
        status = _STREAM_ERROR_STATUS.get(str(kind), 500)
        retries = 0
    tries = f" after {retries} retries" if retries else ""
    return ProviderError(status_text(status, detail, model, tries, key_env) + kept, status=status, partial=partial)


def status_text(status: int, detail: str, model: str, tries: str, key_env: str) -> str:
    """What an error status means, and what to do about it."""
    if status == 401:
        return f"the API rejected the key (401): {detail}. Check {key_env}."
    if status == 403:
        return f"the key is not allowed to do this (403): {detail}"
    if status == 404:
        return f"model {model!r} was not found (404): {detail}. Choose another with --model."
    if status == 429:
        return f"rate limited by the API (429){tries}: {detail}. Wait a moment and try again."
    if status == 529:
        return f"the API is overloaded (529){tries}: {detail}. Try again shortly."
    if status >= 500:
        return f"the API had a server error ({status}){tries}: {detail}"
    return f"the API refused the request ({status}): {detail}"


def checked_url(value: str | None, default: str, *, setting: str, source: str, example: str) -> str:
    """A provider's base URL (`default` when unset), without a trailing slash; ConfigError naming
    the setting and where a malformed one came from."""
    url = (value or "").strip() or default
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port out of range raises here, not later in the HTTP library
        host = parts.hostname or ""
        if host.replace(".", "").isdigit():  # digits and dots are an IPv4 address, or nothing
            ipaddress.IPv4Address(host)
        ok = parts.scheme in ("http", "https") and bool(host)
    except ValueError:
        ok = False
    if not ok:
        raise ConfigError(f"{setting} {url!r} ({source}) is not an http(s) URL such as {example}")
    return url.rstrip("/")
