"""Where Claude Code keeps a project's own files in its configuration folder: the folder name it
makes of a path, a session's transcripts folder and the project's auto-memory folder
(docs/guide/claude-memory.md). Read from Claude Code 2.1.197's code and confirmed with the real client
(tests/test_claude_code_memory.py); nothing here writes.

- The configuration folder is `CLAUDE_CONFIG_DIR`, else `~/.claude`.
- A path becomes a folder name with every UTF-16 code unit that is not an ASCII letter or digit
  replaced by `-` (`é` is one `-`, an emoji two, a decomposed `é` an `e` and one `-`); a name
  longer than 200 is cut at 200, then `-` and the base-36 absolute value of Java's 32-bit string
  hash of the whole path follow.
- Transcripts: `projects/<name of the real path of the folder the session started in>/`.
- Auto memory: `projects/<name of the canonical git root>/memory/`. The git root is the nearest
  ancestor of the real start folder (itself included) holding `.git`, a folder or a file; a linked
  worktree's root stands for its main repository's; outside a repository, the start folder. No
  folder at all when auto memory is off; `autoMemoryDirectory` moves it (`auto_memory`).
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Mapping

NAME_LIMIT = 200
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
MANAGED_SETTINGS = (  # what an administrator sets, above every other source
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
SETTINGS_BYTES = 1 << 20


_READ_FOLDERS = frozenset({"commands", "agents", "skills", "rules", "output-styles", "hooks", "plugins"})


def loaded(path: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """What a file at `path` would be to Claude Code when it is one it loads (None: none): a
    memory file (`CLAUDE.md`, `CLAUDE.local.md` in any folder), `.mcp.json`, `~/.claude.json`,
    managed settings, and in a `.claude/` folder or its configuration folder a settings, memory
    or other Markdown or JSON file, or anything in its commands, agents, skills, rules, hooks or
    plugins. A command writing such a file puts text before the model or changes what Claude
    Code runs (a report beside the global database, `~/.claude/memory/report.html`, is none)."""
    full = unicodedata.normalize("NFC", os.path.abspath(os.path.expanduser(path)))
    folder = _real(config_folder(environ)).rstrip(os.sep) + os.sep
    for each in dict.fromkeys((full, _real(full))):
        name = os.path.basename(each)
        parts = each.split(os.sep)
        if name.upper().startswith("CLAUDE") and name.lower().endswith(".md"):
            return "a memory file Claude Code loads"
        if name in (".mcp.json", ".claude.json"):
            return "a file Claude Code reads its MCP servers and settings from"
        if each in MANAGED_SETTINGS or any(
            each.startswith(os.path.dirname(m) + os.sep) for m in MANAGED_SETTINGS
        ):
            return "Claude Code's managed settings"
        inside = ".claude" in parts[:-1] or each.startswith(folder)
        if inside and (
            name.lower().endswith((".md", ".json", ".jsonl")) or _READ_FOLDERS.intersection(parts)
        ):
            return "a file in Claude Code's configuration (settings, commands, agents, skills, memory)"
    return None


def config_folder(environ: Mapping[str, str] = os.environ) -> str:
    """Claude Code's configuration folder: CLAUDE_CONFIG_DIR, else ~/.claude."""
    folder = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return unicodedata.normalize("NFC", folder)


def folder_name(path: str) -> str:
    """The name Claude Code gives the folder it keeps for a path (in `projects/`)."""
    units = _units(path)
    name = "".join(chr(unit) if _alphanumeric(unit) else "-" for unit in units)
    if len(name) <= NAME_LIMIT:
        return name
    return f"{name[:NAME_LIMIT]}-{_base36(abs(string_hash(path)))}"


def string_hash(text: str) -> int:
    """Java's String.hashCode over UTF-16 code units, as a signed 32-bit integer."""
    value = 0
    for unit in _units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def transcripts_folder(start: str, environ: Mapping[str, str] = os.environ) -> str:
    """Where Claude Code writes the transcripts of sessions started in `start`."""
    return os.path.join(config_folder(environ), "projects", folder_name(_real(start)))


def git_root(start: str) -> str | None:
    """The nearest ancestor of `start` (itself included) holding `.git`, or None."""
    here = os.path.abspath(start)
    while True:
        if os.path.isdir(os.path.join(here, ".git")) or os.path.isfile(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def canonical_root(root: str) -> str:
    """A linked worktree's main repository (the folder holding its `.git`); any other root as it is.
    A `.git` file that does not lead back to this worktree is no proof: the root stays."""
    try:
        with open(os.path.join(root, ".git"), encoding="utf-8") as stream:
            pointer = stream.read(4096).strip()
        if not pointer.startswith("gitdir:"):
            return root
        private = os.path.normpath(os.path.join(root, pointer[len("gitdir:") :].strip()))
        with open(os.path.join(private, "commondir"), encoding="utf-8") as stream:
            common = os.path.normpath(os.path.join(private, stream.read(4096).strip()))
        if os.path.dirname(private) != os.path.join(common, "worktrees"):
            return root
        with open(os.path.join(private, "gitdir"), encoding="utf-8") as stream:
            back = stream.read(4096).strip()
        if os.path.realpath(back, strict=True) != os.path.join(os.path.realpath(root, strict=True), ".git"):
            return root
    except (OSError, ValueError):
        return root
    return os.path.dirname(common) if os.path.basename(common) == ".git" else common


def project_folder(start: str) -> str:
    """The folder Claude Code keys a project's auto memory by: the canonical git root of the real
    start folder, else that folder."""
    real = _real(start)
    root = git_root(real)
    return canonical_root(root) if root is not None else real


def auto_memory(start: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """The auto-memory folder of sessions started in `start`, or None when auto memory is off
    (CLAUDE_CODE_DISABLE_AUTO_MEMORY, or `autoMemoryEnabled: false` in any settings file).

    `autoMemoryDirectory` is taken from the managed, the local (`.claude/settings.local.json`)
    and the user's settings, never from the checked-in `.claude/settings.json`: a cloned
    repository cannot point what recall reads and capture proposes at another folder. (2.1.197
    does follow the checked-in value in `-p` runs and trusted folders; docs/guide/claude-memory.md
    says so.)"""
    switch = environ.get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "").strip().lower()
    if switch in _TRUE or environ.get("CLAUDE_CODE_SIMPLE", "").strip().lower() in _TRUE:
        return None
    config = config_folder(environ)
    project = os.path.join(start, ".claude")
    user = _settings(os.path.join(config, "settings.json"))
    checked_in = _settings(os.path.join(project, "settings.json"))
    local = _settings(os.path.join(project, "settings.local.json"))
    managed = [_settings(path) for path in MANAGED_SETTINGS]
    enabled = None
    for source in (user, checked_in, local, *managed):  # the later source wins, as Claude Code merges
        if isinstance(source.get("autoMemoryEnabled"), bool):
            enabled = source["autoMemoryEnabled"]
    if enabled is False and switch not in _FALSE:
        return None
    for source in (*managed, local, user):
        moved = _directory(source.get("autoMemoryDirectory"))
        if moved is not None:
            return moved
    folder = os.path.join(config, "projects", folder_name(project_folder(start)), "memory")
    return unicodedata.normalize("NFC", folder)


def _directory(value: object) -> str | None:
    """An `autoMemoryDirectory` as Claude Code accepts it: absolute or `~/…` (never leaving the
    home), normalized; None for anything else."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return None
    if value.startswith(("~/", "~\\")):
        rest = os.path.normpath(value[2:] or ".")
        if rest in (".", "..") or rest.startswith(".." + os.sep):
            return None
        value = os.path.join(os.path.expanduser("~"), rest)
    path = os.path.normpath(value).rstrip("/\\")
    if not os.path.isabs(path) or len(path) < 3 or path.startswith(("//", "\\\\")):
        return None
    return unicodedata.normalize("NFC", path)


def _settings(path: str) -> dict[str, object]:
    """A settings file's object; {} when it is missing, unreadable, too large or not an object."""
    from cortex_hooks import regular_file

    try:
        value = json.loads(regular_file.read_small(path, SETTINGS_BYTES))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _real(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return os.path.abspath(path)


def _units(text: str) -> list[int]:
    """The UTF-16 code units of a text (a byte the file system gave undecoded counts as one)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[index] | data[index + 1] << 8 for index in range(0, len(data), 2)]


def _alphanumeric(unit: int) -> bool:
    return 48 <= unit <= 57 or 65 <= unit <= 90 or 97 <= unit <= 122


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = _DIGITS[digit] + digits
        if not number:
            return digits
