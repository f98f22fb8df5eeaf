"""Rules in Claude Code's own memory as learning candidates (docs/guide/claude-memory.md, signal
`remembered`), pure.

A line is a rule when a clause of it says, of a command (or an option), "never …", "don't …",
"do not / must not / avoid / stop …", "use X, not Y", "use X instead of / rather than Y",
"always X instead of Y", "prefer X over Y", "instead of Y, use X", "`X`, not `Y`" or "`Y` is
forbidden"; the forbidden command Y becomes the candidate's regex, and each X an example it
must not match. A command is named in backticks, or is a program of capture/commands.txt or of
the project's own successful calls (the English-looking ones only in backticks, after a run
verb or with an option), or is an option (`--no-verify`). What follows it must leave the rule
whole: nothing, a reason ("because …"), or "in this repo", "here", "directly" … — "never use git
for large files" narrows the rule to something no regex of a command says, and is left alone.
Not rules: questions, "never mind", "don't worry / bother / forget …", anything inside fenced
code; the regex passes every check of docs/guide/capture.md (capture.regex_synthesis) or nothing is proposed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from cortex_hooks.capture import prose_commands as commands
from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.capture.detect import Candidate, evidence
from cortex_hooks.redact import is_secret

LINE = 300  # characters of a line read for rules: a longer one is prose

_SUBJECT = r"(?:(?:we|you|i|claude|agents?|the agent)\s+(?:should\s+|must\s+)?)?"
_NEVER = r"(?:never|don'?t|dont|do\s+not|must\s+not|mustn'?t|should\s+not|shouldn'?t|avoid|stop|no\s+longer)"
_RUN = r"(?:run|call|invoke|execute|type|running|calling|invoking|executing|typing)"
_VERB = rf"(?:ever\s+)?(?:(?P<verb>{_RUN}|use|using)\s+)?"
_ALTERNATIVE = r"(?:not|never|instead\s+of|rather\s+than)"
_SHAPES = [  # each names `ref` (forbidden) and maybe `good` (the right way)
    re.compile(rf"(?i)^{_SUBJECT}{_NEVER}\s+{_VERB}(?P<ref>.+)$"),
    re.compile(
        rf"(?i)^(?:always\s+)?(?:use|run|call)\s+(?P<good>.+?),?\s+{_ALTERNATIVE}\s+{_VERB}(?P<ref>.+)$"
    ),
    re.compile(rf"(?i)^always\s+(?P<good>.+?)\s+(?:instead\s+of|rather\s+than)\s+{_VERB}(?P<ref>.+)$"),
    re.compile(
        rf"(?i)^(?:always\s+)?prefer\s+(?P<good>.+?)\s+(?:over|to|instead\s+of|rather\s+than)\s+{_VERB}(?P<ref>.+)$"
    ),
    re.compile(rf"(?i)^instead\s+of\s+{_VERB}(?P<ref>.+)$"),  # its "use X" is a clause of its own
    re.compile(r"^`(?P<good>[^`]+)`,?\s+(?:not|never)\s+(?P<ref>`[^`]+`.*)$"),
    re.compile(
        r"(?i)^(?P<ref>`[^`]+`)\s+is\s+(?:not\s+allowed|forbidden|banned|deprecated|not\s+to\s+be\s+used)\b.*$"
    ),
]
_NOT_RULES = re.compile(
    r"(?i)^(?:never\s*mind|nevermind|(?:don'?t|do\s+not|never)\s+(?:worry|bother|forget|hesitate|mind))\b"
)
_GOOD = re.compile(r"(?i)\b(?:use|run|call|prefer)\s+(?P<good>`[^`]+`|[\w./:@+-]+(?:\s+[\w./:@=+-]+){0,3})")
# What may follow a forbidden command and leave the rule whole.
_WHOLE = (
    r"(?:in|for|within|across|inside)\s+(?:this|the|our)\s+(?:repo(?:sitory)?|project|codebase|code\s+base|"
    r"monorepo|workspace|directory|folder|package)|here|any\s?more|directly|again|ever|at\s+all|please|"
    r"locally|by\s+hand|manually|yourself|everywhere|for\s+any(?:thing|\s+reason)|for\s+everything"
)
_WHOLE_TAIL = re.compile(rf"(?i)^(?:(?:{_WHOLE})\W*)*$")
# "as" gives a reason only before a clause ("as it rewrites the lockfile"), not a role ("as proof").
_REASON = re.compile(
    r"(?i)\s+(?:because|since|as(?=\s+(?:it|its|they|their|that|this|these|those|the|we|you|there|our)\b)"
    r"|so\s+that|\u2014|\u2013|-)\s+.*$|\s*[(:].*$"
)
_ARTICLE = re.compile(r"(?i)^(?:the|a|an|any)\s+")
_MARKUP = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?")
_LABEL = re.compile(  # "Why:", "How to apply:", "Rule:" — never the rule's own words ("Stop using yarn:")
    r"(?i)^(?:\*\*|__)?(?!(?:never|don'?t|do|avoid|stop|use|prefer|always|instead)\b)[a-z]\w*(?: \w+){0,2}:"
    r"(?:\*\*|__)?\s+"
)
# Clauses: at `;`, a sentence's end, and a comma before a new instruction ("never npm, use pnpm").
_CLAUSES = re.compile(r"\s*;\s*|(?<=[.!])\s+|,\s+(?=(?:use|run|prefer|always|instead|but)\b)", re.IGNORECASE)
_NEGATION = re.compile(r"(?i)(?:never|don'?t|dont|not|avoid|stop|instead\s+of|rather\s+than|over|to)\s*$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def candidates(
    lines: Iterable[tuple[str, str]], known: Callable[[str], bool] = lambda _word: False
) -> list[Candidate]:
    """The candidates of a memory's rules, one per forbidden command, from its lines and where
    each is (`feedback_pnpm.md:8`, the evidence); `known`: whether a word names a command of the
    project. Lines inside fenced code are code, not rules."""
    found: dict[str, Candidate] = {}
    fenced = False
    for line, where in lines:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        candidate = None if fenced else rule(line, where, known)
        if candidate is not None and candidate.regex not in found:
            found[candidate.regex] = candidate
    return list(found.values())


def rule(line: str, where: str = "", known: Callable[[str], bool] = lambda _word: False) -> Candidate | None:
    """The candidate of one line's rule, or None when it states none a regex can hold."""
    text = _clean(line)
    if not text or len(text) > LINE or "?" in text:
        return None
    good_examples = [
        commands.loosely(match.group("good"))
        for match in _GOOD.finditer(text)
        if not _NEGATION.search(text[: match.start()])
    ]
    for part in _CLAUSES.split(text):
        clause = part.strip().rstrip(".!")
        if _NOT_RULES.match(clause):
            continue
        for shape in _SHAPES:
            match = shape.match(clause)
            if match is None:
                continue
            verb = (match.groupdict().get("verb") or "").lower()
            referent = _forbidden(match.group("ref"), known, runs=bool(re.match(_RUN, verb)))
            if referent is None:
                continue
            examples = [*good_examples]
            if match.groupdict().get("good"):
                examples.append(commands.loosely(match.group("good")))
            return _candidate(referent, [example for example in examples if example], text, where)
    return None


def _candidate(referent: str, good: list[str], text: str, where: str) -> Candidate | None:
    if is_secret(referent):
        return None
    regex = commands.regex_for(referent)
    if regex is None or synth.refusal(
        regex, [referent], [example for example in good if example != referent]
    ):
        return None
    said = evidence(text)
    return Candidate(
        "remembered",
        regex,
        anti_pattern=f"`{evidence(referent)}` (Claude Code's memory says not to)",
        correct_pattern=said,
        failed=evidence(referent),
        fixed=f"{said} ({where})" if where else said,
    )


def _forbidden(text: str, known: Callable[[str], bool], *, runs: bool) -> str | None:
    """The command a rule forbids, from the words after its "never" (None when they name none,
    or when what follows narrows the rule)."""
    opened = commands.backticked(text)
    if opened is not None:
        command, rest = opened[0], _REASON.sub("", opened[1])
        rest = re.sub(r"(?i)^\s*(?:command|option|flag|script)s?\b", "", rest)
    else:
        text = _REASON.sub("", text.strip())
        found = commands.named(text, known, runs=runs)
        if found is None:
            return None
        command, rest = found, " ".join(_ARTICLE.sub("", text).split()[len(found.split()) :])
    return command if _WHOLE_TAIL.match(rest.strip(" ,")) else None


def _clean(line: str) -> str:
    """A line without its markdown: list marks, headings, quotes, a leading label, emphasis."""
    text = _MARKUP.sub("", line).strip()
    text = _LABEL.sub("", text)
    text = re.sub(r"(?i)\s*\((not|never|instead of|rather than)\s+([^)]*)\)", r", \1 \2", text)
    text = re.sub(r"(\*\*|__)", "", text)
    text = re.sub(r"(?<![\w`])[*_](?=\S)|(?<=\S)[*_](?![\w`])", "", text)
    return " ".join(text.split())
