"""CLI explain: what PreToolUse would decide for a tool call, learning by learning; writes nothing.

The answer to "my rule never fires": for every learning it says whether the tool matcher
accepts the tool, which text the regex runs on, whether the prefilter lets it through, and
whether the regex matches — then the decision the hook would print. A Bash command is shown as
the simple commands the command reader read it as (SPEC §13), with the one each learning matched.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from cortex_hooks import confidence, location
from cortex_hooks.cli import database, render
from cortex_hooks.cli.learnings import readable_rows
from cortex_hooks.config import Config
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import matching, prefilter, verdict
from cortex_hooks.hooks import protocol
from cortex_hooks.scopes import close
from cortex_hooks.store import learnings as store


def register(commands: Any, common: argparse.ArgumentParser) -> None:
    explain = commands.add_parser(
        "explain", parents=[common], help="what the hooks would decide for a tool call"
    )
    explain.add_argument("--tool", required=True, metavar="NAME", help="tool name, e.g. Bash")
    given = explain.add_mutually_exclusive_group(required=True)
    given.add_argument("--command", metavar="TEXT", help="a Bash command (tool_input.command)")
    given.add_argument("--input", metavar="JSON", help="the whole tool_input as a JSON object")
    explain.add_argument("--all", action="store_true", help="also list learnings for other tools")
    explain.add_argument("--json", action="store_true", help="print JSON")
    explain.set_defaults(run=run_explain)


def run_explain(args: argparse.Namespace) -> int:
    tool_input = _tool_input(args)
    texts = {target: matching.fragments(target, args.tool, tool_input) for target in matching.TARGETS}
    subjects = {target: matching.subject(target, args.tool, texts[target]) for target in texts}
    reports: list[dict[str, Any]] = []
    hits: list[verdict.Hit] = []
    scopes, skipped = database.both(args)  # both scopes, as the hook reads them
    try:
        for scope in scopes:
            config = location.config_for(scope.path)
            keys = store.keys_by_learning(scope.connection)
            for row in readable_rows(store.select(scope.connection, "active")):
                report = _evaluate(row, args.tool, (texts, subjects), keys.get(row["id"], set()), config)
                report["scope"] = scope.name
                if report["result"] == "match":
                    blocks = bool(row["auto_block"]) and confidence.blocks(row["confidence"], config.policy)
                    report["effect"] = "deny" if blocks else "warn"
                    hits.append(verdict.Hit.of(row, scope=scope.name, policy=config.policy))
                reports.append(report)
    finally:
        close(scopes)
    decided = verdict.decide(hits)
    if skipped and decided is None:  # as the hook: a skipped scope beside no decision is a failure
        raise CortexError("; ".join(skipped))
    for note in skipped:
        render.note(note)
    output = protocol.pre_tool_use(decided) if decided else None
    decision = decided.decision if decided else "none"
    read_as = _read_as(subjects["content"])
    if args.json:
        render.emit_json(
            {
                "tool": args.tool,
                "decision": decision,
                "output": output,
                "read_as": read_as,
                "learnings": reports,
            }
        )
    else:
        render.say(_human(args, decision, reports, read_as))
    return 0


def _read_as(subject: Any) -> list[str] | None:
    """The simple commands a Bash command was read as (None for other tools); a command the
    reader could not read is shown whole, as it is matched."""
    if isinstance(subject, list):
        return None
    texts: list[str] = subject.reading.texts()
    return texts


def _tool_input(args: argparse.Namespace) -> dict[str, Any]:
    if args.command is not None:
        return {"command": args.command}
    try:
        value = json.loads(args.input)
    except json.JSONDecodeError as error:
        raise CortexError(f"--input is not JSON: {error}", USAGE) from None
    if not isinstance(value, dict):
        raise CortexError("--input must be a JSON object (the tool_input)", USAGE)
    return value


def _evaluate(
    row: Any, tool: str, given: tuple[dict[str, Any], dict[str, Any]], keys: set[str], config: Config
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
        "auto_block": bool(row["auto_block"]),
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


def _human(
    args: argparse.Namespace, decision: str, reports: list[dict[str, Any]], read_as: list[str] | None
) -> str:
    shown = [report for report in reports if args.all or report["tool_accepted"]]
    lines = [f"Tool call: {args.tool} — the hook would: {decision.upper()}"]
    if read_as is not None:
        lines.append(f"Read as {render.count(len(read_as), 'simple commands')}:")
        lines += [f"  {render.clean(text, one_line=True)[:100]}" for text in read_as]
    if not reports:
        lines.append("No active learnings.")
    for report in shown:
        effect = f" -> {report['effect']}" if report["effect"] else ""
        text = " | ".join(report["text"]) or "(nothing: this tool has no such text)"
        matched = report["matched_command"]
        where = f" in `{render.clean(matched, one_line=True)[:80]}`" if matched is not None else ""
        lines.append(
            f"#{report['id']}{' (global)' if report['scope'] == 'global' else ''} "
            f"{render.clean(report['anti_pattern'], one_line=True)[:70]}\n"
            f"    regex {render.clean(report['regex'] or '-', one_line=True)} on {report['target']}: "
            f"{render.clean(text, one_line=True)[:100]}\n"
            f"    {report['result']}{where}{effect} (confidence {report['confidence']:.2f}"
            f"{', auto-block' if report['auto_block'] else ''})"
        )
    hidden = len(reports) - len(shown)
    if hidden:
        are = "learning is" if hidden == 1 else "learnings are"
        lines.append(f"{hidden} {are} for other tools (--all lists them).")
    return "\n".join(lines)
