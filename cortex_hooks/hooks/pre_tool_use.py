"""PreToolUse: match the tool call against learnings; boost, then deny, ask, correct or warn
(SPEC §4.1, §16).

This is the hot path, run before every tool call. A call that cannot match any learning costs
a JSON parse, an index lookup and nothing else: `regex`, the clock and the settings are imported
only once a candidate survives the prefilter and the tool matcher. pydantic is never imported
here (unless a config file is to be read): it alone costs more than the whole no-match path, and
the few payload fields this hook uses are checked with the standard library.
"""

from __future__ import annotations

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching
from cortex_hooks.hooks import pipeline, tool_call
from cortex_hooks.hooks.tool_call import ToolCall
from cortex_hooks.scopes import Scope
from cortex_hooks.upkeep import team_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def main() -> int:
    return pipeline.leave(pipeline.run("PreToolUse", parse, handle, guard_files=True))


def parse(payload: dict[str, Any]) -> ToolCall | pipeline.Outcome:
    """The fields this hook's decision reads, checked with the standard library (no pydantic
    here); nothing else (SPEC §19): the session id, a description, an extra key of any type or
    depth never stops a deny. A call the built-in protection denies is decided here, before any
    database is opened."""
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name:
        raise CortexError("invalid payload: tool_name must be a non-empty string")
    if not isinstance(tool_input, dict):
        raise CortexError("invalid payload: tool_input must be a JSON object")
    problem = matching.mistyped(tool_name, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    if location.names_own_place(tool_input, payload.get("cwd")):  # SPEC §19; others pay substring tests
        from cortex_hooks.hooks import built_in

        refused = built_in.refusal(tool_name, tool_input, payload.get("cwd"))
        if refused is not None:
            return pipeline.Outcome(built_in.output(refused))
    return ToolCall(tool_name, tool_input, payload.get("cwd"))


def handle(call: ToolCall, scopes: list[Scope]) -> pipeline.Outcome:
    """The learnings of every scope against this call; one verdict on all their matches."""
    texts = {
        target: matching.fragments(target, call.tool_name, call.tool_input) for target in matching.TARGETS
    }
    outcome = pipeline.Outcome()
    looked = tool_call.lookups(call.tool_name, texts)
    hits: list[Any] = []
    subjects: dict[str, Any] | None = None
    for scope in scopes:
        if scope.connection is None:  # held unreadable by another process: its guard file decides
            outcome.notes.append(
                f"{scope.name} database held by another process: decided from its guard file"
            )
        elif not scope.is_global:  # the team file, read in only when its stat changed (SPEC §17)
            outcome.problems += team_file.refresh(
                scope.connection, location.hook_project(call.cwd), scope.path
            )
        rows = tool_call.candidates(scope, call.tool_name, texts, looked, outcome.problems)
        if not rows:
            continue
        # past here the hot path imports more; a call that matches nothing never gets here
        if subjects is None:
            subjects = {target: matching.subject(target, call.tool_name, texts[target]) for target in texts}
        from cortex_hooks.hooks import tool_matches

        decide = tool_matches.recorded if scope.connection is not None else tool_matches.guarded
        hits += decide(scope, rows, outcome, call=call, texts=texts, subjects=subjects)
    if hits:
        from cortex_hooks.guard import verdict
        from cortex_hooks.hooks import protocol, tool_matches
        from cortex_hooks.upkeep import team_precedence

        hits = team_precedence.one_per_id(hits, scopes)
        decided = verdict.decide(hits)
        if decided is not None and decided.answer == "rewrite":
            decided = tool_matches.recheck(decided, call, scopes, outcome.problems)
        outcome.output = protocol.pre_tool_use(decided) if decided else None
    return outcome
