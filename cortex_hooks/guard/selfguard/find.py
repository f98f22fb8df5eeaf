"""The paths `find ROOTS EXPRESSION` may name, pure: under its roots, at the depths it
goes (-mindepth, -maxdepth), with the names its tests let through (-name, -iname, in every branch of
an `-o`), of the type it asks for (-type f|d); none of the guard's when it asks for empty files
(-empty, -size 0: the guard's never are), another user's (-user, -nouser), a named file's links
(-samefile), or keeps out every dot-folder (`-not -path '*/.*'`).
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard import reach, word_paths
from cortex_hooks.guard.selfguard.reach import ANY_NAME, NOTHING, Pattern
from cortex_hooks.guard.shell import invocation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from cortex_hooks.guard.shell.invocation import Arg, Invocation

NAMES = frozenset({"-name", "-iname"})
OR = frozenset({"-o", "-or", ","})
NOT = frozenset({"!", "-not"})
# with one of these, only the paths that reach one are acted on (no implicit -print)
ACTIONS = frozenset(
    {"-print", "-print0", "-printf", "-fprint", "-fprint0", "-fprintf", "-ls", "-fls", "-delete"}
    | {"-exec", "-execdir", "-ok", "-okdir"}
)
_DOT_PATHS = frozenset({"*/.*", "*/\\.*", "./.*", "*/.*/*"})
_DOT_REGEXES = frozenset({".*/\\..*", ".*/\\.[^/]*", ".*/\\..*/.*"})
_SELF = ("$USER", "${USER}", "$(whoami)", "`whoami`", "$LOGNAME", "$(id -un)")


def find_yield(call: Invocation, context: word_paths.Context) -> list[Pattern]:
    roots, expression = _split_roots(call)
    single = not any(value in OR for value in expression)
    if single and (_none_of_the_guards(expression, context) or _paths_keep_out(expression, roots, context)):
        return [NOTHING]
    names = _names(expression)
    files = folders = True
    low, high = 0, None
    dotted = not (single and _keeps_dots_out(expression))
    for position, value in enumerate(expression[:-1]):
        following = expression[position + 1]
        negated = position > 0 and expression[position - 1] in NOT
        if value == "-type" and not negated and single:
            files, folders = "f" in following or "l" in following, "d" in following
        elif value in ("-maxdepth", "-mindepth") and following.isdigit():
            high, low = (int(following), low) if value == "-maxdepth" else (high, int(following))
    levels = [("glob", name, True) for name in names] if names is not None else [("glob", "*", dotted)]
    found: list[Pattern] = []
    for root in roots:
        for pattern in word_paths.patterns(root, context):
            if low == 0:
                found += _root(pattern, root, names, levels)
            for level in levels:
                if high is None or high > 3:
                    found.append(pattern.then(("dirs", dotted), level))
                else:
                    depths = range(max(low, 1), high + 1)
                    found += [pattern.then(*([ANY_NAME] * (depth - 1)), level) for depth in depths]
    return [pattern.only(files=files, folders=folders) for pattern in found] or [NOTHING]


def find_output(call: Invocation, context: word_paths.Context) -> list[Pattern]:
    """What `find` prints, for a command it is piped into: the paths it yields (-print, or no
    action), their folders or names (-printf %h, %f), what an -exec'd program prints of them
    (`-exec basename {} \\;`: names; `-exec rm {} \\;`: nothing); nothing it cannot tell."""
    from cortex_hooks.guard.selfguard.reach import ANYTHING

    _, expression = _split_roots(call)
    paths = find_yield(call, context)
    printing = [value for value in expression if value in ("-print", "-print0", "-ls", "-fls")]
    formats = [expression[at + 1] for at, value in enumerate(expression[:-1]) if value == "-printf"]
    runs = [expression[at + 1] for at, value in enumerate(expression[:-1]) if value in _EXECS]
    if not (printing or formats or runs):
        return paths
    found: list[Pattern] = list(paths) if printing else []
    for form in formats:
        if "%p" in form or "%P" in form:
            found += paths
        elif "%h" in form:
            found += [_folder(pattern) for pattern in paths]
        elif "%f" in form:
            found += [_name(pattern, context) for pattern in paths]
    for program in runs:
        name = program.rsplit("/", 1)[-1]
        if name == "basename":
            found += [_name(pattern, context) for pattern in paths]
        elif name in ("echo", "printf", "ls", "realpath", "readlink"):
            found += paths
        elif name not in _QUIET:
            found.append(ANYTHING)
    return found or [NOTHING]


_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_QUIET = frozenset(
    {"rm", "rmdir", "mv", "cp", "chmod", "chown", "chgrp", "touch", "mkdir", "sed", "test", "["}
)


def _folder(pattern: Pattern) -> Pattern:
    from cortex_hooks.guard.selfguard.reach import ANYTHING

    if pattern.anything or len(pattern.levels) < 2 or pattern.levels[-1][0] == "dirs":
        return ANYTHING if pattern.anything or not pattern.levels else pattern.then()
    return Pattern(pattern.levels[:-1], free=pattern.free)


def _name(pattern: Pattern, context: word_paths.Context) -> Pattern:
    """A path's last name, as a word in the folder the command runs in."""
    from cortex_hooks.guard.selfguard import reach

    last = pattern.levels[-1] if pattern.levels and not pattern.anything else ANY_NAME
    if last[0] == "dirs":
        last = ANY_NAME
    return reach.literal(context.bases[0]).then(last)


def _split_roots(call: Invocation) -> tuple[list[Arg], list[str]]:
    """find's roots (`.` when none is given) and its expression."""
    values = call.values()
    index = 0
    while index < len(values) and (values[index] in ("-H", "-L", "-P") or values[index][:2] in ("-D", "-O")):
        index += 2 if values[index] == "-D" else 1
    start = next(
        (at for at in range(index, len(values)) if values[at][:1] in ("-", "(", "!") or values[at] == ","),
        len(values),
    )
    return call.args[index:start] or [invocation.Arg(".")], values[start:]


def _root(
    pattern: Pattern, root: Arg, names: list[str] | None, levels: Sequence[reach.Level]
) -> list[Pattern]:
    """The root itself, when its name passes the name tests."""
    if names is None:
        return [pattern]
    if pattern.anything or pattern.free:
        return [Pattern([level], free=True) for level in levels]
    return [pattern] if _root_named(root, names) else []


def _none_of_the_guards(expression: list[str], context: word_paths.Context) -> bool:
    """A test that only lets through what is none of the guard's: empty, another user's, links
    of a file that is none of the guard's."""
    import posixpath

    person = posixpath.basename(context.places.home.rstrip("/"))
    for position, value in enumerate(expression):
        if position and expression[position - 1] in NOT:
            continue
        following = expression[position + 1] if position + 1 < len(expression) else ""
        if value in ("-empty", "-nouser", "-nogroup"):
            return True
        if value == "-size" and following.rstrip("ckMGbw") in ("0", "-1"):
            return True
        if value == "-user" and following not in (person, *_SELF) and not following.isdigit():
            return True
        if (
            value == "-group"
            and following not in (person, "staff", "users", *_SELF)
            and not following.isdigit()
        ):
            return True
        if value == "-samefile" and not following.startswith("$"):
            found = context.places.named(invocation.Arg(following), context.bases)
            if found is None:
                return True
    return False


def _paths_keep_out(expression: list[str], roots: list[Arg], context: word_paths.Context) -> bool:
    """A test of the whole path (`-path '*/test/*'`, `-regex '.*\\.jpg'`) that no path of the guard's
    passes, as find prints it from each root."""
    import fnmatch

    import regex

    tests = [
        (value, expression[at + 1])
        for at, value in enumerate(expression[:-1])
        if value in ("-path", "-wholename", "-ipath", "-iwholename", "-regex", "-iregex")
        and not (at and expression[at - 1] in NOT)
    ]
    if not tests:
        return False
    lines = _printed(roots, context)
    for test, pattern in tests:
        folded = test.startswith("-i")
        try:
            if "regex" in test:
                compiled = regex.compile(pattern, regex.IGNORECASE if folded else 0)
                passes = any(compiled.fullmatch(line, timeout=0.05) for line in lines)
            else:
                passes = any(
                    fnmatch.fnmatchcase(
                        line.casefold() if folded else line, pattern.casefold() if folded else pattern
                    )
                    for line in lines
                )
        except (regex.error, TimeoutError, ValueError):
            passes = True
        if not passes:
            return True  # every test must pass: one that none of the guard's paths passes keeps them out
    return False


def _printed(roots: list[Arg], context: word_paths.Context) -> list[str]:
    """The guard's places as find would print them from these roots (by name below any root whose
    value only run time knows)."""
    from cortex_hooks.guard.selfguard import protected

    names = [
        f"{protected.FOLDER}/{protected.DATABASE_NAME}",
        f"{protected.FOLDER}/{protected.CONFIG_NAME}",
        protected.FOLDER,
        protected.SETTINGS_FOLDER,
        *(f"{protected.SETTINGS_FOLDER}/{name}" for name in (*protected.SETTINGS_NAMES, protected.TEAM_NAME)),
    ]
    lines: list[str] = []
    for root in roots:
        paths = context.places.paths(root, context.bases)
        if paths is None:
            lines += [f"{root.value.rstrip('/')}/x/{name}" for name in names]
            continue
        for path, _ in context.places.concrete_places():
            for base in paths:
                if path == base or path.startswith(base.rstrip("/") + "/"):
                    lines.append(root.value.rstrip("/") + path[len(base.rstrip("/")) :])
        lines += [f"{root.value.rstrip('/')}/x/{name}" for name in names]
    return lines


def _keeps_dots_out(expression: list[str]) -> bool:
    """`-not -path '*/.*'` (or the same regex, or `! -name '.*'` with -prune): no dot-folder's
    contents pass."""
    for position, value in enumerate(expression[:-1]):
        following = expression[position + 1]
        if position and expression[position - 1] in NOT:
            if value in ("-path", "-wholename", "-ipath") and following in _DOT_PATHS:
                return True
            if value in ("-regex", "-iregex") and following in _DOT_REGEXES:
                return True
    return False


def _names(expression: list[str]) -> list[str] | None:
    """The name patterns every path find yields matches, each branch of an `-o` by its own test
    (None: some name may pass unchecked)."""
    branches = _split(expression)
    acting = [branch for branch in branches if any(value in ACTIONS for value in branch)]
    found: list[str] = []
    for branch in acting if acting and len(branches) > 1 else branches:  # `-prune -o … -print`
        names = _branch_names(branch)
        if names is None:
            return None
        found += names
    return found


def _split(tokens: list[str]) -> list[list[str]]:
    """The branches of `-o` at the outer level of the expression."""
    branches: list[list[str]] = [[]]
    depth = 0
    for token in tokens:
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if token in OR and depth == 0:
            branches.append([])
        else:
            branches[-1].append(token)
    return branches


def _branch_names(tokens: list[str]) -> list[str] | None:
    names: list[str] | None = None
    position = 0
    while position < len(tokens):
        token = tokens[position]
        negated = position > 0 and tokens[position - 1] in NOT
        if token == "(":
            depth, end = 0, position
            while end < len(tokens):
                depth += tokens[end] == "("
                depth -= tokens[end] == ")"
                if not depth:
                    break
                end += 1
            if not negated:
                inner = _names(tokens[position + 1 : end])
                names = inner if inner is not None else names
            position = end + 1
            continue
        if token in NAMES and position + 1 < len(tokens) and not negated:
            names = [tokens[position + 1]]
        position += 1
    return names


def _root_named(root: Arg, names: list[str]) -> bool:
    import fnmatch

    from cortex_hooks.guard.selfguard.reach import shell_glob

    last = root.value.rstrip("/").rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(last, shell_glob(name)) for name in names)
