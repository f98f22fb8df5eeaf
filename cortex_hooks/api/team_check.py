"""`team check` (docs/guide/team.md): the team file validated for a team's CI, every problem on a line of its
own: a line that does not validate, an unknown key, a duplicate id, the format's rules (keys and
lines sorted, a final newline, no BOM, no CR), a tool name in the wrong case, a regex with nested
unbounded quantifiers, a regex that matches (or cannot decide on) a shipped benign command, and a
line whose examples the judge does not bear out (it cannot fire, or fires on an allow example)."""

from __future__ import annotations

import json
from typing import Any

from cortex_hooks import location
from cortex_hooks.api import team_read
from cortex_hooks.capture.regex_synthesis import benign
from cortex_hooks.config import DEFAULT
from cortex_hooks.guard import matching, team_rules, unmatchable
from cortex_hooks.guard.packs import shared_format
from cortex_hooks.judging import proof

BENIGN_TIMEOUT = 0.05  # seconds per benign command: an honest regex decides in microseconds


def check() -> dict[str, Any]:
    """The file's path, how many entries validate, and every problem found (empty: it passes)."""
    project = location.project_root()
    path = location.team_path(project)
    loaded = team_read.load(project)
    problems = list(loaded.problems)
    if loaded.data is None:
        if not problems:
            problems.append(f"no team file at {path}")
        return {"path": path, "entries": 0, "problems": problems, "ok": False}
    data = loaded.data
    if loaded.cut:
        problems.append(
            f"the file is larger than {team_rules.MAX_BYTES:,} bytes: hooks read only its first lines"
        )
    if data.startswith(team_rules.BOM):
        problems.append(
            f"{location.TEAM_NAME}: starts with a byte-order mark (BOM): save it as UTF-8 without one"
        )
        data = data[len(team_rules.BOM) :]
    crlf = data.count(b"\r\n")
    if crlf:
        problems.append(f"{location.TEAM_NAME}: {crlf} lines end with CR LF: use LF line ends")
        data = data.replace(b"\r\n", b"\n")
    text = data.decode("utf-8", "replace")
    records, said = shared_format.problems(text, location.TEAM_NAME, memories=True)
    problems += said
    numbers = _numbers(text)
    learnings = [record for record in records if isinstance(record, shared_format.SharedLearning)]
    for record in learnings:
        where = f"{location.TEAM_NAME} line {numbers.get(record.id, '?')}"
        problems += [f"{where}: {problem}" for problem in _learning_problems(record)]
    for failure in proof.given(learnings, "team", DEFAULT):  # each line's examples, through the judge
        where = f"{location.TEAM_NAME} line {numbers.get(failure.rule, '?')}"
        problems.append(f"{where}: examples: {str(failure).removeprefix(f'{failure.rule}: ')}")
    return {"path": path, "entries": len(records), "problems": problems, "ok": not problems}


def _numbers(text: str) -> dict[str, int]:
    """Each id's first line."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), str):
            found.setdefault(value["id"], number)
    return found


def _learning_problems(record: shared_format.SharedLearning) -> list[str]:
    found = []
    wrong_case = unmatchable.tool_case(record.tool)
    if wrong_case:
        found.append(f"tool: {wrong_case}")
    nested = unmatchable.nested_quantifiers(record.regex)
    if nested:
        found.append(f"regex: {nested}")
        return found  # not run on the benign commands: it may not end
    benign = _benign_hit(record)
    if benign:
        found.append(f"regex: {benign}")
    return found


def _benign_hit(record: shared_format.SharedLearning) -> str | None:
    """What the regex does with the shipped benign commands (as a Bash call reads them), if
    anything: matches one, or cannot decide on one within the timeout."""
    if not matching.tool_accepts(record.tool, matching.READ_TOOL):
        return None
    for command in benign():
        texts = matching.fragments(record.target, matching.READ_TOOL, {"command": command})
        subject = matching.subject(record.target, matching.READ_TOOL, texts)
        try:
            if matching.evaluate(record.regex, subject, BENIGN_TIMEOUT, 0):
                return f"matches the benign command `{command}` (too broad: it would fire on everyday work)"
        except matching.Unusable:
            return f"does not decide within {BENIGN_TIMEOUT:g} s on the benign command `{command}`"
    return None
