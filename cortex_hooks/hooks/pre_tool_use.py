"""PreToolUse: the call judged (guard.judge) against the built-in protection and the learnings of
every scope; the matches boosted; the deny, ask, correction or warning Claude Code — or the agent
the script was started for (`--agent NAME`, cortex_hooks.agents) — reads (SPEC §4.1, §16, §20, §22).

This is the hot path, run before every tool call. A call that cannot match any learning costs
a JSON parse, a few substring tests for the guard's own places, an index lookup per scope and
nothing else: `regex`, the clock and the settings are imported only once a candidate survives the
prefilter and the tool matcher. pydantic is never imported here (unless a config file is to be
read): it alone costs more than the whole no-match path, and the few payload fields this hook uses
are checked with the standard library.
"""

from __future__ import annotations

import sys

from cortex_hooks import agents, location
from cortex_hooks.api import team_file
from cortex_hooks.guard.call import Call, Origin
from cortex_hooks.guard.judge import judge
from cortex_hooks.hooks import pipeline
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.store.scopes import Scope

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from cortex_hooks.guard.selfguard.protected import Refusal


def main() -> int:
    return pipeline.leave(
        pipeline.run(
            "PreToolUse",
            parse,
            handle,
            guard_files=True,
            without_database=True,
            kept=True,
            agent=agents.named(sys.argv[1:]),
        )
    )


class Parsed:
    """A PreToolUse payload as its agent's adapter reads it: the calls (one, or one per file of a
    patch), whether a rewrite may be answered, what writes the answer, and where the calls were
    asked (what a catch's outcome is worked out from)."""

    __slots__ = ("adapter", "calls", "origin", "payload", "rewrites")

    def __init__(self, calls: list[Call], rewrites: bool, adapter: ModuleType, payload: dict[str, Any]):
        self.calls = calls
        self.rewrites = rewrites
        self.adapter = adapter
        self.payload = payload
        self.origin = Origin(
            _text(payload.get("session_id")),
            _text(payload.get("tool_use_id")),
            _text(payload.get("transcript_path")),
        )


def parse(payload: dict[str, Any], adapter: ModuleType) -> Parsed:
    """The calls the agent's payload makes (cortex_hooks.agents: Claude Code's fields checked with
    the standard library, nothing else read: SPEC §19)."""
    calls, rewrites = adapter.calls(payload)
    return Parsed(calls, rewrites, adapter, payload)


def _text(value: object) -> str | None:
    """A payload field the decision never reads, or None when it is no text."""
    return value if isinstance(value, str) and value else None


def handle(parsed: Parsed, scopes: list[Scope]) -> pipeline.Outcome:
    """Each call judged under the rules in force (no database at all: the built-in protection
    alone); a match recorded, with where it was asked; the agent's answer to the strictest verdict."""
    outcome = pipeline.Outcome()
    cwd = parsed.calls[0].cwd if parsed.calls else None
    for scope in scopes:
        if scope.connection is None:  # it cannot be used (a lock, a full disk …): its guard file decides
            outcome.notes.append(f"{scope.name} database skipped ({scope.why}): decided from its guard file")
        elif not scope.is_global:  # the team file, read in only when its stat changed (SPEC §17)
            outcome.problems += team_file.refresh(scope.connection, location.hook_project(cwd), scope.path)
    rules = InForce(scopes, protection=_protection, problems=outcome.problems)
    judgments = [judge(call, rules, rewrites=parsed.rewrites) for call in parsed.calls]
    if all(judged.answer == "allow" for judged in judgments):
        outcome.output = getattr(parsed.adapter, "NOTHING", None)
        return outcome
    # past here the hot path imports more; a call that matches nothing never gets here
    from cortex_hooks.guard.judge import strictest
    from cortex_hooks.hooks import record

    judgments = [
        record.recorded(call, rules, judged, outcome, parsed.origin) if judged.answer != "allow" else judged
        for call, judged in zip(parsed.calls, judgments, strict=True)
    ]
    judged = strictest(judgments)
    outcome.output = parsed.adapter.pre_tool_use(judged, parsed.payload)
    return outcome


def _protection(tool: str, tool_input: dict[str, Any], cwd: object) -> Refusal | None:
    """The built-in protection's refusal (judging.protection), imported only for a call that
    names one of the guard's places."""
    from cortex_hooks.judging import protection

    return protection.refusal(tool, tool_input, cwd)
