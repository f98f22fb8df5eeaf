"""The push surface's file, `.claude/cortex-memory.local.md`: our block between the markers,
everything else the user's, kept byte for byte.

- No file: it is created (0600: it holds the memory, which is private) with the block alone.
- A file without markers gets the block appended, after a blank line, in the file's own line ends.
- One START before one END: what lies between them is replaced; nothing else changes.
- Any other arrangement (a lone START or END, END before START, a marker twice) is the user's
  to sort out: the file is left untouched and the error says what was found. Guessing where our
  block ends could cut away the user's text.
- A symbolic link is written where it points, and stays a link, when it points inside the
  project; a link out of the project (a cloned repository's link to ~/.bashrc) is refused.
- A read-only file or directory is refused (cli.file_changes.refuse_read_only), nothing written.
- Written whole through a temporary file in the same directory and a rename; not rewritten when
  nothing changed.
"""

from __future__ import annotations

import os

from cortex_hooks import regular_file
from cortex_hooks.errors import CortexError
from cortex_hooks.install import surface_import

START, END = surface_import.START, surface_import.END
RELATIVE = surface_import.SURFACE
MAX_BYTES = 1024 * 1024  # ours is at most 8,000 characters; the rest is the user's notes


def path_in(project: str) -> str:
    return os.path.join(project, RELATIVE)


def block(digest: str, newline: str = "\n") -> str:
    """The markers and the digest between them, in the given line ends."""
    return newline.join([START, *digest.split("\n"), END])


def splice(existing: bytes | None, digest: str, path: str = RELATIVE) -> bytes:
    """The file's new content: `existing` (None: no file) with our block put in or replaced."""
    if existing is None:
        return (block(digest) + "\n").encode("utf-8")
    try:
        text = existing.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CortexError(f"{path} is not UTF-8 (byte {error.start}): left it untouched") from None
    first = text.find("\n")
    newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
    ours = block(digest, newline)
    starts, ends = text.count(START), text.count(END)
    if starts == ends == 0:
        gap = "" if not text else newline if text.endswith("\n") else newline * 2
        return (text + gap + ours + newline).encode("utf-8")
    if starts == ends == 1 and text.index(START) < text.index(END):
        head, rest = text.split(START)
        tail = rest.split(END)[1]
        return (head + ours + tail).encode("utf-8")
    raise CortexError(
        f"{path} {_misplaced(text, starts, ends)}: left it untouched (fix or remove the markers)"
    )


def _misplaced(text: str, starts: int, ends: int) -> str:
    if starts == 1 and ends == 0:
        return f"has {START} without {END}"
    if starts == 0 and ends == 1:
        return f"has {END} without {START}"
    if starts == ends == 1:
        return f"has {END} before {START}"
    return f"holds {START} {starts} times and {END} {ends} times"


def read_block(project: str) -> str | None:
    """The text between the markers of the project's surface file, as Claude Code read it; None
    when there is no such file (or it cannot be read, or holds no block)."""
    try:
        existing = _read(_target(path_in(project), project))
    except CortexError:
        return None
    text = (existing or b"").decode("utf-8", "replace").replace("\r\n", "\n")
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        return None
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


def update(path: str, digest: str, *, project: str, dry_run: bool = False) -> bool:
    """Put the digest in the file at `path`; whether the file changed (or, dry, would change)."""
    target = _target(path, project)
    existing = _read(target)
    content = splice(existing, digest, path)
    if content == existing:
        return False
    if not dry_run:
        from cortex_hooks.install.file_changes import refuse_read_only

        refuse_read_only(path)
        _write(target, content)
    return True


def _target(path: str, project: str) -> str:
    """The file actually written: the path, or where its link points inside the project."""
    if not os.path.islink(path):
        return path
    target = os.path.realpath(path)
    root = os.path.realpath(project)
    if os.path.commonpath([target, root]) != root:
        raise CortexError(
            f"{path} is a symbolic link out of the project (to {target}): left it alone "
            "(remove the link to let cortex-hooks write the file)"
        )
    return target


def _read(path: str) -> bytes | None:
    try:
        return regular_file.read_small(path, MAX_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CortexError(f"cannot read {path} ({reason}): left it untouched") from None


def _write(path: str, content: bytes) -> None:
    """Whole, synced (the memory a session reads), keeping the mode of the file it replaces."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        regular_file.write_whole(path, content, mode=0o600, keep_mode=True, sync=True)
    except OSError as error:
        raise CortexError(f"cannot write {path}: {error.strerror or error}") from None
