"""Another MCP server's tools and the guard's places, pure.

- a tool that runs a shell command (`command`, `cmd`: a string, or a list of words) is judged as a
  Bash call of the same command (guard.selfguard.bash);
- a path it is given — `path`, `file_path`, `filePath`, `file`, `paths` (a list), `uri`
  (`file://…`), `relative_path`, `source`, `destination`, `target` … — that is one of the guard's
  files is refused unless the tool only reads (`read_file`, `list_directory`: its name begins with
  a reading word and holds no writing one, so `read_and_delete` is no reader); a tool that deletes
  or moves (`delete_file`, `move_file`) may not be given a folder holding one either;
- our own server's tools (`mcp__cortex__…`, the plugin's `mcp__plugin_…_cortex__…`) refuse a
  weakening themselves; a tool that merely holds "cortex" in its name is judged as any other.
"""

from __future__ import annotations

import re

from cortex_hooks.guard.selfguard.protected import FOLDER_KIND, UNKNOWN, Places, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OWN = re.compile(r"mcp__(?:plugin_.+_)?cortex__[a-z_]+")
# the same as location's (tests/test_self_protection_mcp.py holds them in step): the hook asks this
# rule only about a call one of whose fields names a place of the guard's
PATH_FIELDS = (
    *("file_path", "notebook_path", "path", "destination", "source", "target", "filePath", "file"),
    *("filename", "fileName", "relative_path", "relativePath", "dir", "directory", "folder", "dest"),
    *("from", "to", "old_path", "new_path", "oldPath", "newPath", "src", "dst", "output", "uri"),
)
LIST_FIELDS = ("paths", "files", "file_paths", "filePaths", "sources", "uris")
COMMAND_FIELDS = ("command", "cmd", "script", "shell_command", "commandLine")
_READING = frozenset({"read", "get", "list", "search", "view", "stat", "find", "directory", "tree"})
_READING |= {"show", "cat", "head", "tail", "info", "describe", "query", "grep", "glob", "ls", "fetch"}
_WRITING = frozenset(
    {"write", "edit", "delete", "remove", "rm", "move", "mv", "rename", "create", "update", "put", "set"}
    | {"save", "patch", "replace", "truncate", "chmod", "chown", "drop", "exec", "execute", "run", "unlink"}
    | {"copy", "cp", "append", "insert", "upload", "apply", "modify", "change", "clear", "clean", "purge"}
    | {"trash", "wipe", "kill", "overwrite", "mkdir", "make", "touch", "link", "symlink", "extract", "unzip"}
)
_DELETING = frozenset(
    {"delete", "remove", "rm", "move", "mv", "rename", "unlink", "trash", "wipe", "purge", "clean", "clear"}
)
MAX_PATHS = 1000  # a list of paths longer than this: the first this many are read


def refusal(tool_name: str, tool_input: dict[str, Any], places: Places, cwd: str) -> Refusal | None:
    """Why the agent may not make this call to another MCP server's tool (None: it may)."""
    if OWN.fullmatch(tool_name):
        return None  # our own tools refuse a weakening themselves (guard.weakening)
    command = _command(tool_input)
    if command is not None:
        from cortex_hooks.guard.selfguard import bash

        refused = bash.refusal(command, places, cwd)
        if refused is not None:
            refused.what = f"{tool_name} running `{command[:200]}`"
            refused.command = command
            return refused
    words = _words(tool_name.rsplit("__", 1)[-1])
    if words and words[0] in _READING and not _WRITING.intersection(words):
        return None  # an MCP server's read_file, list_directory …
    deletes = bool(_DELETING.intersection(words))
    for path in _paths(tool_input):
        found = _named(path, places, cwd, whole=deletes)
        if found is not None and (deletes or found[0] != FOLDER_KIND):
            return Refusal(f"{tool_name} on {found[1]}", f"it is given the guard's {found[0]}")
    return None


def _words(name: str) -> list[str]:
    """A tool's name as words: `read_and_delete` → read, and, delete; `moveFile` → move, file."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [word for word in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if word]


def _command(tool_input: dict[str, Any]) -> str | None:
    """The shell command a tool is given: a string, or a list of words (shell-quoted)."""
    import shlex

    for field in COMMAND_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(word, str) for word in value):
            return shlex.join(value)
    return None


def _paths(tool_input: dict[str, Any]) -> list[str]:
    """The paths a tool is given, in any of the fields servers name them by."""
    found: list[str] = []
    for field in PATH_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, str):
            found.append(value)
    for field in LIST_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, list):
            found += [item for item in value[:MAX_PATHS] if isinstance(item, str)]
    return [path for path in (_from_uri(value) for value in found) if path]


def _from_uri(value: str) -> str:
    """A `file://` URI as the path it names (other schemes name no file)."""
    if "://" not in value:
        return value
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(value)
    return unquote(parts.path) if parts.scheme == "file" else ""


def _named(path: str, places: Places, cwd: str, *, whole: bool) -> tuple[str, str] | None:
    from cortex_hooks.guard.shell.invocation import Arg

    found = places.named(Arg(path, tilde=path == "~" or path.startswith("~/")), [cwd], whole=whole)
    return None if found is None or found[0] == UNKNOWN else found
