"""Typer without pydantic on every command: plain coercion of str, int, float, bool and list[str].

Typer (0.20+) turns each command-line value into its Python type through a pydantic
TypeAdapter, and importing pydantic to build them costs ~80 ms of every `memchat recall`.
memchat's parameters are all plain strings, numbers with bounds, flags and lists of
strings, which this module coerces itself, with the same checks and plainer messages;
anything else still goes to typer's own coercion. If typer's internals move, `install`
leaves typer as it is (slower, never wrong), and tests/test_speed.py says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args, get_origin


def install() -> bool:
    """Route simple parameters through plain coercion; False if this typer has no such hook."""
    try:
        import typer.core as core
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam
    except ImportError:
        return False
    original = getattr(core, "build_runtime_param", None)
    if original is None or getattr(original, "memchat_plain", False):
        return original is not None

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return _plain_value(self.annotation, self.parameter_info, value)
            except _Refused as refused:
                raise BadParameter(str(refused), ctx=ctx, param=param) from None

    def build_runtime_param(descriptor: Any) -> Any:
        annotation, info = descriptor.annotation, descriptor.parameter_info
        simple = annotation in (str, int, float, bool) or (
            get_origin(annotation) is list and get_args(annotation) == (str,)
        )
        if simple and descriptor.file_annotation is None and info.parser is None and not info.clamp:
            return PlainRuntimeParam(annotation=annotation, parameter_info=info)
        return original(descriptor)

    build_runtime_param.memchat_plain = True  # type: ignore[attr-defined]
    core.build_runtime_param = build_runtime_param
    return True


class _Refused(Exception):
    """A value the parameter cannot take; its text is the message for the user."""


def _plain_value(annotation: Any, info: Any, value: Any) -> Any:
    """`value` as the parameter's type and bounds (typer's ParameterInfo `info`) want it, or _Refused."""
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
    if info.min is not None and number < info.min:
        raise _Refused(f"{number} is below the minimum, {info.min}")
    if info.max is not None and number > info.max:
        raise _Refused(f"{number} is above the maximum, {info.max}")
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
