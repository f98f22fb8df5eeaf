"""The environment a hook and the MCP server trust: nothing the agent can write turns
the guard off or points it elsewhere.

Claude Code hands its hooks and MCP servers the variables of a settings file's `env` block, and
the agent can write a project's settings files (and the user's). So a `CORTEX_*` variable whose
value such a block sets — `CORTEX_HOOKS_CHILD` (every hook a no-op), `CORTEX_DB` (another
database), `CORTEX_NOW` (a clock that fails) — is dropped before anything reads it, and said. The
person sets these in their shell, or in managed settings, which the agent cannot write. A
`CORTEX_NOW` a hook cannot read is dropped too: a hook's clock never fails it open.

Cheap where it matters: a process with no `CORTEX_*` variable reads no file at all.
"""

from __future__ import annotations

import json
import os

PREFIX = "CORTEX_"
SETTINGS = (("settings.json",), ("settings.local.json",))  # a project's, beside each other
_LIMIT = 1 << 20  # bytes of a settings file read: Claude Code's own are a few KiB


def drop_untrusted(project: str | None = None) -> list[str]:
    """Drop every CORTEX_* variable an agent-writable settings file's env block sets; what was
    dropped, for a note."""
    named = [name for name in os.environ if name.startswith(PREFIX)]
    if not named:
        return []
    blocks = [block for path in writable_settings(project) if (block := _env_block(path))]
    dropped = []
    for name in named:
        if any(block.get(name) == os.environ[name] for block in blocks):
            del os.environ[name]
            dropped.append(f"{name} is set by a settings file the agent can write: not honoured")
    return dropped


def writable_settings(project: str | None = None) -> list[str]:
    """The settings files Claude Code loads that the agent can write: the project's two (the
    folder Claude Code names, else the working directory) and the user's (in CLAUDE_CONFIG_DIR
    when it moves them)."""
    folder = project or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    user = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    found = [os.path.join(folder, ".claude", name) for (name,) in SETTINGS]
    found.append(os.path.join(user, "settings.json"))
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        found.append(os.path.join(os.path.expanduser("~"), ".claude", "settings.json"))
    return found


def _env_block(path: str) -> dict[str, object] | None:
    """A settings file's `env` object (None: no file, no block, or none Claude Code could read).
    A FIFO, a device or a huge file is never read whole (regular_file)."""
    from cortex_hooks import regular_file

    try:
        data = json.loads(regular_file.read_small(path, _LIMIT))
    except (OSError, ValueError, RecursionError):
        return None
    block = data.get("env") if isinstance(data, dict) else None
    return block if isinstance(block, dict) else None
