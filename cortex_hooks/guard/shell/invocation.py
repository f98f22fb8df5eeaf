"""A simple command's words as the shell will use them, for a rule that reads arguments (which
file a program writes) rather than text: the program, each argument's value after quote removal
and whether the shell will still change it (an expansion, a glob), the redirections, the wrappers
the reader removed, and where the command's standard input comes from.

Read from what the command reader (guard.shell.reader) already scanned: no second parser.
"""

from __future__ import annotations

from cortex_hooks.guard.shell import programs, scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.shell.reader import Parts, Simple

# What may follow `$` in an expansion: a name, `{`, `(`, a digit or a special parameter.
_EXPANDS_AFTER = frozenset("_{(@*#?$!-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Arg:
    """One word: its value after quote removal; `expands`: the shell substitutes something in it
    at run time (`$X`, `$(…)`, backticks), `globbed`: an unquoted `*`, `?` or `[`, `tilde`: an
    unquoted leading `~` (the home directory)."""

    __slots__ = ("expands", "globbed", "tilde", "value")

    def __init__(self, value: str, *, expands: bool = False, globbed: bool = False, tilde: bool = False):
        self.value = value
        self.expands = expands
        self.globbed = globbed
        self.tilde = tilde

    def __repr__(self) -> str:
        marks = "".join(name[0] for name in ("expands", "globbed", "tilde") if getattr(self, name))
        return f"Arg({self.value!r}{', ' + marks if marks else ''})"


class Invocation:
    """A simple command as the shell will run it: `program` (its base name; "" for a command of
    assignments or redirections alone), `named` (the program word as written, a path maybe),
    `args`, `redirects` ((operator, target) in order, those before the program too), `wrappers`
    (`sudo`, `xargs` … that run it), `stdin`: "heredoc", "herestring", "pipe", "file" or None,
    and `source`: the whole text it was read from (the command, or a string run again)."""

    __slots__ = ("args", "named", "program", "redirects", "source", "stdin", "wrappers")

    def __init__(
        self,
        named: Arg | None,
        args: list[Arg],
        redirects: list[tuple[str, Arg]],
        wrappers: list[str],
        stdin: str | None,
        *,
        source: str = "",
    ) -> None:
        self.named = named
        self.source = source
        self.program = programs.basename(named.value) if named is not None else ""
        self.args = args
        self.redirects = redirects
        self.wrappers = wrappers
        self.stdin = stdin

    def values(self) -> list[str]:
        return [arg.value for arg in self.args]


def invocation(simple: Simple) -> Invocation | None:
    """The invocation of a simple command the reader read word by word; None for a form it only
    shows as written (a pipeline, a command from its wrapper) or a command it could not read."""
    if simple.parts is None:
        return None
    found = simple.invoked  # read once: each rule of the built-in protection asks again
    if not isinstance(found, Invocation):
        found = simple.invoked = _read(simple.parts)
    return found


def _read(parts: Parts) -> Invocation:
    command, program, wrapper = parts
    source, words = command.source, command.words
    redirects: list[tuple[str, Arg]] = []
    stdin = "pipe" if command.piped_from is not None else None
    index = 0
    while index < len(words):
        word = words[index]
        if word.kind != scan.WORD:
            operator = source[word.start : word.end].lstrip("0123456789")
            target = _arg(source, words[index + 1]) if index + 1 < len(words) else Arg("")
            redirects.append((operator, target))
            if word.kind == scan.HEREDOC:
                stdin = "heredoc"
            elif word.kind == scan.HERESTRING:
                stdin = "herestring"
            elif operator == "<":
                stdin = "file"
            index += 2
            continue
        index += 1
    wrappers = []
    if wrapper is not None:
        wrappers = [
            programs.basename(programs.unquote(source[word.start : word.end]))
            for word in words[wrapper:program]
            if word.kind == scan.WORD
            and programs.basename(programs.unquote(source[word.start : word.end])) in programs.WRAPPERS
        ]
    named = _arg(source, words[program]) if program < len(words) else None
    args = []
    index = program + 1
    while index < len(words):
        if words[index].kind != scan.WORD:
            index += 2
            continue
        args.append(_arg(source, words[index]))
        index += 1
    return Invocation(named, args, redirects, wrappers, stdin, source=source)


# What may make a word more than its text: quotes, escapes, expansions, globs, braces, a tilde.
_NOT_PLAIN = frozenset("'\"\\$`*?[{}~")


def _arg(source: str, word: scan.Word) -> Arg:
    text = source[word.start : word.end]
    if not word.quoted and _NOT_PLAIN.isdisjoint(text):  # the common case, at once
        return Arg(text)
    expands = globbed = False
    braces: list[int] = []  # where an unquoted `{` opened: `{a,b}` and `{1..3}` expand
    position = word.start
    while position < word.end:
        char = source[position]
        span = next((span for span in word.quoted if span[0] <= position < span[1]), None)
        literal = span is not None and (source[span[0]] == "'" or source.startswith("$'", span[0]))
        if char == "\\" and span is None:  # an escaped character is itself, whatever it is
            position += 2
            continue
        if char == "\\" and span is not None and source.startswith("$'", span[0]):
            expands = True  # `$'\x72m'`: a word spelled in escapes, known once the shell reads it
        if not literal and (
            char == "`" or (char == "$" and source[position + 1 : position + 2] in _EXPANDS_AFTER)
        ):
            expands = True
        if span is None and char in "*?[":
            globbed = True
        if span is None and char == "{" and not source.startswith("$", position - 1):
            braces.append(position)
        elif span is None and char == "}" and braces:
            inside = source[braces.pop() + 1 : position]
            expands = expands or "," in inside or ".." in inside
        position += 1
    tilde = text.startswith("~") and (len(text) == 1 or text[1] == "/")
    return Arg(programs.unquote(text), expands=expands, globbed=globbed, tilde=tilde)
