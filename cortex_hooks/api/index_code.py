"""index-code (docs/guide/memories.md): a file remembered as two linked memories, the prose as a
`code_description` and the file's content (64 KiB at most) as `code`, description -source_of-> code.

Only the project's own files (docs/guide/selfguard.md): recall hands what is stored to the model, so a file is
read only when it lies inside the project (its real path: a link out of it counts as out), is
not ignored by git, is no environment file (`.env*`) and no private key, and Claude Code's own
Read tool may read it (the Read rules of `permissions.deny` in the project's and the user's
settings).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from contextlib import closing
from typing import TYPE_CHECKING

from cortex_hooks import clock, location, regular_file
from cortex_hooks.api import databases as db
from cortex_hooks.api.auto_link import auto_link
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.memories import load, new_row
from cortex_hooks.boundary import child_environment
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.guard import read_rules
from cortex_hooks.memory import given
from cortex_hooks.notes import Notes
from cortex_hooks.store import memories as store
from cortex_hooks.store.connection import Transaction

if TYPE_CHECKING:
    from cortex_hooks.memory.records import Memory

CODE_LIMIT = 64 * 1024  # bytes of a file index-code keeps (docs/guide/memories.md)
CUT_NOTE = "\n… [cut: the file goes on past 64 KiB]"
KEY_NAMES = re.compile(
    r"(id_(rsa|dsa|ecdsa|ed25519)|.*\.(pem|key|p12|pfx|jks|keystore|ppk|gpg|asc))", re.IGNORECASE
)
KEY_CONTENT = re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|PuTTY-User-Key-File-")
MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"
GIT_TIMEOUT = 5.0


class Indexed(Record):
    path: str  # as stored: relative to the project when inside it, else absolute
    description: int
    code: int
    memory: Memory | None  # the description's record, with record=True


def index_code(databases: Databases, path: str, prose: str, notes: Notes, *, record: bool = False) -> Indexed:
    try:
        os.stat(path)
        refused = _refused(path, location.project_root())
        if refused is not None:
            raise CortexError(f"{path} is not indexed: {refused}", USAGE)
        with regular_file.open_regular(path) as file:  # never a FIFO or a device
            raw = file.read(CODE_LIMIT + 1)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise CortexError(f"cannot read {path}: {reason}", USAGE) from None
    if KEY_CONTENT.search(raw):
        raise CortexError(f"{path} is not indexed: it holds a private key", USAGE)
    code = raw[:CODE_LIMIT].decode("utf-8", errors="replace") + (CUT_NOTE if len(raw) > CODE_LIMIT else "")
    if not code.strip():
        raise CortexError(f"{path} is empty: nothing to index", USAGE)
    shown = shown_path(path)
    description = given.checked({"content": prose, "type": "code_description"}, "invalid prose")
    body = given.checked({"content": code, "type": "code", "summary": f"{shown} (code)"}, "invalid file")
    now = clock.iso(clock.now())
    with closing(db.for_writing(databases, notes)) as connection:
        with Transaction(connection):
            # Each is compared with the memories stored before it (docs/guide/aging.md): indexing a file again
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


def _refused(path: str, project: str) -> str | None:
    """Why a file is not the project's own to index, or None."""
    real, root = os.path.realpath(path), os.path.realpath(project)
    if os.path.commonpath([real, root]) != root:
        return f"index-code reads only the project's own files, and it lies outside {project}"
    name = os.path.basename(real)
    if name.lower().startswith(".env"):
        return "an environment file (.env*) holds secrets"
    if KEY_NAMES.fullmatch(name):
        return "a key file (its name says so)"
    denied = _denied_read(real, root)
    if denied is not None:
        return denied
    if _ignored(real, root):
        return "git ignores it (an ignored file is not the project's own)"
    return None


def _denied_read(path: str, project: str) -> str | None:
    """The Read deny rule of Claude Code's settings that refuses this file, named, or None."""
    home = os.path.realpath(os.path.expanduser("~"))
    settings = [
        (os.path.join(project, ".claude", "settings.json"), project),
        (os.path.join(project, ".claude", "settings.local.json"), project),
        (os.path.join(home, ".claude", "settings.json"), home),
        (MANAGED_SETTINGS, "/"),
    ]
    for file, base in settings:
        try:
            data = json.loads(regular_file.read_small(file, 1 << 20))
        except (OSError, ValueError, RecursionError):
            continue
        permissions = data.get("permissions") if isinstance(data, dict) else None
        rules = permissions.get("deny") if isinstance(permissions, dict) else None
        for pattern in read_rules.patterns(rules):
            if read_rules.denies(pattern, path, base=base, project=project, home=home):
                return f"Claude Code's Read tool may not read it (Read({pattern}) in {file})"
    return None


def _ignored(path: str, project: str) -> bool:
    """Whether git ignores the file (no git, or no repository: it cannot say, and does not)."""
    try:
        completed = subprocess.run(
            ["git", "check-ignore", "-q", "--", path],
            cwd=project,
            env=child_environment(GIT_OPTIONAL_LOCKS="0"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return False
    return completed.returncode == 0


# What people read of it, from the CLI and the MCP server alike.


def indexed(result: Indexed) -> str:
    return f"Indexed {result.path}: code description #{result.description}, code #{result.code}."
