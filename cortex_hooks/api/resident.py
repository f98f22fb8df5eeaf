"""The session's resident recall process, from the side of the hooks and the command:
where it listens, what a message to it is, and SessionStart's and SessionEnd's notices to it.

The process (cortex_hooks.resident.process) keeps semantic recall warm for the command line while
a session runs: loading the local model is most of a cold recall's time. SessionStart tells a
process already running for its databases that one more session uses it, else starts one,
detached; SessionEnd tells it that session ended (it exits a minute after its last session).
One process per (project database, global database, project root, home): its socket's name is
two checksums of them, in a folder only the user may enter ($XDG_RUNTIME_DIR/cortex-hooks, else
cortex-hooks-UID in the temporary folder); a folder anyone else may enter is never used.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import zlib

from cortex_hooks import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from typing import Any

    from cortex_hooks.api.databases import Databases
    from cortex_hooks.notes import Notes

OFF = "CORTEX_RESIDENT"  # =off: no resident process is started or asked
PROTOCOL = 1
REQUEST_LIMIT = 64 * 1024  # bytes of one request line
REPLY_LIMIT = 64 * 1024 * 1024  # bytes of one reply line (a thousand results of 64 KiB each)
NOTICE_TIMEOUT = 0.5  # seconds a hook waits for the process to take a notice


class Identity:
    """What a message must share with the process that answers it."""

    __slots__ = ("home", "project", "root", "user")

    def __init__(self, project: str, user: str, root: str, home: str) -> None:
        self.project = os.path.abspath(project)
        self.user = os.path.abspath(user)
        self.root = os.path.abspath(root)
        self.home = home

    def fields(self) -> dict[str, str]:
        return {"project": self.project, "user": self.user, "root": self.root, "home": self.home}

    def digest(self) -> str:
        """The socket's name: two checksums of the fields (hashlib's import would cost a cold
        command more than its recall; a clash only makes a request say "other databases")."""
        data = json.dumps(self.fields(), sort_keys=True).encode()
        return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def here(project: str, user: str, root: str) -> Identity:
    """The identity of this process's recall of these databases."""
    return Identity(project, user, root, os.path.expanduser("~"))


def folder(*, create: bool = False) -> str | None:
    """The user's private folder of sockets, or None when there is none fit to use (another
    user's, or one anybody may enter)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or ""
    path = (
        os.path.join(base, "cortex-hooks")
        if base and os.path.isdir(base)
        else os.path.join(os.environ.get("TMPDIR") or "/tmp", f"cortex-hooks-{os.getuid()}")
    )
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return None
    try:
        status = os.lstat(path)
    except OSError:
        return None
    private = stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o077
    return path if private else None


def socket_path(identity: Identity, *, create: bool = False) -> str | None:
    """The socket of these databases' resident process (None: no private folder for it)."""
    place = folder(create=create)
    return None if place is None else os.path.join(place, f"{identity.digest()}.sock")


def message(identity: Identity, fields: dict[str, object]) -> bytes:
    """One message line: a recall's request (its setting and arguments) or a session's notice."""
    said = {"protocol": PROTOCOL, "version": __version__, **identity.fields(), **fields}
    return json.dumps(said).encode() + b"\n"


def read_line(connection: socket.socket, limit: int) -> bytes:
    """One line read from a connection, at most `limit` bytes (ValueError past it)."""
    received = b""
    while not received.endswith(b"\n"):
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        received += chunk
        if len(received) > limit:
            raise ValueError("longer than the protocol allows")
    return received


def ask(path: str, line: bytes, timeout: float) -> dict[str, object] | None:
    """The reply of the process listening at `path` to one message, or None (none listens, it
    did not answer in time, or not in its protocol)."""
    import socket  # only when a process may listen: a command without one never imports it

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(min(timeout, NOTICE_TIMEOUT))
            connection.connect(path)
            connection.settimeout(timeout)
            connection.sendall(line)
            reply = json.loads(read_line(connection, REPLY_LIMIT))
    except (OSError, ValueError):
        return None
    return reply if isinstance(reply, dict) else None


def start(project: str, user: str, root: str, setting: str, session: str) -> bool:
    """SessionStart: the resident process of these databases told that `session` uses it, or
    started for it, detached (when semantic recall runs the local model); whether one is there."""
    from cortex_hooks.embeddings.backend import chosen

    if os.environ.get(OFF) == "off" or setting == "off" or chosen(setting) != "local":
        return False
    if not os.path.exists(project) or not os.path.isdir(root):  # nothing to recall yet, or no project
        return False
    identity = here(project, user, root)
    path = socket_path(identity)
    notice = message(identity, {"session": session, "event": "start"})
    if path is not None and os.path.exists(path) and ask(path, notice, NOTICE_TIMEOUT) == {"ok": True}:
        return True  # it serves this session too
    import subprocess  # only when one is started: `recall` imports this module

    from cortex_hooks.boundary import child_environment

    try:  # -P: the project's folder (its cwd) is not on sys.path, so nothing there shadows us
        subprocess.Popen(
            [sys.executable, "-P", "-m", "cortex_hooks.resident.process", project, user, root, session],
            env=child_environment(CLAUDE_PROJECT_DIR=root),
            cwd=root if os.path.isdir(root) else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:  # never costs the session its start
        return False
    return True


def end(project: str, user: str, root: str, session: str) -> None:
    """SessionEnd: the resident process of these databases told `session` ended (if one runs)."""
    if os.environ.get(OFF) == "off":
        return
    identity = here(project, user, root)
    path = socket_path(identity)
    if path is not None and os.path.exists(path):
        ask(path, message(identity, {"session": session, "event": "end"}), NOTICE_TIMEOUT)


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
    """`cortex-hooks recall` asks the resident process of its databases before it recalls cold:
    the results it gives (its notes added to `notes`), or None when there is none or it
    cannot answer (the command then recalls as ever)."""
    from cortex_hooks import location

    if os.environ.get(OFF) == "off":
        return None
    identity = here(databases.project, databases.user, location.project_root())
    path = socket_path(identity)
    if path is None or not os.path.exists(path):
        return None
    from cortex_hooks.api import databases as db
    from cortex_hooks.notes import Notes

    setting = db.embeddings(databases, Notes())  # what it says, the resident process says too
    if setting == "off":
        return None
    asked = {"setting": setting, "query": query, "limit": limit, "type": memory_type, "kind": kind}
    line = message(identity, {**asked, "scopes": list(scopes), "peek": peek})
    reply = ask(path, line, ANSWER_TIMEOUT) or {}
    results, said = reply.get("results"), reply.get("notes")
    if not isinstance(results, list):
        return None
    notes.extend([str(note) for note in said] if isinstance(said, list) else [])
    return results
