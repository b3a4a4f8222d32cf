"""`memchat models`: what the configured servers offer, and which model each role uses."""

from __future__ import annotations

import typer

from memchat.cli.common import app as open_app
from memchat.ui import console


def models(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help="One JSON array, an object per server."),
) -> None:
    """List the models the configured server offers (/v1/models) and which one chat and memory use."""
    from memchat.ui import tables

    found = open_app(ctx).offered_models()
    if json_out:
        console.print_json(
            [
                {
                    "provider": o.provider,
                    "url": o.url,
                    "models": o.models,
                    "error": o.error,
                    "roles": o.roles,
                }
                for o in found
            ]
        )
    else:
        console.out().print(tables.offered_models(found), highlight=False, markup=False)
    if any(o.error for o in found):
        raise typer.Exit(1)
