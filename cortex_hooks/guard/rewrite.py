"""Auto-correct (docs/guide/actions.md), pure: a Bash learning's `rewrite` applied to the command it matched.

The match a learning's regex found in one simple command (guard.shell.bash_command: the first match that
begins outside data) is replaced, in the command as written, by the rewrite expanded as Python's
`re.sub` expands a replacement: `\\1` or `\\g<name>` is a group of the match, `\\\\` a backslash,
anything else is literal. The simple command's text is mapped back to the command as written
(guard.shell.reader's `spans`): a match in a string the shell runs again (`bash -c '…'`, `eval`), or one
that begins or ends inside a word the reader rewrote (`"git"`, `/usr/bin/git`), is not rewritten.

A correction that would leave an empty command, outgrow MAX_CORRECTED, change nothing, or match
the same learning again (a loop) is not applied: the learning then acts as its action says.
"""

from __future__ import annotations

from cortex_hooks.errors import USAGE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.shell.bash_command import BashCommand
    from cortex_hooks.guard.shell.reader import Simple

MAX_CORRECTED = 100_000  # characters: a longer corrected command is not applied
TOOL = "Bash"  # the one tool a rewrite is for
TOOLS = frozenset({TOOL, "shell"})  # named by Claude Code's name or by its kind (guard.matching)
TARGETS = ("content", "raw")  # the command as the shell reads it, or the raw string


class Correction:
    """The corrected command, or why there is none (`problem`, for explain and replay)."""

    __slots__ = ("command", "problem")

    def __init__(self, command: str | None, problem: str | None = None) -> None:
        self.command = command
        self.problem = problem


def refusal(tool: str, target: str) -> str | None:
    """Why a learning of this tool and target cannot carry a rewrite, or None."""
    if tool not in TOOLS or target not in TARGETS:
        return "a rewrite is for shell learnings only (--tool Bash or shell, target content or raw)"
    return None


def check(pattern: str, template: str, target: str) -> None:
    """CortexError (invalid input) when the rewrite cannot expand for this regex (a group it
    does not have, a bad escape) or makes its own match: its text, read as the corrected
    command would be, matches the regex again."""
    from cortex_hooks.guard import matching

    compiled = matching.compile_pattern(pattern)
    text = _expand_empty(compiled, template)
    subject = matching.subject(target, TOOL, [text])
    try:
        again = matching.evaluate(pattern, subject, 1.0, 1.0)
    except matching.Unusable:
        again = True
    if again:
        raise CortexError(
            f"rewrite {template!r} makes its own match: the corrected command would match this "
            "learning's regex again; narrow the regex (e.g. anchor it: ^pip\\b) or change the rewrite",
            USAGE,
        )


def own_text(pattern: str, template: str) -> str:
    """The rewrite's own text: expanded with every group of the pattern empty."""
    from cortex_hooks.guard import matching

    return _expand_empty(matching.compile_pattern(pattern), template)


def _expand_empty(compiled: Any, template: str) -> str:
    """The rewrite expanded with every group empty: its own text; CortexError when it cannot
    expand for this pattern."""
    import regex

    numbered = {number: name for name, number in compiled.groupindex.items()}
    groups = "".join(
        f"(?P<{numbered[number]}>)" if number in numbered else "()"
        for number in range(1, compiled.groups + 1)
    )
    try:
        found = regex.compile(groups).match("")
        assert found is not None
        text: str = found.expand(template)
    except (regex.error, IndexError) as error:
        raise CortexError(f"rewrite {template!r} does not expand: {error}", USAGE) from None
    return text


def correct(
    pattern: str,
    template: str,
    raw: str,
    subject: list[str] | BashCommand,
    *,
    index: int,
    timeouts: tuple[float, float],
) -> Correction:
    """The command `raw` with the learning's match in text `index` of `subject` (where
    matching.where found it) replaced by the expanded rewrite, or why it is not corrected."""
    from cortex_hooks.guard import matching
    from cortex_hooks.guard.shell import bash_command

    base, per_mib = timeouts
    try:
        compiled = matching.compile_pattern(pattern)
        if isinstance(subject, list):
            found = compiled.search(subject[index], timeout=base + per_mib * len(raw) / 1_048_576)
            where = (found.start(), found.end()) if found is not None and subject[index] == raw else None
        else:
            simple = subject.reading.commands[index]
            found = bash_command.first_match(compiled, simple, base, per_mib)
            where = _written(simple, found.start(), found.end(), raw) if found is not None else None
    except (CortexError, TimeoutError):
        return Correction(None, "its regex could not be searched again")
    if found is None or where is None:
        return Correction(None, "the match is not in the command as written (a string run again)")
    try:
        replacement = found.expand(template)
    except Exception:  # regex.error, IndexError: a rewrite stored by hand
        return Correction(None, "its rewrite does not expand")
    command = raw[: where[0]] + replacement + raw[where[1] :]
    if not command.strip():
        return Correction(None, "the corrected command would be empty")
    if len(command) > MAX_CORRECTED:
        return Correction(None, f"the corrected command would be over {MAX_CORRECTED:,} characters")
    if command == raw:
        return Correction(None, "the rewrite changes nothing")
    try:
        again = matching.evaluate(pattern, matching.subject(_target(subject), TOOL, [command]), base, per_mib)
    except matching.Unusable:
        again = True
    if again:
        return Correction(None, "the corrected command matches the same learning again (a loop)")
    return Correction(command)


def _target(subject: list[str] | BashCommand) -> str:
    return "raw" if isinstance(subject, list) else "content"


def _written(simple: Simple, start: int, end: int, raw: str) -> tuple[int, int] | None:
    """Where the span [start, end) of a simple command's text was written in `raw`, or None."""
    pieces = simple.spans
    if pieces is None:
        return None
    low = _position(pieces, start, simple.text, raw, at_end=False)
    high = _position(pieces, end, simple.text, raw, at_end=True)
    if low is None or high is None or low > high:
        return None
    return low, high


def _position(
    pieces: tuple[tuple[int, int, int, int], ...], offset: int, text: str, raw: str, *, at_end: bool
) -> int | None:
    """A position of the canonical text in the command as written: inside a piece written as
    it reads, at the same place; at a piece's edge, at the written word's edge; between two
    pieces (the single space the reader shows for any run of blanks), at the edge of the word
    before (a start) or after (an end). Inside a piece the reader rewrote: None."""
    for number, (low, high, written_low, written_high) in enumerate(pieces):
        if offset < low:  # in the space before this piece
            if at_end:
                return written_low
            return pieces[number - 1][3] if number else written_low
        if offset == low and not at_end:
            return written_low
        if offset == high and at_end:
            return written_high
        if low <= offset <= high:
            verbatim = raw[written_low:written_high] == text[low:high]
            if verbatim:
                return written_low + offset - low
            if offset == low:
                return written_low
            if offset == high:
                return written_high
            return None
    return pieces[-1][3] if pieces else None
