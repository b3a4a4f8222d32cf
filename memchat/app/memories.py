"""Long-term memory's use cases: recall, remember, edit, pin, forget, review, import and export."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memchat import sessions
from memchat.app.profile import Notice, Profile, Progress, known_failure, where_to
from memchat.errors import MemchatError, UsageError
from memchat.log import get_logger

if TYPE_CHECKING:
    from memchat.importer import ImportResult
    from memchat.memory.forget.erase import Forgotten
    from memchat.memory.recall.index import ReindexResult
    from memchat.memory.recall.search import Hit
    from memchat.memory.store.memories import Memory
    from memchat.memory.store.transfer import ImportResult as MemoryImportResult


@dataclass
class Remembered:
    memory: Memory
    replaced: list[Memory] = field(default_factory=list)  # the memories it superseded
    existed: bool = False  # it was already there: nothing was added

    @property
    def too_long_to_send(self) -> bool:
        return too_long_to_send(self.memory)


def too_long_to_send(m: Memory) -> bool:
    """memchat.memory.store.memories.too_long_to_send, for the shells."""
    from memchat.memory.store.memories import too_long_to_send as rule

    return rule(m)


def unsent_note(m: Memory) -> str | None:
    """The one line a shell shows when a memory it wrote is too long to send unasked (else None)."""
    if not too_long_to_send(m):
        return None
    return (
        f"note: memory {m.id} is {len(m.text):,} characters: recall finds it, but a memory this long is not "
        "sent with a request unasked (pin it, or keep a short summary, if a model should always see it)"
    )


def pinned_note(m: Memory) -> str | None:
    """The one line a shell shows when a memory just pinned reads as private by its words: a pin
    sends it with every message, questions about no one and about other people too."""
    from memchat.memory.judge import sensitive

    found = sorted(sensitive.categories(m.text) - {"children"})
    if not found or not m.pinned or m.private:  # a private memory is never sent unasked, pinned or not
        return None
    return (
        f"note: memory {m.id} reads as about {' and '.join(c.replace('_', ' ') for c in found)}; pinned, it goes "
        f"with every message, whatever it asks (unpin it to have it sent only when a message needs it)"
    )


class Memories:
    """What memchat remembers, and the user's hands on it."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def recall(
        self,
        query: str,
        *,
        kinds: list[str] | tuple[str, ...] | None = None,
        limit: int = 10,
        since: str | None = None,
        until: str | None = None,
        session: str | int | None = None,
        min_score: float | None = None,
        private: bool = True,
        progress: Progress | None = None,
        on_prepare: Notice | None = None,
    ) -> list[Hit]:
        """Search memories and past conversations, best first (embedding what has no vector yet).

        The best `limit` matches come back whatever their relevance (a person searching their own
        memory wants the nearest there is), each marked `weak` below the `recall.weak` label; an
        empty list means nothing matched at all. `min_score` keeps only hits of at least that
        relevance. The injection's bar (`memory.relevance`) plays no part here.
        private=False is what another tool asks for (only the user's own search shows the rest):
        it leaves out the messages of memory-off sessions and every message never to be sent to a
        model again (it mentions something forgotten, or a memory waiting for review), and marks a
        message whose value was superseded with the current one.
        """
        from memchat.memory.recall.search import recall

        session_id = sessions.get_session(self.profile.db, session).id if session is not None else None
        profile = self.profile
        # Loaded once: a shell that loaded it already (with a spinner) has mapped the vectors too.
        if profile.embedder_loaded():
            embedder = profile.embedder(on_prepare)
        else:
            embedder = profile.embedder_alongside(profile.preload_vectors, on_prepare)
        hits = recall(
            self.profile.db,
            query,
            embedder,
            kinds=kinds,
            limit=limit,
            since=since,
            until=until,
            session_id=session_id,
            catch_up=True,
            progress=progress,
            exclude_private=not private,
        )
        if not private:
            from memchat.memory.recall.tool import as_sent

            hits = as_sent(self.profile.db, hits)
        weak = self.profile.settings.get("recall.weak")
        for hit in hits:
            hit.weak = hit.score < weak
        return hits if min_score is None else [h for h in hits if h.score >= min_score]

    def remember(
        self,
        text: str,
        *,
        kind: str | None = None,
        key: str | None = None,
        value: str | None = None,
        importance: float = 0.5,
        pinned: bool = False,
        private: bool = False,
        origin: str = "manual",
        actor: str = "user",
        replaces: int | str | None = None,
    ) -> Remembered:
        """Store what the user asked to keep, in their words; without a kind, an instruction to the
        assistant ("always answer in British English", "rule: ...") is a rule, anything else a fact.

        origin "mcp" is another tool writing: a rule from it would go into every chat's system prompt
        as the user's own preference, so it waits in review (`memories review`) until the user
        confirms it. `replaces`: an active memory the new one changes ("I moved to York" for "I live
        in Leeds"), checked before anything is stored; it becomes the new one's history."""
        from memchat.memory.store.kinds import kind_of

        if kind is None:
            kind, text = kind_of(text)
        store = self.profile.store
        if origin == "mcp" and key and store.find(key=key, status="active", private=True):
            # Another tool would replace a value it cannot see: what the user keeps private is theirs
            raise UsageError(f"key {key!r} holds a memory the user keeps private: only they can change it")
        old = store.get(replaces) if replaces is not None else None
        if old is not None and old.status != "active":
            raise UsageError(f"memory {old.id} is {old.status}; only an active memory can be replaced")
        memory = store.add(
            text,
            status="pending" if origin == "mcp" and kind == "rule" else "active",
            kind=kind,
            key=key,
            value=value,
            importance=importance,
            pinned=pinned,
            private=private,
            origin=origin,
            actor=actor,
        )
        if store.last_add_existed:
            if private and not memory.private:  # said again, now as private: it becomes private
                memory = store.update(memory.id, private=True, actor=actor)
            if old is not None and old.id != memory.id:
                memory = store.replaced_by(old.id, memory.id, actor=actor)
                return Remembered(memory, [old], existed=True)
            return Remembered(memory, existed=True)
        if old is not None:
            memory = store.replaced_by(old.id, memory.id, actor=actor)
        self.profile.embed_written(memory_ids=[memory.id])
        return Remembered(memory, store.replaced(memory.id))

    def close_to(self, memory: Memory, on_prepare: Notice | None = None, *, cheap_only: bool = False) -> list[Memory]:
        """The active memories of its kind that a memory just stated may change, closest first
        ("I moved to York last month" and "I live in Leeds"): what `memories add` asks the user
        about (a chat's "remember that ..." asks the memory model instead). None without an encoder,
        nor with one that takes seconds to load (torch): a quick add stays quick. `cheap_only` (a
        script): nor when judging by meaning has its one-time preparation still to do (the encoder's
        export, the topic model: seconds, and every script starting at once would do it; the next
        `ask` or chat prepares them), nor when the search would rewrite the vector copy first
        (a profile of COPY_FROM memories or more: 0.75 s at 100,000), which a script adding memories
        one by one would pay on every add."""
        from memchat.memory.capture.policy import stated_neighbours
        from memchat.memory.recall.vector_file import COPY_FROM

        store = self.profile.store
        if memory.key or memory.status != "active" or not store.has_active(memory.kind, besides=memory.id):
            return []  # a key supersedes by itself; alone of its kind, nothing is close
        if not self.profile.encoder_is_light():
            return []
        if cheap_only and (not self.profile.judging_prepared() or store.count_up_to(COPY_FROM) >= COPY_FROM):
            return []
        try:
            embedder = self.profile.embedder(on_prepare)
        except MemchatError:
            return []  # no encoder here: nothing is close, as in a search by words alone
        try:
            return stated_neighbours(self.profile.store, memory, embedder, private=True, asking=True)
        except Exception as exc:
            # The memory is stored: a full disk or a long lock met while searching near it (the
            # search embeds what has no vector yet) must not report the add as failed. Nothing is close.
            failure = exc if isinstance(exc, MemchatError) else known_failure(exc, self.profile.settings.db_path)
            if failure is None:
                raise
            get_logger().warning("could not look for what memory %s changes: %s", memory.id, failure.message)
            return []

    def replace(self, old_id: int | str, new_id: int | str) -> Memory:
        """Memory `old_id` becomes the history of `new_id`, which takes its key, pin and privacy."""
        store = self.profile.store
        old, new = store.get(old_id), store.get(new_id)
        for m in (old, new):
            if m.status != "active":
                raise UsageError(f"memory {m.id} is {m.status}; only an active memory can replace or be replaced")
        if old.id == new.id:
            raise UsageError(f"memory {old.id} cannot replace itself")
        return store.replaced_by(old.id, new.id, actor="user")

    def matching(self, query: str, limit: int = 10, on_prepare: Notice | None = None) -> list[tuple[Memory, float]]:
        """Memories a query is about, with their relevance, best first (what clears the relevance bar)."""
        from memchat.memory.recall import relevance
        from memchat.memory.recall.search import recall

        hits = recall(
            self.profile.db,
            query,
            self.profile.embedder(on_prepare),
            kinds=("fact", "event", "rule"),
            statuses=("active", "pending", "superseded"),
            limit=limit,
        )
        floor = relevance.floor([h.score for h in hits], self.profile.settings.get("memory.relevance"))
        found = self.profile.store.get_many([h.id for h in hits])
        return [(found[h.id], h.score) for h in hits if floor is not None and h.score >= floor and h.id in found]

    def forget(self, memory_ids: list[int], *, purge_sources: bool = False, actor: str = "user") -> Forgotten:
        """Forget for good: rows, history, indexes, vectors, summaries, what past messages said of it
        (withheld; redacted with purge_sources), and the lines of the input history that said it."""
        from memchat.memory.forget.erase import said_by

        # The input history first: a kill or a full disk after it leaves nothing typed behind, and
        # one before it leaves the memory to forget again.
        said = self.profile.scrub_history_of(lambda: said_by(self.profile.db, [int(i) for i in memory_ids]))
        store = self.profile.store
        store.forget(memory_ids, purge_sources=purge_sources, actor=actor)
        done = store.last_forget
        scrubbed = set(said)
        if more := [pair for pair in done.said if pair not in scrubbed]:
            self.profile.scrub_history_of(lambda: more)
        return done

    def forgettable(self) -> list[Memory]:
        """Every memory that still holds text (what `forget --all` forgets)."""
        return self.profile.store.find(status=("active", "pending", "superseded"))

    def export_memories(self, fmt: str = "json", *, to: str = "-") -> str:
        from memchat.memory.store.transfer import export_text

        text = export_text(self.profile.store, fmt)
        self.profile.record("export memories", {"format": fmt, "to": where_to(to)})
        return text

    def import_memories(
        self, path: str, *, progress: Progress | None = None, on_prepare: Notice | None = None
    ) -> MemoryImportResult:
        """Memories in from an export, embedded before it returns (the encoder's one-time
        preparation included: an import is a wait the user chose, and a memory without a
        vector is one the profile card and search by meaning cannot see)."""
        from memchat.importer import read_file
        from memchat.memory.recall.index import catch_up_memories
        from memchat.memory.store.transfer import import_text

        text, name = read_file(path)
        result = import_text(lambda: self.profile.store, text, name)
        self.profile.record("import memories", {"added": result.added})
        if result.added:
            catch_up_memories(self.profile.db, self.profile.embedder(on_prepare), progress=progress)
        return result

    def import_conversations(self, path: str, *, keep_system: bool = False, fmt: str | None = None) -> ImportResult:
        """Past conversations in, as sessions (idempotent, all or nothing); see `embed_backlog`.

        A session's system prompt from the file is kept as data (`imported_system`), never sent,
        unless keep_system: a file must not be able to instruct the model. Imported sessions are
        not captured into memory unless `capture_imported` is asked to.
        """
        from memchat.importer import import_file

        result = import_file(lambda: self.profile.db, path, keep_system=keep_system, fmt=fmt)
        self.profile.record(
            "import conversations",
            {"format": result.format, "messages": result.messages_added},  # no file name: it can say too much
            origin="import",
        )
        return result

    def embed_backlog(self, progress: Progress | None = None, on_prepare: Notice | None = None) -> int:
        """Embed every memory and message that has no vector yet (after an import, or an interrupted one)."""
        from memchat.memory.recall.index import catch_up

        return catch_up(self.profile.db, self.profile.embedder(on_prepare), progress)

    def reindex(
        self, *, full: bool = False, progress: Progress | None = None, on_prepare: Notice | None = None
    ) -> ReindexResult:
        from memchat.memory.recall.index import reindex

        return reindex(self.profile.db, self.profile.embedder(on_prepare), progress, full=full)
