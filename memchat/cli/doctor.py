"""`memchat doctor`: check the key, the server (one free call), the database, the tokenizer, the encoder."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from memchat.cli.common import state
from memchat.errors import ExitCode, MemchatError, StoreError
from memchat.text import plural
from memchat.ui.console import escape, out

if TYPE_CHECKING:
    from rich.console import Console

    from memchat.app import Memchat
    from memchat.config import Role
    from memchat.providers import Provider


class _Report:
    """Prints one line per check and counts the failures: any failure makes doctor exit 1."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.failures = 0

    def __call__(self, ok: bool | None, what: str, detail: str = "") -> None:
        mark = {True: "[green]✓[/green]", False: "[red]✗[/red]", None: "[yellow]![/yellow]"}[ok]
        if ok is False:
            self.failures += 1
        self.console.print(f"{mark} {what}" + (f" [dim]— {escape(detail)}[/dim]" if detail else ""), soft_wrap=True)

    def check(self, what: str, fn: Callable[[], str]) -> None:
        """Runs one check, timed; whatever it raises is reported as its failure."""
        started = time.monotonic()
        try:
            detail = fn()
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure in plain words
            self(False, what, getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
        else:
            self(True, what, f"{detail} ({time.monotonic() - started:.1f} s)" if detail else "")


def doctor(
    ctx: typer.Context,
    quick: bool = typer.Option(False, "--quick", help="Skip the server call and loading the embedding model (~1 s)."),
) -> None:
    """Check the key, the server, the database, the tokenizer and the embedding model.

    The server check makes one free, authenticated request per role's server (Claude: counting
    the tokens of "hi"; an openai server: listing its models): it shows whether the base URL
    answers, the key is accepted and the model exists, and how long the round trip took."""
    console = out()
    report = _Report(console)
    memchat = _configuration(ctx, report)
    _check_key(report, memchat)
    _check_server(report, memchat, quick)
    report.check("database", lambda: _database(memchat))
    _check_consent(report, memchat)
    _check_capture(report, memchat)
    _check_private_files(report, memchat)
    _check_unfinished_work(report, memchat)
    report.check("tokenizer (offline)", _tokenizer)
    _check_embedder(report, memchat, console, quick)
    if report.failures:
        raise typer.Exit(ExitCode.FAILURE)


def _configuration(ctx: typer.Context, report: _Report) -> Memchat:
    """The open profile; without one nothing else can be checked, so doctor stops here."""
    st = state(ctx)
    try:
        memchat = st.app()
        memchat.on_warning = None  # doctor reports access itself, in _check_private_files
        settings = memchat.settings
    except Exception as exc:  # noqa: BLE001
        report(False, "configuration", getattr(exc, "message", str(exc)))
        raise typer.Exit(ExitCode.FAILURE) from None
    report(
        True,
        "configuration",
        f"{settings.config_path}" + ("" if settings.config_path.exists() else " (defaults; no file)"),
    )
    return memchat


def _has_key(provider: str) -> bool:
    from memchat.keys import KEY_ENV_VARS, stored_key

    return provider not in KEY_ENV_VARS or stored_key(provider) is not None


def _check_key(report: _Report, memchat: Memchat) -> None:
    """Each provider the roles use: where its key comes from (never the key), or why it needs none."""
    from memchat.keys import KEY_ENV_VARS, key_source, keyring_status

    for role in _distinct_providers(memchat):
        what = "API key" if role.provider == "anthropic" else f"{role.provider} key"
        if role.provider not in KEY_ENV_VARS:
            report(True, "provider", f"{role.provider} needs no key")
            continue
        source = key_source(role.provider)
        if source is not None:
            report(True, what, f"from {source.where} (not shown)")
            continue
        try:
            _provider_of(memchat, role.provider).ready()  # a local server needs none
        except MemchatError:
            pass
        else:
            report(True, what, f"none needed: {role.url} is a local server")
            continue
        variable = KEY_ENV_VARS[role.provider]
        keyring = "" if not keyring_status() else f" ({keyring_status()}: use the variable)"
        report(
            False,
            what,
            f"{variable} is not set and the OS keyring holds no {role.provider} key{keyring}: export {variable}=... "
            f"or `memchat key set {role.provider}` (or use --provider echo offline)",
        )


def _check_server(report: _Report, memchat: Memchat, quick: bool) -> None:
    """One cheap request per role's server: it answers, accepts the key, and knows the model."""
    for role in memchat.settings.roles():
        what = "server" if role.name == "chat" else "memory server"
        if role.name == "memory" and (role.provider, role.model) == (memchat.settings.provider, memchat.settings.model):
            continue  # the same model on the same server: checked once
        if role.name == "memory" and not role.model:
            report(False, what, f"memory.provider is {role.provider}: set memory.model (`memchat models` lists them)")
            continue

        def server(provider: str = role.provider, model: str = role.model) -> str:
            found = _provider_of(memchat, provider)
            found.ready()  # no key, a malformed base_url: said before any request
            return found.check(model)

        if quick:
            report(None, what, "skipped (--quick)")
        elif role.provider == "anthropic" and not _has_key(role.provider):
            report(None, what, "not tried without a key")
        else:
            report.check(what, server)


def _distinct_providers(memchat: Memchat) -> list[Role]:
    roles = memchat.settings.roles()
    return [r for n, r in enumerate(roles) if r.provider not in {o.provider for o in roles[:n]}]


def _provider_of(memchat: Memchat, name: str) -> Provider:
    return memchat.provider if name == memchat.settings.provider else memchat.memory_provider


def _database(memchat: Memchat) -> str:
    from memchat.app.profile import known_failure

    db_path = memchat.settings.db_path
    try:
        ok = memchat.db.conn.execute("PRAGMA quick_check").fetchone()[0]
        count = len(memchat.chat.list_sessions(None))
    except Exception as exc:  # noqa: BLE001 - a damaged page: said with what to do
        raise known_failure(exc, db_path) or exc from None
    if ok != "ok":
        raise StoreError(
            f"{db_path} is damaged ({ok}); restore a backup, or rescue what can be read: "
            f"sqlite3 {db_path} .recover > rescue.sql"
        )
    mode = oct(os.stat(db_path).st_mode & 0o777)
    sealed = ", encrypted (SQLCipher)" if memchat.encrypted else ""
    return f"{db_path}, {plural(count, 'session')}, mode {mode}{sealed}"


def _check_consent(report: _Report, memchat: Memchat) -> None:
    said = memchat.privacy.consent()
    if said is None:
        report(None, "consent", unasked(memchat))
    else:
        state_ = "yes: memories are learnt from chats" if said.capture else "no: nothing is learnt from chats"
        report(True, "consent", f"{state_} (answered {said.at[:10]}; `memchat consent yes|no` changes it)")


def unasked(memchat: Memchat) -> str:
    """What holds while the person has not answered: nothing is learnt, unless the config says so."""
    if memchat.capture.capture_configured:
        value = "true" if memchat.settings.get("memory.capture") else "false"
        return f"not asked: memory.capture = {value} ({memchat.settings.sources['memory.capture']}) decides"
    return (
        "not asked yet: nothing is learnt from chats until you say yes (`memchat consent yes`; "
        "the first chat or ask on a terminal asks)"
    )


def _check_capture(report: _Report, memchat: Memchat) -> None:
    """When capture last ran, what waits to be read, and the newest failure of a background worker."""
    from memchat.ui.tables import capture_status_line

    try:
        status = memchat.capture.capture_status()
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure in plain words
        report(None, "capture", getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
        return
    report(None if status.failure else True, "capture", capture_status_line(status))


def _check_private_files(report: _Report, memchat: Memchat) -> None:
    warnings = memchat.access_warnings()
    for warning in warnings:
        report(None, "private files", warning)
    if not warnings:
        report(True, "private files", "the database, its vectors, history and config are readable by you alone")


def _check_unfinished_work(report: _Report, memchat: Memchat) -> None:
    left = memchat.unfinished_work()
    if left["pending_scrubs"]:  # opening the profile finishes them: what is left waits for another reader
        report(
            None, "forget", f"{left['pending_scrubs']} scrub(s) still pending: another memchat holds an old snapshot"
        )
    if left["interrupted_imports"]:
        report(
            None,
            "imports",
            f"{left['interrupted_imports']} session(s) of an import that was cut short stay hidden: "
            "run the same `memchat import FILE` again to finish it",
        )


def _tokenizer() -> str:
    from memchat import tokens

    return f"{tokens.ENCODING}, 'hello world' = {tokens.count('hello world')} tokens"


def _check_embedder(report: _Report, memchat: Memchat, console: Console, quick: bool) -> None:
    def embedder() -> str:
        enc = memchat.embedder(on_prepare=lambda text: console.print(f"[dim]  {escape(text)}[/dim]"))
        vec = enc.encode(["hello world"])
        kind = "onnxruntime" if type(enc).__name__ == "OnnxEmbedder" else "sentence-transformers"
        return f"{enc.model_name} via {kind}, {vec.shape[1]} dimensions"

    if quick:
        report(None, "embedding model", "skipped (--quick)")
    else:
        console.print(
            "[dim]  loading the embedding model (the first time it is also prepared for onnxruntime, ~2 s)…[/dim]"
        )
        report.check("embedding model (offline)", embedder)
