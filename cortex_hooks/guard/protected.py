"""What the guard protects on disk (SPEC §19), pure: its databases, their config files, the
settings files that hold its hooks and the folders that hold them; which of them a path names;
and a refusal to touch them.

A path is compared as written (`..` removed) and with its symlinks resolved, so neither a
relative path, a `..` nor a link around it hides a protected file. Protection also goes by name,
wherever the file lies: any `.cortex/` folder (another project's guard too), the database and
config file in it, a Claude Code settings file (`.claude/settings.json`, `.claude/settings.local.json`),
another agent's settings or hook file (`.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json`,
`.github/hooks/*.json` …: SPEC §22) and the team file (`.claude/cortex-team.jsonl`: an edit leaves
every team learning untrusted).
"""

from __future__ import annotations

import fnmatch
import posixpath

from cortex_hooks.guard import team_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from cortex_hooks.guard.shell import Simple
    from cortex_hooks.guard.shell_words import Arg

FOLDER = ".cortex"
DATABASE_NAME = "cortex.db"
CONFIG_NAME = "config.toml"
SETTINGS_FOLDER = ".claude"
SETTINGS_NAMES = ("settings.json", "settings.local.json")
TEAM_NAME = team_path.NAME  # the team file, beside the settings files
# The other agents' own settings and hook files (SPEC §22), protected as Claude Code's settings
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

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
# the variables a path may use that the hook knows as the shell will (PWD is the call's cwd)
VARIABLES = ("HOME", "PWD", "CLAUDE_PROJECT_DIR", "CORTEX_DB", "CORTEX_GLOBAL_DB")


class Refusal:
    """A call the agent may not make: `what` it would do, `why` that weakens the guard, and the
    `command` the person can run in their own terminal instead (None: no command does it); the
    simple command refused (a Bash call's), and the `harm` it does besides, in plain words
    ("deletes your home folder", told first: guard.self_protection.harm)."""

    __slots__ = ("command", "harm", "simple", "what", "why")

    def __init__(self, what: str, why: str, command: str | None = None) -> None:
        self.what = what
        self.why = why
        self.command = command
        self.simple: Simple | None = None
        self.harm: str | None = None

    def __repr__(self) -> str:
        return f"Refusal({self.what!r}, {self.why!r})"


class Places:
    """The protected places of one tool call: `databases` (absolute: the project's, a CORTEX_DB,
    the global one), `settings` (the project's and the user's settings files), `home`, and the
    `variables` a command may name them by; `real` resolves symlinks (os.path.realpath, given
    by the caller: this module does no I/O)."""

    __slots__ = ("_concrete", "databases", "home", "real", "settings", "variables")

    def __init__(
        self,
        *,
        databases: Iterable[str],
        settings: Iterable[str],
        home: str,
        variables: dict[str, str],
        real: Callable[[str], str],
    ) -> None:
        self.real = real
        self.home = home
        self.variables = variables
        self.databases = sorted({real(path) for path in databases})
        self.settings = sorted({real(path) for path in settings})
        concrete: dict[str, str] = {}
        for database in self.databases:
            for suffix in DATABASE_SUFFIXES:
                concrete[database + suffix] = DATABASE
            concrete[posixpath.join(posixpath.dirname(database), CONFIG_NAME)] = CONFIG
            if posixpath.basename(posixpath.dirname(database)) == FOLDER:
                concrete[posixpath.dirname(database)] = FOLDER_KIND
        for path in self.settings:
            concrete[path] = SETTINGS
        self._concrete = concrete

    def concrete(self, path: str) -> bool:
        """Whether a path is one of this call's own protected places (not one known by name)."""
        return path in self._concrete

    def mentioned(self, text: str) -> bool:
        """Whether a text (inline code, an SQL script) names a protected file: the memory folder
        or a database by name, or a settings file under `.claude`."""
        names = [
            FOLDER,
            DATABASE_NAME,
            "cortex-global",
            *(posixpath.basename(path) for path in self.databases),
        ]
        return any(name in text for name in names) or (SETTINGS_FOLDER in text and "settings" in text)

    def kind(self, path: str) -> str | None:
        """What protected thing an absolute path is (a DATABASE, CONFIG, SETTINGS or TEAM file or
        a FOLDER_KIND), or None."""
        found = self._concrete.get(path)
        if found is not None:
            return found
        folder, name = posixpath.split(path)
        parent = posixpath.basename(folder)
        if name == FOLDER:
            return FOLDER_KIND
        if parent == FOLDER and name in {DATABASE_NAME + suffix for suffix in DATABASE_SUFFIXES}:
            return DATABASE
        if parent == FOLDER and name == CONFIG_NAME:
            return CONFIG
        if parent == SETTINGS_FOLDER and name in SETTINGS_NAMES:
            return SETTINGS
        if (parent, name) in AGENT_SETTINGS or (
            (posixpath.basename(posixpath.dirname(folder)), parent) in AGENT_HOOK_FOLDERS
            and name.endswith(".json")
        ):
            return SETTINGS
        if parent == SETTINGS_FOLDER and name == TEAM_NAME:
            return TEAM
        return None

    def holds(self, path: str) -> str | None:
        """The protected thing a folder would take with it, deleted or moved: a `.claude/` or
        `.cortex/` folder anywhere, or any folder above a protected file of this call."""
        if posixpath.basename(path) in (SETTINGS_FOLDER, FOLDER, *AGENT_FOLDERS):
            return path
        prefix = path.rstrip("/") + "/"
        return next((held for held in self._concrete if held.startswith(prefix)), None)

    def names_in(self, folder: str) -> set[str]:
        """The names a glob in `folder` could meet of protected things or folders holding them."""
        names = {FOLDER, SETTINGS_FOLDER}
        prefix = folder.rstrip("/") + "/"
        for held in self._concrete:
            if held.startswith(prefix):
                names.add(held[len(prefix) :].split("/", 1)[0])
        base = posixpath.basename(folder)
        if base == FOLDER:
            names |= {DATABASE_NAME + suffix for suffix in DATABASE_SUFFIXES} | {CONFIG_NAME}
        if base == SETTINGS_FOLDER:
            names |= {*SETTINGS_NAMES, TEAM_NAME}
        names |= {name for parent, name in AGENT_SETTINGS if parent == base}
        return names

    def paths(self, arg: Arg, bases: list[str]) -> list[str] | None:
        """Where a word names, absolute, as written and resolved, from each folder the command
        may be in (`bases`); None when only run time knows (an expansion other than VARIABLES)."""
        value = arg.value
        if arg.tilde:
            value = self.home + value[1:]
        if arg.expands:
            known = _substituted(value, self.variables)
            if known is None:
                return None
            value = known
        if value.startswith("/"):
            written = [posixpath.normpath(value)]
        else:
            written = [posixpath.normpath(posixpath.join(base, value)) for base in bases]
        found: list[str] = []
        for path in written:
            for each in (path, self.real(path)):
                if each not in found:
                    found.append(each)
        return found

    def named(self, arg: Arg, bases: list[str], *, whole: bool = False) -> tuple[str, str] | None:
        """(kind, path) of the protected thing a word names, or None; with `whole` (the word is
        deleted or moved) a folder that holds one counts too, and so does a glob that could meet
        one; (UNKNOWN, word) when only run time knows what the word names."""
        paths = self.paths(arg, bases)
        if paths is None:
            return (UNKNOWN, arg.value) if whole and not self._foreign_name(arg) else None
        for path in paths:
            kind = self.kind(path)
            if kind is not None:
                return kind, path
            if whole and (held := self.holds(path)) is not None:
                return self.kind(held) or FOLDER_KIND, held
        if whole and arg.globbed:
            return self._globbed(paths)
        return None

    def _foreign_name(self, arg: Arg) -> bool:
        """Whether a word only the shell knows (`$TMPDIR/build`) still ends in a plain name that
        no protected thing is named or kept under: whatever comes before it, the folder it names
        is called that, so it neither is nor holds one (`$X/proj` is refused where the project
        is `proj`; `…-$USER` and `$X/` are not plain names)."""
        last = arg.value.rsplit("/", 1)[-1]
        if arg.globbed or last in ("", ".", "..") or not all(char in _PLAIN for char in last):
            return False
        folded = last.casefold()  # a case-insensitive file system (macOS) takes Build for build
        names = {FOLDER, SETTINGS_FOLDER, *SETTINGS_NAMES, TEAM_NAME, DATABASE_NAME, CONFIG_NAME}
        names.update(part for held in self._concrete for part in held.split("/"))
        return folded not in {name.casefold() for name in names}

    def _globbed(self, paths: list[str]) -> tuple[str, str] | None:
        for path in paths:
            folder, pattern = posixpath.split(path)
            if any(char in folder for char in "*?["):
                return UNKNOWN, path
            for name in sorted(self.names_in(folder)):  # the same reason in every process
                if glob_matches(name, pattern):
                    held = posixpath.join(folder, name)
                    return self.kind(held) or FOLDER_KIND, held
        return None


def glob_matches(name: str, pattern: str) -> bool:
    """Whether the shell's glob matches the name: a leading dot only by a leading dot."""
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _substituted(value: str, variables: dict[str, str]) -> str | None:
    """The value with the variables the hook knows put in; None when anything else expands."""
    import re

    def known(found: re.Match[str]) -> str:
        return variables.get(found[1] or found[2], "$?")  # one not set: still unknown

    names = "|".join(VARIABLES)
    value = re.sub(rf"\$(?:\{{({names})\}}|({names})(?![A-Za-z0-9_]))", known, value)
    # what is left: another variable, a command substitution or a brace expansion ({a,b})
    return None if "$" in value or "`" in value or "{" in value else value
