"""What `uninstall` leaves behind and `uninstall --purge` removes: the memory, which no settings file
holds. Of a project, its `.cortex/` folder, whole; of the user, the global database with what
cortex-hooks keeps beside it. The person's act alone: no MCP tool reaches this module, and the
agent's Bash is denied `cortex-hooks uninstall` (SPEC §19).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from cortex_hooks import location, log
from cortex_hooks.api import pruned_file
from cortex_hooks.capture import worker
from cortex_hooks.report import document
from cortex_hooks.store import checkpoint

# SQLite's and ours: each named after the database file it serves
COMPANIONS = ("-wal", "-shm", "-journal", ".guard", ".pending")
# What cortex-hooks keeps in a database's folder, by name (config, log, pruned memories, checkpoints)
BESIDE = (
    location.CONFIG_FILENAME,
    log.FILENAME,
    log.FILENAME + ".1",
    pruned_file.FILENAME,
    checkpoint.FOLDER,
    document.FILENAME,
)


@dataclass(frozen=True)
class Memory:
    """One scope's memory on disk: what names it to the person, and every path removing it takes."""

    what: str  # "the project's memory" or "the global memory"
    path: str  # the folder, or the database file
    paths: tuple[str, ...]  # removed in this order (a folder that is left empty, last)


def project(root: str) -> Memory | None:
    """The project's `.cortex/` folder, when there is one (a link to it is removed, not followed)."""
    folder = os.path.join(root, location.DIRECTORY)
    if not os.path.lexists(folder):
        return None
    return Memory("the project's memory", folder, (folder,))


def user(database: str) -> Memory | None:
    """The global database, its companions and, in its default folder (ours, ~/.claude/memory/),
    what cortex-hooks keeps beside it; elsewhere (CORTEX_GLOBAL_DB) that folder is the person's,
    and only the database and its companions go."""
    folder = os.path.dirname(database)
    paths = [database, *(database + suffix for suffix in COMPANIONS), worker.lock_path(database)]
    if _default_folder(folder):
        paths += [os.path.join(folder, name) for name in BESIDE]
        paths.append(folder)
    found = tuple(path for path in paths if os.path.lexists(path))
    if not os.path.lexists(database):
        return None
    return Memory("the global memory", database, found)


def _default_folder(folder: str) -> bool:
    default = os.path.dirname(os.path.expanduser(location.GLOBAL_DATABASE))
    return os.path.realpath(folder) == os.path.realpath(default)


def remove(memory: Memory) -> list[str]:
    """Remove it for good; the paths removed. A folder named last goes only when it is empty by
    then (the person's own files in it stay)."""
    removed = []
    for path in memory.paths:
        if os.path.islink(path) or not os.path.isdir(path):
            os.remove(path)
        elif path == memory.paths[-1] and path != memory.path:  # the folder things were kept in
            if os.listdir(path):
                continue
            os.rmdir(path)
        else:
            shutil.rmtree(path)
        removed.append(path)
    return removed
