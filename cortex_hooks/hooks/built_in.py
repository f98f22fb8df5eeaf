"""PreToolUse's built-in protection at the process edge (SPEC §19): the places this call could
touch, from the environment and the payload's cwd, and the settings file as it is now, handed to
the pure rule (guard.self_protection); the deny Claude Code reads. `explain` shows the same."""

from __future__ import annotations

import os

from cortex_hooks import location, regular_file
from cortex_hooks.guard import protected, self_protection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.protected import Refusal


def refusal(tool_name: str, tool_input: dict[str, Any], payload_cwd: object) -> Refusal | None:
    """Why the agent may not make this call (None: it may)."""
    cwd = payload_cwd if isinstance(payload_cwd, str) and os.path.isabs(payload_cwd) else os.getcwd()
    return self_protection.refusal(
        tool_name, tool_input, places(cwd), cwd, current=_current, settings_lost=_settings_lost
    )


def output(refused: Refusal) -> dict[str, Any]:
    """The hook's JSON: a deny with its reason."""
    from cortex_hooks.guard.verdict import Verdict
    from cortex_hooks.hooks import protocol

    return protocol.pre_tool_use(Verdict("deny", [], self_protection.reason(refused), None))


def places(cwd: str) -> protected.Places:
    """The protected places of a call made in `cwd`: the project's database (that of the project
    Claude Code names, and of the cwd), a CORTEX_DB, the global one, and the settings files of
    those projects and of the user."""
    home = os.path.expanduser("~")
    projects = {os.path.abspath(location.hook_project(cwd)), cwd}
    databases = [os.path.join(project, location.DIRECTORY, location.FILENAME) for project in projects]
    databases.append(location.global_database())
    explicit = os.environ.get("CORTEX_DB")
    if explicit:
        databases.append(os.path.abspath(explicit))
    settings = [
        os.path.join(folder, protected.SETTINGS_FOLDER, name)
        for folder in (*projects, home)
        for name in protected.SETTINGS_NAMES
    ]
    variables = {"HOME": home, "PWD": cwd}
    for name in protected.VARIABLES[2:]:
        if os.environ.get(name):
            variables[name] = os.environ[name]
    return protected.Places(
        databases=databases, settings=settings, home=home, variables=variables, real=os.path.realpath
    )


def _settings_lost(before: str | None, after: str | None) -> list[str]:
    """install.wiring's judgement of a settings file's new text, imported only for a settings
    file (its import costs a Bash call that only names a folder ~12 ms)."""
    from cortex_hooks.install import wiring

    return wiring.weakened(before, after)


def _current(path: str) -> str | None:
    """A settings file's text as it is now; None when there is none, or none Claude Code could
    read either (the call is then judged on what it writes)."""
    try:  # a regular file of at most a megabyte: never a FIFO, /dev/zero or a 1 GB file (issue 34)
        return regular_file.read_small(path, 1 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
