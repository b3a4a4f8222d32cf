"""Structured answers from models that cannot be trusted with tool calls.

Memory capture and its decisions need an object of a known shape (a tool's input_schema).
A strong model gives it as a tool call. A weak one may have no tool calls, or return
arguments that are not JSON: then the model is asked for the object as a JSON answer, which
is checked against the same schema. An answer that is close is repaired once (code fences,
prose around the object, single quotes, trailing commas, Python's True/False/None); anything
else raises ProviderError naming what was wrong, so the capture fails visibly (the log,
`memchat doctor`) and is retried later. Nothing half-parsed is ever returned.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memchat.errors import ProviderError

if TYPE_CHECKING:
    from collections.abc import Callable

    from memchat.providers import ChatRequest

    # The provider's plain call: a request and extra wire arguments in, the reply's text out.
    Answer = Callable[[ChatRequest, dict[str, Any]], str]

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


class NotAnswered(ProviderError):
    """A forced tool call came back without the call, or with arguments that are not the object."""


def ask_for_json(
    answer: Answer, request: ChatRequest, tool: dict[str, Any], *, why: str, json_mode: bool
) -> dict[str, Any]:
    """Ask for the tool's input as a JSON answer (through `answer`, the provider's plain call) and
    return it checked; ProviderError when it is not. `why` (no tool calls, a malformed call) goes
    into the error, so a failed capture says both."""
    schema = json.dumps(tool.get("input_schema") or {}, separators=(",", ":"))
    system = (
        f"{request.system}\n\nAnswer with one JSON object and nothing else: no prose, no code fences. "
        f"It is the input of `{tool['name']}` ({tool.get('description', '')}) and must match this JSON Schema:\n{schema}"
    )
    json_request = replace(request, system=system.strip())
    text = answer(json_request, {"response_format": {"type": "json_object"}} if json_mode else {})
    try:
        return checked(text, tool, what=f"the model's JSON answer for {tool['name']}")
    except NotAnswered as exc:
        raise ProviderError(f"{exc.message} (asked for JSON because {why})") from None


def checked(text: str, tool: dict[str, Any], *, what: str) -> dict[str, Any]:
    """The object in `text`, parsed (repaired once if it is close) and valid against the tool's
    schema; NotAnswered naming the first problem otherwise."""
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = json.loads(repair(text))
        except ValueError as exc:
            raise NotAnswered(f"{what} was not JSON, even repaired ({_reason(exc)}); nothing was stored") from None
    problems = validate(value, tool.get("input_schema") or {"type": "object"})
    if problems:
        raise NotAnswered(f"{what} did not match its schema ({problems[0]}); nothing was stored")
    assert isinstance(value, dict)  # the schema's type is object, and validate() checked it
    return value


def _reason(exc: ValueError) -> str:
    return f"{exc.msg} at {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)


# --- repair -----------------------------------------------------------------------------------


def repair(text: str) -> str:
    """The near-JSON a weak model writes, made JSON: the object out of code fences and prose,
    single-quoted strings double-quoted, trailing commas and Python literals fixed."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        return text
    return _requote(text[start : end + 1])


def _requote(text: str) -> str:
    """Walk the text once: 'strings' become "strings", a comma before } or ] goes, True/False/None
    outside strings become JSON's literals. Text inside strings is kept as written."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            i = _string(text, i, out)
            continue
        if ch == ",":
            rest = text[i + 1 :].lstrip()
            if rest[:1] in ("}", "]"):
                i += 1
                continue
        word = re.match(r"[A-Za-z_]+", text[i:]) if ch.isalpha() else None
        if word:
            out.append(_PY_LITERALS.get(word.group(0), word.group(0)))
            i += len(word.group(0))
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _string(text: str, i: int, out: list[str]) -> int:
    """Copy the string starting at text[i] as a double-quoted JSON string; the index after it."""
    quote = text[i]
    chars: list[str] = []
    i += 1
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            chars.append(escaped if escaped == "'" else text[i : i + 2])
            i += 2
            continue
        chars.append('\\"' if text[i] == '"' and quote == "'" else text[i])
        i += 1
    out.append('"' + "".join(chars) + '"')
    return i + 1


# --- the schema check (the subset memchat's tools use) ----------------------------------------

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "number": (int, float),
    "integer": int,
}


def validate(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Where `value` breaks the schema (type, required, enum, minimum/maximum, items, properties)."""
    where = path or "the answer"
    wanted = schema.get("type")
    if wanted and not _is(value, wanted):
        return [f"{where} should be {wanted}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [
            f"{where} is not one of {', '.join(map(str, schema['enum']))}"
        ]  # never the value: it may quote the user
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return [f"{where} is below {schema['minimum']}"]
        if "maximum" in schema and value > schema["maximum"]:
            return [f"{where} is above {schema['maximum']}"]
    if isinstance(value, list) and "items" in schema:
        return [p for n, item in enumerate(value) for p in validate(item, schema["items"], f"{path}[{n}]")]
    if isinstance(value, dict):
        missing = [k for k in schema.get("required", []) if k not in value]
        if missing:
            return [f"{where} lacks {missing[0]}"]
        properties = schema.get("properties", {})
        dotted = f"{path}." if path else ""
        # An optional property given as null is a property not given (weak models write "key": null).
        given = {
            k: v
            for k, v in value.items()
            if k in properties and not (v is None and k not in schema.get("required", []))
        }
        return [p for k, v in given.items() for p in validate(v, properties[k], f"{dotted}{k}")]
    return []


def _is(value: Any, wanted: str) -> bool:
    if isinstance(value, bool) and wanted in ("number", "integer"):
        return False
    if wanted == "integer" and isinstance(value, float):
        return value.is_integer()
    kind = _TYPES.get(wanted)
    return kind is None or isinstance(value, kind)
