"""Regular files: read only when the path is one (never a FIFO, a device or a directory), and
written whole or not at all.

A FIFO blocks the open (no writer) or the read forever, and a device such as /dev/zero never
ends; a hook reading either would never return. The path is checked before the open, opened
non-blocking (a FIFO swapped in after the check cannot block the open either) and checked again
on the open file.

A file Claude Code, a browser or a hook reads is written beside itself and renamed into place:
a reader sees the old file or the new one, never half of one, and a failed write leaves no
temporary file behind. Every writer of such a file comes here.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


def fingerprint(path: str) -> list[int] | None:
    """What says a file changed: its inode, size and modification time (None: there is none)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return [found.st_ino, found.st_size, found.st_mtime_ns]


def open_regular(path: str) -> BinaryIO:
    """The file at path opened for binary reading; OSError when it is not a regular file
    (or cannot be opened), ValueError for a path open() refuses (a NUL byte)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_small(path: str, limit: int) -> bytes:
    """The whole content of a regular file of at most `limit` bytes; OSError otherwise."""
    with open_regular(path) as stream:
        content = stream.read(limit + 1)  # never more, whatever the file's size says
    if len(content) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes")
    return content


def write_whole(path: str, content: bytes, *, mode: int, keep_mode: bool = False, sync: bool = False) -> None:
    """Replace the file at `path` with `content` through a temporary file renamed into place.

    The file gets `mode` whatever the umask, or, with `keep_mode`, the mode of the file it
    replaces when there is one; `sync` flushes the content to the disk before the rename (a
    file that must survive a crash). OSError when it cannot be written; nothing is left behind.
    """
    directory, name = os.path.split(path)
    # a name no other writer takes (O_EXCL), without `tempfile` (4 ms of imports on a hook's path)
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        if keep_mode and os.path.exists(path):
            mode = stat.S_IMODE(os.stat(path).st_mode)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
