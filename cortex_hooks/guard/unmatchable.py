"""What makes a learning unable to do its work, found when it is given (docs/guide/selfguard.md): a tool name
in the wrong case (Claude Code's tool names are case-sensitive: `bash` never matches `Bash`; the
kinds are lower case: `Shell` never matches),
and a regex whose nested unbounded quantifiers (`(a+)+$`) can take exponential time on a text
that almost matches, so that the hook's timeout skips it exactly when it matters."""

from __future__ import annotations

import re
import warnings
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_MAXREPEAT = sre_constants.MAXREPEAT
Item = tuple[Any, Any]  # (opcode, its value) of the standard parser
TOOLS = (
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
)
_BY_CASE = {name.casefold(): name for name in TOOLS}
KINDS = ("shell", "write", "edit", "read", "mcp")  # the agent-neutral kinds (guard.matching)
_KIND_BY_CASE = {kind.casefold(): kind for kind in KINDS}


def tool_case(matcher: str) -> str | None:
    """What is wrong with a tool matcher that names a Claude Code tool or a kind in the wrong
    case, or None (`write` is a kind, `Write` Claude Code's tool: both are right)."""
    for part in re.split(r"[|,]", matcher):
        word = part.strip()
        if word in KINDS or word in TOOLS:
            continue
        known = [name for name in (_BY_CASE.get(word.casefold()), _KIND_BY_CASE.get(word.casefold())) if name]
        if word.casefold() == "bash":
            known.append("shell")
        if known:
            meant = " or ".join(dict.fromkeys(known))
            return (
                f"{word!r} is no tool name (they are case-sensitive, and `{word}` never matches): use {meant}"
            )
    return None


def nested_quantifiers(pattern: str) -> str | None:
    """What is wrong with a regex that repeats, without bound, a group made of nothing but
    unbounded repeats and optional items (`(a+)+`, `(\\w*\\s?)*`, `((ab)*)*`), or None: such a group
    can split one text into its iterations in exponentially many ways. A group that also needs a
    fixed item (`(\\d+\\.)+`) is not judged; neither is a pattern the standard parser cannot read
    (syntax of the `regex` module alone); possessive repeats and atomic groups never backtrack."""
    try:
        with warnings.catch_warnings():  # the standard parser's own warnings (a nested set) are not ours
            warnings.simplefilter("ignore")
            parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    if not _exponential(list(parsed)):
        return None
    return (
        "nested unbounded quantifiers (a repeated group of nothing but repeats, as in (a+)+) can take "
        "exponential time on a text that almost matches, and the hook then skips the learning; "
        "rewrite it (e.g. (a+)+ as a+)"
    )


_UNBOUNDED = ("MAX_REPEAT", "MIN_REPEAT")
_FIXED = ("LITERAL", "NOT_LITERAL", "ANY", "IN", "CATEGORY")


def _exponential(items: list[Item]) -> bool:
    """Whether a parsed pattern holds an unbounded repeat of a body that has an unbounded repeat
    and no fixed item."""
    for op, value in items:
        name = str(op)
        if name in _UNBOUNDED:
            _, high, body = value
            elements = _flat(list(body))
            ambiguous = any(_unbounded(e) for e in elements) and not any(_fixed(e) for e in elements)
            if (high == _MAXREPEAT and ambiguous) or _exponential(list(body)):
                return True
        elif name == "SUBPATTERN":
            if _exponential(list(value[-1])):
                return True
        elif name == "BRANCH" and any(_exponential(list(branch)) for branch in value[1]):
            return True
        # ATOMIC_GROUP and POSSESSIVE_REPEAT never backtrack: not looked into.
    return False


def _flat(items: list[Item]) -> list[Item]:
    """The items of a body with its plain groups opened."""
    flat: list[Item] = []
    for op, value in items:
        if str(op) == "SUBPATTERN":
            flat += _flat(list(value[-1]))
        else:
            flat.append((op, value))
    return flat


def _unbounded(item: Item) -> bool:
    """An unbounded repeat, or alternatives one of which holds one (`(a|b+)`)."""
    op, value = item
    if str(op) == "BRANCH":
        return any(any(_unbounded(e) for e in _flat(list(branch))) for branch in value[1])
    return str(op) in _UNBOUNDED and value[1] == _MAXREPEAT


def _fixed(item: Item) -> bool:
    """An item that always takes at least one character and has no unbounded repeat."""
    op, value = item
    name = str(op)
    if name in _FIXED:
        return True
    if name in _UNBOUNDED:
        low, high, body = value
        return bool(low) and high != _MAXREPEAT and any(_fixed(e) for e in _flat(list(body)))
    if name == "BRANCH":
        return all(any(_fixed(e) for e in _flat(list(branch))) for branch in value[1])
    return False
