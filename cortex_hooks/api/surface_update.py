"""Bringing the push surface up to date (docs/guide/surface.md): read both scopes and git, build the digest,
write the file. One path for `cortex-hooks surface` and for SessionEnd.

Reading for the surface is not an access (like `list`): it changes no counter and no time.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from cortex_hooks import clock
from cortex_hooks.api import git_state, surface_file
from cortex_hooks.memory import push_digest, rank
from cortex_hooks.store import memories
from cortex_hooks.store import surface as store
from cortex_hooks.store.scopes import Scope


@dataclass
class Result:
    path: str
    written: bool  # the file changed (on a dry run: would change)
    text: str  # our block, markers included
    digest: push_digest.Digest
    branch: str | None
    changed_files: int
    skipped: list[str] = field(default_factory=list)


def refresh(
    scopes: list[Scope],
    project: str,
    *,
    budget: int,
    now: datetime,
    dry_run: bool = False,
    cli: str = "cortex-hooks",
) -> Result:
    """The surface of these scopes (project first) written into the project's file."""
    digest, branch, changed, skipped = current(scopes, project, budget=budget, now=now, cli=cli)
    path = surface_file.path_in(project)
    written = surface_file.update(path, digest.text, project=project, dry_run=dry_run)
    return Result(path, written, surface_file.block(digest.text), digest, branch, changed, skipped)


def current(
    scopes: list[Scope],
    project: str,
    *,
    budget: int,
    now: datetime,
    cli: str = "cortex-hooks",
    heading: str = push_digest.HEADER,
) -> tuple[push_digest.Digest, str | None, int, list[str]]:
    """The digest of these scopes as the project's git state names its work, written nowhere;
    with the branch, how many files are changed, and the scopes skipped."""
    branch = git_state.branch(project)
    changed = git_state.changed_files(project)
    rows, skipped = gather(scopes, push_digest.phrases(branch, changed), now)
    return push_digest.build(rows, budget=budget, cli=cli, heading=heading), branch, len(changed), skipped


def gather(
    scopes: list[Scope], phrases: list[str], now: datetime
) -> tuple[list[push_digest.ScopeRows], list[str]]:
    """What each scope gives the surface; a scope that cannot be read is left out and named."""
    since = clock.iso(now - timedelta(days=push_digest.RECENT_DAYS))
    found: list[push_digest.ScopeRows] = []
    skipped: list[str] = []
    readable: list[tuple[Scope, int]] = []
    for scope in scopes:
        try:
            readable.append((scope, store.most_accessed(scope.connection)))
        except sqlite3.Error as error:
            skipped.append(f"{scope.name} database skipped for the surface: {error}")
    max_log = rank.access_log(max((most for _, most in readable), default=0))
    for scope, _ in readable:
        connection = scope.connection
        try:
            pinned, pinned_total = store.pinned(connection)
            code, code_total = store.code_descriptions(connection)
            top = store.top_ranked(
                connection,
                max_log=max_log,
                max_in_degree=memories.max_in_degree(connection),
                limit=push_digest.TOP,
            )
            found.append(
                push_digest.ScopeRows(
                    scope.name,
                    pinned=pinned,
                    pinned_total=pinned_total,
                    top=top,
                    touched=store.touched(connection, since),
                    naming=store.naming(connection, phrases),
                    code=code,
                    code_total=code_total,
                )
            )
        except sqlite3.Error as error:
            skipped.append(f"{scope.name} database skipped for the surface: {error}")
    return found, skipped
