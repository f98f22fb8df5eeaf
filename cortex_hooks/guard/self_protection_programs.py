"""What a program does to the protected files it is given (SPEC §19), pure.

A reader (`cat`, `ls`, `grep`, `jq` …) may be given any of them. A program that deletes or moves
(`rm`, `mv`, `shred` …) may not be given one, nor a folder holding one, nor a glob or a word only
the shell knows that could be one; a program that copies (`cp`, `ln`, `install`, `rsync`) may not
write over one; `chmod`/`chown` may not change one (recursively: nor a folder holding one); `sed`,
`perl` and `ruby` may not edit one in place; `git clean -x` and `git stash --all` delete the
ignored `.cortex/`; `find -delete` may not reach one. Any other program may not be given a
protected file at all: nothing says it only reads it.
"""

from __future__ import annotations

from cortex_hooks.guard.protected import (
    CONFIG,
    DATABASE,
    DATABASE_NAME,
    FOLDER,
    SETTINGS,
    SETTINGS_FOLDER,
    SETTINGS_NAMES,
    TEAM,
    TEAM_NAME,
    UNKNOWN,
    Places,
    Refusal,
    glob_matches,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cortex_hooks.guard.shell_words import Arg, Invocation

READERS = frozenset(
    {
        *("cat", "tac", "less", "more", "head", "tail", "wc", "ls", "dir", "stat", "file", "du", "df"),
        *("tree", "grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp", "comm", "jq", "bat"),
        *("md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "xxd", "od", "hexdump"),
        *("strings", "realpath", "readlink", "basename", "dirname", "pwd", "test", "[", "[[", "echo"),
        *("printf", "true", "false", "which", "type", "whereis", "column", "nl", "cut", "touch"),
        *("namei", "getfacl", "lsattr", "lsof", "fuser", "cd", "pushd", "popd", "export", "unset"),
        *("code", "open", "xdg-open", "man", "help", "sleep", "date", "id", "whoami", "hostname"),
    }
)
SCRIPTED = frozenset({"sed", "awk", "gawk", "mawk", "nawk"})  # readers, unless their script writes
DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "mv"})
COPIERS = frozenset({"cp", "ln", "install", "rsync", "scp"})
MODES = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl"})
IN_PLACE = frozenset({"sed", "perl", "ruby"})  # with -i they rewrite the files they are given
FILES = (DATABASE, CONFIG, SETTINGS, TEAM)
_FIND_TESTS = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"}
)
_PROTECTED_NAMES = (
    *(FOLDER, SETTINGS_FOLDER, DATABASE_NAME, "cortex.db-wal", "config.toml", TEAM_NAME, *SETTINGS_NAMES),
)


def judged(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """Why this program may not run with these arguments (None: it may)."""
    name = call.program
    if name in IN_PLACE and any(
        (value[:2] != "--" and "i" in value[1:]) or value.startswith("--in-place") for value in _options(call)
    ):
        return _first(_operands(call.args), places, bases, "rewrites in place")
    for programs, rule in _RULES:
        if name in programs:
            return rule(call, places, bases)
    if name in READERS:
        return None
    refused = _from_stdin(call, places)
    if refused is not None:
        return refused
    for arg in call.args:
        for each in _with_values(arg):
            found = places.named(each, bases)
            if found is not None and found[0] in FILES:
                return Refusal(
                    "", f"{name} is given the guard's {found[0]} {found[1]} and is not known only to read it"
                )
    return None


def _deleted(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`rm`, `mv` …: no protected thing, no folder holding one, no word that could be one."""
    for arg in _operands(call.args):
        found = places.named(arg, bases, whole=True)
        if found is not None:
            return _named("moves" if call.program == "mv" else "deletes", found)
    return _from_stdin(call, places)


def _moded(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`chmod`, `chown` …: no protected thing; recursively, no folder holding one either."""
    recursive = any(
        value in ("-R", "--recursive") or (value[:2] != "--" and "R" in value) for value in _options(call)
    )
    for arg in _operands(call.args):
        found = places.named(arg, bases, whole=recursive)
        if found is not None and found[0] != UNKNOWN:
            return _named("changes who may read or write", found)
    return _from_stdin(call, places)


def _scripted(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`sed`, `awk` without -i read, unless their script names a file it writes (`w FILE`)."""
    for arg in _operands(call.args):
        if places.mentioned(arg.value) and places.named(arg, bases) is None:
            return Refusal("", "its script names the guard's files")
    return None


def _archived(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`tar -f ARCHIVE`, `zip ARCHIVE …`: they read what they archive, and write the archive."""
    archive = _archive(call.args) if call.program == "tar" else next(iter(_operands(call.args)), None)
    return _first([archive] if archive is not None else [], places, bases, "writes")


def _options(call: Invocation) -> list[str]:
    values = [arg.value for arg in call.args]
    end = values.index("--") if "--" in values else len(values)
    return [value for value in values[:end] if value.startswith("-") and value != "-"]


def _operands(args: list[Arg]) -> list[Arg]:
    """The words that are no option (all of them after `--`)."""
    found: list[Arg] = []
    for index, arg in enumerate(args):
        if arg.value == "--":
            return found + args[index + 1 :]
        if not arg.value.startswith("-") or arg.value == "-":
            found.append(arg)
    return found


def _with_values(arg: Arg) -> list[Arg]:
    """A word, and the value of `name=value` in it (`of=FILE`, `--output=FILE`) as a word too."""
    if "=" not in arg.value:
        return [arg]
    from cortex_hooks.guard.shell_words import Arg

    value = arg.value.partition("=")[2]
    return [arg, Arg(value, expands=arg.expands, globbed=arg.globbed, tilde=value.startswith("~"))]


def _option_value(args: list[Arg], short: str, long: str) -> Arg | None:
    """The value of an option: `-t DIR`, `-tDIR`, `--target-directory DIR` or `=DIR`; for a bundle
    of short flags ending in it (`tar -czf ARCHIVE`), the next word."""
    from cortex_hooks.guard.shell_words import Arg

    for index, arg in enumerate(args):
        value = arg.value
        following = args[index + 1] if index + 1 < len(args) else None
        if value == "--":
            return None
        if value == long and following is not None:
            return following
        if value.startswith(long + "="):
            return Arg(value.partition("=")[2], expands=arg.expands)
        if value[:1] == "-" and value[1:2] != "-" and short in value[1:]:
            rest = value[value.index(short, 1) + 1 :]
            return Arg(rest, expands=arg.expands) if rest else following
    return None


def _archive(args: list[Arg]) -> Arg | None:
    """The archive tar writes or reads: `-f FILE` in any of its spellings, or the old style `cf FILE`."""
    if args and args[0].value[:1] != "-" and args[0].value.isalpha() and "f" in args[0].value:
        return args[1] if len(args) > 1 else None
    return _option_value(args, "f", "--file")


def _named(verb: str, found: tuple[str, str]) -> Refusal:
    kind, path = found
    if kind == UNKNOWN:
        return Refusal(
            "", f"it {verb} {path}, which only the shell knows when it runs (it could be the guard's)"
        )
    return Refusal("", f"it {verb} the guard's {kind} {path}")


def _first(args: list[Arg], places: Places, bases: list[str], verb: str) -> Refusal | None:
    for arg in args:
        found = places.named(arg, bases)
        if found is not None and found[0] in FILES:
            return _named(verb, found)
    return None


def _from_stdin(call: Invocation, places: Places) -> Refusal | None:
    """`… | xargs rm`: the files come on standard input, in a command that names the guard's
    (with the shell's quotes and escapes taken out: `.co''rtex`), or spells a word only the shell
    spells (`$'…'`, braces). `find . -name '*.pyc' | xargs rm` names none and passes."""
    if "xargs" not in call.wrappers:
        return None
    plain = call.source.translate(_UNQUOTED)
    if places.mentioned(plain) or "$'" in call.source or "{" in call.source:
        return Refusal(
            "",
            f"{call.program} gets its files on standard input (xargs), in a command that names the guard's",
        )
    return None


_UNQUOTED = str.maketrans("", "", "'\"\\\n")


def _copied(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """The destination of a copy or link: a protected file, or one of the same name in it; the
    source of a link (`ln`, `cp -s|-l`): a protected file or `.cortex/`, which a later Write
    through the link would reach with a path that names none of the guard's places."""
    from cortex_hooks.guard.shell_words import Arg

    operands = [arg for arg in _operands(call.args) if not (call.program == "scp" and ":" in arg.value)]
    target = _option_value(call.args, "t", "--target-directory") if call.program != "rsync" else None
    sources = operands if target is not None else operands[:-1]
    if target is None and operands:
        target = operands[-1] if len(operands) > 1 else Arg(".")
    if target is None:
        return _from_stdin(call, places)
    values = [arg.value for arg in call.args]
    if call.program == "ln" or (call.program == "cp" and any(map(_links, values))):
        for source in sources:  # a second name the hook would not know (`ln -s .cortex c`)
            found = places.named(source, bases)
            if found is not None and found[0] != UNKNOWN:
                return _named("makes a second name, unknown to the hook, for", found)
    if call.program == "rsync" and any(value.startswith("--delete") for value in values):
        found = places.named(target, bases, whole=True)
        if found is not None:
            return _named("deletes what is not in the source from", found)
    found = places.named(target, bases)
    if found is not None and found[0] in FILES:
        return _named("writes over", found)
    for source in sources:
        name = source.value.rstrip("/").rsplit("/", 1)[-1]
        inside = Arg(
            f"{target.value.rstrip('/')}/{name}", expands=target.expands or source.expands, tilde=target.tilde
        )
        found = places.named(inside, bases)
        if found is not None and (found[0] in FILES or places.concrete(found[1])):
            return _named("writes over", found)
    return _from_stdin(call, places)


def _links(option: str) -> bool:
    """Whether a `cp` option makes links rather than copies (`-s`, `-l`, `-as`, `--link` …)."""
    if option.startswith("--"):
        return option in ("--link", "--symbolic-link")
    return option.startswith("-") and ("s" in option or "l" in option)


def _git(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`git clean -x` and `git stash --all` delete the ignored `.cortex/`; `git rm`, `checkout`,
    `restore` and `mv` of a protected path (a settings file, `.claude/`, `.cortex/`) change it."""
    values = [arg.value for arg in call.args]
    index = 0
    while index < len(values) and values[index].startswith("-"):
        index += 2 if values[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    if index >= len(values):
        return None
    command, rest = values[index], call.args[index + 1 :]
    options = [arg.value for arg in rest if arg.value.startswith("-")]
    if command == "clean" and any(
        option[:2] != "--" and ("x" in option or "X" in option) for option in options
    ):
        return Refusal("", "git clean -x deletes the ignored files, the guard's .cortex/ folder with them")
    if command == "stash" and any(option in ("-a", "--all") for option in options):
        return Refusal(
            "", "git stash --all takes the ignored files away, the guard's .cortex/ folder with them"
        )
    staged = "--cached" in options or (
        command == "restore" and "--staged" in options and "--worktree" not in options
    )
    if command in ("rm", "checkout", "restore", "mv") and not staged:
        for arg in _operands(rest):
            found = places.named(arg, bases, whole=True)
            # Only tracked files change: a folder above (`git checkout .`) restores them as
            # committed, as `git reset --hard` does, and never reaches the ignored `.cortex/`.
            if (
                found is not None
                and found[0] != UNKNOWN
                and (arg.globbed or found[1] in (places.paths(arg, bases) or []))
            ):
                return _named("changes", found)
    return None


def _find(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """`find ROOT … -delete` (or `-exec rm`): refused when a root is protected, or holds a
    protected thing and no name test keeps it out; `-fprint FILE` onto a protected file."""
    from cortex_hooks.guard.shell_words import Arg

    values = [arg.value for arg in call.args]
    start = next((index for index, value in enumerate(values) if value[:1] in ("-", "(", "!")), len(values))
    roots = call.args[:start] or [Arg(".")]
    expression = values[start:]
    for index, value in enumerate(expression[:-1]):
        if value in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            refused = _first([call.args[start + index + 1]], places, bases, "writes")
            if refused is not None:
                return refused
    runs = {
        expression[index + 1]
        for index, value in enumerate(expression[:-1])
        if value in ("-exec", "-execdir", "-ok", "-okdir")
    }
    if "-delete" not in expression and not runs & (DELETERS | MODES | IN_PLACE | {"shred"}):
        return None
    tests = [expression[index + 1] for index, value in enumerate(expression[:-1]) if value in _FIND_TESTS]
    for root in roots:
        found = places.named(root, bases, whole=not tests)
        if found is not None:
            return _named("deletes", found)
    for test in tests:
        if places.mentioned(test) or any(
            glob_matches(name, test.rsplit("/", 1)[-1]) for name in _PROTECTED_NAMES
        ):
            return Refusal("", f"find deletes what {test!r} matches, the guard's files among them")
    return None


_RULES: tuple[tuple[frozenset[str], Callable[[Invocation, Places, list[str]], Refusal | None]], ...] = (
    (frozenset({"git"}), _git),
    (frozenset({"find"}), _find),
    (DELETERS, _deleted),
    (COPIERS, _copied),
    (MODES, _moded),
    (SCRIPTED, _scripted),
    (frozenset({"tar", "zip"}), _archived),
)
