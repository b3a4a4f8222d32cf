"""The interactive chat loop (prompt-toolkit), and its line-by-line twin for pipes.

The prompt is drawn before anything heavy loads: the database and the provider SDK are
warmed in a background thread started from the prompt's pre_run hook.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from memchat import commands, render, sessions
from memchat.errors import MemchatError, require_unicode
from memchat.sessions import Session

if TYPE_CHECKING:
    from memchat.cli import AppState
    from memchat.engine import Engine, TurnResult

PROMPT = "› "
RECENT_TURNS = 3


class Repl:
    def __init__(self, st: AppState, *, interactive: bool, use_memory: bool = True) -> None:
        self.st = st
        self.settings = st.settings()
        self.interactive = interactive
        self.session: Session | None = None
        self.running = True
        self.last_result: TurnResult | None = None
        self._engine: Engine | None = None
        self._warmed = False
        self.use_memory = use_memory
        self.capture_on = use_memory and bool(self.settings.get("memory.capture")) and _can_extract(self.settings)
        self._worker: Any = None
        self._turns_since_capture = 0
        self._told_fts_only = False
        self.unsaved: str | None = None  # a message the database could not store

    # --- state ----------------------------------------------------------------------------
    @property
    def db(self) -> Any:
        return self.st.db()

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from memchat.engine import Engine

            self._engine = Engine(self.db, self.settings, use_memory=self.use_memory, embedder=self._ready_embedder)
        return self._engine

    def _ready_embedder(self) -> Any:
        """The encoder if it has loaded; until then recall is full-text only (said once)."""
        from memchat.memory.embed import configured, is_loaded

        if is_loaded(self.settings.get("memory.embedding_model")) or not self.interactive:
            return configured(self.settings)
        if not self._told_fts_only:
            self._told_fts_only = True
            self.info("(the encoder is still loading: this message searched memory by full text only)")
        return None

    @property
    def worker(self) -> Any:
        if self._worker is None:
            from memchat.memory.capture import CaptureWorker

            self._worker = CaptureWorker(self.settings.db_path, self.settings, embedder=self._loaded_embedder)
        return self._worker

    def _loaded_embedder(self) -> Any:
        from memchat.memory.embed import configured

        return configured(self.settings)

    def capture(self, *, final: bool = False) -> None:
        """Hand the current session to the background worker (never waits)."""
        if self.capture_on and self.session is not None and (self._turns_since_capture or final):
            self.worker.submit(self.session.id, final=final)
            self._turns_since_capture = 0

    def new_session(self) -> None:
        self.capture(final=True)
        self.session = None
        self.last_result = None

    def ensure_session(self) -> Session:
        if self.session is None:
            self.session = sessions.create_session(self.db, model=self.settings.model)
        return self.session

    def resume(self, session_id: str | int) -> None:
        target = sessions.get_session(self.db, session_id)
        if self.session is not None and self.session.id != target.id:
            self.capture(final=True)
        self.session = target
        self.last_result = None
        self.info(f"resumed session {self.session.id}: {self.session.title or '(untitled)'}")
        self.show_recent()

    def set_model(self, name: str) -> None:
        self.settings = self.settings.with_overrides(model=name)
        self._engine = None

    def context_tokens(self) -> int:
        r = self.last_result
        if r is None or r.reply.input_tokens is None:
            return 0
        return (r.reply.input_tokens or 0) + (r.reply.output_tokens or 0)

    def memory_status(self) -> str:
        if not self.use_memory:
            return "memory off"
        status = "memory on" if self.capture_on else "capture off"
        if self._worker is not None and self._worker.pending:
            status += " · saving…"
        return status

    def last_reply_text(self) -> str:
        if self.session is None:
            return ""
        for m in reversed(sessions.messages(self.db, self.session.id)):
            if m.role == "assistant":
                return m.content
        return ""

    # --- output ---------------------------------------------------------------------------
    def say(self, text: str) -> None:
        render.out().print(render.sanitize(text), markup=False, highlight=False, soft_wrap=True)

    def info(self, text: str) -> None:
        render.out().print(render.sanitize(text), style="dim", markup=False, highlight=False, soft_wrap=True)

    def error(self, text: str) -> None:
        render.error_line(text)

    def show_recent(self) -> None:
        if self.session is None:
            return
        msgs = [m for m in sessions.messages(self.db, self.session.id) if m.content.strip()]
        recent = msgs[-2 * RECENT_TURNS:]
        if len(msgs) > len(recent):
            self.info(f"… {len(msgs) - len(recent)} earlier messages")
        for m in recent:
            if m.role == "user":
                self.say(f"you: {m.content}")
            else:
                writer = render.ReplyWriter(markdown=self.settings.markdown and self.interactive)
                writer.write(m.content)
                writer.close()
                if m.status != "ok":
                    self.info(f"[{m.status}]")

    # --- one line of input ----------------------------------------------------------------
    def handle(self, line: str) -> None:
        text = line.rstrip()
        if not text.strip():
            return
        try:
            require_unicode(text, "this line")
            parsed = commands.parse(text.lstrip() if text.lstrip().startswith("/") else text)
            if parsed:
                cmd, arg = parsed
                cmd.handler(self, arg)
            else:
                self.send(text[1:] if text.startswith("//") else text)
        except MemchatError as exc:
            self.error(exc.message)

    def send(self, text: str) -> None:
        from memchat.errors import StoreError

        try:
            session = self.ensure_session()
            self._run_turn(lambda on_text: self.engine.send(session, text, on_text, self.info))
        except StoreError as exc:
            # The database refused the write (read-only, disk full): keep the words in memory.
            self.unsaved = text
            raise MemchatError(f"{exc.message}. Your message was NOT saved; it is kept here and /retry "
                               "sends it again once the database is writable") from None

    def retry(self) -> None:
        if self.unsaved is not None:
            text, self.unsaved = self.unsaved, None
            self.info(f"retrying: {sessions.title_from(text)}")
            self.send(text)
            return
        if self.session is None:
            raise MemchatError("nothing to retry")
        msgs = sessions.messages(self.db, self.session.id)
        if not msgs:
            raise MemchatError("nothing to retry")
        last = msgs[-1]
        if last.role == "assistant" and last.status in ("interrupted", "incomplete"):
            sessions.set_status(self.db, [last.id], "undone")
            user = next(m for m in reversed(msgs[:-1]) if m.role == "user")
        elif last.role == "user":
            user = last
        else:
            raise MemchatError("nothing to retry: the last reply is complete (use /undo, then ask again)")
        self.info(f"retrying: {sessions.title_from(user.content)}")
        session = self.session
        self._run_turn(lambda on_text: self.engine.answer(session, user, on_text, self.info))

    def undo(self) -> None:
        if self.session is None:
            raise MemchatError("nothing to undo")
        msgs = sessions.messages(self.db, self.session.id)
        if not msgs:
            raise MemchatError("nothing to undo")
        drop = [msgs[-1]]
        if msgs[-1].role == "assistant" and len(msgs) > 1 and msgs[-2].role == "user":
            drop.insert(0, msgs[-2])
        sessions.set_status(self.db, [m.id for m in drop], "undone")
        self.last_result = None
        self.info(f"undone: {sessions.title_from(drop[0].content)}")

    def _run_turn(self, call: Any) -> None:
        writer = render.ReplyWriter(markdown=self.settings.markdown and self.interactive)
        try:
            result = call(writer.write)
        finally:
            writer.close()
        self.last_result = result
        self.session = result.session
        if result.status == "interrupted":
            self.info("[interrupted: the partial reply was kept]" if result.reply_message
                      else "[interrupted before any reply; /retry resends your message]")
        if result.status in ("ok", "incomplete", "interrupted") and result.reply_message is not None:
            self._turns_since_capture += 1
            if self._turns_since_capture >= self.settings.get("memory.capture_every"):
                self.capture()
        if result.error is not None:
            self.error(f"{str(result.error).rstrip('.')}. Your message is saved; /retry resends it.")
        elif result.status == "ok" and self.interactive:
            r = result.reply
            usage = f"{r.input_tokens} in · {r.output_tokens} out · " if r.input_tokens is not None else ""
            self.info(f"{usage}{result.latency_ms / 1000:.1f} s")

    # --- loops ----------------------------------------------------------------------------
    def warm(self) -> None:
        """Open the database and import the provider SDK off the main thread."""
        if self._warmed:
            return
        self._warmed = True

        def work() -> None:
            try:
                self.db  # noqa: B018 - opening is the point
                if self.settings.provider == "anthropic":
                    import anthropic  # noqa: F401
                if self.use_memory:
                    self._loaded_embedder()
            except Exception as exc:  # noqa: BLE001 - the real use reports errors in the foreground
                from memchat.log import get_logger

                get_logger().warning("warm-up failed: %s", exc)

        threading.Thread(target=work, name="memchat-warm", daemon=True).start()

    def run(self) -> int:
        try:
            if self.interactive:
                self._interactive_loop()
            else:
                self._pipe_loop()
        finally:
            self.end()
        return 0

    def _pipe_loop(self) -> None:
        for line in sys.stdin:
            self._handle_safely(line.rstrip("\n"))
            if not self.running:
                break

    def _interactive_loop(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.completion import DynamicCompleter, ThreadedCompleter
        from prompt_toolkit.history import FileHistory

        from memchat.completer import SlashCompleter
        from memchat.keybindings import build_key_bindings
        from memchat.toolbar import toolbar_text

        self.completer = SlashCompleter(self)
        prompt = PromptSession(
            history=FileHistory(str(_history_file())),
            completer=ThreadedCompleter(DynamicCompleter(lambda: self.completer)),
            complete_while_typing=True,
            auto_suggest=AutoSuggestFromHistory(),
            key_bindings=build_key_bindings(),
            bottom_toolbar=lambda: toolbar_text(self),
            enable_open_in_editor=True,
            multiline=False,
        )
        if self.session is None:
            self.info("memchat · /help for commands · Ctrl-D to quit")
        while self.running:
            try:
                line = prompt.prompt(PROMPT, pre_run=self.warm)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                self._handle_safely(line)
            except KeyboardInterrupt:
                self.info("[interrupted]")

    def _handle_safely(self, line: str) -> None:
        try:
            self.handle(line)
        except Exception as exc:  # noqa: BLE001 - a bug must not end the chat (the message is on disk)
            from memchat.log import internal_error

            self.error(internal_error(exc))

    def end(self) -> None:
        """Session end: capture what is left (visibly, Ctrl-C skips it), then the hooks."""
        self.capture(final=True)
        if self._worker is not None and self._worker.pending:
            self._wait_for_capture()
        for hook in list(SESSION_END_HOOKS):
            try:
                hook(self)
            except KeyboardInterrupt:
                self.info("[skipped the rest of the session-end work]")
                break
            except MemchatError as exc:
                self.error(exc.message)


    def _wait_for_capture(self) -> None:
        import time

        started = time.monotonic()
        try:
            if self.interactive:
                with render.err().status("saving memories from this session… (Ctrl-C skips; it is retried next time)"):
                    self._worker.drain()
            else:
                self._worker.drain()
        except KeyboardInterrupt:
            self.info("[skipped saving memories; they are captured next time]")
            return
        if self.interactive and time.monotonic() - started > 0.5:
            self.info("memories saved")


SESSION_END_HOOKS: list[Any] = []


def _can_extract(settings: Any) -> bool:
    from memchat.providers import get_provider

    # The echo provider cannot call tools: capture would only fail and retry.
    return bool(getattr(get_provider(settings.provider, settings), "can_call_tools", False))


def _history_file() -> Any:
    from memchat.config import state_dir

    from memchat.files import touch_private

    return touch_private(state_dir() / "history")


def run_repl(st: AppState, *, session: str | None, continue_: bool, use_memory: bool = True) -> None:
    from memchat.cli_ask import stdin_is_tty
    from memchat.errors import UsageError

    if session and continue_:
        raise UsageError("use either --session or --continue, not both")
    repl = Repl(st, interactive=stdin_is_tty() and render.stdout_is_tty(), use_memory=use_memory)
    if session:
        repl.resume(session)
    elif continue_:
        latest = sessions.latest_session(repl.db)
        if latest is None:
            raise UsageError("there is no session to continue yet")
        repl.resume(latest.id)
    repl.run()
