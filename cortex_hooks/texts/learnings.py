"""The texts of learnings: the table `list` prints, one learning in full, what a change did."""

from __future__ import annotations

import shlex
from typing import Any

from cortex_hooks import confidence
from cortex_hooks.texts.words import clean, fit, times

TYPE_CHECKING = False
if TYPE_CHECKING:  # pydantic records, imported only to be named
    from cortex_hooks.api.learnings import Changed
    from cortex_hooks.guard.learning_records import Learning

_VERBS = {"pin": "Pinned", "unpin": "Unpinned", "keep": "Kept", "archive": "Archived", "restore": "Restored"}


def flags(learning: Learning) -> str:
    marks = []
    if learning.action == "block":
        marks.append("auto-block")
    elif learning.action == "ask":
        marks.append("ask")
    if learning.rewrite is not None:
        marks.append("rewrite")
    if learning.pinned:
        marks.append("pinned")
    if learning.archived_at:
        marks.append("archived")
    return ",".join(marks) or "-"


def table(learnings: list[Learning], width: int | None = None) -> str:
    """One line per learning: id, confidence, how often it caught a call and what the agent did
    next (followed / retried), flags, tool and target, anti-pattern -> correct; each line cut to
    `width` characters (None: whole, for a pipe or a file)."""
    if not learnings:
        return "No learnings."
    lines = [
        f"{'ID':>4}  {'CONF':<4}  {'CAUGHT':>6} {'FOL/RET':>7}  {'FLAGS':<20} {'TOOL/TARGET':<18} "
        "ANTI-PATTERN -> CORRECT"
    ]
    for learning in learnings:
        where = f"{clean(learning.tool, one_line=True)}/{learning.target}"
        text = (
            f"{clean(learning.anti_pattern, one_line=True)} -> "
            f"{clean(learning.correct_pattern, one_line=True)}"
        )
        caught, outcome = _caught(learning)
        lines.append(
            f"{learning.id:>4}  {learning.confidence:.2f}  {caught:>6} {outcome:>7}  {flags(learning):<20} "
            f"{where:<18} {text}"
        )
    return "\n".join(fit(line, width) for line in lines)


def _caught(learning: Learning) -> tuple[str, str]:
    """A learning's catches and, of them, how many the agent followed and retried (`-`: none)."""
    outcomes = learning.outcomes
    if outcomes is None or not outcomes.caught:
        return "-", "-"
    return str(outcomes.caught), f"{outcomes.followed}/{outcomes.retried}"


def outcome_lines(learning: Learning) -> list[tuple[str, str]]:
    """What the agent did after a learning's catches, in words (show), with its last retried call."""
    outcomes = learning.outcomes
    if outcomes is None:
        return []
    counted = (
        f"{times(outcomes.caught)}: followed {outcomes.followed}, retried {outcomes.retried}, "
        f"the person answered {outcomes.asked}, unknown {outcomes.unknown}"
        if outcomes.caught
        else "never (it has denied, asked about or corrected no call)"
    )
    rows = [("caught", counted)]
    last = outcomes.last_retried
    if last is not None:
        retried = f"{last.at} {last.tool}: {last.call}"
        if last.retried_with:
            retried += f" -> then: {last.retried_with}"
        rows.append(("last retried", retried))
    return rows


def detail(learning: Learning) -> str:
    rows = [
        ("anti-pattern", learning.anti_pattern),
        ("correct", learning.correct_pattern),
        ("regex", learning.regex or "(none: never matches)"),
        ("tool", learning.tool),
        ("target", learning.target),
        ("severity", learning.severity),
        ("action", learning.action),
        ("rewrite", learning.rewrite if learning.rewrite != "" else "(empty: the match is removed)"),
        ("confidence", confidence.show(round(learning.confidence * 100))),
        ("flags", flags(learning)),
        ("accessed", times(learning.access_count) + f", last {learning.last_accessed or 'never'}"),
        *outcome_lines(learning),
        ("created", learning.created_at),
        ("updated", learning.updated_at),
        ("archived", learning.archived_at or "no"),
        ("context", learning.context or ""),
    ]
    body = "\n".join(f"  {name:<13} {clean(value)}" for name, value in rows if value)
    return f"Learning #{learning.id}\n{body}"


def added(learning: Learning) -> str:
    return f"Added learning #{learning.id}."


def updated(learning: Learning) -> str:
    return f"Updated learning #{learning.id}."


def changed(result: Changed) -> str:
    learning = result.learning
    if result.change == "keep":
        return f"Kept learning #{learning.id}: confidence back to {learning.confidence:.2f}."
    message = f"{_VERBS[result.change]} learning #{learning.id}."
    if result.prunes_again:
        message += (
            " It is old and little used, so the next session start would archive it again:"
            f" pin it (cortex-hooks pin {learning.id}) to keep it."
        )
    return message


_OPTIONS = {  # a learning's field -> its option of `cortex-hooks update`
    "anti_pattern": "--anti-pattern",
    "correct_pattern": "--correct",
    "regex": "--regex",
    "tool": "--tool",
    "target": "--target",
    "severity": "--severity",
    "action": "--action",
    "confidence": "--confidence",
    "context": "--context",
}


def update_command(learning_id: int, given: dict[str, Any], scope: str) -> str:
    """The `cortex-hooks update` a person types for these changes (`--regex=…` form: a value
    may begin with a dash), quoted for a POSIX shell."""
    words = ["cortex-hooks", "update", str(learning_id)]
    for field, option in _OPTIONS.items():
        if field in given:
            value = given[field]
            words.append("--no-regex" if value is None else f"{option}={value}")
    if "auto_block" in given:
        words.append("--auto-block" if given["auto_block"] else "--no-auto-block")
    if given.get("pinned"):
        words.append("--pin")
    if scope == "global":
        words.append("--global")
    return " ".join(shlex.quote(word) for word in words)
