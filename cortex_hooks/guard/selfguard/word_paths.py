"""A command's word as the paths it may name (guard.selfguard.reach's Patterns), pure: its globs, the
variables the hook knows (HOME, PWD …), those the command itself sets (`for f in *.html`,
`D=.cortex`, what `read` takes from `find … |`, `$1` of `sh -c '…' _ {}`: a Context's
bindings), and what is known only when the shell runs it (`$(…)`, a variable set elsewhere).
"""

from __future__ import annotations

import posixpath
import re

from cortex_hooks.guard.selfguard import reach
from cortex_hooks.guard.selfguard.reach import ANYTHING, Pattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from cortex_hooks.guard.shell.invocation import Arg

    class Places(Protocol):
        """What of guard.selfguard.protected's Places a word is read against (not imported: it reads
        words through this module)."""

        home: str
        variables: dict[str, str]

        def named(
            self, arg: Arg, bases: list[str], *, whole: bool = ..., context: Context | None = ...
        ) -> tuple[str, str] | None: ...
        def paths(self, arg: Arg, bases: list[str]) -> list[str] | None: ...
        def concrete_places(self) -> list[tuple[str, str]]: ...
        def reached(
            self, pattern: Pattern, *, whole: bool, deleting: bool = ...
        ) -> tuple[str, str] | None: ...


MAX_BRACES = 32  # more alternatives than this: the word is taken as unknown
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_PWD = frozenset({"$(pwd)", "$(pwd -P)", "$(pwd -L)", "`pwd`", "`pwd -P`"})
# expansions that are always a number: no path, a name of digits
_NUMBERS = frozenset(
    {"$$", "$!", "$?", "$#", "$RANDOM", "$SECONDS", "$LINENO", "$BASHPID", "$PPID", "$UID", "$EUID"}
)
_STRIPPED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9])%%?([^*?\[{}$`/]+)\}")


class Context:
    """What a word is read against: the call's places, the folders the command may be in, and
    what the command itself binds: variables (name → the patterns of what they may hold,
    `0` to `9`, `@` for positional parameters) and a word `replaced` by what a producer yields
    (`{}` of `find -exec`, `xargs -I{}`)."""

    __slots__ = ("appended", "bases", "bound", "places", "produced", "replaced")

    def __init__(
        self,
        places: Places,
        bases: list[str],
        bound: dict[str, list[Pattern]] | None = None,
        replaced: tuple[str, list[Pattern]] | None = None,
        produced: Callable[[str], list[Pattern] | None] | None = None,
    ) -> None:
        self.places = places
        self.bases = bases
        self.bound = bound or {}
        self.replaced = replaced
        self.produced = produced  # what a `$(…)` in a word yields, when the hook can tell
        self.appended: list[Pattern] | None = None  # what xargs appends to the command's words

    def binds(self, arg: Arg) -> bool:
        """Whether the word holds something this context binds."""
        value = arg.value
        if self.replaced is not None and self.replaced[0] in value:
            return True
        return ("$" in value or "`" in value) and (
            any(f"${name}" in value or f"${{{name}}}" in value for name in self.bound)
            or (self.produced is not None and ("$(" in value or "`" in value))
        )

    def with_replaced(self, word: str, patterns: list[Pattern]) -> Context:
        return Context(self.places, self.bases, self.bound, (word, patterns), self.produced)

    def lookup(self, text: str) -> list[Pattern] | None:
        """What an expansion stands for, when the command binds it (None: it does not)."""
        name = _simple_name(text)
        if name is not None and name in self.bound:
            return self.bound[name]
        stripped = _STRIPPED.fullmatch(text)
        if stripped is not None and stripped[1] in self.bound:  # `${f%.marker}`: a known end cut off
            return [_cut(pattern, stripped[2]) for pattern in self.bound[stripped[1]]]
        if self.produced is not None and (text.startswith("$(") or text.startswith("`")):
            return self.produced(text)
        return None


def patterns(arg: Arg, context: Context) -> list[Pattern]:
    """The patterns of the paths a word may name (several: a brace expansion, a variable bound to
    several things)."""
    value = arg.value
    if context.replaced is not None and context.replaced[0] in value:
        return _replaced(value, context)
    if arg.tilde:
        value = context.places.home + value[1:]
    if not arg.expands:
        return _plain(value, context, globbed=arg.globbed)
    found: list[Pattern] = []
    for each in _braces(value):
        found += _expanded(each, context, globbed=arg.globbed)
    return found


def _plain(value: str, context: Context, *, globbed: bool) -> list[Pattern]:
    if not value:
        return [reach.NOTHING]  # an empty word names no path (`mv "$2" x` with no $2)
    paths = [value] if value.startswith("/") else [posixpath.join(base, value) for base in context.bases]
    if globbed:
        return [reach.glob_path(path) for path in paths]
    return [reach.literal(path) for path in paths]


def _replaced(value: str, context: Context) -> list[Pattern]:
    """`{}` (or xargs' -I word) in a word: what the producer yields there."""
    word, yielded = context.replaced  # type: ignore[misc]
    head, _, tail = value.partition(word)
    if not head and "/" not in tail:
        return [_suffixed(pattern, tail) for pattern in yielded] if tail else yielded
    if head.endswith("/") and "/" not in tail and "$" not in head and "`" not in head:
        # `ls DIR | xargs -I{} rm DIR/{}`: the names ls prints, back in the folder it listed
        folder = [
            ("lit", name)
            for name in posixpath.normpath(posixpath.join(context.bases[0], head)).split("/")
            if name
        ]
        within = [
            Pattern([*folder, pattern.levels[-1]]) if list(pattern.levels) == folder else pattern
            for pattern in yielded
            if not pattern.anything
            and folder
            and list(pattern.levels[: len(folder)]) == folder
            and len(pattern.levels) <= len(folder) + 1
            and pattern.levels[-1][0] != "dirs"
        ]
        if within and len(within) == len(yielded):
            return [_suffixed(pattern, tail) if tail else pattern for pattern in within]
    return [_free([("unknown", word), ("lit", tail)], globbed=False)]  # inside a longer path


def _cut(pattern: Pattern, suffix: str) -> Pattern:
    """What `${X%SUFFIX}` leaves of a pattern whose last name is known to end in SUFFIX."""
    last = pattern.levels[-1] if pattern.levels and not pattern.anything else None
    if (
        last is None
        or last[0] == "dirs"
        or not str(last[1]).endswith(reach.escape(suffix))
        or str(last[1]) == "*"
    ):
        return ANYTHING
    cut = str(last[1])[: -len(reach.escape(suffix))]
    level: reach.Level = (last[0], cut) if last[0] == "lit" else ("glob", cut, last[2])
    return Pattern(
        [*pattern.levels[:-1], level], free=pattern.free, files=pattern.files, folders=pattern.folders
    )


def _suffixed(pattern: Pattern, suffix: str) -> Pattern:
    """What a pattern names with a suffix added to its last name (`{}.bak`)."""
    if pattern.anything or not pattern.levels or pattern.levels[-1][0] == "dirs":
        return Pattern([("glob", "*" + reach.escape(suffix), True)], free=True)
    *first, last = pattern.levels
    if last[0] == "lit":
        level: reach.Level = ("lit", f"{last[1]}{suffix}")
    else:
        level = ("glob", f"{last[1]}{reach.escape(suffix)}", last[2])
    return Pattern([*first, level], free=pattern.free)


def _expanded(value: str, context: Context, *, globbed: bool) -> list[Pattern]:
    """A word with expansions: those the hook knows put in; a word that is one bound variable
    (`"$f"`, `"$d/x"`) stands for what it is bound to; any other expansion makes the word free."""
    tokens = _tokens(value, context)
    if tokens is None:
        return [ANYTHING]
    first = tokens[0]
    if first[0] == "bound" and all(kind == "lit" for kind, _ in tokens[1:]):
        rest = "".join(text for _, text in tokens[1:])
        if not rest or rest.startswith("/"):
            return [_then(bound, rest, globbed=globbed) for bound in context.lookup(first[1]) or [ANYTHING]]
    if all(kind == "lit" for kind, _ in tokens):
        return _plain("".join(text for _, text in tokens), context, globbed=globbed)
    return [_free(tokens, globbed=globbed)]


def _then(pattern: Pattern, rest: str, *, globbed: bool) -> Pattern:
    """A bound variable's pattern followed by `/more/levels`."""
    levels = [name for name in rest.split("/") if name and name != "."]
    if ".." in levels:
        return ANYTHING
    return pattern.then(*(_level(name, globbed=globbed) for name in levels))


def _free(tokens: list[tuple[str, str]], *, globbed: bool) -> Pattern:
    """A word with an expansion only run time knows (it may hold a `/` or `..`): what follows
    the last one — the end of the name holding it, and the levels after that."""
    tail = ""
    for kind, text in reversed(tokens):
        if kind != "lit":
            break
        tail = text + tail
    end, _, rest = tail.partition("/")
    following = [name for name in rest.split("/") if name and name != "."] if rest else []
    if ".." in following or (not end and not following):
        return ANYTHING
    levels: list[reach.Level] = []
    if end:
        levels.append(("glob", "*" + (end if globbed else reach.escape(end)), True))
    levels += [_level(name, globbed=globbed) for name in following]
    return Pattern(levels, free=True)


def _level(name: str, *, globbed: bool) -> reach.Level:
    if globbed and name == "**":
        return ("dirs", False)
    if globbed and any(char in name for char in "*?["):
        return ("glob", name, False)
    return ("lit", name)


def _tokens(value: str, context: Context) -> list[tuple[str, str]] | None:
    """The word as literal text and expansions: ("lit", text), ("bound", name) for a variable the
    command binds, ("unknown", text); those the hook knows are literal. None: unreadable."""
    tokens: list[tuple[str, str]] = []
    index, size = 0, len(value)
    literal: list[str] = []
    variables = context.places.variables
    while index < size:
        char = value[index]
        if char not in "$`":
            literal.append(char)
            index += 1
            continue
        end = _expansion_end(value, index)
        if end is None:
            return None
        text = value[index:end]
        name = _simple_name(text)
        stripped = _STRIPPED.fullmatch(text)
        if text in _PWD:
            literal.append(context.bases[0])
        elif text in _NUMBERS or text.replace("{", "").replace("}", "") in _NUMBERS:
            literal.append("0")
        elif stripped is not None and not literal and not tokens and stripped[1] in context.bound:
            tokens.append(("bound", text))
        elif name is not None and name in variables:
            literal.append(variables[name])
        elif not literal and not tokens and context.lookup(text) is not None:
            tokens.append(("bound", text))
        elif name is not None and name.isdigit() and name != "0" and name not in context.bound:
            pass  # an unset positional parameter: empty (the command binds none)
        else:
            if literal:
                tokens.append(("lit", "".join(literal)))
                literal = []
            tokens.append(("unknown", text))
        index = end
    if literal:
        tokens.append(("lit", "".join(literal)))
    return tokens or [("lit", "")]


def _simple_name(text: str) -> str | None:
    """The variable a plain expansion names (`$X`, `${X}`, `$1`), else None."""
    if text.startswith("${") and text.endswith("}"):
        inner = text[2:-1]
        return inner if _NAME.fullmatch(inner) else None
    if text.startswith("$") and _NAME.fullmatch(text[1:]):
        return text[1:]
    return None


def _expansion_end(value: str, index: int) -> int | None:
    """Where the expansion starting at `index` ends (`$X`, `${…}`, `$(…)`, `$((…))`, backticks);
    a lone `$` is text."""
    if value[index] == "`":
        close = value.find("`", index + 1)
        return len(value) if close < 0 else close + 1
    following = value[index + 1 : index + 2]
    if following in ("{", "("):
        opener, closer = following, "}" if following == "{" else ")"
        depth, position = 0, index + 1
        while position < len(value):
            if value[position] == opener:
                depth += 1
            elif value[position] == closer:
                depth -= 1
                if not depth:
                    return position + 1
            position += 1
        return len(value)
    found = _NAME.match(value, index + 1)
    if found is None:
        return index + 1 if index + 1 <= len(value) else None
    return found.end() if found.group()[0].isalpha() or found.group()[0] == "_" else index + 2


def _braces(value: str) -> list[str]:
    """The words a brace expansion makes (`.{cortex,tox}`, `x{1..3}`), at most MAX_BRACES."""
    found = re.search(r"(?<!\$)\{([^{}]*)\}", value)
    if found is None:
        return [value]
    inner = found.group(1)
    if "," in inner:
        choices = inner.split(",")
    else:
        sequence = re.fullmatch(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])", inner)
        if sequence is None:
            return [value]
        low, high = sequence.groups()
        if low.lstrip("-").isdigit() and high.lstrip("-").isdigit():
            step = 1 if int(high) >= int(low) else -1
            choices = [str(n) for n in range(int(low), int(high) + step, step)][: MAX_BRACES + 1]
        else:
            step = 1 if ord(high) >= ord(low) else -1
            choices = [chr(n) for n in range(ord(low), ord(high) + step, step)]
    words = [value[: found.start()] + choice + value[found.end() :] for choice in choices]
    expanded: list[str] = []
    for word in words:
        expanded += _braces(word)
        if len(expanded) > MAX_BRACES:
            return ["$(…)"]  # too many to list: unknown
    return expanded
