"""One open profile: settings, the database, the provider, the embedding model, memory on or off.

Every per-profile decision is made here, once, lazily: which provider and encoder, whether
memory is read and written, how what was written is embedded. memchat.app.Memchat adds the
services (chat, memories, capture, privacy) that hold it; a chat turn (memchat.app.turn)
receives it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from memchat import tokens, usage, when
from memchat.config import Settings, load_settings, state_dir
from memchat.db import open_db, runtime_failure
from memchat.encryption import is_encrypted, shred
from memchat.errors import MemchatError, StoreError
from memchat.files import open_access
from memchat.log import get_logger
from memchat.providers import get_provider

if TYPE_CHECKING:
    from memchat.compaction import Compactor
    from memchat.db import Database
    from memchat.memory.recall.embed import Embedder
    from memchat.memory.store.memories import MemoryStore
    from memchat.providers import Provider


Notice = Callable[[str], None]
Progress = Callable[[int, int], None]


@dataclass
class Offered:
    """What one provider's server offers (`memchat models`)."""

    provider: str
    url: str
    models: list[str] | None = None  # None: the server could not say (see error)
    error: str | None = None
    roles: dict[str, list[str]] = field(default_factory=dict)  # model -> the roles that use it


class Profile:
    """One profile, open for use: what every use case needs."""

    def __init__(
        self,
        settings: Settings,
        *,
        config_path: str | None = None,
        use_memory: bool = True,
        provider: Provider | None = None,
        lazy_encoder: bool = False,
        db: Database | None = None,
    ) -> None:
        """
        Args:
            settings: the resolved settings (see `Memchat.load`).
            config_path: the config file given explicitly, passed on to background processes.
            use_memory: False reads and writes no long-term memory (--no-memory).
            provider: a provider object to use instead of the configured one (tests, embedding).
            lazy_encoder: chat turns search memory by full text until the encoder has loaded
                in the background (the REPL), instead of waiting for it.
            db: an open database to use instead of opening settings.db_path (tests, benchmarks).
        """
        self.settings = settings
        self.config_path = config_path
        self.use_memory = use_memory
        self.lazy_encoder = lazy_encoder
        self._provider = provider
        self._memory_provider: Provider | None = None
        self._db: Database | None = db
        self._db_lock = threading.Lock()
        self._workers: list[threading.Thread] = []  # background threads that may use the connection
        self._compactor: Compactor | None = None
        # The audit lines held by `audit_if_done` (the thread holding them, and the lines).
        self._held: tuple[int, list[tuple[str, object, str]]] | None = None
        self._told_fts_only = False
        self._told: set[str] = set()  # notices said once per run (tell_once)
        self.on_warning: Notice | None = None  # a shell's way to say what is wrong but not fatal
        self.capture_on = use_memory and bool(settings.get("memory.capture"))
        self.turns_since_capture = 0
        self.preparing: str | None = None  # the encoder's one-time preparation, while it runs in the background
        # told, from a background thread, when what a shell shows of the background work changed (the
        # encoder is ready, capture is done): the REPL redraws its toolbar then, not at the next key
        self.on_status_change: Callable[[], None] | None = None

    def memory_off(self) -> None:
        """Neither read nor write long-term memory for the rest of this run (--no-memory)."""
        self.use_memory = self.capture_on = False

    @classmethod
    def load(
        cls, config_path: str | None = None, *, use_memory: bool = True, lazy_encoder: bool = False, **flags: Any
    ) -> Self:
        """Resolve settings (defaults < config file < MEMCHAT_* < these flags) and open the profile lazily."""
        settings = load_settings(config_path).with_overrides(**flags)
        return cls(settings, config_path=config_path, use_memory=use_memory, lazy_encoder=lazy_encoder)

    def configure(self, **overrides: Any) -> None:
        """Change settings for the rest of this run (e.g. /model, or `ask --model`)."""
        if not any(v is not None for v in overrides.values()):
            return
        self.settings = self.settings.with_overrides(**overrides)
        self._compactor = None
        self._memory_provider = None
        if overrides.get("provider") is not None:
            self._provider = None

    # --- what the use cases need --------------------------------------------------------------
    @property
    def db(self) -> Database:
        with self._db_lock:  # the REPL opens it in a background thread while the user types
            if self._db is None:
                self._db = open_db(self.settings.db_path)
                self._warn_about_access()
                from memchat.memory.forget import scrub

                if scrub.pending(self._db):  # a forget that was cut short: finish it before anything else
                    try:
                        scrub.finish(self._db)
                    except StoreError as exc:  # a full disk: it stays recorded; the next open with room finishes it
                        get_logger().warning("a forget's scrub is owed: %s", exc.message)
                if interrupted_capture(self._db):  # a capture killed while it stored: its check, now
                    from memchat.memory.capture.turns import finish_interrupted

                    finish_interrupted(self._db)
                if self.encrypted and self.history_to_scrub.exists():  # left by an encrypt cut short
                    shred(self.history_to_scrub)
                from memchat.privacy import consent

                said = consent(self._db)
                if said is not None and not said.capture:  # the user said no when asked: no capture
                    self.capture_on = False
        return self._db

    @property
    def db_if_open(self) -> Database | None:
        """The database when it is open already (a toolbar drawn while it opens must not wait)."""
        return self._db

    @property
    def store(self) -> MemoryStore:
        """The memories, one by one (memchat.memory.store: get, find, edit, pin, confirm ...)."""
        from memchat.memory.store.memories import MemoryStore

        return MemoryStore(self.db)

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = get_provider(self.settings.provider, self.settings)
            self._provider.on_usage = self._record_usage
        return self._provider

    @property
    def memory_provider(self) -> Provider:
        """The provider of memory work (capture, its decisions and summaries, compaction): the chat's
        own unless memory.provider names another."""
        name = self.settings.roles()[1].provider
        if name == self.settings.provider:
            return self.provider
        if self._memory_provider is None:
            self._memory_provider = get_provider(name, self.settings)
            self._memory_provider.on_usage = self._record_usage
        return self._memory_provider

    def offered_models(self) -> list[Offered]:
        """Each server the roles use, the models it offers (`/v1/models`), and which role uses which."""
        found: dict[str, Offered] = {}
        for role in self.settings.roles():
            if role.provider not in found:
                provider = self.provider if role.provider == self.settings.provider else self.memory_provider
                offered = Offered(role.provider, role.url)
                try:
                    provider.ready()
                    offered.models = provider.models()
                except MemchatError as exc:
                    offered.error = exc.message
                found[role.provider] = offered
            found[role.provider].roles.setdefault(role.model or "(memory.model not set)", []).append(role.name)
        return list(found.values())

    def usage(self, *, since: str | None = None, session_id: int | None = None) -> list[Any]:
        """Calls, tokens and cost by day, model and purpose (memchat.usage.Total)."""

        return usage.totals(
            self.db,
            since=when.since(since) if since is not None else None,
            session_id=session_id,
            prices=self.settings.prices,
        )

    def record(self, action: str, detail: object = "", origin: str = "user") -> None:
        """One line of the audit trail (`memchat audit`): exports, imports, deletes, purges; held
        while this thread is in `audit_if_done`."""
        held = self._held
        if held is not None and held[0] == threading.get_ident():
            held[1].append((action, detail, origin))
            return
        from memchat.privacy import record

        record(self.db, action, origin, detail)

    @contextlib.contextmanager
    def audit_if_done(self) -> Iterator[None]:
        """What the block records enters the audit trail only if the block completes: an export
        that was refused (the file exists) or failed (cannot be written) wrote nothing, and is
        not recorded as an export.

            with app.audit_if_done():
                write_private(path, app.chat.export_session(session_id, "md", to=path))
        """
        outer = self._held
        lines: list[tuple[str, object, str]] = []
        self._held = (threading.get_ident(), lines)
        try:
            yield
        finally:
            self._held = outer
        for action, detail, origin in lines:  # reached only when the block completed
            self.record(action, detail, origin)

    def _record_usage(self, request: Any, model: str, input_tokens: int, output_tokens: int) -> None:

        usage.record(self.db, model, request.purpose, input_tokens, output_tokens, request.session_id)

    @property
    def compactor(self) -> Compactor:
        """Folds a session's older turns into its summary, through the memory provider."""
        if self._compactor is None:
            from memchat.compaction import Compactor

            self._compactor = Compactor(
                self.db,
                self.settings,
                lambda: self.memory_provider,  # compaction is memory work
                lambda session: session.system or self.settings.system,
                lambda: tokens.load_factor(self.db, self.settings.model),
            )
        return self._compactor

    def close(self) -> None:
        """Close the database (checkpointing the WAL). Safe to call twice."""
        if self._db is not None:
            try:
                self._db.close()
            except Exception:  # noqa: BLE001 - closing on the way out; SQLite recovers the WAL on next open
                pass
            self._db = None
            self._compactor = None  # it holds the connection

    def _warn_about_access(self) -> None:
        """Say once when the database, or the directory it is in, can be read by others."""

        path = self.settings.db_path
        for target in (path.parent, path):
            warning = open_access(target)
            if warning and self.on_warning:
                self.on_warning(warning)

    def private_paths(self) -> list[Path]:
        """Where this profile's private data lives: the database (and its WAL), the vector copy,
        the input history, the config file, and the directories that hold them."""

        db = self.settings.db_path
        history = state_dir() / f"history-{self.settings.profile_key}"  # looked at, not created
        files = [db, Path(f"{db}-wal"), Path(f"{db}.vectors"), history, self.settings.config_path]
        dirs = [db.parent, state_dir(), self.settings.config_path.parent]
        return [p for p in dict.fromkeys([*dirs, *files]) if p.exists()]

    def access_warnings(self) -> list[str]:
        """One line for each private file or directory that others can read or write into."""

        return [w for p in self.private_paths() if (w := open_access(p))]

    def unfinished_work(self) -> dict[str, int]:
        """What a kill left to finish: forget scrubs owed (finished on open) and imports cut short."""
        from memchat.memory.forget import scrub

        conn = self.db.conn
        return {
            "pending_scrubs": scrub.pending(self.db),
            "interrupted_imports": conn.execute("SELECT count(*) FROM sessions WHERE importing = 1").fetchone()[0],
        }

    @property
    def encrypted(self) -> bool:
        """Whether this profile's database is encrypted (its first bytes; opens nothing)."""

        return is_encrypted(self.settings.db_path)

    @property
    def history_path(self) -> Path:
        """This profile's REPL input history (0600); forgetting scrubs it."""
        from memchat.history import history_file

        return history_file(self.settings.profile_key)

    def scrub_history_of(self, said: Callable[[], list[tuple[str, str | None]]]) -> list[tuple[str, str | None]]:
        """Remove from the input history every line that says one of these (text, value) pairs
        (computed only when there is a history to scrub); returns them."""
        from memchat import history
        from memchat.memory.forget.redact import Forgotten as Target
        from memchat.memory.forget.redact import Redactor

        if not history.has_entries(self.history_to_scrub):
            return []
        pairs = said()
        if pairs:
            redactor = Redactor(Target(text, value) for text, value in pairs)
            history.scrub(self.history_to_scrub, lambda line: bool(redactor.redact(line)[1]))
        return pairs

    @property
    def history_to_scrub(self) -> Path:
        """The same file, not created when there is none (forgetting writes no empty history)."""
        from memchat.history import location

        return location(self.settings.profile_key)

    # --- the embedding model ------------------------------------------------------------------
    def embedder(self, on_prepare: Notice | None = None) -> Embedder:
        """The configured encoder, loaded once per process (on_prepare hears of a one-time preparation)."""
        from memchat.memory.recall.embed import configured

        return configured(self.settings, note=on_prepare)

    def embedder_alongside(self, work: Callable[[], object], on_prepare: Notice | None = None) -> Embedder:
        """The encoder, loaded in a thread while `work` runs here: a fresh `recall` opens the
        database and maps the vectors while onnxruntime loads (SQLite, file reads and the ONNX
        session release the GIL)."""

        if self.embedder_loaded():
            work()
            return self.embedder(on_prepare)
        loaded: list[Embedder] = []
        failed: list[BaseException] = []

        def load() -> None:
            try:
                loaded.append(self.embedder(on_prepare))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
                failed.append(exc)

        thread = self._start(threading.Thread(target=load, name="memchat-encoder", daemon=True))
        try:
            work()
        finally:
            thread.join()
        if failed:
            raise failed[0]
        return loaded[0]

    def load_in_background(self) -> None:
        """Load the tokenizer, and with memory on the encoder, in threads of their own: a fresh
        `ask` opens its session and starts its turn meanwhile (the ONNX session and SQLite release
        the GIL). Never the encoder's one-time preparation: that one says so in the foreground."""
        from memchat.memory.recall import onnx_embed

        jobs: list[Callable[[], object]] = [tokens.prepare]
        name = self.settings.get("memory.embedding_model")
        if self.use_memory and self.settings.get("memory.encoder") != "torch" and onnx_embed.ready(name):
            # Only when there is something to search (a new profile's first turns load no model).
            if self.db.conn.execute(
                "SELECT EXISTS(SELECT 1 FROM memories WHERE status = 'active') OR EXISTS(SELECT 1 FROM messages)"
            ).fetchone()[0]:
                jobs.append(self.embedder)
        for job in jobs:
            self._start(threading.Thread(target=_quietly, args=(job,), name="memchat-preload", daemon=True))

    def preload_vectors(self) -> None:
        """Open the database and map the configured model's vectors (kept in this process)."""
        from memchat.memory.recall import index
        from memchat.memory.recall.models import canonical_name

        model = canonical_name(self.settings.get("memory.embedding_model"))
        for which in ("memories", "messages"):
            index.vector_set(self.db, which, model)

    def embed_written(
        self,
        memory_ids: tuple[int, ...] | list[int] = (),
        message_ids: tuple[int, ...] | list[int] = (),
        *,
        after_turn: bool = False,
    ) -> None:
        """Embed what was just stored, so no search has to (the one place that does).

        After a chat turn (with memory on): only with the encoder loaded already, and with it a
        small backlog other processes left. Otherwise with the encoder loaded, or ready to load
        (~0.2 s); never the one-time preparation (then the next catch-up does it). With no ids
        (a bulk write, an import of memories): everything without a vector."""
        from memchat.memory.recall import index
        from memchat.memory.recall.search import CATCH_UP

        if after_turn:
            if not (self.use_memory and self.embedder_loaded()):
                return
        elif not self.encoder_prepared():
            return
        try:
            embedder = self.embedder()
            if memory_ids or message_ids:
                index.embed_messages(self.db, embedder, list(message_ids), memory_ids=memory_ids)
            if after_turn:
                index.catch_up(self.db, embedder, limit=CATCH_UP)
            elif not (memory_ids or message_ids):
                index.catch_up(self.db, embedder)
        except MemchatError as exc:  # a full disk or a long lock: the next catch-up does it
            get_logger().warning("could not embed what was stored: %s", exc.message)

    def embedder_loaded(self) -> bool:
        from memchat.memory.recall.embed import is_loaded

        return is_loaded(self.settings.get("memory.embedding_model"))

    def encoder_prepared(self) -> bool:
        """Whether the encoder loads without its one-time preparation: loaded already, or
        onnxruntime's with its ONNX export done (seconds of torch)."""
        from memchat.memory.recall import onnx_embed

        name = self.settings.get("memory.embedding_model")
        return self.embedder_loaded() or (self.settings.get("memory.encoder") != "torch" and onnx_embed.ready(name))

    def judging_prepared(self) -> bool:
        """Whether judging by meaning needs no one-time preparation: the encoder's (encoder_prepared)
        and the topic model's examples embedded (~2 s)."""
        from memchat.memory.judge import topics
        from memchat.memory.recall.models import canonical_name

        name = canonical_name(self.settings.get("memory.embedding_model"))
        return self.encoder_prepared() and topics.is_cached(name)

    def encoder_is_light(self) -> bool:
        """Whether the encoder loads in a fraction of a second: loaded already, or onnxruntime's
        (its one-time preparation aside), not sentence-transformers and torch (seconds, every process)."""
        from memchat.memory.recall import onnx_embed

        name = self.settings.get("memory.embedding_model")
        return self.embedder_loaded() or (
            self.settings.get("memory.encoder") != "torch" and not onnx_embed.failed(name)
        )

    def turn_embedder(self, on_notice: Notice | None = None) -> Embedder | None:
        """A chat turn's encoder: with lazy_encoder, full-text search until it has loaded (said once)."""
        if not self.lazy_encoder or self.embedder_loaded():
            return self.embedder(on_notice)
        if not self._told_fts_only and on_notice:
            self._told_fts_only = True
            on_notice("(the encoder is still loading: this message searched memory by full text only)")
        return None

    def tell_once(self, on_notice: Notice | None, text: str) -> None:
        """A notice said once per run, however many turns meet its cause."""
        if on_notice and text not in self._told:
            self._told.add(text)
            on_notice(text)

    def status_changed(self) -> None:
        if self.on_status_change is not None:
            self.on_status_change()

    def warm_up(self) -> None:
        """Open the database, import the provider SDK and load the encoder in a background thread."""

        def preparing(text: str) -> None:
            self.preparing = text  # the REPL's toolbar says so while it runs

        def work() -> None:
            try:
                self.db  # noqa: B018 - opening is the point
                self.after_open()
                if self.settings.provider in ("anthropic", "openai"):
                    self.provider.warm()  # the SDK and its HTTP client, ready before the first message
                if self.use_memory:
                    try:
                        self.embedder(preparing)
                    finally:
                        self.preparing = None
                        self.status_changed()
                self.after_warm_up()
            except Exception as exc:  # noqa: BLE001 - the real use reports errors in the foreground
                get_logger().warning("warm-up failed: %s", exc)

        self._start(threading.Thread(target=work, name="memchat-warm", daemon=True))

    def _start(self, thread: threading.Thread) -> threading.Thread:
        self._workers.append(thread)
        thread.start()
        return thread

    def busy(self) -> bool:
        """Whether a background thread of this run (warm-up, preloading, the encoder) is still at work,
        and so may be using the connection."""
        return any(t.is_alive() for t in self._workers)

    @contextlib.contextmanager
    def side_connection(self) -> Iterator[Database]:
        """A connection of its own, for a background thread: the profile's connection serves the
        chat, and one sqlite3 connection must not run two threads' statements at once."""

        own = open_db(self.settings.db_path)
        try:
            yield own
        finally:
            own.close()

    def learning_agreed(self) -> bool:
        """Whether what is said now may be learnt by a later capture (memchat.app.Memchat: memory
        and capture on, and the person's yes). A bare profile has no one's yes."""
        return False

    def after_open(self) -> None:
        """What a fresh interactive run does as soon as the profile is open (in the warm-up thread)."""

    def after_warm_up(self) -> None:
        """What else a fresh interactive run does in the background (the capture mixin resumes
        captures a dead process left)."""

    # --- where things are ---------------------------------------------------------------------
    @property
    def db_path(self) -> Path:
        return self.settings.db_path


def _quietly(job: Callable[[], object]) -> None:
    """A head start only: a failure here is met, and reported, where the result is used."""
    with contextlib.suppress(Exception):
        job()


def where_to(target: str | None) -> str:
    """Where an export went, for the audit trail: standard output or a file, never the file's name
    (the trail cannot be forgotten, and a name can say what a memory said)."""
    return "stdout" if not target or target == "-" else "a file"


def known_failure(exc: BaseException, path: Path | str) -> MemchatError | None:
    """A database error met while working (damaged, busy, full, read-only), in one line; None for a
    bug. The shells ask here rather than read sqlite errors themselves."""

    return runtime_failure(exc, path)


def interrupted_capture(db: Database) -> bool:
    """Whether a capture was killed while it stored (memchat.memory.capture.turns.STORING): one
    indexed read at every open, so the capture's modules load only when there is one to finish."""
    row = db.conn.execute("SELECT 1 FROM profile_settings WHERE name LIKE 'capture.storing.%' LIMIT 1").fetchone()
    return row is not None
