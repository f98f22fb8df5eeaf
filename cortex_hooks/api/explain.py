"""Explain: what PreToolUse would answer a tool call, and why, learning by learning; writes nothing.

The verdict and the output are the judge's (guard.judge), from the very rules the hook reads
(in_force: both scopes, the prefilter, the built-in protection): explain prints what the hook
would, byte for byte. Beside it, the answer to "my rule never fires": for every learning, whether
the tool matcher accepts the tool, which text the regex runs on, whether the prefilter lets it
through and whether the regex matches. A Bash command is shown as the simple commands the command
reader read it as (docs/guide/command-reader.md), with the one each learning matched.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cortex_hooks import agents, confidence, stored
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.wording import clean, count, fit
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.guard.call import Call
from cortex_hooks.guard.judge import Judgment, judge, strictest
from cortex_hooks.judging import protection
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.notes import Notes
from cortex_hooks.store import learnings as store
from cortex_hooks.store.scopes import close


class Explained(Record):
    tool: str
    decision: str  # the judge's answer: deny, ask, rewrite, warn, or none (Part I's word for allow)
    output: dict[str, Any] | None  # the hook's JSON output for this call, None when it prints none
    learnings: list[dict[str, Any]]  # each active learning of both scopes, as evaluated
    read_as: list[str] | None  # the simple commands a Bash command was read as; None for other tools
    corrected: str | None = None  # the command that would run instead (a rewrite), if any
    built_in: str | None = None  # the built-in protection's refusal (docs/guide/selfguard.md), if it refuses
    matches: list[dict[str, Any]] | None = None  # every rule that matched, with its source


def explain(
    databases: Databases, tool: str, tool_input: dict[str, Any], notes: Notes, agent: str = "claude"
) -> Explained:
    """What PreToolUse would answer this call made here, from both scopes as the hook reads them;
    with `agent`, the call as that agent names its tool and fields, and the answer in its wire
    format (cortex_hooks.agents: a patch's files are each judged, the first one explained)."""
    adapter = agents.adapter(agent)
    if agent == "claude":
        tool = matching.TOOL_OF_KIND.get(tool, tool)  # `--tool shell` is the call Claude Code names Bash
    payload = adapter.payload(tool, tool_input, os.getcwd())
    calls, rewrites = adapter.calls(payload)
    call = calls[0]
    scopes, skipped = db.both(databases)
    try:
        rules = InForce(scopes, protection=protection.refusal, notes=notes)
        judged = strictest([judge(each, rules, rewrites=rewrites) for each in calls])
        reports = []
        for scope in scopes:
            config = rules.config(scope)
            timeouts = (config.regex_timeout, config.regex_timeout_per_mib)
            keys = store.keys_by_learning(scope.connection)
            literals = store.literals_by_learning(scope.connection)
            for row in store.select(scope.connection, "active"):
                looked_up = keys.get(row.id, set()), literals.get(row.id)
                report = _evaluate(row, call, looked_up, timeouts)
                report["scope"] = scope.name
                reports.append(report)
    finally:
        close(scopes)
    if skipped and judged.answer == "allow":  # as the hook: a skipped scope beside no decision fails
        raise CortexError("; ".join(skipped))
    notes.extend(skipped)
    _effects(reports, judged)
    refused = judged.protection
    return Explained(
        call.tool,
        judged.answer if judged.answer != "allow" else "none",
        adapter.pre_tool_use(judged, payload),
        reports,
        _read_as(call.subject("content")),
        judged.corrected if judged.updated_input is not None else None,
        f"{refused.what}: {refused.harm or refused.why}" if refused is not None else None,
        matches(judged),
    )


def matches(judged: Judgment) -> list[dict[str, Any]]:
    """Every rule that matched the call, with where it came from and what it answered by itself:
    the built-in protection first, then each learning (after precedence)."""
    found: list[dict[str, Any]] = []
    if judged.protection is not None:
        found.append({"source": "built-in", "id": None, "scope": None, "answer": "deny"})
    found += [
        {"source": hit.source, "id": hit.id, "scope": hit.scope, "answer": hit.answer} for hit in judged.hits
    ]
    return found


def _effects(reports: list[dict[str, Any]], judged: Judgment) -> None:
    """What each matched learning answered, and its rewrite's correction, from the judgment."""
    by = {(hit.scope, hit.id): hit for hit in judged.matched}
    for report in reports:
        hit = by.get((report["scope"], report["id"]))
        if hit is None:
            continue
        report["effect"] = hit.answer
        if hit.correction is not None:
            report["corrected"] = hit.correction.command
            report["rewrite_problem"] = hit.correction.problem


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
    row: stored.Learning, call: Call, looked_up: tuple[set[str], str | None], timeouts: tuple[float, float]
) -> dict[str, Any]:
    """What the hook does with this learning for this call, step by step; `looked_up`: its
    prefilter keys and required literals as stored."""
    keys, required = looked_up
    fragments = call.texts(row.target)
    letter, looked = prefilter.lookup(row.target, call.tool, fragments)
    report: dict[str, Any] = {
        "id": row.id,
        "anti_pattern": row.anti_pattern,
        "regex": row.regex,
        "tool_matcher": row.tool,
        "tool_accepted": matching.tool_accepts(row.tool, call.tool),
        "target": row.target,
        "text": fragments,
        "candidate": False,
        "confidence": confidence.as_number(row.confidence),
        "action": row.action,
        "auto_block": row.action == "block",
        "rewrite": row.rewrite,
        "corrected": None,
        "rewrite_problem": None,
        "result": "not evaluated",
        "effect": None,
        "matched_command": None,
    }
    if not row.regex:
        report["result"] = "no regex: never matches"
        return report
    if row.muted:  # as the hook's candidate query: a muted pack learning is never tried
        report["result"] = f"muted in this scope: never matches (cortex-hooks packs unmute {row.slug})"
        return report
    # As the hook decides: an index key present, then every stored required literal.
    report["candidate"] = any(
        prefilter.present(key, looked) for key in keys if key[0] == letter
    ) and prefilter.satisfied(required, looked, loose=letter == prefilter.LOOSE)
    if not report["tool_accepted"]:
        report["result"] = f"tool matcher {row.tool!r} does not accept {call.tool}"
        return report
    try:
        where = call.where(row.regex, row.target, timeouts)
    except matching.Unusable as error:
        report["result"] = f"{error.message}: the hook skips this learning"
        return report
    subject = call.subject(row.target)
    found = where is not None
    if where is not None and not isinstance(subject, list):
        report["matched_command"] = subject.reading.commands[where].text
    report["result"] = "match" if found else "no match"
    if found and not report["candidate"]:
        report["result"] = "match, but the prefilter skips it: run `cortex-hooks doctor`"
    return report


# What people read of it, from the CLI and the MCP server alike. The text of explain: the decision,
# then each learning as the hook evaluated it — the matches first and in full, any other candidate
# in two lines — every line within the width given, a regex cut to REGEX characters (`--json` has
# everything whole).

REGEX = 60  # a regex as explain shows it: a pack's run to 1,000 characters and more
DECISIONS = {"none": "ALLOW (nothing stops this call)"}


def explained(result: Explained, *, every: bool, width: int | None = None) -> str:
    """The decision and the learnings for this tool (`every`: for other tools too); each line cut
    to `width` characters (None: whole, for a pipe or a file)."""
    shown = [report for report in result.learnings if every or report["tool_accepted"]]
    shown.sort(key=lambda report: not report["result"].startswith("match"))  # what decides first
    decision = DECISIONS.get(result.decision, result.decision.upper())
    lines = [f"Tool call: {clean(result.tool, one_line=True)} — the hook would: {decision}"]
    if result.built_in is not None:
        lines.append(
            "Built-in protection (not a learning: it never decays; the learnings below are judged "
            f"beside it): {clean(result.built_in)}"
        )
    if result.corrected is not None:
        lines.append(f"Corrected command (what would run): {clean(result.corrected, one_line=True)[:200]}")
    if result.read_as is not None:
        lines.append(f"Read as {count(len(result.read_as), 'simple commands')}:")
        lines += [f"  {clean(text, one_line=True)[:100]}" for text in result.read_as]
    if not result.learnings:
        lines.append("No active learnings.")
    for report in shown:
        lines += _learning(report)
    hidden = len(result.learnings) - len(shown)
    if hidden:
        are = "learning is" if hidden == 1 else "learnings are"
        lines.append(f"{hidden} {are} for other tools (--all lists them).")
    if any(len(report["regex"] or "") > REGEX for report in shown):
        lines.append(f"(A regex is cut at {REGEX} characters here: --json gives each whole.)")
    return "\n".join(fit(line, width) for text in lines for line in text.split("\n"))


def _learning(report: dict[str, Any]) -> list[str]:
    """A matched learning in three lines (what it ran on, what it matched, its effect); any
    other in two (its result)."""
    scope = " (global)" if report["scope"] == "global" else ""
    lines = [f"#{report['id']}{scope} {clean(report['anti_pattern'], one_line=True)[:70]}"]
    text = " | ".join(report["text"]) or "(nothing: this tool has no such text)"
    ran = f"regex {fit(clean(report['regex'] or '-', one_line=True), REGEX)} on {report['target']}: "
    ran += clean(text, one_line=True)[:100]
    if not report["result"].startswith("match"):
        said = report["result"]
        lines.append(f"    {said}: {ran}" if said == "no match" else f"    {said}")
        return lines
    effect = f" -> {report['effect']}" if report["effect"] else ""
    matched = report["matched_command"]
    where = f" in `{clean(matched, one_line=True)[:80]}`" if matched is not None else ""
    lines += [
        f"    {ran}",
        f"    {report['result']}{where}{effect} (confidence {report['confidence']:.2f}"
        f", action {report['action']})",
    ]
    if report["rewrite"] is not None:
        made = report["corrected"] or report["rewrite_problem"]
        detail = f": {clean(made, one_line=True)[:100]}" if made else ""
        lines.append(f"    rewrite {clean(report['rewrite'], one_line=True)!r}{detail}")
    return lines
