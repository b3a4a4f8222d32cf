"""The user's privacy controls as use cases: consent to capture, retention and purge, the audit trail."""

from __future__ import annotations

import json
import os
import secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from memchat import encryption, locks, when
from memchat.app.profile import Profile
from memchat.errors import UsageError

if TYPE_CHECKING:
    from memchat.db import Database
    from memchat.memory.forget.retention import Expired, Windows
    from memchat.memory.forget.scrub import ScrubResult
    from memchat.privacy import AuditEntry, Consent

RETENTION_EVERY_HOURS = 12  # the background application of the windows runs at most this often
LAST_RETENTION = "retention.last_run"


class Privacy:
    """Consent, retention windows, purge and audit for one profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def consent(self) -> Consent | None:
        from memchat.privacy import consent

        return consent(self.profile.db)

    def set_consent(self, capture: bool) -> None:
        """The user's answer (first launch, or `memchat consent yes|no`); capture follows it at once."""
        from memchat.privacy import set_consent

        set_consent(self.profile.db, capture)
        self.profile.capture_on = (
            capture and self.profile.use_memory and bool(self.profile.settings.get("memory.capture"))
        )
        if not capture:  # a worker retrying a model that does not answer would go on for minutes
            locks.stop_detached_capture(self.profile.settings.db_path)

    def consent_capture(self) -> bool:
        said = self.consent()
        return said is not None and said.capture

    def retention_windows(self, *, older_than: int | None = None, superseded: bool = False) -> Windows:
        """The configured windows; `older_than` (days) replaces the transcript and event windows for
        one purge; `superseded` adds superseded facts to what goes (with the same window)."""
        from memchat.memory.forget.retention import Windows

        days = self.profile.settings.get("history.retention_days") or None
        events = self.profile.settings.get("memory.event_retention_days") or None
        if older_than is not None:
            days = events = older_than
        return Windows(
            transcripts=days,
            events=events,
            pending=self.profile.settings.get("memory.pending_days") or None,
            superseded=(older_than or days or events or 0) if superseded else None,
        )

    def expired(self, windows: Windows) -> Expired:
        from memchat.memory.forget.retention import expired

        return expired(self.profile.db, windows)

    def purge(self, doomed: Expired, *, origin: str = "user") -> ScrubResult:
        """Delete what expired for good (scrubbed like forget; the input history loses what was
        typed in the deleted messages). The scrub's result: whether the files wait for another
        reader, or for room on the disk."""
        from memchat import history
        from memchat.memory.forget.retention import purge
        from memchat.privacy import record

        typed = history.typed_lines(
            r[0]
            for r in self.profile.db.conn.execute(
                "SELECT content FROM messages WHERE role = 'user' AND id IN (SELECT value FROM json_each(?))",
                (json.dumps(doomed.messages),),
            )
        )
        # the input history first (what was typed in those messages, and what said those memories):
        # a kill or a full disk after it leaves nothing typed behind
        if typed:
            history.scrub(self.profile.history_to_scrub, lambda line: history.was_typed(line, typed))
        if doomed.memories:
            from memchat.memory.forget.erase import said_by

            self.profile.scrub_history_of(lambda: said_by(self.profile.db, doomed.memories))
        scrubbed = purge(self.profile.db, doomed)
        record(
            self.profile.db,
            "purge",
            origin,
            {
                "messages": len(doomed.messages),
                "sessions": len(doomed.sessions_emptied),
                "events": len(doomed.events),
                "pending": len(doomed.pending),
                "superseded": len(doomed.superseded),
            },
        )
        return scrubbed

    def retention_due(self, db: Database | None = None) -> bool:
        """Whether some window is set and the last background run is RETENTION_EVERY_HOURS old
        (read through `db` when given: a background thread must not share the profile's connection)."""

        from memchat.privacy import get_setting

        if not self.retention_windows().any():
            return False
        last = get_setting(db or self.profile.db, LAST_RETENTION)
        return not last or last[0] < (datetime.now(UTC) - timedelta(hours=RETENTION_EVERY_HOURS)).isoformat()

    def apply_retention(self) -> int:
        """Apply the configured windows now (a background process's job: `memchat purge
        --scheduled`, the detached capture); how many messages and memories went."""

        from memchat.privacy import set_setting

        set_setting(self.profile.db, LAST_RETENTION, datetime.now(UTC).isoformat())
        doomed = self.expired(self.retention_windows())
        if doomed:
            self.purge(doomed, origin="retention")
        return len(doomed.messages) + len(doomed.memories)

    def retention_in_background(self) -> None:
        """At a REPL's start: when due, the windows are applied by a detached process (its own
        connection, bounded batches), so the chat never waits for them."""

        from memchat.memory.forget.retention import expired
        from memchat.privacy import set_setting

        with self.profile.side_connection() as own:  # the warm-up thread, beside the chat's connection
            if not self.retention_due(own):
                return
            if not expired(own, self.retention_windows()):  # nothing to do: no process, checked again in 12 h
                set_setting(own, LAST_RETENTION, datetime.now(UTC).isoformat())
                return
        from memchat.memory.capture.background import spawn_detached

        spawn_detached(
            self.profile.settings.db_path,
            ["purge", "--scheduled"],
            config_path=self.profile.config_path,
            env=self.profile.settings.flags_as_environment(),
        )

    def audit(self, *, since: str | None = None, limit: int | None = None) -> list[AuditEntry]:
        from memchat.privacy import audit

        return audit(self.profile.db, since=when.since(since) if since is not None else None, limit=limit)

    def file_status(self) -> tuple[bool, bool, str | None]:
        """Whether the database exists, whether it is encrypted, and where its key comes from
        (None: nowhere). An encrypt or decrypt a crash cut short is finished first, as any open
        does: a plaintext copy it left is shredded, a file it moved aside is put back."""
        path = self.profile.settings.db_path
        try:
            locks.hold_profile(path)
        except OSError:
            pass
        try:
            encryption.recover(path)
        except (OSError, ValueError):
            pass  # said by whatever opens it next
        finally:
            locks.release_profile(path)
        if not path.exists():
            return False, False, None
        if not encryption.is_encrypted(path):
            return True, False, None
        found = encryption.key_for(path)
        return True, True, found[1] if found else None

    def encrypt(self) -> str:
        """Encrypt this profile in place (memchat.encryption.convert): with MEMCHAT_DB_KEY when set,
        else a random key kept in the OS keyring. Its vector copy and input history (plaintext
        files) are shredded. Returns where the key lives."""

        from memchat.memory.recall.vector_file import drop_disk_cache

        path = self.profile.settings.db_path
        if encryption.is_encrypted(path):
            raise UsageError(f"{path} is already encrypted")
        encryption.driver()  # say how to install it before anything else
        self.profile.db  # noqa: B018 - create and migrate the profile first (a new one too)
        no_keyring = UsageError(
            f"no usable OS keyring to keep the key in: set {encryption.KEY_ENV} to a passphrase "
            "(and keep it: without it the profile cannot be opened)"
        )
        if os.environ.get(encryption.KEY_ENV):
            key, where = os.environ[encryption.KEY_ENV], encryption.KEY_ENV
        else:
            key, where = secrets.token_hex(32), "the OS keyring"
            if not encryption.has_keyring():
                raise no_keyring
        drop_disk_cache(self.profile.db)
        self.profile.close()
        locks.stop_detached_capture(path)  # a worker waiting minutes on a model would hold the profile
        stored = False

        def keep_key() -> None:
            # kept only while this process holds the profile alone: a second `profile encrypt` started
            # at the same time must not replace (nor, failing, delete) the key the file is encrypted with
            nonlocal stored
            if where != encryption.KEY_ENV:
                if not encryption.store_key(path, key):
                    raise no_keyring
                stored = True

        try:
            encryption.convert(path, key_in=None, key_out=key, before=keep_key)
        except BaseException:
            if stored and not encryption.probe(path):  # (a failure after the swap keeps the key it needs)
                encryption.forget_key(path)
            raise
        encryption.shred(self.profile.history_path)
        self.profile.record("encrypt profile", {"key": where})
        return where

    def decrypt(self) -> None:
        """Store this profile in plain SQLite again (its key then leaves the keyring)."""

        path = self.profile.settings.db_path
        if not encryption.is_encrypted(path):
            raise UsageError(f"{path} is not encrypted")
        self.profile.db  # noqa: B018 - proves the key before anything changes
        found = encryption.key_for(path)
        assert found is not None  # opening needed it
        self.profile.close()
        locks.stop_detached_capture(path)
        encryption.convert(path, key_in=found[0], key_out=None)
        if found[1] != encryption.KEY_ENV:
            encryption.forget_key(path)
        self.profile.record("decrypt profile")

    def compact_file(self) -> tuple[int, int, bool]:
        """Rewrite the database without the unused space of its pages (where SQLite can leave old
        copies of deleted text), and checkpoint; (bytes before, bytes after, finished)."""
        from memchat.memory.forget import scrub

        path = self.profile.settings.db_path
        before = path.stat().st_size if path.exists() else 0
        finished = scrub.compact(self.profile.db)
        after = path.stat().st_size if path.exists() else 0
        self.profile.record("compact profile", {"bytes before": before, "bytes after": after})
        return before, after, finished

    def compaction_owed(self) -> bool:
        """Whether the database is too large for forget and purge to compact it on the way
        (`memchat profile compact` does it)."""
        from memchat.memory.forget.scrub import COMPACT_MAX_BYTES

        path = self.profile.settings.db_path
        return path.exists() and path.stat().st_size > COMPACT_MAX_BYTES
