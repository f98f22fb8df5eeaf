"""The other agents' tools, named as Claude Code's tool of their kind, pure: what the
agents' adapters (cortex_hooks.agents) read a hook's call as, and what capture and replay read a
transcript's call as — one table per agent, in one place.

Each entry: the agent's tool → (Claude Code's tool, {the agent's field: Claude Code's field}).
"""

from __future__ import annotations

Table = dict[str, tuple[str, dict[str, str]]]

GEMINI: Table = {
    "run_shell_command": ("Bash", {}),
    "write_file": ("Write", {}),
    "replace": ("Edit", {}),
    "read_file": ("Read", {"absolute_path": "file_path"}),
    "read_many_files": ("Read", {}),
    "list_directory": ("LS", {"dir_path": "path"}),
    "glob": ("Glob", {"dir_path": "path"}),
    "search_file_content": ("Grep", {"dir_path": "path"}),
    "grep_search": ("Grep", {"dir_path": "path"}),
    "web_fetch": ("WebFetch", {}),
    "google_web_search": ("WebSearch", {}),
}

COPILOT: Table = {
    "bash": ("Bash", {}),
    "create": ("Write", {"path": "file_path", "file_text": "content"}),
    "edit": ("Edit", {"path": "file_path", "old_str": "old_string", "new_str": "new_string"}),
    "str_replace": ("Edit", {"path": "file_path", "old_str": "old_string", "new_str": "new_string"}),
    "view": ("Read", {"path": "file_path"}),
    "rg": ("Grep", {}),
    "glob": ("Glob", {}),
    "web_fetch": ("WebFetch", {}),
}

# Codex's model-facing tools, as its transcripts (rollouts) name them; its hooks name them as
# Claude Code does already (Bash, apply_patch, mcp__SERVER__TOOL).
CODEX: Table = {
    "exec_command": ("Bash", {"cmd": "command"}),
    "shell": ("Bash", {}),
    "local_shell": ("Bash", {}),
}

PATCH_TOOL = "apply_patch"  # Codex's (and Copilot's, for OpenAI models): a patch of several files


def renamed(table: Table, name: str, given: dict[str, object]) -> tuple[str, dict[str, object]] | None:
    """The call as Claude Code's tool of its kind, its fields renamed; None for a tool not in the
    table (the caller keeps it as the agent named it)."""
    known = table.get(name)
    if known is None:
        return None
    tool, fields = known
    return tool, {fields.get(key, key): value for key, value in given.items()}
