"""Command-line values coerced by memchat: str, int, float, bool and list[str], with bounds.

typer (0.20+) turns each command-line value into its Python type through a pydantic
TypeAdapter, and importing pydantic to build them costs ~80 ms of every `memchat recall`.
memchat's parameters are all plain text, numbers with bounds, flags and lists of text, which
this module coerces itself, with the same checks and plainer messages. memchat's command
classes (`command.py`) give each such parameter the `process_value` that `processor` builds
(Click's documented step that turns a parsed value into the one the command receives);
anything else keeps typer's own coercion, and tests/test_speed.py fails if a parameter of
another type appears.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args, get_origin

import typer


def is_plain(annotation: Any) -> bool:
    """Whether memchat coerces a parameter of this type itself."""
    return annotation in (str, int, float, bool) or (get_origin(annotation) is list and get_args(annotation) == (str,))


def processor(param: Any, annotation: Any) -> Callable[[Any, Any], Any]:
    """Click's `process_value(ctx, value)` for `param` (a typer parameter of a plain type): the
    value coerced, then the required check and the callback, as typer does them."""
    typers_own = param.process_value  # only for what is missing: its error message is typer's

    def process_value(ctx: Any, value: Any) -> Any:
        multiple = param.multiple or param.nargs == -1
        if value is None:
            value = () if multiple else None
        elif multiple and isinstance(value, str):
            return typers_own(ctx, value)  # typer's "Value must be an iterable."
        elif not (annotation is bool and isinstance(value, bool)):
            try:
                value = _plain_value(annotation, param, value)
            except _Refused as refused:
                raise typer.BadParameter(str(refused), ctx=ctx, param=param) from None
        if param.required and param.value_is_missing(value):
            return typers_own(ctx, value)  # raises typer's "Missing argument/option"
        if param.callback is not None:
            value = param.callback(ctx, param, value)
        return value

    process_value.memchat_plain = True  # type: ignore[attr-defined]
    return process_value


class _Refused(Exception):
    """A value the parameter cannot take; its text is the message for the user."""


def _plain_value(annotation: Any, param: Any, value: Any) -> Any:
    """`value` as the parameter's type and bounds (`param.min`, `param.max`) want it, or _Refused."""
    if get_origin(annotation) is list:
        return [_text(v) for v in (value if isinstance(value, list | tuple) else [value])]
    if annotation is str:
        return _text(value)
    if annotation is bool:
        try:
            return _flag(value)
        except ValueError:
            raise _Refused(f"{value!r} is not true or false") from None
    try:
        number = _number(annotation, value)
    except ValueError:
        kind = "a whole number" if annotation is int else "a number"
        raise _Refused(f"{value!r} is not {kind}") from None
    if param.min is not None and number < param.min:
        raise _Refused(f"{number} is below the minimum, {param.min}")
    if param.max is not None and number > param.max:
        raise _Refused(f"{number} is above the maximum, {param.max}")
    return number


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off", ""}


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = _text(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ValueError(value)


def _number(annotation: Any, value: Any) -> int | float:
    if isinstance(value, bool):
        raise ValueError(value)
    if annotation is int:
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(value)
        return int(value) if not isinstance(value, str) else int(value.strip())
    result = float(value)
    if result != result or result in (float("inf"), float("-inf")):
        raise ValueError(value)
    return result
