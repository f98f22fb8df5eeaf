"""What a command's own words bind, pure: the paths a variable may hold and what a
producer yields, so that a word only the shell completes is judged by where it comes from.

- `for f in *.html`, `for a in $(find . -name '*.py')`: f, a hold what the list yields;
- `find … | while read f`, `read x <<< …`: what `read` takes from its input;
- `D=.cortex`, `export D=…`: an assignment;
- `sh -c 'mv "$1" …' _ {}`: the script's positional parameters, from the words after it;
- `… | xargs -I{} mv {} dir/`, `find … -exec rm {} \\;`: the `{}` (or what xargs appends) is
  what the producer yields.

A producer yields paths it can name: `find ROOT -name '*.pyc'` (guard.selfguard.reach's Pattern of its roots,
depth and name tests), `ls` (no dot-names without -a), `echo`, `git ls-files 'x*'`, a filter
(`sort`, `grep`, `head`) its input; anything else (`cat list`, a program's output) may yield
anything. A command that defines a function or sets positional parameters binds `$1` … to
anything: the hook does not follow calls.
"""

from __future__ import annotations

import re

from cortex_hooks.guard.selfguard import word_paths
from cortex_hooks.guard.selfguard.reach import ANYTHING, NOTHING, Pattern
from cortex_hooks.guard.shell import invocation, programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.selfguard.protected import Places
    from cortex_hooks.guard.shell.invocation import Arg, Invocation
    from cortex_hooks.guard.shell.reader import Reading, Simple

# A function defined (`function f`, `f ()`) or positional parameters set (`set -- …`, `shift`),
# each after a start or a delimiter: looked for only where its literal stands (`function`, `()`,
# `set`, `shift`), so that a megabyte of heredoc costs a few substring scans, not a regex at each
# of its words.
_DELIMITER = re.compile(r"[\s;&|(){}]")
_FUNCTION = re.compile(r"function\s+[\w.-]")
_NAMED = re.compile(r"[\w.-]")
_EMPTY_PARENTHESES = re.compile(r"\(\s*\)")
_SETS_ARGUMENTS = re.compile(r"set\s+--|set\s+[-+]\w*\s+\S|shift\b")
_SET_OR_SHIFT = re.compile(r"set|shift")
MAX_YIELD_DEPTH = 6  # producers read through (a pipe of pipes) before anything is assumed


class Facts:
    """The bindings of one reading, built once for all its simple commands."""

    def __init__(self, reading: Reading, places: Places, cwd: str, top: str) -> None:
        self.places = places
        self.cwd = cwd
        self.simples = [s for s in reading.commands if s.parts is not None and not (s.wrapped or s.pipeline)]
        self.by_command = {id(s.parts[0]): s for s in self.simples}  # type: ignore[index]
        self.finds: dict[int, Simple] = {}  # id of a word of a find → that find
        self.children: set[int] = set()  # ids of the commands find -exec runs
        self.positional: dict[str, list[list[Pattern]]] = {}  # a `-c` script → its $0, $1 …
        self.variables: dict[str, list[Pattern]] = {}
        self.texts: dict[str, list[str]] = {}  # a variable set to literal text: that text
        self.substituted: dict[str, Simple] = {}  # `$(…)` as a word holds it → the command yielding
        self.unbound = _defines_function(top) or _sets_arguments(top)
        self._depth = 0
        for simple in self.simples:
            command = simple.parts[0]  # type: ignore[index]
            first = command.words[0] if command.words else None
            if first is not None and id(first) in self.finds and self.finds[id(first)] is not simple:
                self.children.add(id(simple))
            call = invocation.invocation(simple)
            if call is not None and call.program == "find":
                for word in command.words:
                    self.finds.setdefault(id(word), simple)
        for simple in self.simples:
            self._substitutions(simple)
        for simple in self.simples:
            self._bind(simple)

    def find_of(self, simple: Simple) -> Simple | None:
        """The find whose -exec runs this command (None: it is none's)."""
        if id(simple) not in self.children:
            return None
        return self.finds.get(id(simple.parts[0].words[0]))  # type: ignore[index]

    def context(self, simple: Simple, places: Places, bases: list[str]) -> word_paths.Context:
        """What the words of this simple command are read against."""
        bound = dict(self.variables)
        source = simple.parts[0].source if simple.parts else ""
        given = self.positional.get(source)
        if given is not None:
            for index, patterns in enumerate(given[:10]):
                bound[str(index)] = patterns
            bound["@"] = bound["*"] = [pattern for patterns in given[1:] for pattern in patterns] or [NOTHING]
        elif self.unbound:
            for name in (*map(str, range(10)), "@", "*"):
                bound[name] = [ANYTHING]
        context = word_paths.Context(places, bases, bound, produced=lambda text: self._produced(text, bases))
        parent = self.find_of(simple)
        if parent is not None:
            parent_call = invocation.invocation(parent)
            if parent_call is not None:
                from cortex_hooks.guard.selfguard.find import find_yield

                return context.with_replaced(
                    "{}", find_yield(parent_call, self.context(parent, places, bases))
                )
        call = invocation.invocation(simple)
        if call is not None and "xargs" in call.wrappers:
            replace, _ = xargs_options(simple)
            told = next((arg for operator, arg in call.redirects if operator == "<<<"), None)
            fed = self.piped_yield(simple, bases) if told is None else word_paths.patterns(told, context)
            if replace is not None:
                return context.with_replaced(replace, fed)
            context.appended = fed
        return context

    def piped_yield(self, simple: Simple, bases: list[str]) -> list[Pattern]:
        """What comes on this command's standard input from the command piped into it."""
        piped = simple.parts[0].piped_from  # type: ignore[index]
        producer = self.by_command.get(id(piped)) if piped is not None else None
        if producer is None:
            return [ANYTHING]
        return self.yielded(producer, bases)

    def yielded(self, simple: Simple, bases: list[str]) -> list[Pattern]:
        """The paths a command's output may name."""
        call = invocation.invocation(simple)
        if call is None or self._depth > MAX_YIELD_DEPTH:
            return [ANYTHING]
        self._depth += 1
        try:
            from cortex_hooks.guard.selfguard.yields import yielded

            return yielded(call, simple, self, bases)
        finally:
            self._depth -= 1

    def _bind(self, simple: Simple) -> None:
        """Record what this command binds: a `for` list, `read`, an assignment, a `-c` script's
        positional parameters."""
        call = invocation.invocation(simple)
        if call is None:
            return
        bases = [self.cwd]
        context = self.context(simple, self.places, bases)
        command, program, _ = simple.parts  # type: ignore[misc]
        for word in command.words[:program]:
            text = command.source[word.start : word.end]
            if word.kind == 0 and programs.ASSIGNMENT.match(text):
                self._assign(text, context)
        name = call.program
        if name in ("export", "declare", "local", "readonly", "typeset"):
            for value in call.values():
                if programs.ASSIGNMENT.match(value):
                    self._assign(value, context)
        elif name == "for" and call.args:
            self._for(call, context)
        elif name in ("read", "mapfile", "readarray"):
            self._read(call, simple, context, bases)
        elif name in programs.SHELLS:
            self._script(call, context)

    def _for(self, call: Invocation, context: word_paths.Context) -> None:
        """`for NAME in WORDS`: NAME holds what the words name; `for NAME;`: the positional ones."""
        values = call.values()
        found: list[Pattern] = []
        if len(values) > 1 and values[1] == "in":
            for arg in call.args[2:]:
                found += self._word(arg, context)
        else:
            found = context.bound.get("@", [NOTHING])
        self._add(values[0], found or [NOTHING])

    def _read(self, call: Invocation, simple: Simple, context: word_paths.Context, bases: list[str]) -> None:
        """`read NAMES`: what comes on its standard input (a pipe's producer, a here-string)."""
        fed = self.piped_yield(simple, bases) if call.stdin == "pipe" else [ANYTHING]
        if call.stdin == "herestring":
            told = next((arg for operator, arg in call.redirects if operator == "<<<"), None)
            fed = self._word(told, context) if told is not None else [ANYTHING]
        for value in call.values():
            if not value.startswith("-") and re.fullmatch(r"[A-Za-z_]\w*", value):
                self._add(value, fed)

    def _assign(self, text: str, context: word_paths.Context) -> None:
        name, _, raw = text.partition("=")
        name = name.rstrip("+").split("[", 1)[0]
        value = programs.unquote(raw)
        arg = invocation.Arg(value, expands="$" in raw or "`" in raw, tilde=value.startswith("~/"))
        self._add(name, self._word(arg, context))
        if not arg.expands:
            self.texts.setdefault(name, []).append(value)

    def _script(self, call: Invocation, context: word_paths.Context) -> None:
        """`sh -c SCRIPT NAME ARGS…`: the script's $0 and $1 … are the words after it."""
        values = call.values()
        operand, _ = programs.shell_operand(lambda index: values[index], list(range(len(values))))
        if operand is None:
            return
        given = [self._word(arg, context) for arg in call.args[operand + 1 :]]
        if context.appended is not None:
            given.append(context.appended)
        known = self.positional.setdefault(values[operand], [])
        for index, patterns in enumerate(given):
            if index < len(known):
                known[index] = known[index] + patterns
            else:
                known.append(patterns)

    def _word(self, arg: Arg, context: word_paths.Context) -> list[Pattern]:
        """The paths a word may hold: a glob's matches, a substitution's yield, its text."""
        return word_paths.patterns(arg, context)

    def _produced(self, text: str, bases: list[str]) -> list[Pattern] | None:
        producer = self.substituted.get(text)
        return None if producer is None else self.yielded(producer, bases)

    def _substitutions(self, simple: Simple) -> None:
        """Each `$(…)` and backquoted command in this command's words, by its text as the word's
        value holds it (quotes removed), tied to the command whose output it is."""
        command = simple.parts[0]  # type: ignore[index]
        source = command.source
        for word in command.words:
            raw = source[word.start : word.end]
            if "$(" not in raw and "`" not in raw:
                continue
            for start, end in _spans(raw):
                low, high = word.start + start, word.start + end
                inside = [
                    other
                    for other in self.simples
                    if other.parts[0].source is source  # type: ignore[index]
                    and other.parts[0].words  # type: ignore[index]
                    and low < other.parts[0].words[0].start < high  # type: ignore[index]
                ]
                if not inside:
                    continue
                fed = {id(other.parts[0].piped_from) for other in inside}  # type: ignore[index]
                last = [other for other in inside if id(other.parts[0]) not in fed]  # type: ignore[index]
                producer = max(last or inside, key=lambda other: other.parts[0].words[0].start)  # type: ignore[index]
                self.substituted.setdefault(programs.unquote(raw[start:end]), producer)

    def _add(self, name: str, patterns: list[Pattern]) -> None:
        self.variables[name] = self.variables.get(name, []) + patterns


def _spans(raw: str) -> list[tuple[int, int]]:
    """Where `$(…)` (not `$((…))`) and backquoted commands lie in a word as written."""
    found: list[tuple[int, int]] = []
    index = 0
    while index < len(raw):
        if raw.startswith("$(", index) and not raw.startswith("$((", index):
            depth, position = 0, index + 1
            while position < len(raw):
                if raw[position] == "(":
                    depth += 1
                elif raw[position] == ")":
                    depth -= 1
                    if not depth:
                        break
                position += 1
            found.append((index, position + 1))
            index = position + 1
        elif raw[index] == "`":
            close = raw.find("`", index + 1)
            close = len(raw) - 1 if close < 0 else close
            found.append((index, close + 1))
            index = close + 1
        else:
            index += 1
    return found


def xargs_options(simple: Simple) -> tuple[str | None, bool]:
    """xargs' replacement word (`-I{}`, `-i`, `--replace`) and whether it splits on NULs."""
    command, program, wrapper = simple.parts  # type: ignore[misc]
    if wrapper is None:
        return None, False
    words = [programs.unquote(command.source[w.start : w.end]) for w in command.words[wrapper:program]]
    replace: str | None = None
    for index, word in enumerate(words):
        if word == "-I" and index + 1 < len(words):
            replace = words[index + 1]
        elif word.startswith("-I") and len(word) > 2:
            replace = word[2:]
        elif word in ("-i", "--replace"):
            replace = "{}"
        elif word.startswith(("-i", "--replace=")) and programs.basename(words[0]) == "xargs":
            replace = word.split("=", 1)[1] if "=" in word else word[2:]
    return replace, "-0" in words or "--null" in words


def _after_a_delimiter(text: str, start: int) -> bool:
    return start == 0 or _DELIMITER.match(text, start - 1) is not None


def _defines_function(text: str) -> bool:
    """`function NAME` or `NAME ()` after a start or a delimiter, anywhere in the text."""
    at = text.find("function")
    while at != -1:
        if _after_a_delimiter(text, at) and _FUNCTION.match(text, at):
            return True
        at = text.find("function", at + 1)
    for parentheses in _EMPTY_PARENTHESES.finditer(text):
        end = parentheses.start()
        while end > 0 and text[end - 1].isspace():
            end -= 1
        start = end
        while start > 0 and _NAMED.match(text, start - 1):
            start -= 1
        if start < end and _after_a_delimiter(text, start):
            return True
    return False


def _sets_arguments(text: str) -> bool:
    """`set -- …`, `set -x ARG`, `shift` after a start or a delimiter, anywhere in the text."""
    return any(
        _after_a_delimiter(text, word.start()) and _SETS_ARGUMENTS.match(text, word.start())
        for word in _SET_OR_SHIFT.finditer(text)
    )
