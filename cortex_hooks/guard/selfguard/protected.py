"""What the guard protects on disk, pure: its databases, their config files, the
settings files that hold its hooks and the folders that hold them; which of them a path names;
and a refusal to touch them.

A path is compared as written (`..` removed) and with its symlinks resolved, so neither a
relative path, a `..` nor a link around it hides a protected file. Protection also goes by name,
wherever the file lies: any `.cortex/` folder (another project's guard too), the database and
config file in it, a Claude Code settings file (`.claude/settings.json`, `.claude/settings.local.json`),
another agent's settings or hook file (`.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json`,
`.github/hooks/*.json` …: docs/guide/agents/) and the team file (`.claude/cortex-team.jsonl`: an edit leaves
every team learning untrusted).
"""

from __future__ import annotations

import fnmatch
import posixpath

from cortex_hooks.guard.selfguard.protected_names import (  # the names, where callers look for them
    AGENT_FOLDERS,
    AGENT_HOOK_FOLDERS,
    AGENT_SETTINGS,
    CONFIG,
    CONFIG_NAME,
    DATABASE,
    DATABASE_NAME,
    DATABASE_SUFFIXES,
    FOLDER,
    FOLDER_KIND,
    SETTINGS,
    SETTINGS_FOLDER,
    SETTINGS_NAMES,
    TEAM,
    TEAM_NAME,
    UNKNOWN,
)

__all__ = [
    "AGENT_FOLDERS",
    "AGENT_HOOK_FOLDERS",
    "AGENT_SETTINGS",
    "CONFIG",
    "CONFIG_NAME",
    "DATABASE",
    "DATABASE_NAME",
    "DATABASE_SUFFIXES",
    "FOLDER",
    "FOLDER_KIND",
    "SETTINGS",
    "SETTINGS_FOLDER",
    "SETTINGS_NAMES",
    "TEAM",
    "TEAM_NAME",
    "UNKNOWN",
    "VARIABLES",
    "Places",
    "Refusal",
    "glob_matches",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from cortex_hooks.guard.selfguard.reach import Pattern
    from cortex_hooks.guard.selfguard.word_paths import Context
    from cortex_hooks.guard.shell.invocation import Arg
    from cortex_hooks.guard.shell.reader import Simple


# the variables a path may use that the hook knows as the shell will (PWD is the call's cwd)
VARIABLES = ("HOME", "PWD", "CLAUDE_PROJECT_DIR", "CORTEX_DB", "CORTEX_GLOBAL_DB", "TMPDIR", "TMP", "TEMP")


class Refusal:
    """A call the agent may not make: `what` it would do, `why` that weakens the guard, and the
    `command` the person can run in their own terminal instead (None: no command does it); the
    simple command refused (a Bash call's), and the `harm` it does besides, in plain words
    ("deletes your home folder", told first: guard.selfguard.tool_calls.harm)."""

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

    __slots__ = ("_concrete", "databases", "folders", "home", "real", "settings", "variables")

    def __init__(
        self,
        *,
        databases: Iterable[str],
        settings: Iterable[str],
        home: str,
        variables: dict[str, str],
        real: Callable[[str], str],
        folders: Iterable[str] = (),
    ) -> None:
        self.real = real
        self.home = home
        self.variables = variables
        settings = list(settings)
        self.databases = sorted({real(path) for path in databases})
        self.settings = sorted({real(path) for path in settings})
        # folders of the guard's own, whole: the keeper's (docs/internals/integrity.md), wherever they lie
        self.folders = sorted({real(path).rstrip("/") for path in folders})
        concrete: dict[str, str] = {}
        for database in self.databases:
            for suffix in DATABASE_SUFFIXES:
                concrete[database + suffix] = DATABASE
            concrete[posixpath.join(posixpath.dirname(database), CONFIG_NAME)] = CONFIG
            if posixpath.basename(posixpath.dirname(database)) == FOLDER:
                concrete[posixpath.dirname(database)] = FOLDER_KIND
        for path in self.settings:
            concrete[path] = SETTINGS
        for path in settings:  # the team file beside a settings file, and where a link takes it
            team = posixpath.join(posixpath.dirname(path), TEAM_NAME)
            concrete.setdefault(real(team), TEAM)
        self._concrete = concrete

    def reached(self, pattern: Pattern, *, whole: bool, deleting: bool = False) -> tuple[str, str] | None:
        """(kind, path) of a protected place a pattern may name (guard.selfguard.reach)."""
        from cortex_hooks.guard.selfguard import reach

        return reach.reached(pattern, self.concrete_places(), self.databases, whole=whole, deleting=deleting)

    def concrete_places(self) -> list[tuple[str, str]]:
        """This call's own protected places: (absolute path, kind)."""
        return sorted(self._concrete.items())

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
        if any(path == folder or path.startswith(folder + "/") for folder in self.folders):
            return FOLDER_KIND
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
        held_folder = next((folder for folder in self.folders if folder.startswith(prefix)), None)
        if held_folder is not None:
            return held_folder
        return next((held for held in self._concrete if held.startswith(prefix)), None)

    def paths(self, arg: Arg, bases: list[str]) -> list[str] | None:
        """Where a word names, absolute, as written and resolved, from each folder the command
        may be in (`bases`); None when only run time knows (an expansion other than VARIABLES)."""
        value = arg.value
        if not value:
            return []  # an empty word names no path (`rm -rf ""` deletes nothing)
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

    def named(
        self,
        arg: Arg,
        bases: list[str],
        *,
        whole: bool = False,
        context: Context | None = None,
        deleted: bool = False,
    ) -> tuple[str, str] | None:
        """(kind, path) of the protected thing a word names, or None; with `whole` (the word is
        deleted or moved) a folder that holds one counts too. A word the shell completes (a glob,
        an expansion: guard.selfguard.word_paths, against the `context` of what the command binds) counts
        when some path it may take is one (guard.selfguard.reach); a word only run time knows gives
        (UNKNOWN, word) when it is deleted or moved (`whole`, or a file `deleted`: `rm "$F"`), and
        a write to it counts only when its known part names a protected file (`"$D/config.toml"`,
        not `"$F"`)."""
        bound = context is not None and context.binds(arg)
        paths = None if bound or (arg.globbed and not arg.expands) else self.paths(arg, bases)
        if paths is not None:
            for path in paths:
                kind = self.kind(path)
                if kind is not None:
                    return kind, path
                if whole and (held := self.holds(path)) is not None:
                    return self.kind(held) or FOLDER_KIND, held
            return None
        from cortex_hooks.guard.selfguard import reach, word_paths

        for pattern in word_paths.patterns(arg, context or word_paths.Context(self, bases)):
            if pattern.anything and not (whole or deleted):
                continue
            # a file deleted: a folder is not (`rm` without -r)
            seen = pattern.only(files=True, folders=False) if deleted and not whole else pattern
            found = self.reached(seen, whole=whole, deleting=deleted)
            if found is None:
                continue
            if arg.expands or bound:
                return (UNKNOWN, arg.value) if whole or pattern.anything else (found[0], arg.value)
            if found[0] == reach.HOLDER:
                prefix = found[1].rstrip("/") + "/"
                inside = next((held for held in sorted(self._concrete) if held.startswith(prefix)), None)
                return (self._concrete[inside], inside) if inside else (FOLDER_KIND, found[1])
            return found
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
