"""The one bounded reading of a transcript's bytes: whole lines from a byte offset, a block at a
time, until the file ends or a deadline comes, and what was left out said once.

Bounded, whatever the file: only a regular file is opened (never a FIFO or a device, see
regular_file); a line longer than MAX_LINE is passed over unread (its head may be looked at: a
huge Write's name and path come first); a last line cut off mid-way (a transcript still being
written, or truncated) is not read; the deadline is checked before every block, and by `lines`
before every line. `Left` says where the reading stopped (always a line's start) and why.
"""

from __future__ import annotations

import json
import time

from cortex_hooks import regular_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

MAX_LINE = 8 << 20  # bytes: a longer line (a Write of a huge file) is not read
BLOCK = 1 << 20  # bytes read at a time (a hook's memory: a few of them at once); at most MAX_LINE
HEAD = 1 << 20  # of a line over MAX_LINE, the bytes a reader may look at


class Left:
    """What a reading left out: its problems (path, what), the calls it passed over unread (a
    reader that tests lines before parsing them counts them), where it stopped (`offset`, the
    start of the first line not read), whether it came to the file's end (`ended`) or stopped at a
    last line cut off mid-way (`cut`: a transcript still being written)."""

    __slots__ = ("cut", "ended", "offset", "passed", "problems")

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.passed = 0
        self.ended = False
        self.cut = False
        self.offset = 0


Block = tuple[int, int, bytes]  # (byte offset of its first line, lines before it, whole lines)


def blocks(
    path: str,
    *,
    start: int = 0,
    deadline: float,
    left: Left,
    head: Callable[[bytes], None] | None = None,
) -> Iterator[Block]:
    """The transcript's whole lines from byte `start` (a line's start), a block at a time: each
    with the byte offset of its first line and the number of lines before it (counted from
    `start`). `head` is given the first HEAD bytes of each line over MAX_LINE. OSError or
    ValueError when the path is not a readable regular file (raised at the first block asked for)."""
    left.offset = start
    cutting = _Cutting(path, start, left, head)
    with regular_file.open_regular(path) as stream:
        if start:
            stream.seek(start)
        while True:
            if time.monotonic() >= deadline:
                left.problems.append(
                    (path, f"read to line {cutting.number:,} within its deadline; the rest skipped")
                )
                break
            chunk = stream.read(BLOCK)
            if not chunk:
                yield from cutting.last()
                break
            yield from cutting.cut(chunk)
    if cutting.overlong:
        many = cutting.overlong
        left.problems.append(
            (path, f"{many:,} line{'s' if many > 1 else ''} over {MAX_LINE >> 20} MiB skipped")
        )


class _Cutting:
    """Blocks read cut into whole lines: the bytes of a line not ended yet carried to the next
    block, a line over MAX_LINE passed over to its end."""

    __slots__ = ("base", "carry", "head", "left", "number", "overlong", "path", "skipping")

    def __init__(self, path: str, start: int, left: Left, head: Callable[[bytes], None] | None) -> None:
        self.path, self.left, self.head = path, left, head
        self.base, self.number, self.carry, self.skipping, self.overlong = start, 0, b"", False, 0

    def cut(self, chunk: bytes) -> Iterator[Block]:
        if self.skipping:  # the rest of a line over MAX_LINE: passed over up to its end
            end = chunk.find(b"\n")
            if end < 0:
                self.base += len(chunk)
                return
            self.skipping, self.base, self.number = False, self.base + end + 1, self.number + 1
            self.left.offset = self.base
            chunk = chunk[end + 1 :]
        data = self.carry + chunk if self.carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            self.carry = data
            if len(data) > MAX_LINE:
                self._passed(data)
                self.skipping, self.base, self.carry = True, self.base + len(data), b""
            return
        body, self.carry = data[:cut], data[cut:]
        first = body.find(b"\n")
        if first > MAX_LINE:  # a long line whose end came with this block (BLOCK <= MAX_LINE)
            self._passed(body)
            self.base, self.number, body = self.base + first + 1, self.number + 1, body[first + 1 :]
            self.left.offset = self.base
            if not body:
                return
        count = body.count(b"\n")
        at, self.base, self.number = self.base, self.base + len(body), self.number + count
        self.left.offset = self.base
        yield at, self.number - count, body

    def last(self) -> Iterator[Block]:
        """The end of the file: a last line without its newline read if it is whole JSON."""
        if self.carry and not self.skipping and _complete(self.carry):
            self.left.offset = self.base + len(self.carry)
            yield self.base, self.number, self.carry + b"\n"
        elif self.carry or self.skipping:
            self.left.cut = True
            self.left.problems.append(
                (self.path, f"line {self.number + 1:,}, its last, is cut off mid-way: not read")
            )
            return
        self.left.ended = True

    def _passed(self, line: bytes) -> None:
        self.overlong += 1
        if self.head is not None:
            self.head(line[:HEAD])


def lines(
    path: str,
    *,
    start: int = 0,
    deadline: float,
    left: Left,
    head: Callable[[bytes], None] | None = None,
    body: Callable[[bytes], None] | None = None,
) -> Iterator[tuple[int, int, bytes]]:
    """Each whole line from byte `start` on (without its newline), with its number (from 1,
    counted from `start`) and its byte offset, bounded as `blocks` (and the deadline checked
    before every line). `body` is given each block of lines before its lines are: a second reader
    of the same bytes."""
    clock = time.monotonic
    for base, before, whole in blocks(path, start=start, deadline=deadline, left=left, head=head):
        if body is not None:
            body(whole)
        at = base
        for number, line in enumerate(whole.split(b"\n")[:-1], before + 1):
            if clock() >= deadline:
                left.offset = at
                left.problems.append(
                    (path, f"read to line {number - 1:,} within its deadline; the rest skipped")
                )
                return
            yield number, at, line
            at += len(line) + 1


def line_at(body: bytes, position: int) -> tuple[int, bytes]:
    """The whole line of a block that holds byte `position`: its start in the block, and it."""
    begins = body.rfind(b"\n", 0, position) + 1
    return begins, body[begins : body.find(b"\n", position) + 1]


def _complete(line: bytes) -> bool:
    """Whether a last line without its newline is whole JSON (a transcript cut off mid-line, or
    still being written, is not)."""
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True
