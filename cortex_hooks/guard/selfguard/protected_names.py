"""The names of the guard's places and the kinds of protected things, as the deny reasons name
them (selfguard.protected uses them; so does selfguard.reach, which selfguard.protected uses)."""

from __future__ import annotations

from cortex_hooks import location

FOLDER = ".cortex"
DATABASE_NAME = "cortex.db"
CONFIG_NAME = "config.toml"
SETTINGS_FOLDER = ".claude"
SETTINGS_NAMES = ("settings.json", "settings.local.json")
TEAM_NAME = location.TEAM_NAME  # the team file, beside the settings files
# The other agents' own settings and hook files (docs/guide/agents/), protected as Claude Code's settings
# files are: by name wherever they lie, as (folder, file); any `.json` in a hooks folder of
# GitHub's (Copilot CLI's repository hooks, and the cloud agent's) or of Copilot's user folder.
AGENT_SETTINGS = frozenset(
    {
        (".codex", "hooks.json"),
        (".codex", "config.toml"),
        (".gemini", "settings.json"),
        (".cursor", "hooks.json"),
    }
)
AGENT_HOOK_FOLDERS = frozenset({(".github", "hooks"), (".copilot", "hooks")})
AGENT_FOLDERS = frozenset({".codex", ".gemini", ".cursor"})  # a folder that takes an agent's hooks with it
# A database is its file and those SQLite and the guard keep beside it: its write-ahead log and
# shared memory, a rollback journal, the guard file and the writes a hook could not make yet.
DATABASE_SUFFIXES = ("", "-wal", "-shm", "-journal", ".guard", ".pending")

# The kinds of protected things, as the deny reasons name them
DATABASE, CONFIG, SETTINGS, FOLDER_KIND = "database", "config file", "settings file", "memory folder"
TEAM = "team file"
UNKNOWN = "unknown"  # a path the shell only knows at run time ($(…), a variable, a glob in a folder)
