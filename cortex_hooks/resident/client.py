"""`cortex-hooks recall` asks the resident process of its databases (resident.server) before it
recalls cold: None when there is none, or it cannot answer (the command then recalls as ever)."""

from __future__ import annotations

import json
import os
import socket
from contextlib import closing
from typing import Any

from cortex_hooks import location
from cortex_hooks.resident import protocol
from cortex_hooks.upkeep.resident import OFF

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.databases import Databases
    from cortex_hooks.notes import Notes

CONNECT_TIMEOUT = 0.5  # seconds: a process that listens accepts at once
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
    if os.environ.get(OFF) == "off":
        return None
    identity = protocol.here(databases.project, databases.user, location.project_root())
    path = protocol.socket_path(identity)
    if path is None or not os.path.exists(path):
        return None
    from cortex_hooks.api import databases as db
    from cortex_hooks.notes import Notes

    setting = db.embeddings(databases, Notes())  # what it says, the resident process says too
    if setting == "off":
        return None
    asked = {
        "query": query,
        "limit": limit,
        "type": memory_type,
        "kind": kind,
        "scopes": list(scopes),
        "peek": peek,
    }
    try:
        with closing(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as connection:
            connection.settimeout(CONNECT_TIMEOUT)
            connection.connect(path)
            connection.settimeout(ANSWER_TIMEOUT)
            connection.sendall(protocol.request(identity, setting, asked))
            reply = json.loads(protocol.read_line(connection, protocol.REPLY_LIMIT))
    except (OSError, ValueError):
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("results"), list):
        return None
    notes.extend([str(note) for note in reply.get("notes", [])])
    results: list[dict[str, Any]] = reply["results"]
    return results
