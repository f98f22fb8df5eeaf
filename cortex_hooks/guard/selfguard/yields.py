"""What a producer's output may name, pure: for a word bound to it (`… | xargs rm`,
`for f in $(…)`, `… | while read f`), guard.selfguard.reach's Patterns of the paths it prints.

`find` (guard.selfguard.find), `ls` (no dot-names without -a), `echo`, `printf`, `pwd`,
`dirname`, `git ls-files PATHSPEC`, `grep -l` (what it searched), a filter that passes lines
through (`sort`, `head`, `grep` — none of the guard's when its pattern matches none of their
paths, `tr '\\n' '\\0'`, `awk 'NR>5'`) what it is fed; numbers and names (`seq`, `date`) nothing;
anything else may print anything.
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard import reach, word_paths
from cortex_hooks.guard.selfguard.reach import ANYTHING, NOTHING, Pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from cortex_hooks.guard.selfguard.protected import Places
    from cortex_hooks.guard.shell.invocation import Invocation
    from cortex_hooks.guard.shell.reader import Simple

    class Facts(Protocol):
        """What of guard.selfguard.bindings' Facts a producer is read with (not imported: it
        reads producers through this module)."""

        places: Places

        def context(self, simple: Simple, places: Places, bases: list[str]) -> word_paths.Context: ...
        def piped_yield(self, simple: Simple, bases: list[str]) -> list[Pattern]: ...


FILTERS = frozenset({"sort", "uniq", "head", "tail", "tac", "shuf", "grep", "egrep", "fgrep", "tee", "cat"})
NO_PATHS = frozenset({"seq", "date", "wc", "id", "whoami", "uname", "hostname", "nproc", "jot", "expr"})
# what prints nothing on its standard output without -v
SILENT = frozenset({"rm", "mkdir", "touch", "chmod", "chown", "chgrp", "cp", "mv", "ln", "rmdir"})


def yielded(call: Invocation, simple: Simple, facts: Facts, bases: list[str]) -> list[Pattern]:
    """The paths this command's output may name."""
    name = call.program
    context = facts.context(simple, facts.places, bases)
    values = call.values()
    if name in ("echo", "printf"):
        return _echoed(call, context)
    if name == "find":
        from cortex_hooks.guard.selfguard.find import find_output

        return find_output(call, context)
    if name in ("ls", "dirname") or (name == "git" and values[:1] == ["ls-files"]):
        return _listed(call, simple, facts, bases, context)
    if name in NO_PATHS or (name in SILENT and not _verbose(values)):
        return [NOTHING]
    if name == "pwd":
        return [reach.literal(base) for base in bases]
    if name in ("grep", "egrep", "fgrep", "rg") and _lists_files(values):
        return _searched(name, call, context)
    filters = name in FILTERS or _tr_blanks(call) or _awk_filter(call)
    if filters and call.stdin == "pipe" and _only_stdin(call) and "-o" not in values:
        if name in GREPS and not _lets_guard_through(call, facts.places, bases):
            return [NOTHING]
        return facts.piped_yield(simple, bases)
    return [ANYTHING]


def _echoed(call: Invocation, context: word_paths.Context) -> list[Pattern]:
    words = call.args[1:] if call.program == "printf" and len(call.args) > 1 else call.args
    found: list[Pattern] = []
    for arg in words:
        if not (call.program == "echo" and arg.value in ("-n", "-e", "-E", "-ne", "-en")):
            found += word_paths.patterns(arg, context)
    return found or [NOTHING]


def _verbose(values: list[str]) -> bool:
    return any(v in ("-v", "--verbose") or (v[:1] == "-" and v[1:2] != "-" and "v" in v) for v in values)


_BLANKS = frozenset(
    {"\\n", "\n", "\\000", "\\0", "\0", " ", "\\t", "\t", "[:space:]", "[:blank:]", "\\r", "\r"}
)


def _tr_blanks(call: Invocation) -> bool:
    """`tr '\\n' '\\0'`: only separators change; the paths stay."""
    words = [value for value in call.values() if not value.startswith("-")]
    return call.program == "tr" and 0 < len(words) <= 2 and all(word in _BLANKS for word in words)


def _awk_filter(call: Invocation) -> bool:
    """`awk 'NR>5'`, `awk '{print}'`: whole lines through, some left out."""
    words = [value for value in call.values() if not value.startswith("-")]
    if call.program not in ("awk", "gawk", "mawk") or len(words) != 1 or len(call.values()) != 1:
        return False
    program = words[0].replace(" ", "")
    return ("{" not in program and "print" not in program) or program in ("{print}", "{print$0}")


def _parent(pattern: Pattern) -> Pattern:
    """The folders of what a pattern names (`dirname`)."""
    if pattern.anything or not pattern.levels or pattern.levels[-1][0] == "dirs":
        return ANYTHING if pattern.anything or not pattern.levels else pattern
    return (
        Pattern(pattern.levels[:-1], free=pattern.free)
        if len(pattern.levels) > 1 or not pattern.free
        else ANYTHING
    )


_VALUED = {
    "head": ("-n", "-c", "--lines", "--bytes"),
    "tail": ("-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"),
    "sort": ("-k", "-t", "-o", "-S", "-T", "--key", "--field-separator", "--output", "--parallel"),
    "uniq": ("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"),
    "grep": ("-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count", "--label"),
}
GREPS = frozenset({"grep", "egrep", "fgrep"})


def _only_stdin(call: Invocation) -> bool:
    """Whether a filter reads its standard input only (no file operand)."""
    if call.program == "tr" or call.program in ("awk", "gawk", "mawk"):
        return True  # tr takes no file; the awk filters taken have only their program
    valued = _VALUED.get("grep" if call.program in GREPS else call.program, ())
    words: list[str] = []
    skip = False
    for value in call.values():
        if skip:
            skip = False
            continue
        if value in valued:
            skip = True
            continue
        if (value.startswith("-") and value != "-") or (value[:1] == "+" and value[1:].isdigit()):
            continue
        words.append(value)
    if call.program in GREPS and not any(
        value in ("-e", "-f", "--regexp", "--file") for value in call.values()
    ):
        words = words[1:]  # the pattern
    return all(word == "-" for word in words)


def _lets_guard_through(call: Invocation, places: Places, bases: list[str]) -> bool:
    """Whether `grep PATTERN` passes a line naming one of the guard's places (`-v`: it may)."""
    import regex

    values = call.values()
    flags = "".join(value[1:] for value in values if value[:1] == "-" and value[1:2] != "-")
    if "v" in flags or "--invert-match" in values or "f" in flags:
        return True
    patterns = [values[at + 1] for at, value in enumerate(values[:-1]) if value in ("-e", "--regexp")]
    if not patterns:
        first = next((value for value in values if not value.startswith("-")), None)
        patterns = [first] if first is not None else []
    lines = _guard_lines(places, bases)
    fixed = "F" in flags or call.program == "fgrep"
    extended = "E" in flags or "P" in flags or call.program == "egrep"
    for text in patterns:
        if fixed:
            needle = text.casefold() if "i" in flags else text
            if any(needle in (line.casefold() if "i" in flags else line) for line in lines):
                return True
            continue
        source = text if extended else _basic(text)
        try:
            compiled = regex.compile(source, regex.IGNORECASE if "i" in flags else 0)
            if any(compiled.search(line, timeout=0.05) for line in lines):
                return True
        except (regex.error, TimeoutError, ValueError):
            return True
    return False


def _guard_lines(places: Places, bases: list[str]) -> list[str]:
    """How a producer may print the guard's places: absolute, relative, `./`-relative, by name."""
    from cortex_hooks.guard.selfguard import protected

    lines = [
        f"{protected.FOLDER}/{protected.DATABASE_NAME}",
        f"{protected.FOLDER}/{protected.CONFIG_NAME}",
        *(f"{protected.SETTINGS_FOLDER}/{name}" for name in (*protected.SETTINGS_NAMES, protected.TEAM_NAME)),
    ]
    for path, _ in places.concrete_places():
        lines.append(path)
        for base in bases:
            if path.startswith(base.rstrip("/") + "/"):
                relative = path[len(base.rstrip("/")) + 1 :]
                lines += [relative, "./" + relative]
    return [line for each in lines for line in (each, each.split("/", 1)[0])]


def _basic(pattern: str) -> str:
    """A basic regular expression (grep's default) in the extended syntax."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern) and pattern[index + 1] in "(){}|+?":
            out.append(pattern[index + 1])
            index += 2
            continue
        out.append("\\" + char if char in "(){}|+?" else char)
        index += 1
    return "".join(out)


def _listed(
    call: Invocation, simple: Simple, facts: Facts, bases: list[str], context: word_paths.Context
) -> list[Pattern]:
    """`ls [OPTIONS] [PATHS]`: the names in each folder listed (dot-names only with -a or -A);
    `dirname`: the folders of what it is given; `git ls-files PATHSPEC`: tracked files by name."""
    values = call.values()
    operands = [arg for arg in call.args if not arg.value.startswith("-") or arg.value == "-"]
    given = None
    if "xargs" in call.wrappers:  # what it is given comes on its standard input
        given = facts.piped_yield(simple, bases)
    if call.program == "git":
        specs = [value for value in values[1:] if not value.startswith("-")]
        if specs and all("/" not in spec for spec in specs):
            return [Pattern([("glob", spec, True)], free=True) for spec in specs]
        return [ANYTHING]
    if given is None:
        given = [pattern for arg in operands for pattern in word_paths.patterns(arg, context)]
    if call.program == "dirname":
        return [_parent(pattern) for pattern in given]
    options = "".join(value[1:] for value in values if value.startswith("-") and not value.startswith("--"))
    dotted = "a" in options or "A" in options or "f" in options or "--all" in values
    child: reach.Level = ("glob", "*", dotted)
    levels: tuple[reach.Level, ...] = (("dirs", dotted), child) if "R" in options else (child,)
    if not given and "xargs" not in call.wrappers:
        return [reach.literal(base).then(*levels) for base in context.bases]
    inside = [pattern.then(*levels) for pattern in given if pattern.folders and "d" not in options]
    return given + inside


def _lists_files(values: list[str]) -> bool:
    return any(
        value in ("-l", "-L", "--files-with-matches", "--files-without-match", "--files")
        or (value[:1] == "-" and value[1:2] != "-" and ("l" in value or "L" in value))
        for value in values
    )


def _searched(name: str, call: Invocation, context: word_paths.Context) -> list[Pattern]:
    """The files `grep -l` (or `rg --files`) may list: those searched, recursively into dot-folders
    (rg: not without --hidden)."""
    values = call.values()
    recursive = name == "rg" or any(
        value in ("-r", "-R", "--recursive")
        or (value[:1] == "-" and value[1:2] != "-" and ("r" in value or "R" in value))
        for value in values
    )
    dotted = name != "rg" or any(value in ("--hidden", "-.", "-uu", "-uuu") for value in values)
    operands = [arg for arg in call.args if not arg.value.startswith("-")]
    pattern_given = (
        any(value in ("-e", "-f", "--regexp", "--file") for value in values) or "--files" in values
    )
    paths = operands if pattern_given else operands[1:]
    if not paths:  # not recursive: it searches its standard input, and names it `(standard input)`
        return (
            [reach.literal(base).then(("dirs", dotted), ("glob", "*", dotted)) for base in context.bases]
            if recursive
            else [NOTHING]
        )
    found: list[Pattern] = []
    for arg in paths:
        for pattern in word_paths.patterns(arg, context):
            found.append(pattern)
            if recursive:
                found.append(pattern.then(("dirs", dotted), ("glob", "*", dotted)))
    return found
