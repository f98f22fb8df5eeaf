"""`integrity`: what the keeper keeps of each database and watches beside it, what it
put back and when; `integrity accept`: a change the keeper put back, made for real — the person's
command, refused to the agent (the built-in protection's list)."""

from __future__ import annotations

import os
from typing import Any

from cortex_hooks import location, regular_file
from cortex_hooks.api.databases import Databases
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.keeper import watched_files
from cortex_hooks.store import keeper


def state(databases: Databases) -> list[dict[str, Any]]:
    """Per database (the project's, the global one): whether it is kept, where, the files watched
    and the keeper's latest events."""
    found = []
    for scope, database in (("project", databases.project), ("global", databases.user)):
        folder = location.keeper_folder(database)
        ledger = keeper.ledger(folder)
        found.append(
            {
                "scope": scope,
                "database": database,
                "kept": ledger is not None,
                "folder": folder,
                "watched": sorted((ledger or {}).get("files") or {}),
                "events": keeper.events(folder),
            }
        )
    return found


def accept(databases: Databases) -> list[dict[str, str]]:
    """Each watched file the keeper put back, given the latest version it set aside (the change it
    undid), and that version kept as the file from now on. Nothing to accept: CortexError."""
    accepted = []
    for database in (databases.project, databases.user):
        folder = location.keeper_folder(database)
        ledger = keeper.ledger(folder)
        if ledger is None:
            continue
        aside = os.path.join(folder, watched_files.SET_ASIDE)
        watched = dict(ledger.get("files") or {})
        for path, entry in watched.items():
            versions = sorted(
                name for name in (os.listdir(aside) if os.path.isdir(aside) else [])
                if name.startswith(f"{entry.get('copy')}.")
            )  # fmt: skip
            if not versions:
                continue
            latest = os.path.join(aside, versions[-1])
            regular_file.write_whole(
                path, regular_file.read_small(latest, watched_files.LIMIT), mode=0o600, keep_mode=True
            )
            watched[path] = watched_files.keep(folder, path, str(entry.get("kind")))
            for name in versions:
                os.remove(os.path.join(aside, name))
            accepted.append({"file": path, "from": latest})
        keeper.write_ledger(folder, {**(keeper.ledger(folder) or ledger), "files": watched})
    if not accepted:
        raise CortexError("nothing to accept: the keeper has put back no change of a watched file", USAGE)
    return accepted
