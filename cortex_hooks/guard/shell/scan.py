"""The command reader's scanner: a Bash source cut into the words of its simple commands.

One pass, no recursion into nesting: `$( )`, backticks, `<( )`, `( )`, double quotes, `${ }` and
`$(( ))` are frames on an explicit stack, so 10,000 nested `$(` cost a list, not the interpreter's
stack. A word is a slice of the source (what the shell read, as written) with the spans inside it
that were quoted. Runs of plain text, quoted strings and heredoc bodies are skipped with `str.find`
and compiled patterns, so a megabyte of data is passed over in C. Malformed input (an unclosed
quote, a heredoc without its end, a stray `)`) is read as far as it goes: never an exception.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Sink(Protocol):
        def finished(self, command: Command) -> None: ...
        def heredoc(self, command: Command, start: int, end: int, quoted: bool) -> None: ...
        def pipeline(self, source: str, words: list[Word]) -> None: ...


# Word kinds
WORD, REDIRECT, HEREDOC, HERESTRING = 0, 1, 2, 3
# Frame kinds: the command frames first
TOP, PAREN, SUBST, PROC, TICK, BODY, DQUOTE, PARAM, ARITH = range(9)
_COMMAND_FRAMES = (TOP, PAREN, SUBST, PROC, TICK, BODY)

_PLAIN = re.compile(r"[^ \t\n\x00'\"\\$`<>&|;()]+")
_IN_DQUOTE = re.compile(r'[^"\\$`]+')
_IN_PARAM = re.compile(r"[^}\"'\\$`{]+")
_IN_ARITH = re.compile(r"[^()$`]+")
_IN_BODY = re.compile(r"[^\\$`]+")
_REDIRECTION = re.compile(r"&>>?|\d*(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)")
_FD = re.compile(r"\d+|\{\w+\}")
_BLANKS = re.compile(r"[ \t]*")
# A whole simple command of plain words (no quote, escape, expansion, redirection or comment),
# up to the operator that ends it: read in one step (a 5,000-command chain is mostly these).
_PLAIN_COMMAND = re.compile(
    r"[^\s\x00'\"\\$`<>&|;()#][^\s\x00'\"\\$`<>&|;()]*"
    r"(?:[ \t]+[^\s\x00'\"\\$`<>&|;()#][^\s\x00'\"\\$`<>&|;()]*)*"
    r"(?=[ \t]*(?:&&|&(?!>)|\|\||;|\||\n|\)|$))"
)
_WORD_RUN = re.compile(r"[^ \t]+")


class Word:
    """One word as written: source[start:end], the quoted spans in it, and whether a
    backslash-newline (a line continuation) lies inside."""

    __slots__ = ("end", "joined", "kind", "quoted", "start")

    def __init__(self, start: int, kind: int = WORD) -> None:
        self.start = start
        self.end = start
        self.kind = kind
        self.quoted: list[tuple[int, int]] = []
        self.joined = False


class Command:
    """The words of one simple command, and what the scanner learnt about its input."""

    __slots__ = ("facts", "piped_from", "source", "words")

    def __init__(self, source: str) -> None:
        self.source = source
        self.words: list[Word] = []
        self.piped_from: Command | None = None
        self.facts: object = None  # what the reader concluded (guard.shell.reader), once finished


class Budget:
    """Bounded work for one reading, shared by every source read again inside it."""

    __slots__ = ("commands", "depth", "words")

    def __init__(self, commands: int, words: int, depth: int) -> None:
        self.commands = commands
        self.words = words
        self.depth = depth


class Exhausted(Exception):
    """The reading went past its budget: the caller matches the command raw."""


class _Frame:
    __slots__ = ("command", "depth", "kind", "piped", "piping", "start", "word")

    def __init__(self, kind: int, source: str, start: int) -> None:
        self.kind = kind
        self.start = start
        self.depth = 0  # open parentheses inside $(( ))
        self.command = Command(source)
        self.word: Word | None = None
        self.piping: Command | None = None  # the command before a `|`, for the next one
        self.piped: list[list[Word]] = []  # the words of each command of the pipeline so far


def scan(
    source: str,
    start: int,
    end: int,
    sink: Sink,
    budget: Budget,
    *,
    body: bool = False,
) -> None:
    """Read source[start:end] as commands, telling `sink` of each simple command as it ends and
    of each heredoc body once read; `body`: the region is an unquoted heredoc body (only its
    substitutions are commands)."""
    _Scanner(source, end, sink, budget).run(start, BODY if body else TOP)


class _Scanner:
    __slots__ = ("_expect_delimiter", "budget", "end", "frames", "pending", "sink", "source")

    def __init__(self, source: str, end: int, sink: Sink, budget: Budget) -> None:
        self.source = source
        self.end = end
        self.sink = sink
        self.budget = budget
        self.frames: list[_Frame] = []
        # heredocs awaiting their body: (command, delimiter, strip tabs, quoted)
        self.pending: list[tuple[Command, str, bool, bool]] = []
        self._expect_delimiter: list[tuple[Command, bool]] = []

    def run(self, position: int, kind: int) -> None:
        self.frames.append(_Frame(kind, self.source, position))
        while position < self.end:
            frame = self.frames[-1]
            if frame.kind in _COMMAND_FRAMES:
                position = self._command(frame, position) if frame.kind != BODY else self._body(position)
            elif frame.kind == DQUOTE:
                position = self._dquote(position)
            elif frame.kind == PARAM:
                position = self._param(position)
            else:
                position = self._arith(position)
        # the end of the region closes whatever is still open, innermost first
        while self.frames:
            frame = self.frames.pop()
            if frame.kind in _COMMAND_FRAMES:
                self._end_command(frame, self.end, piped=False)
            else:
                self._close_quote(frame, self.end)

    # --- command frames ---------------------------------------------------------------------

    def _word(self, frame: _Frame, position: int) -> Word:
        if frame.word is None:
            frame.word = Word(position)
        return frame.word

    def _end_word(self, frame: _Frame, position: int) -> None:
        word = frame.word
        if word is None:
            return
        word.end = position
        frame.word = None
        frame.command.words.append(word)
        self.budget.words -= 1
        if self.budget.words < 0:
            raise Exhausted
        if self._expect_delimiter and self._expect_delimiter[-1][0] is frame.command:
            command, strip = self._expect_delimiter.pop()
            text = self.source[word.start : word.end]
            quoted = bool(word.quoted) or "\\" in text
            self.pending.append((command, _unquoted_plain(text), strip, quoted))

    def _end_command(self, frame: _Frame, position: int, *, piped: bool) -> None:
        self._end_word(frame, position)
        command = frame.command
        if command.words:
            command.piped_from = frame.piping
            self.budget.commands -= 1
            if self.budget.commands < 0:
                raise Exhausted
            self.sink.finished(command)
            frame.piped.append(command.words)
        frame.piping = command if piped and command.words else None
        frame.command = Command(self.source)
        if not piped:
            if len(frame.piped) > 1:  # `curl … | sh`: the whole pipeline, as written
                self.sink.pipeline(self.source, [word for words in frame.piped for word in words])
            frame.piped = []

    def _command(self, frame: _Frame, position: int) -> int:
        if frame.word is None and not frame.command.words and frame.kind != TICK:
            whole = _PLAIN_COMMAND.match(self.source, position, self.end)
            if whole is not None:
                return self._plain_command(frame, whole.start(), whole.end())
        return self._command_step(frame, position)

    def _command_step(self, frame: _Frame, position: int) -> int:
        source = self.source
        char = source[position]
        if char in " \t\x00":  # a NUL ends a word: bash never sees past it in one
            self._end_word(frame, position)
            return position + 1
        if char == "\n":
            self._end_command(frame, position, piped=False)
            return self._bodies(position + 1)
        if char == "#" and frame.word is None:
            newline = source.find("\n", position, self.end)
            return self.end if newline < 0 else newline
        if char in "\\'\"$":
            return self._quoting(frame, char, position)
        if char == "`":
            if frame.kind == TICK:
                self._end_command(frame, position, piped=False)
                self.frames.pop()
                return position + 1
            self._word(frame, position)
            self.frames.append(_Frame(TICK, source, position))
            return position + 1
        if char in "<>" and source.startswith("(", position + 1):
            self._word(frame, position)
            self.frames.append(_Frame(PROC, source, position))
            return position + 2
        if char in "<>" or (char == "&" and source.startswith(">", position + 1)):
            return self._redirection(frame, position)
        if char in "&|;":
            piped = char == "|" and not source.startswith("||", position)
            self._end_command(frame, position, piped=piped)
            two = source[position : position + 2]
            stop = position + (2 if two in ("&&", "||", ";;", ";&", "|&") else 1)
            return _BLANKS.match(source, stop, self.end).end()  # type: ignore[union-attr]
        if char == "(":
            return self._open_paren(frame, position)
        if char == ")":
            return self._close_paren(frame, position)
        found = _PLAIN.match(source, position, self.end)
        stop = found.end() if found else position + 1
        self._word(frame, position)
        if stop < self.end and source[stop] in " \t":  # the word ends at a blank: one step, not two
            self._end_word(frame, stop)
            return _BLANKS.match(source, stop, self.end).end()  # type: ignore[union-attr]
        return stop

    def _plain_command(self, frame: _Frame, start: int, end: int) -> int:
        """A command of plain words, read at once: its words, then the blanks after it."""
        words = frame.command.words
        for found in _WORD_RUN.finditer(self.source, start, end):
            word = Word(found.start())
            word.end = found.end()
            words.append(word)
        self.budget.words -= len(words)
        if self.budget.words < 0:
            raise Exhausted
        return _BLANKS.match(self.source, end, self.end).end()  # type: ignore[union-attr]

    def _quoting(self, frame: _Frame, char: str, position: int) -> int:
        """A backslash, a quote or a `$` in a command: part of a word, maybe a quoted span."""
        source = self.source
        if char == "\\":
            if source.startswith("\n", position + 1):
                if frame.word is not None:
                    frame.word.joined = True
                return position + 2
            self._word(frame, position)
            return min(position + 2, self.end)
        word = self._word(frame, position)
        if char == "'":
            close = source.find("'", position + 1, self.end)
            stop = self.end if close < 0 else close + 1
            word.quoted.append((position, stop))
            return stop
        if char == '"':
            self.frames.append(_Frame(DQUOTE, source, position))
            return position + 1
        return self._dollar(word, position)

    def _dollar(self, word: Word, position: int) -> int:
        source = self.source
        following = source[position + 1 : position + 3]
        if following.startswith("(("):
            self.frames.append(_Frame(ARITH, source, position))
            return position + 3
        if following.startswith("("):
            self.frames.append(_Frame(SUBST, source, position))
            return position + 2
        if following.startswith("{"):
            self.frames.append(_Frame(PARAM, source, position))
            return position + 2
        if following.startswith("'"):  # $'…': ANSI-C quoting, a backslash escapes a quote
            index = position + 2
            while index < self.end:
                char = source[index]
                if char == "\\":
                    index += 2
                    continue
                if char == "'":
                    break
                index += 1
            stop = min(index + 1, self.end)
            word.quoted.append((position, stop))
            return stop
        if following.startswith('"'):  # $"…": a translated string, quoted as "…"
            self.frames.append(_Frame(DQUOTE, source, position))
            return position + 2
        return position + 1

    def _redirection(self, frame: _Frame, position: int) -> int:
        source = self.source
        word = frame.word
        start = position
        if word is not None and _FD.fullmatch(source, word.start, position) and not word.quoted:
            start = word.start  # `2>`, `{fd}>`: the number belongs to the operator
            frame.word = None
        else:
            self._end_word(frame, position)
        found = _REDIRECTION.match(source, position, self.end)
        stop = found.end() if found else position + 1
        operator = source[position:stop].lstrip("0123456789")
        kind = HERESTRING if operator == "<<<" else HEREDOC if operator.startswith("<<") else REDIRECT
        frame.word = Word(start, kind)
        self._end_word(frame, stop)
        if kind == HEREDOC:
            self._expect_delimiter.append((frame.command, operator == "<<-"))
        return stop

    def _open_paren(self, frame: _Frame, position: int) -> int:
        source = self.source
        word = frame.word
        if word is not None and source[word.start : position].endswith("="):  # arr=( … )
            depth, index = 0, position
            while index < self.end:
                if source[index] == "(":
                    depth += 1
                elif source[index] == ")":
                    depth -= 1
                    if not depth:
                        return index + 1
                index += 1
            return self.end
        if word is not None or frame.command.words:
            self._end_word(frame, position)
            if source.startswith(")", position + 1):  # `name()`: a function's definition
                self._end_command(frame, position, piped=False)
                return position + 2
        self._end_command(frame, position, piped=False)
        if source.startswith("(", position + 1):  # (( … )): arithmetic, no command
            close = source.find("))", position + 2, self.end)
            return self.end if close < 0 else close + 2
        self.frames.append(_Frame(PAREN, source, position))
        return position + 1

    def _close_paren(self, frame: _Frame, position: int) -> int:
        if frame.kind in (PAREN, SUBST, PROC):
            self._end_command(frame, position, piped=False)
            self.frames.pop()
            return position + 1
        # A `)` with nothing open: a case pattern (`a|b)`), whose words are no command.
        frame.word = None
        frame.command = Command(self.source)
        frame.piping = None
        return position + 1

    def _bodies(self, position: int) -> int:
        """After a newline: the bodies of the heredocs begun on the line, in order."""
        while self.pending and position <= self.end:
            command, delimiter, strip, quoted = self.pending.pop(0)
            ending = re.compile(
                "^" + ("\t*" if strip else "") + re.escape(delimiter) + "$", re.MULTILINE
            ).search(self.source, position, self.end)
            body_end = ending.start() if ending else self.end
            self.sink.heredoc(command, position, body_end, quoted)
            if ending is None:
                return self.end
            position = ending.end() + 1
        return min(position, self.end)

    def _body(self, position: int) -> int:
        """An unquoted heredoc body: text, except its substitutions."""
        source = self.source
        found = _IN_BODY.match(source, position, self.end)
        if found:
            return found.end()
        char = source[position]
        if char == "\\":
            return position + 2
        if char == "`":
            self.frames.append(_Frame(TICK, source, position))
            return position + 1
        following = source[position + 1 : position + 3]
        if following.startswith("(") and not following.startswith("(("):
            self.frames.append(_Frame(SUBST, source, position))
            return position + 2
        return position + 1

    # --- quoting frames -------------------------------------------------------------------

    def _close_quote(self, frame: _Frame, stop: int) -> None:
        """A double quote (or ${ }, $(( ))) ends: a quoted span of the enclosing word."""
        if frame.kind != DQUOTE:
            return
        for outer in reversed(self.frames):
            if outer.kind in _COMMAND_FRAMES:
                if outer.word is not None:
                    outer.word.quoted.append((frame.start, stop))
                return

    def _dquote(self, position: int) -> int:
        source = self.source
        found = _IN_DQUOTE.match(source, position, self.end)
        if found:
            return found.end()
        char = source[position]
        if char == '"':
            self._close_quote(self.frames.pop(), position + 1)
            return position + 1
        if char == "\\":
            return position + 2
        if char == "`":
            self.frames.append(_Frame(TICK, source, position))
            return position + 1
        return self._nested_dollar(position)

    def _nested_dollar(self, position: int) -> int:
        """`$` inside quotes or `${ }`: the substitutions that still run there."""
        following = self.source[position + 1 : position + 3]
        if following.startswith("(("):
            self.frames.append(_Frame(ARITH, self.source, position))
            return position + 3
        if following.startswith("("):
            self.frames.append(_Frame(SUBST, self.source, position))
            return position + 2
        if following.startswith("{"):
            self.frames.append(_Frame(PARAM, self.source, position))
            return position + 2
        return position + 1

    def _param(self, position: int) -> int:
        source = self.source
        found = _IN_PARAM.match(source, position, self.end)
        if found:
            return found.end()
        char = source[position]
        if char == "}":
            self.frames.pop()
            return position + 1
        if char == "{":
            return position + 1
        if char == '"':
            self.frames.append(_Frame(DQUOTE, source, position))
            return position + 1
        if char == "'":
            close = source.find("'", position + 1, self.end)
            return self.end if close < 0 else close + 1
        if char == "\\":
            return position + 2
        if char == "`":
            self.frames.append(_Frame(TICK, source, position))
            return position + 1
        return self._nested_dollar(position)

    def _arith(self, position: int) -> int:
        source = self.source
        found = _IN_ARITH.match(source, position, self.end)
        if found:
            return found.end()
        char = source[position]
        frame = self.frames[-1]
        if char == "(":
            frame.depth += 1
            return position + 1
        if char == ")":
            if frame.depth:
                frame.depth -= 1
                return position + 1
            self.frames.pop()
            return position + (2 if source.startswith("))", position) else 1)
        if char == "`":
            self.frames.append(_Frame(TICK, source, position))
            return position + 1
        return self._nested_dollar(position)


def _unquoted_plain(text: str) -> str:
    """A heredoc delimiter's value: its quotes and backslashes removed."""
    return text.replace("\\", "").replace("'", "").replace('"', "")
