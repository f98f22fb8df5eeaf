"""The resident recall process: `cortex-hooks recall` answered warm, for one set of databases.

    python -m cortex_hooks.resident.server PROJECT_DATABASE GLOBAL_DATABASE PROJECT_ROOT

Started detached by SessionStart (upkeep.resident). One per socket: a lock beside it makes a
second exit at once. It loads recall's model and stored vectors (api.recall.warm), then answers
one request per connection with api.recall.recall, as the command would have. It exits when no
request came for IDLE seconds, when the project's database is gone, when its socket was removed
or replaced, or when a request comes from another version of cortex-hooks (that version starts
its own). Whatever it cannot answer, it says so, and the command recalls cold.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import socket
import sys
import time
from contextlib import closing, suppress

from cortex_hooks import __version__
from cortex_hooks.resident import protocol

IDLE = 30 * 60.0  # seconds without a request before the process exits
TICK = 2.0  # seconds between looks at the database and the socket
READ_TIMEOUT = 5.0  # seconds a connection may take to send its request


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    identity = protocol.here(*argv)
    path = protocol.socket_path(identity, create=True)
    if path is None:
        return 0
    # recall reads the project's team file and Claude Code's memory from the project root
    os.environ["CLAUDE_PROJECT_DIR"] = identity.root
    with open(path + ".lock", "a", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process answers for these databases
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
            return serve(listener, path, inode, identity)
        finally:
            listener.close()
            with suppress(OSError):
                if os.stat(path).st_ino == inode:
                    os.unlink(path)


def serve(listener: socket.socket, path: str, inode: int, identity: protocol.Identity) -> int:
    from cortex_hooks.api.databases import Databases
    from cortex_hooks.api.recall import warm
    from cortex_hooks.store.connection import keep_open

    databases = Databases(identity.project, identity.user)
    with keep_open():  # each database stays open from one request to the next
        warm(databases)
        last = time.monotonic()
        while True:
            ready, _, _ = select.select([listener], [], [], TICK)
            if ready:
                connection, _ = listener.accept()
                with closing(connection):
                    if not answer(connection, databases, identity):
                        return 0
                last = time.monotonic()
            elif time.monotonic() - last > IDLE:
                return 0
            if not os.path.exists(identity.project) or _replaced(path, inode):
                return 0


def answer(connection: socket.socket, databases: object, identity: protocol.Identity) -> bool:
    """Answer one request; False when this process should stop (a client of another version)."""
    connection.settimeout(READ_TIMEOUT)
    try:
        message = json.loads(protocol.read_line(connection, protocol.REQUEST_LIMIT))
    except (OSError, ValueError):
        return True
    if not isinstance(message, dict):
        return _send(connection, {"fallback": "not a request"})
    if message.get("protocol") != protocol.PROTOCOL or message.get("version") != __version__:
        _send(connection, {"fallback": "another version of cortex-hooks"})
        return False
    if any(message.get(name) != value for name, value in identity.fields().items()):
        return _send(connection, {"fallback": "other databases"})
    try:
        reply = _recall(databases, message)
    except Exception as error:  # the command recalls cold, and meets (and says) the same failure
        reply = {"fallback": f"{type(error).__name__}: {error}"}
    return _send(connection, reply)


def _recall(databases: object, message: dict[str, object]) -> dict[str, object]:
    from cortex_hooks.api import databases as db
    from cortex_hooks.api.recall import recall
    from cortex_hooks.embeddings.backend import on
    from cortex_hooks.notes import Notes

    assert isinstance(databases, db.Databases)
    notes = Notes()
    setting = db.embeddings(databases, notes)
    if message.get("setting") != setting or not on(setting):
        return {"fallback": "another embeddings setting"}
    kind, memory_type = message.get("kind"), message.get("type")
    scopes, limit = message.get("scopes"), message.get("limit")
    if not isinstance(scopes, list) or not isinstance(limit, int) or isinstance(limit, bool):
        return {"fallback": "not a request"}
    results = recall(
        databases,
        str(message.get("query")),
        notes,
        limit=limit,
        memory_type=str(memory_type) if memory_type is not None else None,
        kind=str(kind) if kind is not None else None,
        scopes=tuple(str(scope) for scope in scopes),
        peek=bool(message.get("peek")),
    )
    return {"results": results, "notes": notes.said}


def _send(connection: socket.socket, reply: dict[str, object]) -> bool:
    with suppress(OSError):  # the command gave up waiting: it recalls cold
        connection.sendall(json.dumps(reply).encode() + b"\n")
    return True


def _replaced(path: str, inode: int) -> bool:
    try:
        return os.stat(path).st_ino != inode
    except OSError:
        return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
