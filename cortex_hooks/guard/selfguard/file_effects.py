"""What a program does to the protected files it is given, pure.

A call is refused only when the hook can name a protected place the program would change:

- a reader (`cat`, `ls`, `grep`, `jq` …) may be given any of them;
- a program that deletes (`rm`, `shred`, `unlink` …) may not be given one, nor, recursively (`rm
  -r`), a folder holding one; `mv` may not move one (nor a folder holding one) and may not write
  over one, but a destination that is only a target (`mv build/app.js .`) is no deletion; `rmdir`
  only ever deletes empty folders, and none of the guard's is empty;
- a word the shell completes is judged by the paths it may take (selfguard.reach, selfguard.word_paths):
  a glob that cannot match a dot-folder, a name test of `find`, a producer that cannot yield one
  (`ls *.txt | xargs -I{} mv {} archive/`) keep it away; a word only run time knows (`rm -rf
  "$DIR"`) may be anything, and is refused where it is deleted or moved;
- a program that copies (`cp`, `ln`, `install`, `rsync`) may not write over one or link to one;
- `chmod`, `chown`, `chattr`, `setfacl` may not take the owner's reading or writing of one away (`find
  . -exec chmod g+w {} ';'` changes nothing the guard needs; `chmod -R 000 .` does);
- `sed`, `perl` and `ruby` may not edit one in place; `find -delete` may not reach one;
- archivers (guard.selfguard.archives), git (guard.selfguard.git);
- any other program may not be given a protected file by name: nothing says it only reads it.
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard import archives, git, reach
from cortex_hooks.guard.selfguard.operands import named, operands, option_value, options, with_values
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

    from cortex_hooks.guard.selfguard.word_paths import Context
    from cortex_hooks.guard.shell.invocation import Arg, Invocation

READERS = frozenset(
    {
        *("cat", "tac", "less", "more", "head", "tail", "wc", "ls", "dir", "stat", "file", "du", "df"),
        *("tree", "grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp", "comm", "jq", "bat"),
        *("md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "xxd", "od", "hexdump"),
        *("strings", "realpath", "readlink", "basename", "dirname", "pwd", "test", "[", "[[", "echo"),
        *("printf", "true", "false", "which", "type", "whereis", "column", "nl", "cut", "touch"),
        *("namei", "getfacl", "lsattr", "lsof", "fuser", "cd", "pushd", "popd", "export", "unset"),
        *("code", "open", "xdg-open", "man", "help", "sleep", "date", "id", "whoami", "hostname"),
        *("rmdir", "chgrp", "for", "read", "local", "declare", "mkdir"),
    }
)
SCRIPTED = frozenset({"sed", "awk", "gawk", "mawk", "nawk"})  # readers, unless their script writes
DELETERS = frozenset({"rm", "unlink", "shred", "srm", "trash", "trash-put", "gio"})
COPIERS = frozenset({"cp", "ln", "install", "rsync", "scp"})
MODES = frozenset({"chmod", "chown", "chattr", "setfacl"})
IN_PLACE = frozenset({"sed", "perl", "ruby"})  # with -i they rewrite the files they are given
FILES = (DATABASE, CONFIG, SETTINGS, TEAM)
_SELF = ("$USER", "${USER}", "$(whoami)", "`whoami`", "$(id -u)", "$(id -un)", "$(id -u -n)", "$LOGNAME")


def judged(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """Why this program may not run with these arguments (None: it may)."""
    name = call.program
    if name in IN_PLACE and any(
        (value[:2] != "--" and "i" in value[1:]) or value.startswith("--in-place") for value in options(call)
    ):
        return _first(operands(call.args), places, bases, context, "rewrites in place")
    for programs, rule in _RULES:
        if name in programs:
            return rule(call, places, bases, context)

    if name in archives.PROGRAMS:
        return archives.judged(call, places, bases, context)
    if name == "git":
        return git.judged(call, places, bases, context)
    if name in READERS:
        return None
    return _given(call, places, bases, context)


def _given(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """Any other program: not given a protected file by name (a producer's catch-all, `find . -exec
    prog {} +`, gives it none by name)."""
    for arg in call.args:
        for each in with_values(arg):
            found = _by_name(each, places, bases, context)
            if found is not None and found[0] in FILES:
                given = f"{call.program} is given the guard's {found[0]} {found[1]}"
                return Refusal("", f"{given} and is not known only to read it")
    for pattern in context.appended or ():
        found = _pattern_by_name(pattern, places)
        if found is not None and found[0] in FILES:
            return Refusal(
                "", f"{call.program} gets the guard's {found[0]} {found[1]} on standard input (xargs)"
            )
    return None


def _by_name(arg: Arg, places: Places, bases: list[str], context: Context) -> tuple[str, str] | None:
    if not context.binds(arg):
        return places.named(arg, bases)
    from cortex_hooks.guard.selfguard import word_paths

    for pattern in word_paths.patterns(arg, context):
        found = _pattern_by_name(pattern, places)
        if found is not None:
            return found[0], arg.value
    return None


def _pattern_by_name(pattern: reach.Pattern, places: Places) -> tuple[str, str] | None:
    """A protected file a pattern names by its name (not by a catch-all: `*`, any depth)."""
    last = pattern.levels[-1] if pattern.levels else None
    if pattern.anything or last is None or last[0] == "dirs" or last[1] == "*":
        return None
    return places.reached(pattern, whole=False)


def _deleted(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`rm`, `shred`, `unlink` …: no protected file; recursively, no folder holding one; no word
    only run time knows (it could be the database)."""
    recursive = call.program in ("trash", "trash-put", "gio") or any(
        value in ("-r", "-R", "--recursive") or (value[:2] != "--" and ("r" in value or "R" in value))
        for value in options(call)
    )
    verb = "deletes"
    for found in _operands_named(call, places, bases, context, whole=recursive, deleted=True):
        if recursive or found[0] != FOLDER_KIND:  # without -r a folder is not deleted
            return named(verb, found)
    return None


def _moved(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`mv SOURCE… TARGET` (or `-t TARGET`): a source protected or holding a protected thing, or a
    protected file written over; the target alone is no deletion."""
    return _copied(call, places, bases, context, moves=True)


def _operands_named(
    call: Invocation,
    places: Places,
    bases: list[str],
    context: Context,
    *,
    whole: bool,
    only: list[Arg] | None = None,
    deleted: bool = False,
) -> list[tuple[str, str]]:
    """The protected things the program's operands (and what xargs appends) may name."""
    found: list[tuple[str, str]] = []
    for arg in operands(call.args) if only is None else only:
        hit = places.named(arg, bases, whole=whole, context=context, deleted=deleted)
        if hit is not None:
            found.append(hit)
    if only is None:
        for pattern in context.appended or ():
            hit = places.reached(pattern, whole=whole, deleting=deleted)
            if hit is not None:
                found.append(
                    (UNKNOWN, "what comes on standard input") if pattern.anything else _shown(hit, places)
                )
    return found


def _shown(found: tuple[str, str], places: Places) -> tuple[str, str]:
    if found[0] != reach.HOLDER:
        return found
    return FOLDER_KIND, found[1]


def _moded(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`chmod`, `chown` …: refused only when the change may take the owner's reading or writing
    (a folder's search) of a protected thing away."""
    words = operands(call.args)
    recursive = any(
        value in ("-R", "--recursive") or (value[:2] != "--" and "R" in value) for value in options(call)
    )
    values = call.values()
    change = next((value for value in values if value.startswith("--reference")), None)
    if change == "--reference" and values.index(change) + 1 < len(values):
        given = call.args[values.index(change) + 1]
        words = [arg for arg in words if arg is not given]  # the file whose mode is copied
    if change is None and not words:
        return None
    if change is None:
        change, words = words[0].value, words[1:]
    if not _takes_away(call.program, change, folders=True):
        return None
    for found in _operands_named(call, places, bases, context, whole=recursive, only=words):
        folder = recursive or found[0] == FOLDER_KIND
        if found[0] != UNKNOWN and _takes_away(call.program, change, folders=folder):
            return named("changes who may read or write", found)
    for pattern in context.appended or ():
        hit = None if pattern.anything else places.reached(pattern, whole=recursive)
        if hit is not None and _takes_away(call.program, change, folders=recursive or hit[0] != DATABASE):
            return named("changes who may read or write", _shown(hit, places))
    return None


def _takes_away(program: str, change: str, *, folders: bool) -> bool:
    """Whether a mode, owner or attribute change may take from the owner what the guard needs:
    reading and writing its files, searching its folders."""
    if change.startswith("--reference"):
        return True
    if program == "chown":
        owner = change.split(":", 1)[0].split(".", 1)[0] if not change.startswith((":", ".")) else ""
        return bool(owner) and owner not in _SELF and owner != "root"
    if program == "chattr":
        return not change.startswith("-")
    if program == "setfacl":
        return "u::" in change or "user::" in change
    return _mode_takes_away(change, folders=folders)


def _mode_takes_away(mode: str, *, folders: bool) -> bool:
    if mode.isdigit() and len(mode) <= 4:
        owner = int(mode[-3]) if len(mode) >= 3 else 0
        return owner & 6 != 6 or (folders and not owner & 1)
    for clause in mode.split(","):
        who = clause[: len(clause) - len(clause.lstrip("ugoa"))]
        if who and "u" not in who and "a" not in who:
            continue
        rest = clause[len(who) :]
        if not rest or rest[0] not in "+-=":
            return True  # a mode the hook cannot read
        for operator, perms in _operations(rest):
            needed = "rwxX" if folders else "rw"
            if operator == "-" and any(perm in perms for perm in needed.replace("X", "")):
                return True
            if operator == "=" and not all(perm in perms for perm in "rw"):
                return True
            if operator == "=" and folders and not ("x" in perms or "X" in perms):
                return True
    return False


def _operations(rest: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for char in rest:
        if char in "+-=":
            found.append((char, ""))
        elif found:
            found[-1] = (found[-1][0], found[-1][1] + char)
    return found


def _scripted(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`sed`, `awk` without -i read, unless their script names a file it writes (`w FILE`)."""
    for arg in operands(call.args):
        if places.mentioned(arg.value) and places.named(arg, bases) is None:
            return Refusal("", "its script names the guard's files")
    return None


def _first(args: list[Arg], places: Places, bases: list[str], context: Context, verb: str) -> Refusal | None:
    for arg in args:
        found = places.named(arg, bases, context=context)
        if found is not None and found[0] in FILES:
            return named(verb, found)
    for pattern in context.appended or ():
        hit = None if pattern.anything else places.reached(pattern, whole=False)
        if hit is not None and hit[0] in FILES:
            return named(verb, hit)
    return None


def _copied(
    call: Invocation, places: Places, bases: list[str], context: Context, *, moves: bool = False
) -> Refusal | None:
    """The destination of a copy or move: a protected file, or one of the same name in it; the
    sources of a move (or of rsync --remove-source-files): none protected nor holding one; the
    source of a link (`ln`, `cp -s|-l`): a protected file or `.cortex/`, which a later Write
    through the link would reach with a path that names none of the guard's places."""
    from cortex_hooks.guard.shell.invocation import Arg

    words = [arg for arg in operands(call.args) if not (call.program == "scp" and ":" in arg.value)]
    target = option_value(call.args, "t", "--target-directory") if call.program != "rsync" else None
    sources = words if target is not None else words[:-1]
    if target is None and words and _many(words[-1]):
        sources = words  # `mv "${files[@]}"`: the last word is many, all but the last of them sources
    if target is None and words:
        target = words[-1] if len(words) > 1 else Arg(".")
    values = [arg.value for arg in call.args]
    if moves or (call.program == "rsync" and "--remove-source-files" in values):
        refused = _sources_removed(call, places, bases, context, sources, moves=moves)
        if refused is not None:
            return refused
    if target is None:
        return None
    if call.program == "ln" or (call.program == "cp" and any(map(_links, values))):
        for source in sources:  # a second name the hook would not know (`ln -s .cortex c`)
            found = places.named(source, bases, context=context)
            if found is not None and found[0] != UNKNOWN:
                return named("makes a second name, unknown to the hook, for", found)
    if call.program == "rsync" and any(value.startswith("--delete") for value in values):
        found = places.named(target, bases, whole=True, context=context)
        if found is not None:
            return named("deletes what is not in the source from", found)
    return _target_written(target, sources, places, bases, context)


def _sources_removed(
    call: Invocation, places: Places, bases: list[str], context: Context, sources: list[Arg], *, moves: bool
) -> Refusal | None:
    """What `mv` moves away, or `rsync --remove-source-files` deletes (recursively: -r, -a)."""
    recursive = moves or any(
        value in ("-r", "--recursive", "-a", "--archive")
        or (value[:2] != "--" and value[:1] == "-" and ("r" in value or "a" in value))
        for value in call.values()
    )
    verb = "moves" if moves else "deletes (rsync --remove-source-files)"
    for found in _operands_named(call, places, bases, context, whole=recursive, only=sources):
        if recursive or found[0] != FOLDER_KIND:
            return named(verb, found)
    for pattern in context.appended or ():
        hit = places.reached(pattern, whole=recursive)
        if hit is not None:
            return named(
                verb, (UNKNOWN, "what comes on standard input") if pattern.anything else _shown(hit, places)
            )
    return None


def _target_written(
    target: Arg, sources: list[Arg], places: Places, bases: list[str], context: Context
) -> Refusal | None:
    """A copy's or move's destination: a protected file, or a folder where a source of the same
    name as one would land on it."""
    from cortex_hooks.guard.shell.invocation import Arg

    found = places.named(target, bases, context=context)
    if found is not None and found[0] in FILES:
        return named("writes over", found)
    for source in sources:
        name = source.value.rstrip("/").rsplit("/", 1)[-1]
        if source.expands or context.binds(source):
            continue  # its name is only known at run time: the target folder decides (above)
        inside = Arg(
            f"{target.value.rstrip('/')}/{name}", expands=target.expands or source.expands, tilde=target.tilde
        )
        found = places.named(inside, bases, context=context)
        if found is not None and (found[0] in FILES or places.concrete(found[1])):
            return named("writes over", found)
    return None


def _many(arg: Arg) -> bool:
    """A word the shell makes several of (`"$@"`, `"${files[@]}"`, `$*`)."""
    return arg.expands and any(mark in arg.value for mark in ("$@", "$*", "[@]", "[*]"))


def _links(option: str) -> bool:
    """Whether a `cp` option makes links rather than copies (`-s`, `-l`, `-as`, `--link` …)."""
    if option.startswith("--"):
        return option in ("--link", "--symbolic-link")
    return option.startswith("-") and ("s" in option or "l" in option)


def _find(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`find … -delete` that may reach a protected file (its -exec commands are judged as commands
    of their own, `{}` standing for what find yields); `-fprint FILE` onto a protected file."""
    from cortex_hooks.guard.selfguard.find import find_yield

    values = call.values()
    for index, value in enumerate(values[:-1]):
        if value in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            refused = _first([call.args[index + 1]], places, bases, context, "writes")
            if refused is not None:
                return refused
    if "-delete" not in values:
        return None
    for pattern in find_yield(call, context):
        found = places.reached(pattern, whole=False, deleting=True)  # -delete: files, and empty folders
        if found is not None and found[0] != FOLDER_KIND:
            return Refusal("", f"find -delete may reach the guard's {found[0]} {found[1]}")
    return None


_RULES: tuple[
    tuple[frozenset[str], Callable[[Invocation, Places, list[str], Context], Refusal | None]], ...
] = (
    (frozenset({"find"}), _find),
    (DELETERS, _deleted),
    (frozenset({"mv"}), _moved),
    (COPIERS, _copied),
    (MODES, _moded),
    (SCRIPTED, _scripted),
)
