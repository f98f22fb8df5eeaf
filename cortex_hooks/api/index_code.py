"""index-code (SPEC §9.2): a file remembered as two linked memories, the prose as a
`code_description` and the file's content (64 KiB at most) as `code`, description -source_of-> code."""

from __future__ import annotations

import os
from contextlib import closing
from typing import NamedTuple

from cortex_hooks import clock, location, regular_file
from cortex_hooks.api import databases as db
from cortex_hooks.api.auto_link import auto_link
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.memories import load, new_row
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.memory import given
from cortex_hooks.notes import Notes
from cortex_hooks.store import memories as store
from cortex_hooks.store.connection import Transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.memory.records import Memory

CODE_LIMIT = 64 * 1024  # bytes of a file index-code keeps (§9.2)
CUT_NOTE = "\n… [cut: the file goes on past 64 KiB]"


class Indexed(NamedTuple):
    path: str  # as stored: relative to the project when inside it, else absolute
    description: int
    code: int
    memory: Memory | None  # the description's record, with record=True


def index_code(databases: Databases, path: str, prose: str, notes: Notes, *, record: bool = False) -> Indexed:
    try:
        with regular_file.open_regular(path) as file:  # never a FIFO or a device
            raw = file.read(CODE_LIMIT + 1)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise CortexError(f"cannot read {path}: {reason}", USAGE) from None
    code = raw[:CODE_LIMIT].decode("utf-8", errors="replace") + (CUT_NOTE if len(raw) > CODE_LIMIT else "")
    if not code.strip():
        raise CortexError(f"{path} is empty: nothing to index", USAGE)
    shown = shown_path(path)
    description = given.checked({"content": prose, "type": "code_description"}, "invalid prose")
    body = given.checked({"content": code, "type": "code", "summary": f"{shown} (code)"}, "invalid file")
    now = clock.iso(clock.now())
    with closing(db.for_writing(databases)) as connection:
        with Transaction(connection):
            # Each is compared with the memories stored before it (§9.7): indexing a file again
            # flags the new pair with the old one for consolidation.
            description_id = store.insert(
                connection, new_row(description, now, source="code_index", path=shown)
            )
            auto_link(connection, description_id, description.content, now)
            code_id = store.insert(connection, new_row(body, now, source="code_index", path=shown))
            auto_link(connection, code_id, code, now)
            store.link(connection, description_id, code_id, "source_of", strength=1.0, now=now)
        db.embed_written(databases, connection, "memory", [description_id], notes)  # the prose: never code
        memory = load(connection, databases, description_id) if record else None
    return Indexed(shown, description_id, code_id, memory)


def shown_path(path: str) -> str:
    """A file's path relative to the project when it lies inside it, else absolute."""
    absolute = os.path.abspath(path)
    root = location.project_root()
    inside = os.path.commonpath([absolute, root]) == root
    return os.path.relpath(absolute, root) if inside else absolute
