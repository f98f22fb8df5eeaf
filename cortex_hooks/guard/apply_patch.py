"""A patch in the `apply_patch` format (Codex CLI's, and Copilot CLI's for OpenAI models) read as
the file calls it makes, pure: a file added is a Write of its lines, a file updated a MultiEdit
of its hunks, a file deleted an `rm` of it, a file moved an `mv` — one call per file, each judged
as Claude Code's call of that kind would be (the built-in protection included).

    *** Begin Patch
    *** Add File: PATH          +lines
    *** Delete File: PATH
    *** Update File: PATH       [*** Move to: PATH]  then hunks: @@ …, ' ' context, '-' old, '+' new
    *** End Patch

A text that is no patch gives None: the caller judges it as it is.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
END_OF_FILE = "*** End of File"


class Change:
    """One file's change: `action` (add, delete, update), its `path`, where it moves (`moved`),
    the text added (an add) or the hunks' (old, new) texts (an update)."""

    __slots__ = ("action", "content", "hunks", "moved", "path")

    def __init__(self, action: str, path: str) -> None:
        self.action = action
        self.path = path
        self.moved: str | None = None
        self.content: list[str] = []
        self.hunks: list[tuple[list[str], list[str]]] = []


def changes(text: str) -> list[Change] | None:
    """The files a patch changes, in order; None when the text is no patch."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or lines[0].strip() != BEGIN:
        return None
    found: list[Change] = []
    for line in lines[1:]:
        if line.strip() == END:
            break
        for marker, action in ((ADD, "add"), (DELETE, "delete"), (UPDATE, "update")):
            if line.startswith(marker):
                found.append(Change(action, line[len(marker) :].strip()))
                break
        else:
            if not found:
                return None  # text before the first file: no patch this reader knows
            _line(found[-1], line)
    return found if found and all(change.path for change in found) else None


def _line(change: Change, line: str) -> None:
    if change.action == "add":
        if line.startswith("+"):
            change.content.append(line[1:])
        return
    if change.action != "update":
        return
    if line.startswith(MOVE):
        change.moved = line[len(MOVE) :].strip() or None
        return
    if line.startswith("@@") or not change.hunks:
        change.hunks.append(([], []))
        if line.startswith("@@"):
            return
    if line.strip() == END_OF_FILE:
        return
    old, new = change.hunks[-1]
    mark, rest = line[:1], line[1:]
    if mark == "-":
        old.append(rest)
    elif mark == "+":
        new.append(rest)
    else:  # context (' ', or an empty line the model left bare): on both sides
        old.append(rest if mark == " " else line)
        new.append(rest if mark == " " else line)


def calls(text: str, cwd: str | None) -> list[tuple[str, dict[str, Any]]] | None:
    """The (tool, input) of each file call the patch makes, in Claude Code's tools and fields,
    paths made absolute from `cwd`; None when the text is no patch."""
    found = changes(text)
    if found is None:
        return None
    made: list[tuple[str, dict[str, Any]]] = []
    for change in found:
        path = _absolute(change.path, cwd)
        if change.action == "add":
            made.append(("Write", {"file_path": path, "content": "\n".join(change.content) + "\n"}))
        elif change.action == "delete":
            made.append(("Bash", {"command": f"rm -f -- {_quoted(path)}"}))
        else:
            target = path if change.moved is None else _absolute(change.moved, cwd)
            if change.moved is not None:
                made.append(("Bash", {"command": f"mv -- {_quoted(path)} {_quoted(target)}"}))
            edits = [
                {"old_string": "\n".join(old), "new_string": "\n".join(new)} for old, new in change.hunks
            ]
            made.append(("MultiEdit", {"file_path": target, "edits": edits}))
    return made


def _absolute(path: str, cwd: str | None) -> str:
    if os.path.isabs(path) or cwd is None:
        return path
    return os.path.normpath(os.path.join(cwd, path))


def _quoted(path: str) -> str:
    import shlex

    return shlex.quote(path)
