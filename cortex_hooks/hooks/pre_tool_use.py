"""PreToolUse: the call judged (guard.judge) against the built-in protection and the learnings of
every scope; the matches boosted; the deny, ask, correction or warning Claude Code reads (SPEC §4.1,
§16, §20).

This is the hot path, run before every tool call. A call that cannot match any learning costs
a JSON parse, a few substring tests for the guard's own places, an index lookup per scope and
nothing else: `regex`, the clock and the settings are imported only once a candidate survives the
prefilter and the tool matcher. pydantic is never imported here (unless a config file is to be
read): it alone costs more than the whole no-match path, and the few payload fields this hook uses
are checked with the standard library.
"""

from __future__ import annotations

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching
from cortex_hooks.guard.call import Call, Origin
from cortex_hooks.guard.judge import judge
from cortex_hooks.hooks import pipeline
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.scopes import Scope
from cortex_hooks.upkeep import team_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.protected import Refusal


def main() -> int:
    return pipeline.leave(
        pipeline.run("PreToolUse", parse, handle, guard_files=True, without_database=True, kept=True)
    )


def parse(payload: dict[str, Any]) -> tuple[Call, Origin]:
    """The fields this hook's decision reads, checked with the standard library (no pydantic
    here), and where the call was asked; nothing else (SPEC §19): the session id, a description,
    an extra key of any type or depth never stops a deny."""
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name:
        raise CortexError("invalid payload: tool_name must be a non-empty string")
    if not isinstance(tool_input, dict):
        raise CortexError("invalid payload: tool_input must be a JSON object")
    problem = matching.mistyped(tool_name, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    origin = Origin(
        _text(payload.get("session_id")),
        _text(payload.get("tool_use_id")),
        _text(payload.get("transcript_path")),
    )
    return Call(tool_name, tool_input, payload.get("cwd")), origin


def _text(value: object) -> str | None:
    """A payload field the decision never reads, or None when it is no text."""
    return value if isinstance(value, str) and value else None


def handle(asked: tuple[Call, Origin], scopes: list[Scope]) -> pipeline.Outcome:
    """The call judged under the rules in force (no database at all: the built-in protection
    alone); a match recorded, with where it was asked."""
    call, origin = asked
    outcome = pipeline.Outcome()
    for scope in scopes:
        if scope.connection is None:  # it cannot be used (a lock, a full disk …): its guard file decides
            outcome.notes.append(f"{scope.name} database skipped ({scope.why}): decided from its guard file")
        elif not scope.is_global:  # the team file, read in only when its stat changed (SPEC §17)
            outcome.problems += team_file.refresh(
                scope.connection, location.hook_project(call.cwd), scope.path
            )
    rules = InForce(scopes, protection=_protection, problems=outcome.problems)
    judged = judge(call, rules)
    if judged.answer == "allow":
        return outcome
    # past here the hot path imports more; a call that matches nothing never gets here
    from cortex_hooks.hooks import record
    from cortex_hooks.judging import protocol

    judged = record.recorded(call, rules, judged, outcome, origin)
    outcome.output = protocol.pre_tool_use(judged) if judged.answer != "allow" else None
    return outcome


def _protection(tool: str, tool_input: dict[str, Any], cwd: object) -> Refusal | None:
    """The built-in protection's refusal (judging.protection), imported only for a call that
    names one of the guard's places."""
    from cortex_hooks.judging import protection

    return protection.refusal(tool, tool_input, cwd)
