"""Claude Code's `permissions.deny` rules on Read, as a path test, pure: index-code never reads a
file Claude Code's own Read tool is refused (docs/guide/selfguard.md), or the memory would hand it round them.

A rule is `Read(PATTERN)` (or bare `Read`: every file), its pattern gitignore-like: `//abs/path`
from the root, `~/path` from the home, `/path` from the folder the settings file belongs to (the
project, or the home for the user's settings), `path` or `./path` from the project; `*` stays
within a folder, `**` crosses folders, and a pattern without a slash matches that name in any
folder below (gitignore's rule). A pattern that names a folder covers what is inside it.
"""

from __future__ import annotations

import os
import re


def patterns(rules: object) -> list[str]:
    """The Read patterns of a settings file's `permissions.deny` list ("" for a bare `Read`)."""
    if not isinstance(rules, list):
        return []
    found = []
    for rule in rules:
        if not isinstance(rule, str):
            continue
        if rule.strip() == "Read":
            found.append("")
        else:
            matched = re.fullmatch(r"\s*Read\((.*)\)\s*", rule, flags=re.DOTALL)
            if matched is not None:
                found.append(matched[1].strip())
    return found


def denies(pattern: str, path: str, *, base: str, project: str, home: str) -> bool:
    """Whether a Read pattern refuses the absolute `path`; `base` is the folder the settings file
    belongs to, `project` the one a relative pattern starts from."""
    if not pattern or pattern in ("**", "*", "./**"):
        return True
    if pattern.startswith("//"):
        anchored = pattern[1:]
    elif pattern.startswith("~/"):
        anchored = os.path.join(home, pattern[2:])
    elif pattern.startswith("/"):
        anchored = os.path.join(base, pattern[1:])
    else:
        bare = pattern.removeprefix("./")
        if "/" not in bare.rstrip("/"):
            bare = "**/" + bare  # a name alone: in any folder below the project
        anchored = os.path.join(project, bare)
    expression = _regex(os.path.normpath(anchored) + ("/" if anchored.endswith("/") else ""))
    return any(expression.fullmatch(candidate) for candidate in _with_parents(path))


def _with_parents(path: str) -> list[str]:
    """The path and every folder above it: a pattern naming a folder covers its files."""
    found = [path]
    while True:
        parent = os.path.dirname(found[-1])
        if parent == found[-1]:
            return found
        found.append(parent)


def _regex(pattern: str) -> re.Pattern[str]:
    """A gitignore-like glob as a regex over absolute paths."""
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out).rstrip("/") + "/?")
