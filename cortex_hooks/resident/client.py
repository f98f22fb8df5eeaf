"""`cortex-hooks recall` asks the resident process of its databases (resident.server) before it
recalls cold: None when there is none, or it cannot answer (the command then recalls as ever)."""

from __future__ import annotations

import os
from typing import Any

from cortex_hooks import location
from cortex_hooks.upkeep import resident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.databases import Databases
    from cortex_hooks.notes import Notes

ANSWER_TIMEOUT = 10.0  # seconds: a warm recall takes milliseconds; a process still warming, longer


def recall(
    databases: Databases,
    query: str,
    notes: Notes,
    *,
    limit: int,
    memory_type: str | None,
    kind: str | None,
    scopes: tuple[str, ...],
    peek: bool,
) -> list[dict[str, Any]] | None:
    """The results the resident process gives (its notes added to `notes`), or None."""
    if os.environ.get(resident.OFF) == "off":
        return None
    identity = resident.here(databases.project, databases.user, location.project_root())
    path = resident.socket_path(identity)
    if path is None or not os.path.exists(path):
        return None
    from cortex_hooks.api import databases as db
    from cortex_hooks.notes import Notes

    setting = db.embeddings(databases, Notes())  # what it says, the resident process says too
    if setting == "off":
        return None
    asked = {"setting": setting, "query": query, "limit": limit, "type": memory_type, "kind": kind}
    line = resident.message(identity, {**asked, "scopes": list(scopes), "peek": peek})
    reply = resident.ask(path, line, ANSWER_TIMEOUT) or {}
    results, said = reply.get("results"), reply.get("notes")
    if not isinstance(results, list):
        return None
    notes.extend([str(note) for note in said] if isinstance(said, list) else [])
    return results
