"""The resident recall process: `cortex-hooks recall` answered warm, for one set of databases.

    python -m cortex_hooks.resident.process PROJECT_DATABASE GLOBAL_DATABASE PROJECT_ROOT [SESSION]

Started detached by SessionStart (api.resident) for SESSION. One per socket: a lock beside it
makes a second wait a moment for the first to go, then give up. It loads recall's model and
stored vectors (api.recall.warm), then takes one message per connection: a recall, answered
with api.recall.recall as the command would have answered it, or a session's notice (another
session started, or one ended). It exits GRACE seconds after its last session ended, when no
message came for IDLE seconds (a session that ended without saying so), when the project's
database or its socket is gone, or when a message comes from another version of cortex-hooks
(that version starts its own). Whatever it cannot answer, it says so, and the command recalls
cold.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import sys
import threading
import time
from contextlib import closing, suppress
from typing import Any

from cortex_hooks import __version__
from cortex_hooks.api import resident

IDLE = 30 * 60.0  # seconds without a message before the process exits
GRACE = 60.0  # seconds after the last session ended (a /clear ends one session and starts the next)
TICK = 1.0  # seconds between looks at the sessions, the database and the socket
READ_TIMEOUT = 5.0  # seconds a connection may take to send its message
LOCK_WAIT = 5.0  # seconds to wait for a process of another version to let go of the socket


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    identity = resident.here(*argv[:3])
    path = resident.socket_path(identity, create=True)
    if path is None:
        return 0
    # recall reads the project's team file and Claude Code's memory from the project root
    os.environ["CLAUDE_PROJECT_DIR"] = identity.root
    with open(path + ".lock", "a", encoding="utf-8") as lock:
        if not _locked(lock):  # another process answers for these databases
            return 0
        with suppress(FileNotFoundError):  # a socket left by a process that died
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)  # the socket is the user's alone from the start
        try:
            listener.bind(path)
        finally:
            os.umask(previous)
        listener.listen(8)
        inode = os.stat(path).st_ino
        try:
            return Process(identity, set(argv[3:])).serve(listener, path, inode)
        finally:
            listener.close()
            with suppress(OSError):
                if os.stat(path).st_ino == inode:
                    os.unlink(path)


def _locked(lock: Any) -> bool:
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


class Process:
    """The sessions one resident process serves, and its answers."""

    def __init__(self, identity: resident.Identity, sessions: set[str]) -> None:
        self.identity = identity
        self.sessions = sessions
        self.alone_since = None if sessions else time.monotonic()
        self.stop = False

    def serve(self, listener: socket.socket, path: str, inode: int) -> int:
        from cortex_hooks.api.databases import Databases
        from cortex_hooks.api.recall import warm
        from cortex_hooks.store.connection import keep_open

        databases = Databases(self.identity.project, self.identity.user)
        # Warmed in a thread: a session's notice is answered at once meanwhile (a recall then
        # loads what it needs itself). The thread is waited for at the exit (onnxruntime aborts
        # a process that ends while one of its sessions is being opened).
        warming = threading.Thread(target=warm, args=(databases,), name="warm recall")
        warming.start()
        with keep_open():  # each database stays open from one request to the next
            last = time.monotonic()
            while not self.stop:
                ready, _, _ = select.select([listener], [], [], TICK)
                now = time.monotonic()
                if ready:
                    connection, _ = listener.accept()
                    with closing(connection):
                        self.answer(connection, databases)
                    last = now
                if now - last > IDLE or (self.alone_since is not None and now - self.alone_since > GRACE):
                    return 0
                if not os.path.exists(self.identity.project) or _replaced(path, inode):
                    return 0
        return 0

    def answer(self, connection: socket.socket, databases: object) -> None:
        """Answer one message (and stop for one of another version)."""
        connection.settimeout(READ_TIMEOUT)
        try:
            said = json.loads(resident.read_line(connection, resident.REQUEST_LIMIT))
        except (OSError, ValueError):
            return
        if not isinstance(said, dict):
            return _send(connection, {"fallback": "not a message"})
        if said.get("protocol") != resident.PROTOCOL or said.get("version") != __version__:
            self.stop = True
            return _send(connection, {"fallback": "another version of cortex-hooks"})
        if any(said.get(name) != value for name, value in self.identity.fields().items()):
            return _send(connection, {"fallback": "other databases"})
        if "event" in said:
            return _send(connection, self.notice(said))
        try:
            reply = _recall(databases, said)
        except Exception as error:  # the command recalls cold, and meets (and says) the same failure
            reply = {"fallback": f"{type(error).__name__}: {error}"}
        return _send(connection, reply)

    def notice(self, said: dict[str, object]) -> dict[str, object]:
        """A session started (it uses this process) or ended."""
        session, event = said.get("session"), said.get("event")
        if not isinstance(session, str) or event not in ("start", "end"):
            return {"fallback": "not a notice"}
        if event == "start":
            self.sessions.add(session)
        else:
            self.sessions.discard(session)
        self.alone_since = None if self.sessions else time.monotonic()
        return {"ok": True}


def _recall(databases: object, said: dict[str, object]) -> dict[str, object]:
    from cortex_hooks.api import databases as db
    from cortex_hooks.api.recall import recall
    from cortex_hooks.embeddings.backend import on
    from cortex_hooks.notes import Notes

    assert isinstance(databases, db.Databases)
    notes = Notes()
    setting = db.embeddings(databases, notes)
    if said.get("setting") != setting or not on(setting):
        return {"fallback": "another embeddings setting"}
    kind, memory_type = said.get("kind"), said.get("type")
    scopes, limit = said.get("scopes"), said.get("limit")
    if not isinstance(scopes, list) or not isinstance(limit, int) or isinstance(limit, bool):
        return {"fallback": "not a request"}
    results = recall(
        databases,
        str(said.get("query")),
        notes,
        limit=limit,
        memory_type=str(memory_type) if memory_type is not None else None,
        kind=str(kind) if kind is not None else None,
        scopes=tuple(str(scope) for scope in scopes),
        peek=bool(said.get("peek")),
    )
    return {"results": results, "notes": notes.said}


def _send(connection: socket.socket, reply: dict[str, object]) -> None:
    with suppress(OSError):  # the command gave up waiting: it recalls cold
        connection.sendall(json.dumps(reply).encode() + b"\n")


def _replaced(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino != inode
    except OSError:
        return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
