"""Every verdict, as each agent's adapter writes it, against what that agent accepts:
Codex discards an answer with anything its schema does not know and runs the command, silently;
Gemini ignores a Claude-style decision; Copilot denies on a hook error; Cursor's format is its
documentation's. A property over all verdicts: no answer any agent discards, and no answer an
agent reads as allow when the judge denies or asks.

The accepted shapes are written here from what was verified with the real clients
(reference/other-agents.md; tests/test_agents_clients.py) and, for Cursor, from its
documentation (cursor.com/docs/hooks: permission, user_message, agent_message, updated_input)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_hooks import agents
from cortex_hooks.guard.judge import ANSWERS, Judgment

# --- what each agent accepts ---------------------------------------------------------------------


def codex_problem(answer: dict[str, Any] | None) -> str | None:
    """Why Codex 0.169 would discard this PreToolUse answer (and run the command), or None."""
    if answer is None:
        return None
    if set(answer) - {"hookSpecificOutput", "systemMessage"}:  # continue, stopReason, suppressOutput, others
        return f"top-level keys {sorted(set(answer))}"
    specific = answer.get("hookSpecificOutput")
    if not isinstance(specific, dict):
        return "hookSpecificOutput is not an object"
    known = {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "additionalContext",
    }
    if set(specific) - known:
        return f"unknown keys {sorted(set(specific) - known)}"
    if specific.get("hookEventName") != "PreToolUse":
        return "hookEventName"
    decision = specific.get("permissionDecision")
    if decision not in (None, "deny", "allow"):
        return f"permissionDecision {decision!r}"  # ask is unsupported: the command runs
    if decision == "deny" and not (
        isinstance(specific.get("permissionDecisionReason"), str) and specific["permissionDecisionReason"]
    ):
        return "a deny without a reason"
    if decision == "allow" and not isinstance(specific.get("updatedInput"), dict):
        return "allow without updatedInput"
    if "updatedInput" in specific and decision != "allow":
        return "updatedInput without allow"
    if "permissionDecisionReason" in specific and decision != "deny":
        return "a reason without a deny"
    for key in ("permissionDecisionReason", "additionalContext"):
        if key in specific and not isinstance(specific[key], str):
            return f"{key} is not a string"
    return None


def codex_blocks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer["hookSpecificOutput"].get("permissionDecision") == "deny"


def gemini_problem(answer: dict[str, Any] | None) -> str | None:
    if answer is None:
        return None
    if set(answer) - {"decision", "reason", "hookSpecificOutput", "systemMessage"}:
        return f"keys {sorted(set(answer))}"
    if "permissionDecision" in json.dumps(answer):
        return "a Claude-style permissionDecision (Gemini ignores it)"
    decision = answer.get("decision")
    if decision not in (None, "deny"):
        return f"decision {decision!r}"  # ask waits forever in gemini -p
    if decision == "deny" and not (isinstance(answer.get("reason"), str) and answer["reason"]):
        return "a deny without a reason"
    specific = answer.get("hookSpecificOutput")
    if specific is not None:
        if not isinstance(specific, dict) or set(specific) - {"hookEventName", "tool_input"}:
            return "hookSpecificOutput"
        if specific.get("hookEventName") != "BeforeTool" or not isinstance(specific.get("tool_input"), dict):
            return "hookSpecificOutput.tool_input"
    return None


def gemini_blocks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("decision") == "deny"


def copilot_problem(answer: dict[str, Any] | None) -> str | None:
    if answer is None:
        return None
    if set(answer) - {"permissionDecision", "permissionDecisionReason", "modifiedArgs", "additionalContext"}:
        return f"keys {sorted(set(answer))}"
    decision = answer.get("permissionDecision")
    if decision not in (None, "deny", "ask"):
        return f"permissionDecision {decision!r}"  # allow would skip the person's approval
    if decision is not None and not (
        isinstance(answer.get("permissionDecisionReason"), str) and answer["permissionDecisionReason"]
    ):
        return "a deny or ask without a reason"
    if "modifiedArgs" in answer and (decision is not None or not isinstance(answer["modifiedArgs"], dict)):
        return "modifiedArgs beside a decision, or not an object"
    return None


def copilot_blocks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("permissionDecision") in ("deny", "ask")


def cursor_problem(answer: dict[str, Any] | None, event: str) -> str | None:
    if answer is None:
        return "no JSON (Cursor reads an answer on every path)"
    if set(answer) - {"permission", "user_message", "agent_message", "updated_input"}:
        return f"keys {sorted(set(answer))}"
    permission = answer.get("permission")
    allowed = (None, "allow", "deny") if event == "preToolUse" else (None, "allow", "deny", "ask")
    if permission not in allowed:
        return f"permission {permission!r} on {event}"  # preToolUse does not enforce ask
    if "updated_input" in answer and (event != "preToolUse" or permission != "allow"):
        return "updated_input off preToolUse, or without allow"
    if permission in ("deny", "ask") and not (
        isinstance(answer.get("agent_message"), str) and answer["agent_message"]
    ):
        return "a deny without the agent's message"
    if permission is None and answer:
        return "fields without a permission"
    return None


def cursor_blocks(answer: dict[str, Any] | None) -> bool:
    return answer is not None and answer.get("permission") in ("deny", "ask")


# --- verdicts --------------------------------------------------------------------------------------

texts = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=200)


@st.composite
def judgments(draw: st.DrawFn) -> Judgment:
    """Any verdict the judge gives: its answer, the texts it carries, a rewrite's corrected input."""
    answer = draw(st.sampled_from(ANSWERS))
    context = draw(st.none() | texts)
    if answer == "allow":
        return Judgment("allow")
    if answer == "warn":
        return Judgment("warn", context=draw(texts))
    if answer == "rewrite":
        corrected = draw(texts)
        extra = draw(
            st.dictionaries(st.sampled_from(["description", "timeout", "dir_path"]), texts, max_size=2)
        )
        return Judgment(
            "rewrite", context=context, corrected=corrected, updated_input={**extra, "command": corrected}
        )
    judged = Judgment(answer, reason=draw(texts), context=context)
    if answer == "ask" and draw(st.booleans()):  # a corrected command the person is asked about
        judged.corrected = draw(texts)
        judged.updated_input = {"command": judged.corrected}
    return judged


SHELL_PAYLOADS = {
    "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "x"}},
    "gemini": {
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "x"},
    },
    "copilot": {"toolName": "bash", "toolArgs": {"command": "x"}},
}


@settings(max_examples=400, deadline=None)
@given(judged=judgments())
def test_no_verdict_is_an_answer_an_agent_discards_or_reads_as_allow(judged: Judgment) -> None:
    refused = judged.answer in ("deny", "ask")
    for name, problem, blocks in (
        ("codex", codex_problem, codex_blocks),
        ("gemini", gemini_problem, gemini_blocks),
        ("copilot", copilot_problem, copilot_blocks),
    ):
        answer = agents.adapter(name).pre_tool_use(judged, SHELL_PAYLOADS[name])
        json.dumps(answer)  # it is printed as JSON
        assert problem(answer) is None, (name, problem(answer), answer)
        assert blocks(answer) == refused, (name, judged.answer, answer)
    for event in ("preToolUse", "beforeShellExecution"):
        answer = agents.adapter("cursor").pre_tool_use(judged, {"hook_event_name": event})
        assert cursor_problem(answer, event) is None, (event, cursor_problem(answer, event), answer)
        # beforeShellExecution cannot change the command: a rewrite is a deny naming the corrected one
        rewritten = judged.answer == "rewrite" and event == "beforeShellExecution"
        assert cursor_blocks(answer) == (refused or rewritten), (event, judged.answer, answer)


@settings(max_examples=200, deadline=None)
@given(judged=judgments())
def test_a_rewrite_carries_the_corrected_command_or_is_a_deny_that_names_it(judged: Judgment) -> None:
    if judged.answer != "rewrite":
        return
    assert judged.corrected is not None
    codex = agents.adapter("codex").pre_tool_use(judged, SHELL_PAYLOADS["codex"])
    assert codex is not None
    assert codex["hookSpecificOutput"]["updatedInput"]["command"] == judged.corrected
    gemini = agents.adapter("gemini").pre_tool_use(judged, SHELL_PAYLOADS["gemini"])
    assert gemini is not None
    assert gemini["hookSpecificOutput"]["tool_input"] == judged.updated_input
    copilot = agents.adapter("copilot").pre_tool_use(judged, SHELL_PAYLOADS["copilot"])
    assert copilot is not None
    assert copilot["modifiedArgs"] == judged.updated_input
    cursor = agents.adapter("cursor").pre_tool_use(judged, {"hook_event_name": "preToolUse"})
    assert cursor is not None
    assert cursor["updated_input"] == judged.updated_input
    # beforeShellExecution carries no input: a deny naming the command to run instead
    shell = agents.adapter("cursor").pre_tool_use(judged, {"hook_event_name": "beforeShellExecution"})
    assert shell is not None
    assert shell["permission"] == "deny"
    assert "Run the corrected command instead" in shell["agent_message"]


@pytest.mark.parametrize("name", ["codex", "gemini"])
def test_an_ask_where_the_agent_has_none_is_a_deny_that_says_to_ask(name: str) -> None:
    judged = Judgment("ask", reason="cortex-hooks asks the user before this tool call: …")
    answer = agents.adapter(name).pre_tool_use(judged, SHELL_PAYLOADS[name])
    assert answer is not None
    text = json.dumps(answer)
    assert "ask the person in the conversation, and make the call only if they agree" in text
    assert "cortex-hooks asks the user before this tool call" in text


def test_copilot_keeps_its_ask_and_cursor_its_ask_where_it_is_enforced() -> None:
    judged = Judgment("ask", reason="ASK")
    assert agents.adapter("copilot").pre_tool_use(judged, SHELL_PAYLOADS["copilot"]) == {
        "permissionDecision": "ask",
        "permissionDecisionReason": "ASK",
    }
    cursor = agents.adapter("cursor")
    assert cursor.pre_tool_use(judged, {"hook_event_name": "beforeShellExecution"})["permission"] == "ask"
    assert cursor.pre_tool_use(judged, {"hook_event_name": "preToolUse"})["permission"] == "deny"


def test_cursor_answers_every_call_and_nothing_when_nothing_stops_it() -> None:
    """Cursor's answer on the documented format, exactly."""
    cursor = agents.adapter("cursor")
    assert cursor.pre_tool_use(Judgment("allow"), {"hook_event_name": "preToolUse"}) == {}
    assert cursor.pre_tool_use(Judgment("warn", context="W"), {"hook_event_name": "preToolUse"}) == {}
    denied = cursor.pre_tool_use(
        Judgment("deny", reason="R1\nR2", context="C"), {"hook_event_name": "preToolUse"}
    )
    assert denied == {"permission": "deny", "user_message": "R1", "agent_message": "R1\nR2\nC"}
    rewritten = Judgment(
        "rewrite", context="N", corrected="ls", updated_input={"command": "ls", "working_directory": "/p"}
    )
    assert cursor.pre_tool_use(rewritten, {"hook_event_name": "preToolUse"}) == {
        "permission": "allow",
        "updated_input": {"command": "ls", "working_directory": "/p"},
        "agent_message": "N",
    }


def test_the_session_start_answers_put_the_context_where_the_model_reads_it() -> None:
    assert agents.adapter("codex").session_start("CTX", "MSG") == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX"},
        "systemMessage": "MSG",
    }
    assert agents.adapter("gemini").session_start("CTX", None) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX"}
    }
    assert agents.adapter("copilot").session_start("CTX", "MSG") == {"additionalContext": "MSG\n\nCTX"}
    assert agents.adapter("cursor").session_start("CTX", None) == {"additional_context": "CTX"}
    for name in ("codex", "gemini", "copilot"):
        assert agents.adapter(name).session_start(None, None) is None
