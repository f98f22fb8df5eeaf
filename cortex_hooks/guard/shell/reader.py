"""The command reader: a Bash command as the simple commands the shell would run
(docs/guide/command-reader.md).

Each simple command is given as its canonical text — its words joined by single spaces, quoted
words shown as written, the program by its base name with its quotes removed, wrappers (`sudo`,
`env`, `timeout` …) and leading assignments and redirections dropped — and the spans of that text
that are data (quoted words, a here-string), where no match may begin. What the shell runs again
is read again, to a bounded depth: `bash -c STRING`, `eval ARGS`, a heredoc, here-string or
`echo …` piped to a shell, `find -exec`, a string inline code hands to a shell
(`python -c "os.system('…')"`). Heredoc bodies fed to anything else and comments are not read.

Pure and total: no I/O, never an exception, bounded work. A command past the budget, or one the
reader fails on, comes back `raw`: matched as the raw string, as before the reader existed.
"""

from __future__ import annotations

from cortex_hooks.guard.shell import programs, scan, strings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    _Value = Callable[[int], str]  # a word's value (after quote removal) by its index
    Parts = tuple[scan.Command, int, int | None]  # the words, the program's index, the first wrapper's
    Spans = tuple[tuple[int, int, int, int], ...]

MAX_DEPTH = 8  # how deep what the shell runs again is read again
MAX_COMMANDS = 10_000
MAX_WORDS = 100_000
TEXT_FACTOR = 4  # the canonical texts may total this many times the command (plus a megabyte)


class Simple:
    """One simple command: its canonical text and the (start, end) spans of it that are data;
    `spans` ties each piece of the text (a word, or the whole text when it is a slice) to where it
    was written in the command read, as (text start, text end, command start, command end), or is
    None when the text comes from a string the shell runs again (`bash -c '…'`): what a rewrite
    (guard.rewrite) needs to correct the command as written. `parts`, for a rule that reads
    arguments rather than text (guard.shell.invocation): the words the scanner read, the index of the
    program among them and that of its first wrapper."""

    __slots__ = ("_spans", "data", "depth", "fed", "invoked", "order", "parts", "pipeline", "text", "wrapped")

    def __init__(
        self,
        text: str,
        data: tuple[tuple[int, int], ...],
        depth: int,
        order: tuple[int, ...],
        *,
        wrapped: bool = False,
        pipeline: bool = False,
        fed: bool = False,
        spans: Spans | _Pieces | None = None,
        parts: Parts | None = None,
    ) -> None:
        self.text = text
        self.data = data
        self.depth = depth  # 0: in the command itself; 1: in a `bash -c` string of it; …
        self.order = order
        self.wrapped = wrapped  # the same command again, as written from its first wrapper
        self.pipeline = pipeline  # a whole pipeline as written (several simple commands)
        self.fed = fed  # the command again, the heredoc it runs (a query, code) after it as data
        self._spans = spans  # its pieces and words until asked: only a rewrite asks (10,000 commands)
        self.parts = parts  # None for a form as written (wrapped, pipeline) or one not read
        self.invoked: object = None  # its Invocation, once a rule asked (shell.invocation.invocation)

    @property
    def spans(self) -> Spans | None:
        if isinstance(self._spans, _Pieces):
            self._spans = _pieces(self._spans.parts, self._spans.words)
        return self._spans

    def __repr__(self) -> str:
        return f"Simple({self.text!r}, data={self.data!r})"


class _Pieces:
    """A canonical text's parts and the words they were written as: its spans, made when asked."""

    __slots__ = ("parts", "words")

    def __init__(self, parts: list[str], words: list[scan.Word]) -> None:
        self.parts = parts
        self.words = words


class Reading:
    """What a command was read as: its simple commands, or `raw` when it could not be read."""

    __slots__ = ("commands", "raw")

    def __init__(self, commands: list[Simple], raw: bool) -> None:
        self.commands = commands
        self.raw = raw

    def texts(self) -> list[str]:
        """The canonical text of each simple command (not their forms with wrappers, the
        pipelines they make, nor a command shown with the heredoc it runs)."""
        shown = (command for command in self.commands if not (command.wrapped or command.pipeline))
        return [command.text for command in shown if not command.fed]


def read(command: str) -> Reading:
    """The simple commands the shell would execute for `command` (see the module docstring).

    The last command read is remembered with its reading (never changed once made): PreToolUse's
    built-in protection and its learnings read the same command once (a 1 MB heredoc)."""
    if _last and _last[0][0] == command:
        return _last[0][1]
    try:
        reader = _Reader(len(command), command)
        reader.read(command, 0, len(command), depth=0, anchor=None)
        reading = Reading(sorted(reader.found, key=lambda simple: simple.order), raw=False)
    except Exception:  # past the budget, or a bug: the raw string is matched
        reading = Reading([Simple(command, (), 0, (0,), spans=_whole(0, command, 0))], raw=True)
    _last[:] = [(command, reading)]
    return reading


_last: list[tuple[str, Reading]] = []


class _Facts:
    __slots__ = ("cat", "code", "depth", "echoed", "fed", "feeds", "parts", "stdin_shell")

    def __init__(
        self, depth: int, stdin_shell: bool, echoed: str | None, *, code: bool = False, fed: str | None = None
    ) -> None:
        self.depth = depth
        self.stdin_shell = stdin_shell  # a shell whose commands come from its standard input
        self.echoed = echoed  # what an `echo`/`printf` writes, for a shell it pipes into
        self.code = code  # an interpreter whose code comes from its standard input
        self.fed = fed  # the canonical text of a program that runs its standard input (code, a query)
        self.parts: Parts | None = None  # and its words, for the form shown with its heredoc
        self.cat = False  # a `cat` of its standard input alone (`cat <<EOF | psql`)
        self.feeds: tuple[_Facts, scan.Command] | None = None  # the command a `cat` pipes into


class _Reader:
    __slots__ = ("budget", "found", "sequence", "text_left", "top")

    def __init__(self, size: int, top: str = "") -> None:
        self.top = top  # the command read: a source that `is` it is the command as written
        self.budget = scan.Budget(MAX_COMMANDS, MAX_WORDS, MAX_DEPTH)
        self.found: list[Simple] = []
        self.text_left = TEXT_FACTOR * size + (1 << 20)
        self.sequence = 0

    def read(
        self, source: str, start: int, end: int, *, depth: int, anchor: int | None, body: bool = False
    ) -> None:
        if depth > MAX_DEPTH:  # too deep to read: what would run is matched as it is
            spans = _whole(0, source[start:end], start) if source is self.top else None
            self.emit(source[start:end], (), depth, anchor if anchor is not None else start, spans=spans)
            return
        scan.scan(source, start, end, _Sink(self, depth, anchor), self.budget, body=body)

    def emit(
        self,
        text: str,
        data: tuple[tuple[int, int], ...],
        depth: int,
        anchor: int,
        *,
        wrapped: bool = False,
        pipeline: bool = False,
        fed: bool = False,
        spans: Spans | _Pieces | None = None,
        parts: Parts | None = None,
    ) -> None:
        self.text_left -= len(text)
        if self.text_left < 0:
            raise scan.Exhausted
        self.sequence += 1
        order = (anchor, depth, self.sequence)
        forms = {"wrapped": wrapped, "pipeline": pipeline, "fed": fed}
        self.found.append(Simple(text, data, depth, order, **forms, spans=spans, parts=parts))

    def finished(self, command: scan.Command, depth: int, anchor: int | None) -> None:
        """A simple command ended: its canonical text, and what it runs again."""
        source, words = command.source, command.words
        own = source is self.top
        texts = [source[word.start : word.end] for word in words]
        if _plain(words, texts):  # the common case, quickly: as written, nothing to read again
            first = programs.basename(texts[0])
            pieces = [first, *texts[1:]]
            self.emit(
                " ".join(pieces),
                (),
                depth,
                anchor if anchor is not None else words[0].start,
                spans=_Pieces(pieces, words) if own else None,
                parts=(command, 0, None),
            )
            command.facts = _PLAIN
            return
        values: dict[int, str] = {}

        def value(index: int) -> str:
            if index not in values:
                values[index] = programs.unquote(texts[index])
            return values[index]

        here = anchor if anchor is not None else words[0].start
        program, wrapper = _program(words, texts, value)
        if program == len(words) and all(value(index) in programs.RESERVED for index in range(len(words))):
            return  # `}`, `fi`, `done`: no command
        indices = _arguments(words, program + 1)
        text, data, pieces = _canonical(words, texts, value, program)
        shown_from = program if program < len(words) else 0
        spans = _Pieces(pieces, words[shown_from:]) if own else None
        self.emit(text, data, depth, here, spans=spans, parts=(command, program, wrapper))
        shown = text
        if wrapper is not None:  # also as written from its first wrapper: `sudo pip …` still matches
            text, data, pieces = _canonical(words, texts, value, wrapper)
            spans = _Pieces(pieces, words[wrapper:]) if own else None
            self.emit(text, data, depth, here, wrapped=True, spans=spans)
        facts = _Facts(depth, stdin_shell=False, echoed=None)
        if program < len(words):
            name = programs.basename(value(program))
            facts = self._runs_again(command, name, indices, value, depth=depth, here=here)
            if facts.code or name in programs.QUERY_CLIENTS:
                facts.fed = shown
                facts.parts = (command, program, wrapper)
        command.facts = facts
        piped = command.piped_from
        if piped is not None and isinstance(piped.facts, _Facts) and piped.facts.cat:
            piped.facts.feeds = (facts, command)  # its heredoc, read later, is this command's input
        if piped is not None and isinstance(piped.facts, _Facts) and piped.facts.echoed:
            text = piped.facts.echoed
            if facts.stdin_shell:
                self.read(text, 0, len(text), depth=depth + 1, anchor=here)
            elif facts.code:
                self._shell_outs(text, depth, here)

    def _runs_again(
        self, command: scan.Command, name: str, indices: list[int], value: _Value, *, depth: int, here: int
    ) -> _Facts:
        """Read again what this command has the shell run; what it does with its standard input."""
        facts = _Facts(depth, stdin_shell=False, echoed=None)
        if name in programs.SHELLS:
            facts.stdin_shell = self._shell(command, indices, value, depth, here)
        elif name == "find":
            self._find_exec(command, indices, value, depth, here)
        elif programs.is_interpreter(name):
            facts.code = self._inline_code(command, indices, value, depth, here)
        elif name == "cat":
            facts.cat = all(value(index) == "-" for index in indices)
        elif name in programs.EXEC_RUNNERS:  # `docker exec C CMD …`, `kubectl exec P -- CMD …`
            first = programs.exec_command(name, value, indices)
            if first is not None:
                self._inner(command, indices[first:], depth, here)
        elif name in ("echo", "printf"):
            facts.echoed = _echoed(name, [value(index) for index in indices])
        else:  # `eval ARGS`, `env -S STRING`, `parallel 'CMD'`, `flock FILE -c STRING` …
            for string in strings.strings_run(name, value, indices):
                self._string(string, depth, here)
        return facts

    def _shell(self, command: scan.Command, indices: list[int], value: _Value, depth: int, here: int) -> bool:
        """A shell's `-c` string and here-strings, read; whether it reads commands from its input."""
        operand, stdin_shell = programs.shell_operand(value, indices)
        if operand is not None:
            self._string(value(operand), depth, here)
        for index, word in enumerate(command.words[:-1]):
            if word.kind == scan.HERESTRING and stdin_shell:
                text = value(index + 1)
                self.read(text, 0, len(text), depth=depth + 1, anchor=here)
        return stdin_shell

    def _inner(self, command: scan.Command, indices: list[int], depth: int, here: int) -> None:
        """Some of a command's words that make a simple command of their own, read as one."""
        if indices and depth + 1 <= MAX_DEPTH:
            inner = scan.Command(command.source)
            inner.words = [command.words[index] for index in indices]
            self.finished(inner, depth + 1, here)

    def _inline_code(
        self, command: scan.Command, indices: list[int], value: _Value, depth: int, here: int
    ) -> bool:
        """An interpreter's inline code (`-c CODE`, a here-string): the strings it hands to a
        shell, read; whether it reads its code from its standard input (a heredoc)."""
        code = programs.code_argument(value, indices)
        if code is not None:
            text = value(code)
            body = strings.cat_heredoc(text)
            self._shell_outs(text[body[0] : body[1]] if body else text, depth, here)
            return False
        if not programs.reads_code(value, indices):
            return False
        for index, word in enumerate(command.words[:-1]):
            if word.kind == scan.HERESTRING:
                self._shell_outs(value(index + 1), depth, here)
        return True

    def _string(self, text: str, depth: int, here: int) -> None:
        """A string the shell runs; when it is only `$(cat <<EOF … EOF)`, the body it substitutes."""
        body = strings.cat_heredoc(text)
        start, end = body if body is not None else (0, len(text))
        self.read(text, start, end, depth=depth + 1, anchor=here)

    def _shell_outs(self, code: str, depth: int, here: int) -> None:
        """The strings inline code hands to a shell, read as commands."""
        for text in programs.shell_outs(code):
            self.read(text, 0, len(text), depth=depth + 1, anchor=here)

    def _find_exec(
        self, command: scan.Command, indices: list[int], value: _Value, depth: int, here: int
    ) -> None:
        """`find … -exec CMD … ;`: CMD is a simple command of its own, read as one."""
        position = 0
        while position < len(indices):
            if value(indices[position]) in ("-exec", "-execdir", "-ok", "-okdir"):
                first = position + 1
                last = first
                while last < len(indices) and value(indices[last]) not in (";", "+"):
                    last += 1
                self._inner(command, indices[first:last], depth, here)
                position = last
            position += 1

    def heredoc(self, command: scan.Command, start: int, end: int, quoted: bool, depth: int) -> None:
        """A heredoc's body: commands when fed to a shell; the code or query of a program that
        runs its standard input (shown after that program's command, as data; inline code's shell
        calls read) — `cat <<EOF | psql` feeds psql; else data, except the substitutions an
        unquoted body still runs (`$( )`, backticks)."""
        facts = command.facts
        anchor = command.words[0].start if command.words else start
        if isinstance(facts, _Facts) and facts.feeds is not None:
            facts, command = facts.feeds
        if isinstance(facts, _Facts) and facts.stdin_shell:
            self.read(command.source, start, end, depth=facts.depth + 1, anchor=anchor)
            return
        if isinstance(facts, _Facts) and facts.fed is not None and command.words[-1].end <= start:
            # the command's text, then the command as written from its last word to the body's
            # end: a stretch of the command, so the prefilter's loosened texts still hold it
            tail = command.source[command.words[-1].end : end]
            data = ((len(facts.fed), len(facts.fed) + len(tail)),)
            self.emit(facts.fed + tail, data, facts.depth, anchor, fed=True, parts=facts.parts)
            if facts.code:
                self._shell_outs(command.source[start:end], facts.depth, anchor)
        if not quoted and ("$(" in command.source[start:end] or "`" in command.source[start:end]):
            self.read(command.source, start, end, depth=depth, anchor=anchor, body=True)


_PLAIN = _Facts(0, stdin_shell=False, echoed=None)
_SPECIAL = frozenset(
    programs.RESERVED
    | programs.SHELLS
    | programs.WRAPPERS
    | programs.STRING_RUNNERS
    | programs.EXEC_RUNNERS
    | programs.QUERY_CLIENTS
    | {"find", "echo", "printf", "cat"}
)


def _echoed(name: str, words: list[str]) -> str | None:
    """What `echo` or `printf` writes, roughly: its words (echo's options dropped)."""
    if name == "echo":
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            words.pop(0)
    return " ".join(words) if words else None


def _plain(words: list[scan.Word], texts: list[str]) -> bool:
    """A command of plain words whose program neither wraps, nor runs, nor echoes another."""
    first = texts[0]
    if "=" in first or "\\" in first or "$" in first or "`" in first:
        return False
    name = programs.basename(first)
    if name in _SPECIAL or programs.is_interpreter(name):
        return False
    return all(word.kind == scan.WORD and not word.quoted and not word.joined for word in words)


class _Sink:
    __slots__ = ("anchor", "depth", "reader")

    def __init__(self, reader: _Reader, depth: int, anchor: int | None) -> None:
        self.reader = reader
        self.depth = depth
        self.anchor = anchor

    def finished(self, command: scan.Command) -> None:
        self.reader.finished(command, self.depth, self.anchor)

    def heredoc(self, command: scan.Command, start: int, end: int, quoted: bool) -> None:
        self.reader.heredoc(command, start, end, quoted, self.depth)

    def pipeline(self, source: str, words: list[scan.Word]) -> None:
        """A pipeline of several commands is matched as written too (a learning of `curl … |
        sh` spans two commands): its text from its first word to its last, quoted spans data."""
        start = words[0].start
        data = tuple((low - start, high - start) for word in words for low, high in word.quoted)
        anchor = self.anchor if self.anchor is not None else start
        text = source[start : words[-1].end]
        spans = _whole(0, text, start) if source is self.reader.top else None
        self.reader.emit(text, data, self.depth, anchor, pipeline=True, spans=spans)


def _program(words: list[scan.Word], texts: list[str], value: _Value) -> tuple[int, int | None]:
    """The index of the program word — past assignments, redirections, reserved words and
    wrappers (with their options); len(words) when there is none — and that of the first
    wrapper, if there is one."""
    index, count, wrapper = 0, len(words), None
    while index < count:
        word = words[index]
        if word.kind != scan.WORD:
            index += 2  # an operator and its target
            continue
        if programs.ASSIGNMENT.match(texts[index]):
            index += 1
            continue
        current = value(index)
        if current in programs.RESERVED and not word.quoted:
            index += 1
            continue
        following = programs.after_wrapper(programs.basename(current), value, index, count)
        if following is None:
            return index, wrapper
        wrapper = index if wrapper is None else wrapper
        index = following
    return count, wrapper


def _arguments(words: list[scan.Word], start: int) -> list[int]:
    """The indices of a command's arguments: its words from `start`, without redirections."""
    found: list[int] = []
    index = start
    while index < len(words):
        if words[index].kind != scan.WORD:
            index += 2
            continue
        found.append(index)
        index += 1
    return found


def _canonical(
    words: list[scan.Word], texts: list[str], value: _Value, program: int
) -> tuple[str, tuple[tuple[int, int], ...], list[str]]:
    """The text a regex sees, its data spans, and its parts (one per word from the program on,
    or from the first word when there is none)."""
    plain = all(not word.quoted and not word.joined and word.kind == scan.WORD for word in words)
    if plain and program < len(words) and not _expands(texts[program]):  # the common case
        words_shown = [programs.basename(value(program)), *texts[program + 1 :]]
        return " ".join(words_shown), (), words_shown
    parts: list[str] = []
    data: list[tuple[int, int]] = []
    offset = 0
    first = program if program < len(words) else 0
    for index in range(first, len(words)):
        word = words[index]
        if index == program and not _expands(texts[index]):
            text = programs.basename(value(index))
            spans: list[tuple[int, int]] = []
        else:
            text, spans = _rendered(word, texts[index])
        if program == len(words) and word.kind == scan.WORD:
            assigned = programs.ASSIGNMENT.match(text)
            if assigned:  # an assignment's value is data
                spans = [(assigned.end(), len(text))]
        if index and words[index - 1].kind == scan.HERESTRING:
            spans = [(0, len(text))]  # a here-string's body is data (unless a shell reads it)
        data += [(offset + start, offset + end) for start, end in spans if end > start]
        parts.append(text)
        offset += len(text) + 1
    return " ".join(parts), tuple(data), parts


def _pieces(parts: list[str], words: list[scan.Word]) -> tuple[tuple[int, int, int, int], ...]:
    """Each part of a canonical text (joined by single spaces) with the word it was written as."""
    pieces = []
    offset = 0
    for part, word in zip(parts, words, strict=False):
        pieces.append((offset, offset + len(part), word.start, word.end))
        offset += len(part) + 1
    return tuple(pieces)


def _whole(offset: int, text: str, start: int) -> tuple[tuple[int, int, int, int], ...]:
    """A text that is a slice of the command as written, from `start`, as one piece."""
    return ((offset, offset + len(text), start, start + len(text)),)


def _expands(text: str) -> bool:
    """Whether a word holds an expansion (`$x`, `$(…)`, backticks): then it is shown as written."""
    if "`" in text:
        return True
    return "$" in text and any(
        text[at + 1 : at + 2] not in ("'", '"') for at, char in enumerate(text) if char == "$"
    )


def _rendered(word: scan.Word, text: str) -> tuple[str, list[tuple[int, int]]]:
    """A word as written, line continuations removed, with its quoted spans."""
    if not word.joined:
        return text, [(start - word.start, end - word.start) for start, end in word.quoted]
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    length, position = 0, word.start
    merged: list[tuple[int, int]] = []
    for start, end in sorted(word.quoted):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    for start, end in [*merged, (word.end, word.end)]:
        plain = text[position - word.start : start - word.start].replace("\\\n", "")
        pieces.append(plain)
        length += len(plain)
        if start < end:
            quoted = text[start - word.start : end - word.start]
            if not quoted.startswith("'"):  # inside single quotes a backslash-newline stays
                quoted = quoted.replace("\\\n", "")
            pieces.append(quoted)
            spans.append((length, length + len(quoted)))
            length += len(quoted)
        position = max(position, end)
    return "".join(pieces), spans
