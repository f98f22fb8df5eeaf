"""How a command and the resident recall process of its databases talk: where it listens, what
both ends must agree on, a line each way.

One process per (project database, global database, project root, home): the socket's name is a
digest of them, in a folder only the user can enter ($XDG_RUNTIME_DIR/cortex-hooks, else
cortex-hooks-UID in the temporary folder); a folder that is not the user's alone is not used.
"""

from __future__ import annotations

import json
import os
import stat
import zlib

from cortex_hooks import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

PROTOCOL = 1
REQUEST_LIMIT = 64 * 1024  # bytes of one request line
REPLY_LIMIT = 64 * 1024 * 1024  # bytes of one reply line (a thousand results of 64 KiB each)


class Identity:
    """What a request must share with the process that answers it."""

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


def request(identity: Identity, setting: str, asked: dict[str, object]) -> bytes:
    """One request line."""
    message = {"protocol": PROTOCOL, "version": __version__, "setting": setting, **identity.fields(), **asked}
    return json.dumps(message).encode() + b"\n"


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
