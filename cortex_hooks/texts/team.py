"""The texts of the team file: its list, what trusting or adding did, check's problems, the line
SessionStart says while it waits to be trusted."""

from __future__ import annotations

from typing import Any

from cortex_hooks.guard.team_rules import waiting_line as waiting
from cortex_hooks.texts.words import clean, count

__all__ = ["added", "checked", "listing", "muted", "trusted", "waiting"]

PATH = ".claude/cortex-team.jsonl"


def listing(listed: dict[str, Any]) -> str:
    if not listed["exists"]:
        return f"No team file ({PATH}). Write one: cortex-hooks team add ID --from N"
    state = (
        "trusted"
        if listed["trusted"]
        else "NOT trusted: its blocks and asks act as warnings (cortex-hooks team trust)"
    )
    lines = [f"{PATH}: {_entries(len(listed['entries']))}, {state}"]
    for entry in listed["entries"]:
        if entry["kind"] == "memory":
            lines.append(f"  {entry['id']}  memory")
            continue
        acting = (
            entry["in_force"]
            if entry["in_force"] == entry["action"]
            else f"{entry['in_force']} (declares {entry['action']})"
        )
        muted = ", muted" if entry["muted"] else ""
        rewrite = ", rewrites" if entry["rewrite"] else ""
        lines.append(f"  {entry['id']}  {acting}{rewrite}{muted}, {count(entry['hits'], 'hits')}")
    lines += [f"  problem: {clean(problem, one_line=True)}" for problem in listed["problems"]]
    return "\n".join(lines)


def trusted(result: dict[str, Any]) -> str:
    acting = [
        count(result[name], plural)
        for name, plural in (("block", "blocks"), ("ask", "asks"), ("rewrite", "rewrites"))
        if result[name]
    ]
    what = f": {', '.join(acting)} now in force" if acting else ""
    lines = [f"Trusted {PATH} ({_entries(result['entries'])}, digest {result['digest'][:12]}){what}."]
    for entry in result.get("rewrites", []):  # each command it will now change before it runs
        lines.append(
            f"  rewrite turned on: {clean(entry['id'], one_line=True)}: what "
            f"`{clean(entry['regex'] or '', one_line=True)}` matches becomes "
            f"`{clean(entry['rewrite'], one_line=True)}`"
        )
    return "\n".join(lines)


def added(result: dict[str, Any]) -> str:
    trust = "" if result["trusted"] else " The file is not trusted here yet: cortex-hooks team trust."
    return (
        f"Added {result['id']} (learning #{result['from']}, {result['action']}) to {PATH}: commit it, "
        f"and each teammate's clone enforces it once they run cortex-hooks team trust.{trust}"
    )


def muted(result: dict[str, Any]) -> str:
    return f"{'Muted' if result['muted'] else 'Unmuted'} team learning {result['id']} (for you only)."


def checked(result: dict[str, Any]) -> str:
    if result["ok"]:
        return f"{PATH}: {_entries(result['entries'])}, no problem."
    return "\n".join(clean(problem, one_line=True) for problem in result["problems"])


def _entries(number: int) -> str:
    return f"{number} {'entry' if number == 1 else 'entries'}"
