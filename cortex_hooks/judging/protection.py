"""The built-in protection at the process edge: the places a call could touch, from the
environment and the call's cwd, and the settings file as it is now, handed to the pure rule
(guard.selfguard.tool_calls); the harm it would do besides, in plain words. The judge
(guard.judge) asks it through the rules in force, for the hook, explain and replay alike."""

from __future__ import annotations

import os
import sys

from cortex_hooks import location, regular_file
from cortex_hooks.errors import CortexError
from cortex_hooks.guard.selfguard import protected, tool_calls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.selfguard.protected import Refusal


def refusal(tool_name: str, tool_input: dict[str, Any], payload_cwd: object) -> Refusal | None:
    """Why the agent may not make this call (None: it may)."""
    cwd = payload_cwd if isinstance(payload_cwd, str) and os.path.isabs(payload_cwd) else os.getcwd()
    project = os.path.abspath(location.hook_project(cwd))
    where = places(cwd, project)
    refused = tool_calls.refusal(
        tool_name, tool_input, where, cwd, current=_current, settings_lost=_settings_lost
    )
    if refused is not None:
        refused.harm = tool_calls.harm(refused, where, cwd, project)
    return refused


def of_rewrite(pattern: str, template: str) -> str | None:
    """Why the built-in protection would refuse a rewrite's text as a command run here (None:
    it would not): the rewrite expanded with its groups empty, as its own text reads."""
    from cortex_hooks.guard import rewrite

    try:
        text = rewrite.own_text(pattern, template)
    except CortexError:
        return None  # it does not expand: refused for that by the learning's own checks
    refused = refusal("Bash", {"command": text}, None)
    if refused is None:
        return None
    return f"the built-in protection would refuse the command it writes ({refused.what}: {refused.why})"


def places(cwd: str, project: str | None = None) -> protected.Places:
    """The protected places of a call made in `cwd`: the project's database (that of the project
    Claude Code names, and of the cwd), a CORTEX_DB, the global one, and the settings files of
    those projects and of the user — Claude Code's and the other agents' (agent_files)."""
    home = os.path.expanduser("~")
    projects = {project or os.path.abspath(location.hook_project(cwd)), cwd}
    databases = [os.path.join(folder, location.DIRECTORY, location.FILENAME) for folder in projects]
    databases.append(location.global_database())
    explicit = os.environ.get("CORTEX_DB")
    if explicit:
        databases.append(os.path.abspath(explicit))
    settings = [
        os.path.join(folder, protected.SETTINGS_FOLDER, name)
        for folder in (*projects, home)
        for name in protected.SETTINGS_NAMES
    ]
    settings.append(location.managed_path(sys.platform))  # an administrator's: never the agent's to write
    settings += agent_files(projects, home)
    variables = {"HOME": home, "PWD": cwd}
    for name in protected.VARIABLES[2:]:
        if os.environ.get(name):
            variables[name] = os.environ[name]
    keeper = os.path.dirname(os.path.dirname(location.keeper_folder(databases[0])))
    return protected.Places(
        databases=databases,
        settings=settings,
        home=home,
        variables=variables,
        real=os.path.realpath,
        folders=[keeper],
    )


def _settings_lost(before: str | None, after: str | None) -> list[str]:
    """install.wiring's judgement of a settings file's new text, imported only for a settings
    file (its import costs a Bash call that only names a folder ~12 ms); and, for any agent's file
    (its own format: Codex's, Gemini's, Copilot's, Cursor's), our hooks' commands dropped from its
    text, or a switch that could turn hooks off written into a file that holds ours."""
    from cortex_hooks.guard.weakening import OUR_SCRIPTS, hooks_dropped
    from cortex_hooks.install import wiring

    lost = wiring.weakened(before, after)
    if lost or not before or not any(script in before for script in OUR_SCRIPTS):
        return lost
    if after is None:
        return ["what the file would say cannot be known"]
    return hooks_dropped(before, after)


def _current(path: str) -> str | None:
    """A settings file's text as it is now; None when there is none, or none Claude Code could
    read either (the call is then judged on what it writes)."""
    try:  # a regular file of at most a megabyte: never a FIFO, /dev/zero or a 1 GB file
        return regular_file.read_small(path, 1 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def agent_files(projects: set[str] | list[str], home: str) -> list[str]:
    """The other agents' settings and hook files of these projects and of the user:
    where `install --agent` writes, and the files that could switch those hooks off."""
    found: list[str] = []
    user_codex = os.environ.get("CODEX_HOME") or os.path.join(home, ".codex")
    user_copilot = os.environ.get("COPILOT_HOME") or os.path.join(home, ".copilot")
    for folder in (*projects, home):
        found += [os.path.join(folder, parent, name) for parent, name in sorted(protected.AGENT_SETTINGS)]
        found.append(os.path.join(folder, ".github", "hooks", "cortex-hooks.json"))
    found += [os.path.join(user_codex, "hooks.json"), os.path.join(user_codex, "config.toml")]
    found.append(os.path.join(user_copilot, "hooks", "cortex-hooks.json"))
    return found
