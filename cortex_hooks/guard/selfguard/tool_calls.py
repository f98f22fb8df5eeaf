"""The guard's built-in protection, pure: the agent's own tool calls that would switch
its guard off or weaken it are denied. Built in, not a learning: nothing to decay, archive or
mute, and it works with no learning at all. The person, in their own terminal, is never affected.

- Bash: the command as the shell reads it (guard.selfguard.bash);
- Write, Edit, MultiEdit, NotebookEdit: onto a database or a config file; onto a Claude Code
  settings file when the file it leaves would drop our hooks (the edit applied in memory to the
  file as it is, judged by `settings_lost`: install.wiring's, given by the caller);
- any other tool (an MCP server's): its shell command as Bash, the paths it is given in any of the
  fields servers name them by (guard.selfguard.mcp_tools).
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard.protected import (
    CONFIG,
    DATABASE,
    FOLDER_KIND,
    SETTINGS,
    TEAM,
    UNKNOWN,
    Places,
    Refusal,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch"})
_KEYS = ("disableAllHooks", "enabledPlugins")  # what an edit may turn hooks off with, besides removing them


def refusal(
    tool_name: str,
    tool_input: dict[str, Any],
    places: Places,
    cwd: str,
    *,
    current: Callable[[str], str | None],
    settings_lost: Callable[[str | None, str | None], list[str]],
) -> Refusal | None:
    """Why the agent may not make this call (None: it may). `current` reads a file as it is now
    (None: there is none); `settings_lost(before, after)` says what of our hooks a settings file's
    new text loses (after None: the text cannot be known)."""
    try:
        return _refusal(tool_name, tool_input, places, cwd, current=current, settings_lost=settings_lost)
    except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        # A call that names the guard's files and cannot be judged is not let through: the
        # protection must not be crashed open. No input should get here.
        return Refusal("this tool call", "the hook could not read it, and it names the guard's files")


def _refusal(
    tool_name: str,
    tool_input: dict[str, Any],
    places: Places,
    cwd: str,
    *,
    current: Callable[[str], str | None],
    settings_lost: Callable[[str | None, str | None], list[str]],
) -> Refusal | None:
    command = tool_input.get("command")
    if tool_name == "Bash" and isinstance(command, str):
        from cortex_hooks.guard.selfguard import bash

        refused = bash.refusal(command, places, cwd)
        if refused is not None:
            refused.command = command
        return refused
    if tool_name in FILE_TOOLS:
        path = tool_input.get(FILE_TOOLS[tool_name])
        found = _protected(path, places, cwd) if isinstance(path, str) else None
        if found is None:
            return None
        return _file(tool_name, tool_input, found, current=current, settings_lost=settings_lost)
    if tool_name in READ_TOOLS:
        return None
    from cortex_hooks.guard.selfguard import mcp_tools

    return mcp_tools.refusal(tool_name, tool_input, places, cwd)


def _protected(path: str, places: Places, cwd: str) -> tuple[str, str] | None:
    from cortex_hooks.guard.shell.invocation import Arg

    found = places.named(Arg(path, tilde=path == "~" or path.startswith("~/")), [cwd])
    return None if found is None or found[0] == UNKNOWN else found


def _file(
    tool_name: str,
    tool_input: dict[str, Any],
    found: tuple[str, str],
    *,
    current: Callable[[str], str | None],
    settings_lost: Callable[[str | None, str | None], list[str]],
) -> Refusal | None:
    """A write to a protected file: refused, unless it is a settings file that keeps our hooks."""
    kind, where = found
    what = f"{tool_name} of {where}"
    if kind in (DATABASE, CONFIG, FOLDER_KIND, TEAM) or tool_name == "NotebookEdit":
        why = {
            DATABASE: "it would overwrite the guard's database",
            CONFIG: "the config file sets how the guard decides (block_gate = 0.89 disarms every block)",
            TEAM: (
                "an edit of the team file leaves every team learning untrusted until the person trusts "
                "it again (`cortex-hooks team add ID --from N` adds a line and keeps the trust)"
            ),
        }.get(kind, f"it writes into the guard's {kind}")
        return Refusal(what, why)
    assert kind == SETTINGS
    before = current(where)
    after, news = _after(tool_name, tool_input, before)
    if after is None:
        if settings_lost(before, "{}") or any(key in new for new in news for key in _KEYS):
            why = "the hook cannot tell what this edit leaves of its hooks (it does not apply to the file)"
            return Refusal(what, why)
        return None
    lost = settings_lost(before, after)
    if lost:
        return Refusal(what, f"Claude Code would no longer run cortex-hooks' hooks: {'; '.join(lost)}")
    return None


def _after(tool_name: str, tool_input: dict[str, Any], before: str | None) -> tuple[str | None, list[str]]:
    """The file's text after this call, as Claude Code's tool would leave it (None when it cannot
    be known: an edit that does not apply), and the new strings it writes."""
    if tool_name == "Write":
        content = tool_input.get("content")
        return (content, [content]) if isinstance(content, str) else (None, [])
    edits = tool_input.get("edits") if tool_name == "MultiEdit" else [tool_input]
    if not isinstance(edits, list):
        return None, []
    text = before
    news: list[str] = []
    for edit in edits:
        old, new = (
            (edit.get("old_string"), edit.get("new_string")) if isinstance(edit, dict) else (None, None)
        )
        if not isinstance(old, str) or not isinstance(new, str):
            return None, news
        news.append(new)
        if text is None or old == "":
            if old != "" or text:  # an empty old_string writes a new file, nothing else
                return None, news
            text = new
            continue
        if old not in text:
            return None, news
        text = text.replace(old, new) if edit.get("replace_all") is True else text.replace(old, new, 1)
    return text, news


def harm(refused: Refusal, places: Places, cwd: str, project: str) -> str | None:
    """What a refused command deletes or moves besides the guard's files, in plain words, when a
    word of it names a folder a person cares about for itself: the whole disk, their home folder,
    the project (the harm is told first). None for anything else."""
    verb = refused.why.split(" ", 2)[1] if refused.why.startswith(("it deletes ", "it moves ")) else None
    if refused.simple is None or verb is None:
        return None
    from cortex_hooks.guard.shell import invocation

    call = invocation.invocation(refused.simple)
    for arg in call.args if call is not None else []:
        for path in places.paths(arg, [cwd]) or []:
            words = _plain(path.rstrip("/") or "/", places.home, project)
            if words is not None:
                return f"{verb} {words}"
    return None


def _plain(path: str, home: str, project: str) -> str | None:
    if path == "/":
        return "everything on this machine's disk"
    if path == home.rstrip("/"):
        return "your home folder"
    if path == project.rstrip("/"):
        return "the whole project"
    if (project.rstrip("/") + "/").startswith(path + "/"):
        return "the folder that holds the project"
    return None
