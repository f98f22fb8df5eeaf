"""What git says about the project's working tree, for the push surface: its branch and its changed files.

Read at the process edge and never required: no git, not a repository, a slow or failing `git`
each give nothing. The branch is read from `.git/HEAD` (no process); the changed files come
from `git status`, under a short timeout.
"""

from __future__ import annotations

import os
import subprocess

from cortex_hooks.boundary import child_environment

STATUS_TIMEOUT = 1.0  # seconds: SessionEnd has a deadline, and a huge checkout must not spend it
HEAD_BYTES = 4096


def branch(project: str) -> str | None:
    """The checked-out branch, or None (detached HEAD, no repository, an unreadable HEAD)."""
    git = os.path.join(project, ".git")
    try:
        if os.path.isfile(git):  # a worktree or submodule: `gitdir: PATH`
            with open(git, encoding="utf-8") as handle:
                line = handle.read(HEAD_BYTES).strip()
            if not line.startswith("gitdir:"):
                return None
            git = os.path.join(project, line.removeprefix("gitdir:").strip())
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as handle:
            head = handle.read(HEAD_BYTES).strip()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    name = head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None
    return name or None


def changed_files(project: str, timeout: float = STATUS_TIMEOUT) -> list[str]:
    """The paths `git status` names as changed or untracked (relative to the project), or []."""
    environment = child_environment(
        GIT_OPTIONAL_LOCKS="0",  # status must not take the index lock from the user's own git
        LC_ALL="C",
        # the project itself, never a repository above it (a project in a home kept in git)
        GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(project)),
    )
    try:
        completed = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--no-renames"],
            cwd=project,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    if completed.returncode != 0:
        return []
    entries = completed.stdout.decode("utf-8", "replace").split("\0")
    return [entry[3:] for entry in entries if len(entry) > 3]
