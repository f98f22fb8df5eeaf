"""Explain: what PreToolUse would decide for a tool call, learning by learning; writes nothing.

The answer to "my rule never fires": for every learning it says whether the tool matcher
accepts the tool, which text the regex runs on, whether the prefilter lets it through, and
whether the regex matches — then the decision the hook would print. A Bash command is shown as
the simple commands the command reader read it as (SPEC §13), with the one each learning matched.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

from cortex_hooks import confidence, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.learnings import readable_rows
from cortex_hooks.config import Config
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import matching, prefilter, rewrite, verdict
from cortex_hooks.guard.rewrite import Correction
from cortex_hooks.hooks import protocol
from cortex_hooks.notes import Notes
from cortex_hooks.scopes import close
from cortex_hooks.store import learnings as store


class Explained(NamedTuple):
    tool: str
    decision: str  # deny, ask, rewrite, warn (the hook's output adds context) or none
    output: dict[str, Any] | None  # the hook's JSON output for this call, None when it prints none
    learnings: list[dict[str, Any]]  # each active learning of both scopes, as evaluated
    read_as: list[str] | None  # the simple commands a Bash command was read as; None for other tools
    corrected: str | None = None  # the command that would run instead (a rewrite), if any
    built_in: str | None = None  # the built-in protection's deny reason (SPEC §19), decided first


def explain(databases: Databases, tool: str, tool_input: dict[str, Any], notes: Notes) -> Explained:
    """What PreToolUse would decide for this tool call, from both scopes as the hook reads them.
    A call the built-in protection denies (SPEC §19) is denied before any learning is read, as
    the hook does (made here from the working directory); the learnings are still shown."""
    from cortex_hooks.hooks import built_in

    refused = (
        built_in.refusal(tool, tool_input, None)
        if location.names_own_place(tool_input, os.getcwd())
        else None
    )
    texts = {target: matching.fragments(target, tool, tool_input) for target in matching.TARGETS}
    subjects = {target: matching.subject(target, tool, texts[target]) for target in texts}
    reports: list[dict[str, Any]] = []
    hits: list[verdict.Hit] = []
    evaluated: list[tuple[Any, str, Config]] = []  # every readable row, for a corrected command
    scopes, skipped = db.both(databases)  # both scopes, as the hook reads them
    try:
        for scope in scopes:
            config = location.config_for(scope.path, notes)
            keys = store.keys_by_learning(scope.connection)
            for row in readable_rows(store.select(scope.connection, "active"), notes):
                evaluated.append((row, scope.name, config))
                report = _evaluate(row, tool, (texts, subjects), keys.get(row["id"], set()), config)
                report["scope"] = scope.name
                if report["result"] == "match":
                    correction = _correction(row, (tool, tool_input), subjects, report, config)
                    hit = verdict.Hit.of(row, scope=scope.name, policy=config.policy, correction=correction)
                    report["effect"] = verdict.answer(hit)
                    hits.append(hit)
                reports.append(report)
        from cortex_hooks.upkeep import team_precedence

        hits = team_precedence.one_per_id(hits, scopes)  # one id in several places: as the hook takes it
    finally:
        close(scopes)
    decided = verdict.decide(hits)
    if decided is not None and decided.answer == "rewrite":
        decided = _recheck(decided, tool, tool_input, evaluated)
    if (
        skipped and decided is None and refused is None
    ):  # as the hook: a skipped scope beside no decision fails
        raise CortexError("; ".join(skipped))
    notes.extend(skipped)
    read_as = _read_as(subjects["content"])
    if refused is not None:
        from cortex_hooks.guard.self_protection import reason

        return Explained(tool, "deny", built_in.output(refused), reports, read_as, built_in=reason(refused))
    output = protocol.pre_tool_use(decided) if decided else None
    decision = decided.decision if decided else "none"
    corrected = decided.corrected if decided is not None and decided.updated_input is not None else None
    return Explained(tool, decision, output, reports, read_as, corrected)


def _correction(
    row: Any,
    call: tuple[str, dict[str, Any]],
    subjects: dict[str, Any],
    report: dict[str, Any],
    config: Config,
) -> Correction | None:
    """What a matched learning's rewrite makes of the command, as the hook works it out; the
    report shows the corrected command, or why there is none."""
    tool, tool_input = call
    command = tool_input.get("command")
    if row["rewrite"] is None or tool != matching.READ_TOOL or not isinstance(command, str):
        return None
    subject = subjects[row["target"]]
    where = matching.where(row["regex"], subject, config.regex_timeout, config.regex_timeout_per_mib)
    if where is None:
        return None
    timeouts = (config.regex_timeout, config.regex_timeout_per_mib)
    correction = rewrite.correct(
        row["regex"], row["rewrite"], command, subject, index=where, timeouts=timeouts
    )
    report["corrected"] = correction.command
    report["rewrite_problem"] = correction.problem
    return correction


def _recheck(
    decided: verdict.Verdict, tool: str, tool_input: dict[str, Any], rows: list[tuple[Any, str, Config]]
) -> verdict.Verdict:
    """A rewrite's corrected command checked against every learning, as the hook does."""
    corrected = {**tool_input, "command": decided.corrected}
    texts = {target: matching.fragments(target, tool, corrected) for target in matching.TARGETS}
    subjects = {target: matching.subject(target, tool, texts[target]) for target in texts}
    again = []
    for row, scope, config in rows:
        if not row["regex"] or row["muted"] or not matching.tool_accepts(row["tool"], tool):
            continue
        try:
            found = matching.evaluate(
                row["regex"], subjects[row["target"]], config.regex_timeout, config.regex_timeout_per_mib
            )
        except matching.Unusable:
            continue
        if found:
            again.append(verdict.Hit.of(row, scope=scope, policy=config.policy))
    return verdict.recheck(decided, again, tool_input, str(tool_input.get("command")))


def _read_as(subject: Any) -> list[str] | None:
    """The simple commands a Bash command was read as (None for other tools); a command the
    reader could not read is shown whole, as it is matched."""
    if isinstance(subject, list):
        return None
    texts: list[str] = subject.reading.texts()
    return texts


def tool_input(command: str | None, given: str | None) -> dict[str, Any]:
    """The tool_input of a Bash command, or a whole tool_input given as a JSON object."""
    if command is not None:
        return {"command": command}
    try:
        value = json.loads(given or "")
    except json.JSONDecodeError as error:
        raise CortexError(f"--input is not JSON: {error}", USAGE) from None
    if not isinstance(value, dict):
        raise CortexError("--input must be a JSON object (the tool_input)", USAGE)
    return value


def _evaluate(
    row: Any, tool: str, given: tuple[dict[str, list[str]], dict[str, Any]], keys: set[str], config: Config
) -> dict[str, Any]:
    texts, subjects = given
    fragments = texts[row["target"]]
    letter, looked = prefilter.lookup(row["target"], tool, fragments)
    report: dict[str, Any] = {
        "id": row["id"],
        "anti_pattern": row["anti_pattern"],
        "regex": row["regex"],
        "tool_matcher": row["tool"],
        "tool_accepted": matching.tool_accepts(row["tool"], tool),
        "target": row["target"],
        "text": fragments,
        "candidate": False,
        "confidence": confidence.as_number(row["confidence"]),
        "action": row["action"],
        "auto_block": row["action"] == "block",
        "rewrite": row["rewrite"],
        "corrected": None,
        "rewrite_problem": None,
        "result": "not evaluated",
        "effect": None,
        "matched_command": None,
    }
    if not row["regex"]:
        report["result"] = "no regex: never matches"
        return report
    if row["muted"]:  # as the hook's candidate query: a muted pack learning is never tried
        report["result"] = f"muted in this scope: never matches (cortex-hooks packs unmute {row['slug']})"
        return report
    # As the hook decides: an index key present, then every stored required literal.
    report["candidate"] = any(
        prefilter.present(key, looked) for key in keys if key[0] == letter
    ) and prefilter.satisfied(row["literals"], looked, loose=letter == prefilter.LOOSE)
    if not report["tool_accepted"]:
        report["result"] = f"tool matcher {row['tool']!r} does not accept {tool}"
        return report
    try:
        subject = subjects[row["target"]]
        where = matching.where(row["regex"], subject, config.regex_timeout, config.regex_timeout_per_mib)
    except matching.Unusable as error:
        report["result"] = f"{error.message}: the hook skips this learning"
        return report
    found = where is not None
    if found and not isinstance(subject, list):
        report["matched_command"] = subject.reading.commands[where].text
    report["result"] = "match" if found else "no match"
    if found and not report["candidate"]:
        report["result"] = "match, but the prefilter skips it: run `cortex-hooks doctor`"
    return report
