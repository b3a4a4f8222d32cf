"""`memchat profile`: this profile's file: where it is, whether it is encrypted; encrypt, decrypt, compact."""

from __future__ import annotations

import typer

from memchat.cli.common import SCRUB_PENDING, confirm
from memchat.cli.common import app as open_app
from memchat.ui import console

profile_app = typer.Typer(
    help="Encrypt, decrypt or compact this profile's database; show its state.", no_args_is_help=True
)


@profile_app.command("status")
def status(ctx: typer.Context) -> None:
    """Where this profile's database is, and whether it is encrypted (and where its key comes from)."""
    memchat = open_app(ctx)
    path = memchat.settings.db_path
    exists, encrypted, key_source = memchat.privacy.file_status()
    if not exists:
        console.say(f"{path}: not created yet")
    elif encrypted:
        console.say(f"{path}: encrypted (SQLCipher); key from {key_source or 'nowhere: set MEMCHAT_DB_KEY'}")
    else:
        console.say(f"{path}: not encrypted (`memchat profile encrypt` encrypts it)")


@profile_app.command("encrypt")
def encrypt(ctx: typer.Context, yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Encrypt this profile's database in place (SQLCipher), with MEMCHAT_DB_KEY when set, else a
    random key kept in the OS keyring.

    A new encrypted file is written, verified and swapped in; the plain one is overwritten and
    removed, and so are the vector copy and the input history (an encrypted profile keeps no
    plaintext file: vectors load from the database, input history lasts one chat). Close every
    other memchat first. Without its key the profile cannot be opened: keep MEMCHAT_DB_KEY safe.
    """
    memchat = open_app(ctx)
    if not confirm(f"Encrypt {memchat.settings.db_path}?", yes, refusing="to encrypt"):
        return
    where = memchat.privacy.encrypt()
    console.say(f"encrypted {memchat.settings.db_path}; its key is in {where}")


@profile_app.command("decrypt")
def decrypt(ctx: typer.Context, yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Store this profile in plain SQLite again (needs its key); the encrypted file is removed."""
    memchat = open_app(ctx)
    if not confirm(
        f"Decrypt {memchat.settings.db_path}? It will be readable without a key.", yes, refusing="to decrypt"
    ):
        return
    memchat.privacy.decrypt()
    console.say(f"decrypted {memchat.settings.db_path}")


@profile_app.command("compact")
def compact(ctx: typer.Context) -> None:
    """Rewrite this profile's database without its unused space (VACUUM), where SQLite can keep old
    copies of what was deleted. Forget, delete and purge do it on the way for a database up to
    256 MB; for a larger one they say to run this. It holds the profile's write lock while it runs
    (about 1 s per 250 MB here): other memchat commands wait for it."""
    memchat = open_app(ctx)
    before, after, finished = memchat.privacy.compact_file()
    console.say(f"compacted {memchat.settings.db_path}: {before / 1e6:,.1f} MB → {after / 1e6:,.1f} MB")
    if not finished:
        console.note(SCRUB_PENDING)
