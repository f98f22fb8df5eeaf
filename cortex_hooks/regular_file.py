"""Opening a path the user named only when it is a regular file: never a FIFO, a device or a directory.

A FIFO blocks the open (no writer) or the read forever, and a device such as /dev/zero never
ends; a hook reading either would never return. The path is checked before the open, opened
non-blocking (a FIFO swapped in after the check cannot block the open either) and checked again
on the open file.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


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
