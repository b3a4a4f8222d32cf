"""The chat REPL: a prompt-toolkit loop on a terminal, one message per line in a pipe.

The REPL is a shell over the application (`Memchat`): it reads a line, runs a slash command
or sends the message, and prints what comes back. The prompt is drawn first; the database,
the provider SDK and the encoder are warmed in a background thread started from the
prompt's pre_run hook, and until the encoder is ready a message searches memory by full text.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memchat.app.profile import known_failure
from memchat.errors import (
    MAX_MESSAGE_CHARS,
    ExitCode,
    MemchatError,
    StoreError,
    UnsavedMessageError,
    UsageError,
    require_unicode,
)
from memchat.files import bounded_lines
from memchat.log import internal_error
from memchat.repl import registry
from memchat.repl.keybindings import build_key_bindings
from memchat.repl.toolbar import toolbar_text
from memchat.sessions import parse_session_id, title_from
from memchat.signals import Terminated, ending_with, terminated
from memchat.text import is_blank, redact_secrets, sanitize
from memchat.ui import console
from memchat.ui.stream import ReplyWriter
from memchat.ui.terminal import Environment, keys_not_echoed, too_long
from memchat.usage import cost, dollars

if TYPE_CHECKING:
    from memchat.app import Memchat
    from memchat.app.turn import TurnResult
    from memchat.attachments import Attachment
    from memchat.sessions import Session

PROMPT = "› "
RECENT_TURNS = 3


class Repl:
    def __init__(self, app: Memchat, *, interactive: bool, env: Environment | None = None) -> None:
        self.app = app
        self.interactive = interactive
        self.env = env  # None: this process's own terminal
        self.session: Session | None = None
        self.running = True
        self.last_result: TurnResult | None = None
        self._warmed = False
        self.unsaved: str | None = None  # a message the database could not store
        self.attached: list[Attachment] = []  # files for the next message (/attach)
        self.failures = 0  # lines that ended in an error: a piped chat then exits 1
        self.session_had_memory_off_note = False

    # --- state ----------------------------------------------------------------------------
    @property
    def settings(self) -> Any:
        return self.app.settings

    def new_session(self) -> None:
        self.app.capture.capture_in_background(self.session, final=True)
        self.session = None
        self.last_result = None

    def ensure_session(self) -> Session:
        if self.session is not None and not self.app.chat.still_there(self.session):
            # deleted in another terminal: every message would fail on it, and /retry with them
            self.info(f"session {self.session.id} was deleted elsewhere; this message starts a new one")
            self.session, self.last_result = None, None
        if self.session is None:
            self.session = self.app.chat.new_session()
        return self.session

    def resume(self, session_id: str | int) -> None:
        target = self.app.chat.session(session_id)
        if self.session is not None and self.session.id != target.id:
            self.app.capture.capture_in_background(self.session, final=True)
        self.session = self.app.chat.enter(target)
        if target.memory_off and not self.session_had_memory_off_note:
            self.session_had_memory_off_note = True
            self.info("this session was run with --no-memory: memory stays off in it")
        self.last_result = None
        self.info(f"resumed session {self.session.id}: {self.session.title or '(untitled)'}")
        self.show_recent()

    def context_tokens(self) -> int:
        r = self.last_result
        if r is None or r.reply.input_tokens is None:
            return 0
        return (r.reply.input_tokens or 0) + (r.reply.output_tokens or 0)

    def memory_status(self) -> str:
        if not self.app.use_memory:
            return "memory off"
        status = "memory on" if self.app.capture.can_capture else "capture off"
        if self.app.capture.capture_pending:
            status += " · saving…"
        return status

    # --- output ---------------------------------------------------------------------------
    def say(self, text: str) -> None:
        console.say(text)

    def info(self, text: str) -> None:
        console.say(text, style="dim")

    def error(self, text: str) -> None:
        self.failures += 1
        console.error_line(text)

    def show_recent(self) -> None:
        if self.session is None:
            return
        msgs = [m for m in self.app.chat.messages(self.session) if m.content.strip()]
        recent = msgs[-2 * RECENT_TURNS :]
        if len(msgs) > len(recent):
            self.info(f"… {len(msgs) - len(recent)} earlier messages")
        for m in recent:
            if m.role == "user":
                self.say(f"you: {m.content}")
            else:
                writer = ReplyWriter(markdown=self.settings.markdown and self.interactive)
                writer.write(m.content)
                writer.close()
                if m.status != "ok":
                    self.info(f"[{m.status}]")

    # --- one line of input ----------------------------------------------------------------
    def handle(self, line: str) -> None:
        text = line.rstrip()
        if is_blank(text):
            return  # (a line of zero-width spaces is as empty as one of spaces)
        try:
            require_unicode(text, "this line")
            parsed = registry.parse(text.lstrip() if text.lstrip().startswith("/") else text)
            if parsed:
                cmd, arg = parsed
                cmd.handler(self, arg)
            else:
                self.send(text[1:] if text.startswith("//") else text)
        except MemchatError as exc:
            self.error(exc.message)

    def send(self, text: str) -> None:
        attached, self.attached = self.attached, []  # they go with this message
        try:
            try:
                session = self.ensure_session()
            except StoreError as exc:
                raise UnsavedMessageError(exc) from None
            self._run_turn(lambda on_text: self.app.chat.send(session, text, on_text, self.info, attached))
        except UsageError:
            self.attached = attached  # refused before it was stored (too large, no images here): still attached
            raise
        except UnsavedMessageError as exc:
            # The database refused the write (locked, read-only, disk full): keep the words in memory.
            self.unsaved, self.attached = text, attached
            raise MemchatError(
                f"{exc.message}; it is kept here and /retry sends it again once the database is writable"
            ) from None
        except StoreError as exc:  # after the message was stored (storing the reply, say)
            raise MemchatError(f"{exc.message.rstrip('.')}. Your message is saved; /retry resends it") from None

    def retry(self) -> None:
        if self.unsaved is not None:
            text, self.unsaved = self.unsaved, None
            self.info(f"retrying: {title_from(text)}")
            self.send(text)
            return
        if self.session is None:
            raise MemchatError("nothing to retry")
        session = self.session
        self._run_turn(lambda on_text: self.app.chat.retry(session, on_text, self.info))

    def undo(self) -> None:
        if self.session is None:
            raise MemchatError("nothing to undo")
        dropped = self.app.chat.undo(self.session)
        self.last_result = None
        self.info(f"undone: {title_from(dropped[0].content)}")

    def _run_turn(self, call: Callable[[Callable[[str], None]], TurnResult]) -> None:
        writer = ReplyWriter(markdown=self.settings.markdown and self.interactive)
        if self.interactive:
            writer.waiting()
        try:
            with keys_not_echoed() if self.interactive else contextlib.nullcontext():
                result = call(writer.write)
        finally:
            writer.close()
        for line in result.notes:  # after the reply: never inside its live region
            self.info(line)
        self.last_result = result
        self.session = result.session
        if result.status == "interrupted":
            self.info(
                "[interrupted: the partial reply was kept]"
                if result.reply_message
                else "[interrupted before any reply; /retry resends your message]"
            )
        self.app.capture.after_turn(result.session, result)
        if result.error is not None:
            self.error(f"{str(result.error).rstrip('.')}. Your message is saved; /retry resends it.")
        elif result.status == "ok" and self.interactive:
            from memchat.ui.tables import memory_so_far

            r = result.reply
            billed = self.app.provider.real_usage  # echo counts words: no tokens, no price
            usage = (
                f"{r.input_tokens:,} in · {r.output_tokens:,} out · " if billed and r.input_tokens is not None else ""
            )
            spent = cost(
                r.model or self.settings.model, r.input_tokens or 0, r.output_tokens or 0, self.settings.prices
            )
            price = f"{dollars(spent)} · " if spent is not None and billed else ""
            memory = memory_so_far(self.app.capture.memory_spent(result.session))  # capture runs after replies
            self.info(f"{usage}{price}{result.latency_ms / 1000:.1f} s" + (f" · {memory}" if memory else ""))

    # --- loops ----------------------------------------------------------------------------
    def warm(self) -> None:
        """Open the database and import the provider SDK off the main thread (once)."""
        if not self._warmed:
            self._warmed = True
            self.app.warm_up()

    def run(self) -> int:
        """Chat until the end of input; the exit code: a script learns that a message failed."""
        try:
            if self.interactive:
                self._interactive_loop()
            else:
                self._pipe_loop()
        finally:
            self.end()
        if terminated():
            return ExitCode.TERMINATED
        return ExitCode.FAILURE if self.failures and not self.interactive else ExitCode.OK

    def _pipe_loop(self) -> None:
        lines = self.env.stdin if self.env else sys.stdin
        if lines is None:  # stdin closed (`memchat <&-`): no input, as an empty pipe
            return
        for line in bounded_lines(lines, MAX_MESSAGE_CHARS):
            if line is None:
                self.error(too_long("a line of input"))
            else:
                self._handle_safely(line)
            if not self.running or terminated():
                break

    def _interactive_loop(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.completion import DynamicCompleter, ThreadedCompleter
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        from memchat.repl.completer import SlashCompleter

        class KeylessFileHistory(FileHistory):
            """The input history file, with any API key pasted at the prompt taken out (as the message is)."""

            def store_string(self, string: str) -> None:
                super().store_string(redact_secrets(string))

        self.completer = SlashCompleter(self)
        prompt: PromptSession[str] = PromptSession(
            history=self._input_history(KeylessFileHistory, InMemoryHistory),
            completer=ThreadedCompleter(DynamicCompleter(lambda: self.completer)),
            complete_while_typing=True,
            auto_suggest=AutoSuggestFromHistory(),
            key_bindings=build_key_bindings(),
            bottom_toolbar=lambda: toolbar_text(self),
            enable_open_in_editor=True,
            multiline=False,
            input=self.env.keys if self.env else None,
            output=self.env.screen if self.env else None,
        )
        self.app.on_status_change = prompt.app.invalidate  # the toolbar follows the encoder's preparation and capture
        if self.session is None:
            console.dim_line("memchat · /help for commands · Ctrl-D to quit")
        while self.running and not terminated():
            try:
                with ending_with(lambda: _end_prompt(prompt)):
                    line = prompt.prompt(PROMPT, pre_run=self.warm)
            except Terminated:
                break
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                self._handle_safely(line)
            except KeyboardInterrupt:
                self.info("[interrupted]")

    def _input_history(self, on_disk: Any, in_memory: Any) -> Any:
        """The profile's input history file; for this run only when the profile is encrypted (no
        plaintext file) or the state directory cannot be written (said once, the chat goes on)."""
        if self.app.encrypted:
            return in_memory()
        try:
            path = self.app.history_path
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            where = exc.filename or "the state directory"
            self.error(f"the input history is kept for this chat only: cannot write {where} ({exc.strerror})")
            return in_memory()
        return on_disk(str(path))

    def _handle_safely(self, line: str) -> None:
        try:
            self.handle(line)
        except Exception as exc:  # noqa: BLE001 - a bug must not end the chat (the message is on disk)
            known = known_failure(exc, self.app.settings.db_path)
            self.error(known.message if known is not None else internal_error(exc))

    def end(self) -> None:
        """Session end: what is left to capture goes to a detached process; quitting never waits."""
        try:
            if self.app.capture.end_session(self.session) and self.interactive:
                self.info("memories from this session are saved in the background")
        except MemchatError as exc:  # a database gone read-only: the next run catches up
            self.error(exc.message)


def _end_prompt(prompt: Any) -> bool:
    """End a running prompt as Ctrl-D would (from a signal handler: through the loop, thread-safe)."""
    application = prompt.app
    loop = getattr(application, "loop", None)
    if not application.is_running or loop is None:
        return False  # not started yet, or done: the plain exception is safe there

    def end() -> None:
        if application.future is not None and not application.future.done():
            application.exit(exception=EOFError())

    loop.call_soon_threadsafe(end)
    return True


def run_repl(app: Memchat, *, session: str | None, continue_: bool, env: Environment | None = None) -> int:
    """Chat on `env` (this process's terminal unless a caller, such as a test, passes another)."""
    if session is not None and continue_:
        raise UsageError("use either --session or --continue, not both")
    if session is not None:
        parse_session_id(session)  # "" a script left empty is refused, never a new session
    env = env or Environment.from_process()
    interactive = env.interactive
    if not interactive:
        app.provider.ready()  # a script without a key fails once, before reading a line or storing one
    app.lazy_encoder = interactive
    repl = Repl(app, interactive=interactive, env=env)
    if (
        interactive
        and app.use_memory
        and app.settings.sources["memory.capture"] == "default"
        and app.privacy.consent() is None
    ):
        ask_consent(app)  # a config or MEMCHAT_MEMORY_CAPTURE that says it has already decided
    if session is not None:
        repl.resume(session)
    elif continue_:
        latest = app.chat.latest_session()
        if latest is None:
            raise UsageError("there is no session to continue yet")
        repl.resume(latest.id)
    return repl.run()


def ask_consent(app: Memchat, *, interruptible: bool = False) -> None:
    """The first chat on a profile says what memchat keeps and asks once whether to learn from
    chats (Enter: yes). The answer is the profile's; Ctrl-C or Ctrl-D leaves it unasked, and with
    `interruptible` (an `ask` asking before it sends) Ctrl-C also cancels what asked."""
    where = sanitize(str(app.settings.db_path))
    console.note(
        "memchat keeps your conversations and learns from them: facts, events and rules it brings back "
        f"when they help. All of it stays in {where}, readable by you alone.\n"
        "Review it with `memchat memories list`, forget with `memchat memories forget`, turn learning "
        "off any time with `memchat consent no` (or /capture off for one chat)."
    )
    try:
        answer = input("Learn memories from your chats? [Y/n] ").strip().lower()
        while answer not in ("", "y", "yes", "n", "no"):  # "maybe" is not an answer: ask again
            answer = input("Please answer y or n: ").strip().lower()
    except (EOFError, KeyboardInterrupt) as exc:
        console.note("\nnot answered: asked again next time")
        if interruptible and isinstance(exc, KeyboardInterrupt):
            raise
        return
    app.privacy.set_consent(answer in ("", "y", "yes"))
    if not app.privacy.consent_capture():
        console.note("memory capture off: conversations are saved, nothing is learnt")
    elif app.memory_provider.can_call_tools:
        console.note("memory capture on")
    else:
        console.note(f"memory capture on (with Claude: the {app.memory_provider.name} provider learns nothing)")
