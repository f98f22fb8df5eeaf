"""Changing a file the user owns (settings.json, the /learn command): read, refuse a read-only one,
back it up beside itself (the newest few kept), write it whole by a rename.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field

from cortex_hooks import clock, regular_file
from cortex_hooks.errors import CortexError
from cortex_hooks.install.wiring import Change

KEPT_BACKUPS = 3  # per file: enough to step back over a few installs, not a pile in .claude/


@dataclass
class Plan:
    """One file install or uninstall would change: its text before and after (None: absent)."""

    path: str
    before: bytes | None
    after: str | None
    changes: list[Change]
    backup: str | None = None  # once applied: the copy of `before`
    removed_backups: list[str] = field(default_factory=list)  # older ones, past KEPT_BACKUPS
    label: str = "the settings"  # how a report names what the file is to us
    backed_up: bool = True  # False: a change exactly undone by its opposite (the import line)
    stale: list[str] = field(default_factory=list)  # our backups removed with it (nothing of theirs)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def action(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "created"
        return "removed" if self.after is None else "updated"


def read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CortexError(f"cannot read {path}: {error.strerror or error}") from None


def refuse_read_only(path: str) -> None:
    """CortexError when the file, or the directory it and its backup are written in, is read-only.

    The write goes by a rename, which the file's own permission does not stop; and root may write
    whatever the mode says. So the mode is asked, not the system call.
    """
    target = os.path.realpath(path)
    for place in (target, os.path.dirname(target), os.path.dirname(os.path.abspath(path))):
        if _read_only(place):
            what = "directory" if os.path.isdir(place) else "file"
            raise CortexError(f"{place} is a read-only {what}: left {path} untouched (make it writable)")


def _read_only(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not mode & 0o222 or not os.access(path, os.W_OK)


def backups(path: str) -> list[str]:
    """Our backups of `path` (named `NAME.STAMP[-N].bak` beside it), newest first."""
    return [name for _, name in _ours(path)]


def _ours(path: str) -> list[tuple[tuple[str, int], str]]:
    directory = os.path.dirname(path) or "."
    pattern = re.compile(re.escape(os.path.basename(path)) + r"\.(\d{8}T\d{6}Z)(?:-(\d+))?\.bak")
    found = []
    for name in os.listdir(directory) if os.path.isdir(directory) else []:
        match = pattern.fullmatch(name)
        if match:
            found.append(((match[1], int(match[2] or 1)), os.path.join(directory, name)))
    return sorted(found, reverse=True)


def back_up(path: str, content: bytes) -> tuple[str, list[str]]:
    """A new timestamped copy beside the file (an earlier backup is never overwritten), and the
    older backups of ours it removed to keep the newest KEPT_BACKUPS."""
    stamp = clock.now().strftime("%Y%m%dT%H%M%SZ")
    # after the last of this second: a number freed by removing an old one would sort first
    first = max((number for (when, number), _ in _ours(path) if when == stamp), default=0) + 1
    for attempt in range(first, first + 1000):
        backup = f"{path}.{stamp}{'' if attempt == 1 else f'-{attempt}'}.bak"
        try:
            with open(backup, "xb") as handle:
                handle.write(content)
        except FileExistsError:
            continue
        shutil.copymode(path, backup)
        removed = [old for old in backups(path) if old != backup][KEPT_BACKUPS - 1 :]
        for old in removed:
            os.remove(old)
        return backup, removed
    raise CortexError(f"cannot find a free backup name beside {path}")


NEW_FILE_MODE, NEW_FOLDER_MODE = 0o644, 0o755  # whatever the umask: never writable by others


def _make_folders(directory: str) -> None:
    """The folder and those missing above it, each 0755 whatever the umask."""
    missing = []
    while not os.path.isdir(directory):
        missing.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            continue  # made meanwhile (or a file there: the write below says so)
        os.chmod(folder, NEW_FOLDER_MODE)


def write(path: str, text: str) -> None:
    """Write through a temporary file and a rename: Claude Code never reads half a file.

    A symlinked settings file (dotfiles) is written where it points, and stays a link. A file
    keeps its mode; a new one is 0644 and a new folder 0755, whatever the umask (under `umask 000`
    a settings file writable by every user would let any of them rewire the hooks).
    """
    path = os.path.realpath(path)
    _make_folders(os.path.dirname(path))
    # bytes: line ends exactly as the text has them
    regular_file.write_whole(path, text.encode("utf-8"), mode=NEW_FILE_MODE, keep_mode=True)
