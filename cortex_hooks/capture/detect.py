"""The detectors of SPEC §10.2, pure: failed-then-fixed calls, failures without a fix, and the
person's corrections, each a Candidate with a verified regex (or nothing)."""

from __future__ import annotations

import hashlib
import re

from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.capture import segments
from cortex_hooks.capture.reading import Call, Event
from cortex_hooks.errors import CortexError
from cortex_hooks.redact import is_secret, redact

WINDOW = 5  # a fix is looked for among this many later calls of the same tool
EVIDENCE = 300
SEARCHES = {"grep", "egrep", "fgrep", "rg", "diff", "test", "[", "cmp"}
# A line of the error naming the forbidden word with one of these says the call itself was
# wrong (its shape), not the work it did: a failing test run names files too, never like this.
_CALL_SHAPE = re.compile(
    r"(?i)command not found|not found|is unknown|unknown (?:option|flag|argument|command|subcommand)"
    r"|unrecognized (?:option|argument|arguments|command)|invalid (?:option|choice|argument)"
    r"|no such (?:option|command|subcommand)|is not a [\w-]+ command|not a valid|did you mean"
    r"|no rule to make target|missing script|no module named|unexpected argument|cannot find"
)
_MODULE = re.compile(r"No module named '?([\w.]+)")
REPEATED_ADVICE = "Find the right command before running it again: it failed the same way before."
_PLAIN_WORD = re.compile(r"[-\w.:=+@,]+")


class Candidate:
    """One occurrence of something capture may propose."""

    __slots__ = ("anti_pattern", "correct_pattern", "failed", "fixed", "regex", "rewrite", "signal")

    def __init__(
        self,
        signal: str,
        regex: str,
        *,
        anti_pattern: str,
        correct_pattern: str,
        failed: str,
        fixed: str,
        rewrite: str | None = None,
    ) -> None:
        self.signal = signal
        self.regex = regex
        self.rewrite = rewrite  # a suggested correction of the match (the fix), for `accept --rewrite`
        self.anti_pattern = anti_pattern
        self.correct_pattern = correct_pattern
        self.failed = failed  # evidence: the failed call, or the call the person corrected
        self.fixed = fixed  # evidence: the corrected call, or the person's words ("" for none)

    @property
    def fingerprint(self) -> str:
        """What a rejection remembers: the rule (its regex), whatever signal found it."""
        return hashlib.sha256(self.regex.encode()).hexdigest()[:16]


class Found:
    """What a scan of events found: candidates, and why others were dropped."""

    __slots__ = ("candidates", "skipped")

    def __init__(self) -> None:
        self.candidates: list[Candidate] = []
        self.skipped: list[str] = []


def evidence(text: str) -> str:
    return _cut(redact(" ".join(text.split())), EVIDENCE)


def scan(events: list[Event], fresh: int, finished: bool, successes: list[str]) -> Found:
    """Candidates among `events`, of which those from index `fresh` on are new (the others, the
    tail of the last scan, give context and pending failures). `finished`: the transcript ended
    here, so a failure still unfixed is decided as unfixed."""
    found = Found()
    bash = [event for event in events if isinstance(event, Call) and event.tool == "Bash"]
    for position, call in enumerate(bash):
        if call.status != "error" or call.decided:
            continue
        later = _following(bash, position)
        if any(other.status == "pending" for other in later):
            continue  # decided when the results are in
        fix = next((other for other in later if other.status == "ok"), None)
        if fix is None and len(later) < WINDOW and not finished:
            continue
        call.decided = True
        outcome = pair(call, fix, successes) if fix is not None else unfixed(call)
        if isinstance(outcome, Candidate):
            found.candidates.append(outcome)
        elif outcome:
            found.skipped.append(outcome)
    recent: list[Call] = []  # the last 3 calls before each prompt
    for index, event in enumerate(events):
        if isinstance(event, Call):
            recent = [*recent[-2:], event]
        elif index >= fresh:
            candidate = correction(event.text, recent)
            if isinstance(candidate, Candidate):
                found.candidates.append(candidate)
            elif candidate:
                found.skipped.append(candidate)
    return found


def _following(bash: list[Call], position: int) -> list[Call]:
    """The next WINDOW calls after `position` that ran (not refused, denied or interrupted)."""
    found: list[Call] = []
    for other in bash[position + 1 :]:
        if other.status != "ignored":
            found.append(other)
            if len(found) == WINDOW:
                break
    return found


def pair(failed: Call, fixed: Call, successes: list[str]) -> Candidate | str | None:
    """A failed-then-fixed candidate from a failed call and the first call that succeeded after
    it; None when the pair is no such thing, a reason when a candidate was dropped."""
    if failed.text.strip() == fixed.text.strip():
        return None  # a rerun: the failure was not the call's shape
    before, after = segments.split(failed.text), segments.split(fixed.text)
    if len(before) != len(after):
        return None  # a fix that adds a step (`git pull --rebase && git push`) is a workflow
    differing = [index for index, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    if len(differing) != 1:
        return None
    segment, corrected = before[differing[0]], after[differing[0]]
    (variables, old), (new_variables, new) = _command_words(segment), _command_words(corrected)
    if variables != new_variables or not old or not new:
        return None  # a variable's value changed (the work, not the call's shape), or no command
    if failed.exit_code == 1 and (old[0] in SEARCHES or old[:2] == ["git", "diff"]):
        return None  # "nothing found" / "they differ" is an answer, not a mistake
    shape = _change(old, new)
    if shape is None:
        return None
    kind, word, regex = shape
    if not _explained(failed, kind, word):
        return None
    if is_secret(word):
        return "dropped: the forbidden word is a secret"
    # A missing module is part of the mistake: `python3 -m pytest`, not any `python3 -m`.
    module = _MODULE.search(failed.output) if kind == "wrapped" else None
    least = old.index(module.group(1)) + 1 if module and module.group(1) in old else 1
    if least > 1:
        regex = synth.command_words(old[:least])
    refused = synth.refusal(regex, [failed.text], [fixed.text], successes)
    covered = least  # the words of the failed segment the regex matches (command and wrapped)
    # A command word too common on its own (python3) is narrowed by the words that follow it in
    # the failed segment (python3 -m pytest), one at a time, while the checks refuse it.
    widths = range(least + 1, min(len(old), 4) + 1) if kind in ("command", "wrapped") else range(0)
    for width in widths:
        if not refused:
            break
        regex, covered = synth.command_words(old[:width]), width
        refused = synth.refusal(regex, [failed.text], [fixed.text], successes)
    if refused:
        return f"dropped `{_cut(redact(word), 40)}`: {refused}"
    return Candidate(
        "failed-then-fixed",
        regex,
        anti_pattern=f"`{evidence(segment)}` fails ({_reason(failed)})",
        correct_pattern=f"`{evidence(corrected)}`",
        failed=evidence(failed.text),
        fixed=evidence(fixed.text),
        rewrite=_suggested(kind, (old, new, covered), regex, failed.text, fixed.text),
    )


def _suggested(
    kind: str, words: tuple[list[str], list[str], int], regex: str, failed: str, fixed: str
) -> str | None:
    """The fix as a rewrite of the regex's match (SPEC §16): the corrected command word, or the
    wrapper put before the words matched; only when it turns the failed call into the fixed one
    exactly and never matches the regex again (guard.rewrite). None for a changed argument (the
    match spans the words between, which a rewrite would drop)."""
    from cortex_hooks.guard import matching, rewrite
    from cortex_hooks.guard.shell.bash_command import BashCommand

    old, new, covered = words
    if kind == "command":
        replacement = [new[0], *old[1:covered]]
    elif kind == "wrapped":
        replacement = [*new[: len(new) - len(old)], *old[:covered]]
    else:
        return None
    if not all(_PLAIN_WORD.fullmatch(word) and "\\" not in word for word in replacement):
        return None
    template = " ".join(replacement)
    try:
        rewrite.check(regex, template, "content")
        subject = BashCommand(failed)
        where = matching.where(regex, subject, synth.TIMEOUT, 0)
    except (CortexError, matching.Unusable):
        return None
    if where is None:
        return None
    correction = rewrite.correct(regex, template, failed, subject, index=where, timeouts=(synth.TIMEOUT, 0))
    if correction.command is None or correction.command.split() != fixed.split():
        return None
    return template


def _command_words(segment: str) -> tuple[list[str], list[str]]:
    """The variables a segment sets for its command (`PGPASSWORD=…`), and its words from the
    command word on."""
    words = segments.words(segment)
    lead = segments.assignments(words)
    return words[:lead], words[lead:]


def unfixed(failed: Call) -> Candidate | str | None:
    """A repeated-failure occurrence: a failure of the call's shape that no later call fixed."""
    for segment in segments.split(failed.text):
        words = segments.words(segment)
        words = words[segments.assignments(words) :]  # the command word follows the variables
        for position, word in enumerate(words):
            if not _named(failed.output, word) or (position and not _PLAIN_WORD.fullmatch(word)):
                continue
            if is_secret(word):
                return "dropped: the forbidden word is a secret"
            regex = synth.command_word(word) if position == 0 else synth.argument(words[0], word)
            if synth.refusal(regex, [failed.text], []):
                continue
            return Candidate(
                "repeated-failure",
                regex,
                anti_pattern=f"`{evidence(segment)}` fails ({_reason(failed)})",
                correct_pattern=REPEATED_ADVICE,
                failed=evidence(failed.text),
                fixed="",
            )
    return None


def _change(old: list[str], new: list[str]) -> tuple[str, str, str] | None:
    """How a segment was fixed: (kind, the forbidden word, its regex), or None when the change
    is not one replaced or wrapped word."""
    if len(new) > len(old) and new[len(new) - len(old) :] == old:
        return "wrapped", old[0], synth.command_word(old[0])
    if len(new) != len(old):
        return None
    changed = [index for index, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    if len(changed) != 1:
        return None
    index = changed[0]
    if index == 0:
        return "command", old[0], synth.command_word(old[0])
    word = old[index]
    if "/" in word or not _PLAIN_WORD.fullmatch(word):
        return None  # a path or a quoted text changed: the work, not the call's shape
    return "argument", word, synth.argument(old[0], word)


def _explained(failed: Call, kind: str, word: str) -> bool:
    """The error says the call's shape was wrong: it names the word as unknown (or the like),
    or it is a missing command (for a replaced command word), or a missing module fixed by a
    wrapper."""
    if _named(failed.output, word):
        return True
    if kind in ("command", "wrapped") and (failed.exit_code == 127 or "command not found" in failed.output):
        return True
    return kind == "wrapped" and "No module named" in failed.output


def _named(output: str, word: str) -> bool:
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    return any(_CALL_SHAPE.search(line) and pattern.search(line) for line in output.splitlines())


def _reason(failed: Call) -> str:
    lines = [line.strip() for line in failed.output.splitlines() if line.strip()]
    shaped = next((line for line in lines if _CALL_SHAPE.search(line)), None)
    text = shaped or next((line for line in lines if not line.startswith("Exit code")), "")
    code = f"exit {failed.exit_code}" if failed.exit_code is not None else "error"
    return _cut(redact(f"{code}: {text}" if text else code), 120)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the person's corrections ---------------------------------------------------------------

_NOT_CORRECTIONS = re.compile(
    r"(?i)^(?:no (?:problem|worries|need|thanks|thank)|never ?mind|nvm|don'?t (?:worry|bother)"
    r"|do not (?:worry|bother)|no,? (?:that'?s|it'?s) (?:fine|ok|okay|good))"
)
_CORRECTION = re.compile(
    # "no, …" only before a rule ("no, use …", "no, never …"): "no, the other folder" redirects
    r"(?i)^(?:no[,.!:]?\s+(?=(?:use|run|don'?t|do not|not|never|stop|always|instead)\b)"
    r"|don'?t\s+(?:use|run|call|do)\b"
    r"|do not\s+(?:use|run|call)\b|never\s|stop\s+(?:using|running)\b"
    r"|use\s.+\s(?:not|instead of|rather than)\s"
    r"|instead of\s.+\buse\s|remember:)"
)
_GOOD = re.compile(r"(?i)\b(?:use|run|try|call)\s+(.+?)(?=\s+(?:not|instead|rather)\b|[,;]|\.(?:\s|$)|$)")
_NEGATED = ("don't ", "dont ", "do not ", "never ", "stop ", "not ")
_BACKTICKED = re.compile(r"`([^`\n]{1,120})`")
_FILLER = frozenset(
    {"a", "an", "the", "to", "it", "is", "be", "this", "that", "use", "run", "not", "no", "don't"}
    | {"never", "instead", "of", "and", "or", "with", "in", "on", "for", "do", "you", "i", "we"}
    | {"please", "always", "just"}
)


def correction(text: str, recent: list[Call]) -> Candidate | str | None:
    """A user-correction candidate from a prompt and the (up to 3) tool calls before it."""
    if len(text) > EVIDENCE or "?" in text:
        return None
    stripped = text.strip()
    if _NOT_CORRECTIONS.match(stripped) or not _CORRECTION.match(stripped):
        return None
    call = next((c for c in reversed(recent) if c.tool == "Bash"), None)
    if call is None:
        return None
    good = [(m.start(1), m.end(1)) for m in _GOOD.finditer(stripped) if not _negated(stripped, m.start())]
    good_texts = [stripped[start:end].strip("` ") for start, end in good]
    for start, referent in _referents(stripped, recent):
        if any(low <= start < high for low, high in good):
            continue  # the right way, not the mistake
        if is_secret(referent):
            return "dropped: the referent is a secret"
        regex = _referent_regex(referent, call.text)
        if regex is None or synth.refusal(regex, [call.text], good_texts):
            continue
        return Candidate(
            "user-correction",
            regex,
            anti_pattern=f"`{evidence(referent)}` (the person corrected this)",
            correct_pattern=evidence(stripped),
            failed=evidence(call.text),
            fixed=evidence(stripped),
        )
    return None


def _negated(text: str, start: int) -> bool:
    before = text[:start].lower()
    return before.endswith(_NEGATED) or before.rstrip().endswith("instead of")


def _referents(text: str, recent: list[Call]) -> list[tuple[int, str]]:
    """Backticked spans, then words of the recent calls the prompt names, by position."""
    found = [(m.start(1), m.group(1).strip()) for m in _BACKTICKED.finditer(text)]
    words = {
        word
        for call in recent
        if call.tool == "Bash"
        for segment in segments.split(call.text)
        for word in segments.words(segment)
        if len(word) >= 2 and word.lower() not in _FILLER and _PLAIN_WORD.fullmatch(word)
    }
    for word in words:
        for m in re.finditer(rf"(?<![\w`-]){re.escape(word)}(?![\w`-])", text):
            found.append((m.start(), word))
    return sorted(found)


def _referent_regex(referent: str, command: str) -> str | None:
    """The regex of a referent as the preceding call used it: a command word, an argument of a
    command, or (for a span of several words) the span itself."""
    for segment in segments.split(command):
        words = segments.words(segment)
        words = words[segments.assignments(words) :]
        if not words:
            continue
        if referent == words[0] or segment.startswith(referent + " ") or segment == referent:
            first = segments.words(referent)
            if len(first) == 1:
                return synth.command_word(referent)
            return synth.COMMAND_POSITION + synth.phrase(referent)
        if referent in words[1:]:
            return synth.argument(words[0], referent)
    return synth.phrase(referent) if referent in command else None
