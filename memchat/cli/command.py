"""memchat's command and group classes, handed to typer through its public `cls=` parameter.

typer's commands are Click commands; these override methods Click documents for overriding:

- `parse_args`: before parsing, each parameter of a plain type (text, numbers with bounds,
  flags, lists of text) gets memchat's `process_value` (`plain_params`) instead of typer's
  pydantic validators, whose import costs ~80 ms of every command;
- `collect_usage_pieces`, `format_options`, `format_epilog`: `--help` reads like a man page
  (`help`): values in plain words, ranges in words, no braces in the usage line, examples;
- `Group.invoke`: a MemchatError anywhere in a command is one line and an exit code;
- `Group.main`: so is Click's own usage error ("memchat: no such option: --bogus (see
  'memchat -h')"), which Click would print as four lines;
- `Group.main` and the callbacks of typer's two completion options: memchat's completion
  scripts, which keep its order (`completion`).

typer's `cls=` wants subclasses of its own command and group classes, which `typer/__init__`
does not export; they are taken from what the public `typer.main.get_command` builds.
"""

from __future__ import annotations

import copy
import os
import sys
import typing
from collections.abc import Callable
from typing import Any, NoReturn

import typer
import typer.main

from memchat.cli import completion, help, plain_params
from memchat.cli.runner import show_error
from memchat.errors import ExitCode, MemchatError, UsageError


def _typer_classes() -> tuple[type, type]:
    """The classes typer builds a command and a group from (typer.core's, not exported)."""
    probe = typer.Typer()
    probe.command("a")(lambda: None)
    probe.command("b")(lambda: None)
    group = typer.main.get_command(probe)
    return type(group.commands["a"]), type(group)  # type: ignore[attr-defined]


_TyperCommand, _TyperGroup = _typer_classes()
# Click's error classes, whichever Click typer runs on (newer typer carries its own copy)
_CLICK_USAGE_ERROR, _CLICK_ERROR = (
    typing.cast(type[Exception], next(c for c in typer.BadParameter.__mro__ if c.__name__ == name))
    for name in ("UsageError", "ClickException")
)


class _Plain:
    """What a memchat command and a memchat group share: plain values and plain help."""

    callback: Callable[..., Any] | None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # Here rather than in __init__: typer appends --install-completion and --show-completion
        # to the root group after building it, and Click makes --help on first use.
        self._plain_params(ctx)
        return super().parse_args(ctx, args)  # type: ignore[misc]

    def _plain_params(self, ctx: Any) -> None:
        annotations = _annotations(self.callback)
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            if getattr(param.process_value, "memchat_plain", False):
                continue
            # typer's own flags (--install-completion, --show-completion) are in no signature
            annotation = annotations.get(param.name or "", bool if getattr(param, "is_flag", False) else None)
            if param.name in _COMPLETION:
                param.callback = _COMPLETION[param.name]
            if plain_params.is_plain(annotation):
                param.process_value = plain_params.processor(param, annotation)
                if param.param_type_name == "option" and param.metavar is None:
                    param.metavar = help.plain_metavar(param, annotation)

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            record = help.record(param, ctx)
            if record is not None:
                (arguments if param.param_type_name == "argument" else options).append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)  # type: ignore[misc]
        help.write_examples(ctx.command_path, formatter)


class Command(_Plain, _TyperCommand):  # type: ignore[misc, valid-type]
    """A memchat command (`cls=` of every `.command()`)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(help.usage_name(param))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces


class Group(_Plain, _TyperGroup):  # type: ignore[misc, valid-type]
    """A memchat group: every command runs inside its `invoke`, where a MemchatError becomes one
    line and an exit code."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        shell = completion.source_requested(kwargs.get("prog_name") or "memchat")
        if shell is not None:  # `eval "$(_MEMCHAT_COMPLETE=source_bash memchat)"`
            typer.echo(completion.script(shell, kwargs.get("prog_name") or "memchat"))
            sys.exit(0)
        if not kwargs.pop("standalone_mode", True):
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            # not standalone: Click hands its errors here instead of printing them (commands return None;
            # an exit code comes back as the return value)
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _CLICK_ERROR as exc:
            _say_click_error(exc, kwargs.get("prog_name") or "memchat")
        except typer.Abort:  # end of input at a question: nothing was done
            show_error(MemchatError("stopped: no answer was given"))
            sys.exit(ExitCode.FAILURE)
        sys.exit(code if isinstance(code, int) else ExitCode.OK)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except MemchatError as exc:
            show_error(exc)
            raise typer.Exit(exc.exit_code) from None
        except BrokenPipeError:
            # `memchat memories list --json | head -1`: the reader had enough; quiet, and 0, as for
            # the plain listing (click alone would exit 1 without a word).
            sys.stdout = open(os.devnull, "w")  # the dead pipe must not be flushed again
            raise typer.Exit(ExitCode.OK) from None


def _say_click_error(exc: Any, prog: str) -> NoReturn:
    """Click's error as one line and its exit code: a usage error says where the help is."""
    message = _sentence_case(exc.format_message())
    if isinstance(exc, _CLICK_USAGE_ERROR):
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else prog
        show_error(UsageError(f"{message.removesuffix('.')} (see '{where} -h')"))
    else:
        show_error(MemchatError(message))
    sys.exit(exc.exit_code)


def _sentence_case(message: str) -> str:
    """Click's "No such option: --bogus" as memchat says its errors: "no such option: --bogus"."""
    return message[:1].lower() + message[1:] if message[1:2].islower() else message


def use_everywhere(app: typer.Typer) -> None:
    """Build every command of `app` and of the groups added to it with memchat's classes."""
    for info in app.registered_commands:
        if info.cls in (None, _TyperCommand):  # typer's own is the default
            info.cls = Command
    for group in app.registered_groups:
        if not group.cls or group.cls is _TyperGroup:
            group.cls = Group
        if group.typer_instance is not None:
            use_everywhere(group.typer_instance)


def _annotations(callback: Callable[..., Any] | None) -> dict[str, Any]:
    """Parameter name -> its annotation, None | X read as X."""
    if callback is None:
        return {}
    try:
        hints = typing.get_type_hints(typing.cast(Any, callback).__wrapped__)
    except AttributeError:
        hints = typing.get_type_hints(callback)
    plain = {}
    for name, hint in hints.items():
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        is_optional = typing.get_origin(hint) in (typing.Union, _UnionType) and len(args) == 1
        plain[name] = args[0] if is_optional else hint
    return plain


_UnionType = type(int | None)
_COMPLETION = {"install_completion": completion.install, "show_completion": completion.show}


# The root's options that take a value: what follows them is not a command's name.
_ROOT_VALUES = frozenset({"--profile", "-p", "--db", "--model", "-m", "--provider", "--config", "--session", "-s"})
_ROOT_FLAGS = frozenset({"--continue", "-c", "--no-memory"})


def only_the_command(app: typer.Typer, argv: list[str]) -> typer.Typer:
    """`app` with only the command `argv` runs registered (none for the chat), or `app` itself.

    typer turns every registered function into a Click command before it parses anything:
    ~20 ms of each start for memchat's forty commands (tests/bench/startup.py), when one runs.
    Anything that may show other commands (help, the version, completion, a name that is not a
    command, an option before it that is not the root's) gets the whole app."""
    if any(name.endswith("_COMPLETE") for name in os.environ):
        return app
    args = iter(argv)
    for arg in args:
        if arg in _ROOT_VALUES:
            next(args, None)
        elif arg.startswith("--") and "=" in arg and arg.split("=", 1)[0] in _ROOT_VALUES:
            continue
        elif arg not in _ROOT_FLAGS:
            break
    else:  # no command: the chat, the root's own
        arg = ""
    commands = [info for info in app.registered_commands if info.name == arg]
    groups = [info for info in app.registered_groups if info.name == arg]
    if arg and not commands and not groups:
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only
