"""Claude Code's own memory files: which there are for a folder Claude Code starts in,
and recall's index of them brought in step by mtime and size — a file whose stat changed is read
again, one gone leaves the index — or built in memory when the database may not be written.

The files: every `*.md` of the auto-memory folder (install.claude_paths; two levels of
subfolders, for `team/`), and in each folder from the git root down to the start folder the
`CLAUDE.md`, `CLAUDE.local.md`, `.claude/CLAUDE.md` and `.claude/rules/**/*.md` Claude Code loads.
Read-only, within bounds: regular files only, at most MAX_BYTES of each, MAX_FILES of a folder.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Mapping

from cortex_hooks.frozen import Record
from cortex_hooks.install import claude_paths
from cortex_hooks.memory.claude_chunks import chunks
from cortex_hooks.store import claude_index
from cortex_hooks.store.transaction import Transaction

MAX_FILES = 1_000  # of one folder tree (the auto memory, the rules)
MAX_DEPTH = 2  # subfolders below the auto-memory folder and the rules folder
MAX_BYTES = 256 * 1024  # read of one file: what lies beyond is not indexed
PROJECT_FILES = ("CLAUDE.md", "CLAUDE.local.md", os.path.join(".claude", "CLAUDE.md"))

Stat = tuple[int, int]  # (mtime in ns, size)
Reading = tuple[Stat, list[tuple[int, str, str]]]  # a file as read: its stat and chunks


class Sources(Record):
    """The memory files of a folder Claude Code starts in, as they stand now."""

    files: dict[str, tuple[str, Stat]]  # path → (origin, stat)
    problems: list[str]  # a folder that could not be read, said once


def sources(start: str, environ: Mapping[str, str] = os.environ) -> Sources:
    """The files Claude Code keeps or loads for sessions started in `start` (none for a path no
    folder can have: a NUL byte)."""
    found: dict[str, tuple[str, Stat]] = {}
    problems: list[str] = []
    if "\x00" in start:
        return Sources(found, problems)
    memory = claude_paths.auto_memory(start, environ)
    if memory is not None:
        _walk(memory, "auto-memory", found, problems, MAX_DEPTH)
        index = os.path.join(memory, "MEMORY.md")
        if index in found:  # its lines point to the topic files: those are indexed (and read for rules) first
            found[index] = found.pop(index)
    real = os.path.realpath(start)
    root = claude_paths.git_root(real) or real
    folder = real
    chain = [folder]
    while folder != root and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        chain.append(folder)
    for folder in reversed(chain):
        for name in PROJECT_FILES:
            _add(os.path.join(folder, name), "claude-md", found)
        rules = os.path.join(folder, ".claude", "rules")
        if os.path.isdir(rules):
            _walk(rules, "claude-md", found, problems, MAX_DEPTH)
    return Sources(found, problems)


class Plan(Record):
    """What bringing the index in step takes: the files to drop or read again, and their
    readings (None: gone, or no longer readable)."""

    stale: list[str]
    readings: dict[str, Reading | None]


def plan(connection: sqlite3.Connection, found: Sources, deadline: float | None = None) -> Plan:
    """The files new, changed or gone since they were indexed, the present ones read now
    (before any write transaction: the lock is held for the writes alone). With a `deadline`
    (monotonic), reading stops there, one file at least: the files left unread stay as they were
    indexed, for the next pass."""
    stale: list[str] = []
    readings: dict[str, Reading | None] = {}
    for path in changed(claude_index.files(connection), found):
        if path in found.files:
            if deadline is not None and readings and time.monotonic() > deadline:
                continue
            readings[path] = _read(path)
        stale.append(path)
    return Plan(stale, readings)


def apply(connection: sqlite3.Connection, work: Plan, found: Sources, now: str) -> None:
    """Write a plan, inside the caller's write transaction."""
    claude_index.forget(connection, [path for path in work.stale if work.readings.get(path) is None])
    for path, reading in work.readings.items():
        if reading is not None:
            claude_index.store(
                connection, path, origin=found.files[path][0], stat=reading[0], chunks=reading[1], now=now
            )


def refresh(connection: sqlite3.Connection, found: Sources, now: str, deadline: float | None = None) -> bool:
    """Bring the project database's index in step with the files (those read by `deadline`, see
    plan), in one write transaction taken only when something changed; whether it was."""
    work = plan(connection, found, deadline)
    if not work.stale:
        return False
    with Transaction(connection):
        apply(connection, work, found, now)
    return True


def changed(indexed: dict[str, Stat], found: Sources) -> list[str]:
    """The files to read again or to drop: new, changed or gone since they were indexed."""
    stale = [path for path, (_origin, stat) in found.files.items() if indexed.get(path) != stat]
    return stale + [path for path in indexed if path not in found.files]


def transient(found: Sources, now: str) -> sqlite3.Connection:
    """An index in memory of every file (the database may not be written, or there is none)."""
    connection = claude_index.transient()
    for path, (origin, _stat) in found.files.items():
        reading = _read(path)
        if reading is not None:
            claude_index.store(connection, path, origin=origin, stat=reading[0], chunks=reading[1], now=now)
    return connection


def _read(path: str) -> Reading | None:
    """A file's stat and chunks as read now; None when it cannot be read as a regular file."""
    from cortex_hooks import regular_file
    from cortex_hooks.redact import redact

    try:
        with regular_file.open_regular(path) as stream:
            status = os.fstat(stream.fileno())
            data = stream.read(MAX_BYTES)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    # What the index keeps reaches the model (cortex_recall) and capture's proposals: the one
    # redactor takes any secret out first (a line after a redacted key block, in the same chunk,
    # is numbered as if the block were one line).
    return (status.st_mtime_ns, status.st_size), [
        (chunk.line, redact(chunk.summary), redact(chunk.content)) for chunk in chunks(text)
    ]


def _add(path: str, origin: str, found: dict[str, tuple[str, Stat]]) -> None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return
    if os.path.isfile(path) and path not in found:
        found[path] = (origin, (status.st_mtime_ns, status.st_size))


def _walk(
    folder: str, origin: str, found: dict[str, tuple[str, Stat]], problems: list[str], depth: int
) -> None:
    """The `*.md` regular files of a folder and its subfolders to `depth`, at most MAX_FILES."""
    pending = [(folder, depth)]
    seen = 0
    while pending:
        here, left = pending.pop()
        try:
            entries = list(os.scandir(here))
        except FileNotFoundError:
            continue
        except OSError as error:  # unreadable: recall works without it, and says so
            problems.append(f"Claude Code's memory folder {here} not read: {error.strerror or error}")
            continue
        for entry in sorted(entries, key=lambda entry: entry.name):
            try:
                if entry.is_dir(follow_symlinks=False):
                    if left:
                        pending.append((entry.path, left - 1))
                elif entry.name.endswith(".md") and entry.is_file() and seen < MAX_FILES:
                    status = entry.stat()
                    found[entry.path] = (origin, (status.st_mtime_ns, status.st_size))
                    seen += 1
            except OSError:
                continue
