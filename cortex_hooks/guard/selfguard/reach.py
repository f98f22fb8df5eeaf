"""Which of the guard's places a path only the shell completes could be, pure.

A word with a glob (`rm /var/www/html/**/_*`), an expansion (`rm -rf "$DIR"`, `"$FILE.tmp"`), or
what a producer yields (`find . -name '*.jpg'`, `ls *.txt`) is a Pattern: the names it may take,
one per folder level. It names a protected place when some path it may take is one: a place of
this call (the project's database, the global one …) or a folder holding one, compared level by
level from the end, or a place known by name wherever it lies (`…/.cortex/config.toml`). So a
glob that cannot match a dot-folder, a fixed last name (`$TMPDIR/build`) or suffix (`"$f.bak"`) or
a name test (`find -name '*.pyc'`) keeps a word away from the guard; a bare `"$DIR"` does not.
"""

from __future__ import annotations

import fnmatch
import posixpath

from cortex_hooks.guard.selfguard import protected_names as protected

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# A level of a pattern: ("lit", name) | ("glob", pattern, dotted) | ("dirs", dotted): any number of
# levels. `dotted`: a leading `*` or `?` may meet a leading dot (find's -name, a variable's value);
# the shell's own globs (dotted False) meet a dot only with a dot.
Level = tuple[object, ...]
ANY_NAME: Level = ("glob", "*", True)
MAX_LEVELS = 64  # past this a pattern is taken as anything (no path is that deep)


class Pattern:
    """The paths a word may name: `levels` from the root, or from anywhere when `free` (an
    expansion may hold a `/` or `..`: only what follows it says anything); `anything`: no
    constraint at all (`"$DIR"`, a file's content); `files`, `folders`: what it may name
    (`find -type f`: files only; `find -empty`: neither of the guard's, which are never empty)."""

    __slots__ = ("anything", "files", "folders", "free", "levels")

    def __init__(
        self,
        levels: Iterable[Level] = (),
        *,
        free: bool = False,
        anything: bool = False,
        files: bool = True,
        folders: bool = True,
    ) -> None:
        self.levels = tuple(levels)
        self.free = free
        self.anything = anything or len(self.levels) > MAX_LEVELS
        self.files = files
        self.folders = folders

    def __repr__(self) -> str:
        return f"Pattern({'anything' if self.anything else self.levels!r}, free={self.free})"

    def then(self, *levels: Level) -> Pattern:
        """This pattern with more levels after it (a folder's contents)."""
        if not (self.files or self.folders):
            return self  # what names nothing holds nothing
        if self.anything:
            return (
                Pattern([*levels][-1:] or [ANY_NAME], free=True)
                if levels and levels[-1] != ANY_NAME
                else self
            )
        return Pattern((*self.levels, *levels), free=self.free)  # in a folder: files and folders alike

    def only(self, *, files: bool, folders: bool) -> Pattern:
        """This pattern, naming only files or only folders (or neither)."""
        return Pattern(
            self.levels,
            free=self.free,
            anything=self.anything,
            files=files and self.files,
            folders=folders and self.folders,
        )


ANYTHING = Pattern(anything=True)
NOTHING = Pattern(files=False, folders=False)  # what names no path: `seq 1 10`, `date`


def literal(path: str) -> Pattern:
    """An absolute path, as a pattern."""
    return Pattern(("lit", name) for name in posixpath.normpath(path).split("/") if name)


def glob_path(path: str, *, dotted: bool = False) -> Pattern:
    """An absolute path whose levels may hold the shell's globs (`**` any levels, as globstar)."""
    levels: list[Level] = []
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if levels and levels[-1][0] != "dirs":
                levels.pop()
            elif levels:
                return ANYTHING
            continue
        if name == "**":
            levels.append(("dirs", dotted))
        elif any(char in name for char in "*?["):
            levels.append(("glob", name, dotted))
        else:
            levels.append(("lit", name))
    return Pattern(levels)


def reached(
    pattern: Pattern,
    concrete: list[tuple[str, str]],
    databases: list[str],
    *,
    whole: bool,
    deleting: bool = False,
) -> tuple[str, str] | None:
    """(kind, path) of a protected place the pattern may name — with `whole` (deleted or moved)
    also a folder holding one (kind HOLDER) — or None.

    A place known by name anywhere (`…/.cortex/config.toml`) is reached only where the pattern
    names it, not by a catch-all (`find /srv -delete` meets no `.cortex` it happens to find); and
    written to (not `whole`) through a word only run time begins (`"$D/config.toml"`), only where
    what it names is the guard's alone (`.cortex`, `.claude`, `cortex.db`, the team file), not a
    name any program's file may have (`config.toml`, `settings.json`); a file deleted (`deleting`)
    counts as one deleted whole does."""
    distinctive = None if whole or deleting else _distinctive(databases)
    for kind, path, free in _targets(concrete, whole=whole):
        is_folder = kind in (protected.FOLDER_KIND, HOLDER)
        if not (pattern.folders if is_folder else pattern.files):
            continue
        names = [name for name in path.split("/") if name]
        needed = distinctive if (free or pattern.free) else None
        if pattern.anything or _matches(pattern, names, free, needed):
            shown = path if not free else f"…/{path}"
            return kind, shown
    return None


def _distinctive(databases: list[str]) -> frozenset[str]:
    names = {protected.FOLDER, protected.SETTINGS_FOLDER, protected.TEAM_NAME, *protected.AGENT_FOLDERS}
    for path in databases:
        names.update(posixpath.basename(path) + suffix for suffix in protected.DATABASE_SUFFIXES)
    names.update(protected.DATABASE_NAME + suffix for suffix in protected.DATABASE_SUFFIXES)
    return frozenset(name.casefold() for name in names)


HOLDER = "holder"


def _targets(concrete: list[tuple[str, str]], *, whole: bool) -> list[tuple[str, str, bool]]:
    """The places a pattern is compared with: (kind, path, free) — free: known by name anywhere."""
    found: list[tuple[str, str, bool]] = []
    held: set[str] = set()
    order = (protected.DATABASE, protected.CONFIG, protected.FOLDER_KIND, protected.SETTINGS, protected.TEAM)
    for path, kind in sorted(concrete, key=lambda item: (order.index(item[1]), item[0])):
        found.append((kind, path, False))
        folder = posixpath.dirname(path)
        while whole and folder not in held:
            held.add(folder)
            found.append((HOLDER, folder, False))
            if folder == "/":
                break
            folder = posixpath.dirname(folder)
    cortex, claude = protected.FOLDER, protected.SETTINGS_FOLDER
    found += [
        (protected.DATABASE, f"{cortex}/{protected.DATABASE_NAME}{s}", True)
        for s in protected.DATABASE_SUFFIXES
    ]
    found.append((protected.CONFIG, f"{cortex}/{protected.CONFIG_NAME}", True))
    found.append((protected.FOLDER_KIND, cortex, True))
    found += [(protected.SETTINGS, f"{claude}/{name}", True) for name in protected.SETTINGS_NAMES]
    found.append((protected.TEAM, f"{claude}/{protected.TEAM_NAME}", True))
    found += [
        (protected.SETTINGS, f"{folder}/{name}", True) for folder, name in sorted(protected.AGENT_SETTINGS)
    ]
    if whole:
        found.append((HOLDER, claude, True))
        found += [(HOLDER, folder, True) for folder in sorted(protected.AGENT_FOLDERS)]
    return found


def _matches(
    pattern: Pattern, names: list[str], free_target: bool, distinctive: frozenset[str] | None = None
) -> bool:
    """Whether some path the pattern may take is `names` (from the root; when `free_target`, with
    any folders before them). When `free_target` or `distinctive` is given, some level must name
    what it meets (not `*`): one of the `distinctive` names, when given."""
    levels = pattern.levels[::-1]
    target = names[::-1]
    seen: dict[tuple[int, int, bool], bool] = {}
    demanding = free_target or distinctive is not None

    def step(i: int, j: int, plain: bool) -> bool:
        key = (i, j, plain)
        if key in seen:
            return seen[key]
        if demanding and (j == len(target) or i == len(levels)) and not plain:
            result = False
        elif i == len(levels):
            result = pattern.free or j == len(target)
        elif j == len(target):
            result = free_target or all(level[0] == "dirs" for level in levels[i:])
        else:
            level = levels[i]
            if level[0] == "dirs":
                result = step(i + 1, j, plain) or (
                    _dot_ok(target[j], "*", bool(level[1])) and step(i, j + 1, plain)
                )
            else:
                named = plain or (
                    _specific(level) and (distinctive is None or target[j].casefold() in distinctive)
                )
                result = _level(level, target[j]) and step(i + 1, j + 1, named)
        seen[key] = result
        return result

    return step(0, 0, not demanding)


_CANARIES = (".x9-unlikely-name", "x9-unlikely-name")


def _specific(level: Level) -> bool:
    """Whether a level names something (a name, `.c*`), not anything at all (`*`, `.[!.]*`)."""
    return level[0] == "lit" or not any(_level(level, canary) for canary in _CANARIES)


def _level(level: Level, name: str) -> bool:
    # folded: a case-insensitive file system (macOS) takes Build for build
    if level[0] == "lit":
        return str(level[1]).casefold() == name.casefold()
    pattern = shell_glob(str(level[1]))
    return _dot_ok(name, pattern, bool(level[2])) and fnmatch.fnmatchcase(name.casefold(), pattern.casefold())


def _dot_ok(name: str, pattern: str, dotted: bool) -> bool:
    """The shell's rule: a name with a leading dot is met only by a pattern with one."""
    return dotted or not name.startswith(".") or pattern.startswith(".")


def shell_glob(pattern: str) -> str:
    """The shell's (and find's) glob as fnmatch reads it: `[^…]` negates, as `[!…]` does."""
    return pattern.replace("[^", "[!")


def escape(text: str) -> str:
    """A literal name as an fnmatch pattern."""
    return "".join(f"[{char}]" if char in "*?[" else char for char in text)
