"""uninstall's last word: the memory it leaves (and how to remove it), or, with `--purge`, the memory
removed, once the person has said yes on a terminal or given `--yes`."""

from __future__ import annotations

import argparse
import os
import sys

from cortex_hooks import location
from cortex_hooks.api import purge
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import database
from cortex_hooks.errors import USAGE, CortexError

PURGE_USER = "cortex-hooks uninstall --scope user --purge"


def register(uninstall: argparse.ArgumentParser) -> None:
    uninstall.add_argument(
        "--purge",
        action="store_true",
        help="also remove the memory for good: the project's .cortex/ (with --scope user: the "
        "global database); asks first on a terminal",
    )
    uninstall.add_argument("--yes", action="store_true", help="with --purge: do not ask")


def memories(args: argparse.Namespace) -> list[purge.Memory]:
    """The memory of the scope uninstall acts on: the project's (project and local scope), or the
    user-global one (user scope)."""
    if args.scope == "user":
        found = purge.user(database.of(args).user)
    else:
        found = purge.project(location.project_root())
    return [found] if found is not None else []


def confirmed(args: argparse.Namespace, doomed: list[purge.Memory]) -> bool:
    """Whether to go on with `--purge`: `--yes`, else the person's answer on a terminal. Without
    a terminal and without `--yes`, refused (exit 2) before anything is changed."""
    if not args.purge or not doomed or args.yes or args.dry_run:
        return True
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CortexError(
            "uninstall --purge removes the memory for good and asks first, but there is no terminal "
            "to ask on: give --yes to remove it without asking",
            USAGE,
        )
    names = " and ".join(f"{memory.what} ({clean(memory.path)})" for memory in doomed)
    sys.stdout.write(
        f"Remove {names} for good: every learning, memory and the history? "
        "(`cortex-hooks export --output FILE` keeps a copy first) [y/N] "
    )
    sys.stdout.flush()
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


def project_database_elsewhere(args: argparse.Namespace) -> str | None:
    """The project's database when --db or CORTEX_DB puts it outside the project's .cortex/:
    purge does not remove a file the person named (it may serve more than this project)."""
    if args.scope == "user":
        return None
    path = os.path.abspath(database.path(args))
    folder = os.path.join(location.project_root(), location.DIRECTORY)
    inside = os.path.commonpath([path, os.path.abspath(folder)]) == os.path.abspath(folder)
    return None if inside or not os.path.lexists(path) else path


def lines(args: argparse.Namespace, kept: list[purge.Memory], removed: list[purge.Memory]) -> list[str]:
    """What the person reads after uninstall about the memory."""
    said = []
    for memory in removed:
        verb = "Would remove" if args.dry_run else "Removed"
        said.append(f"{verb} {memory.what}: {clean(memory.path)}")
    for memory in kept:
        purge_it = PURGE_USER if args.scope == "user" else "cortex-hooks uninstall --purge"
        said.append(
            f"Kept {memory.what}: {clean(memory.path)} (learnings, memories, history); "
            f"`{purge_it}` removes it too."
        )
    elsewhere = project_database_elsewhere(args)
    if elsewhere is not None:
        said.append(
            f"Kept the database {clean(elsewhere)}: named by --db or CORTEX_DB, it is yours to remove."
        )
    if args.scope == "user":
        said.append(
            "Each project's memory (its .cortex/) stays: "
            "`cortex-hooks uninstall --purge` in a project removes it."
        )
    else:
        user = purge.user(database.of(args).user)
        if user is not None:
            said.append(
                f"The global memory ({clean(user.path)}) serves every project: `{PURGE_USER}` removes it."
            )
    return said
