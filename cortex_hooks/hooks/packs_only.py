"""PreToolUse with the core packs alone, on the standard library: the Claude Code plugin's hook
while its Python environment is being made (plugin/bin/cortex-launch runs it from the plugin's own
folder with the person's python3, before pydantic and `regex` are installed).

The call is judged by the one judge (guard.judge) under rules of the shipped core packs alone, as
enabling them would add them: no database is read or written (the person's learnings wait for the
environment), `re` stands in for `regex` (guard.matching; every pack pattern compiles with both,
tests/test_plugin.py checks it) and one alarm bounds the whole call in place of `regex`'s timeout.
What it answers is the hook's own wire answer (judging.protocol); a problem lets the call through
(docs/internals/guarantees.md).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from typing import Any

from cortex_hooks import confidence, stored
from cortex_hooks.guard import matching
from cortex_hooks.guard.call import Call
from cortex_hooks.guard.hits import Hit
from cortex_hooks.guard.judge import Candidate, judge

BOUND = 5  # seconds for the whole call: past it the call goes ahead (fail open)
GROUP = "core."  # the packs `install` enables; the plugin's setup enables them too
NOT_READY = (
    "The cortex-hooks plugin's Python environment is not ready yet; until it is, only its core "
    "packs guard the tool calls."
)


# A pack line's learning as enabling it stores it, before what the line says itself.
_ENABLED: dict[str, Any] = {
    "tool": "*",
    "target": "content",
    "action": "warn",
    "severity": "medium",
    "confidence": confidence.DEFAULT.start,
}


def learnings() -> list[stored.Learning]:
    """The shipped core packs' learnings, as enabling them would store them (id by position)."""
    folder = os.path.join(os.path.dirname(matching.__file__), "packs")  # importlib.resources: 8 ms more
    found: list[stored.Learning] = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(GROUP) and name.endswith(".jsonl"):
            with open(os.path.join(folder, name), encoding="utf-8") as stream:
                for line in stream:
                    declared = json.loads(line)
                    if "regex" not in declared:  # a pack's header line, its policy
                        continue
                    said = {key: value for key, value in declared.items() if key in stored.Learning._fields}
                    values = {**_ENABLED, **said, "slug": declared["id"], "id": len(found) + 1}
                    values["pack"] = name.removesuffix(".jsonl")
                    values["examples"] = None  # proved by `packs`, never by this hook
                    found.append(stored.read_from_a_file(**values))
    return found


class CoreRules:
    """The judge's view (guard.judge.Rules) of the core packs alone."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.rows = {learning.id: learning for learning in learnings()}

    def protection(self, call: Call) -> None:
        return None  # the built-in protection needs the environment (its settings judgement)

    def candidates(self, call: Call) -> list[Candidate]:
        found = [stored.candidate(learning) for learning in self.rows.values()]
        return [
            Candidate(row, 0, "project", (float(BOUND), 0.0))
            for row in found
            if row is not None and matching.tool_accepts(row.tool, call.tool)
        ]

    def hits(self, found: Any) -> list[Hit]:
        return [Hit.of(self.rows[candidate.row.id], correction=correction) for candidate, correction in found]

    def one_per_id(self, hits: list[Hit]) -> list[Hit]:
        return hits


def decide(payload: object, message: str = "") -> dict[str, Any] | None:
    """The hook's output for this payload: the judge's answer with the message for the person
    (the plugin's setup said), else the message alone, else None (the call goes ahead)."""
    said: dict[str, Any] = {"systemMessage": message} if message else {}
    if not isinstance(payload, dict):
        return said or None
    tool_name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        return said or None
    if matching.mistyped(tool_name, tool_input):
        return said or None
    judged = judge(Call(tool_name, tool_input, payload.get("cwd")), CoreRules())
    if judged.answer == "allow":
        return said or None
    from cortex_hooks.judging import protocol

    output = protocol.pre_tool_use(judged)
    specific = output["hookSpecificOutput"]
    specific["additionalContext"] = "\n".join(filter(None, [NOT_READY, specific.get("additionalContext")]))
    return {**said, **output}


def _late(signum: int, frame: object) -> None:
    raise TimeoutError


def main(message: str = "") -> int:
    """Exit 0 whatever happens: a deny (or the message) on stdout, or nothing."""
    data = sys.stdin.buffer.read()  # all of it, first: Claude Code's write of the payload never breaks
    signal.signal(signal.SIGALRM, _late)
    signal.alarm(BOUND)
    try:
        output = decide(json.loads(data), message)
    except Exception:  # fail open: while the environment is made, nothing else is decided
        output = {"systemMessage": message} if message else None
    finally:
        signal.alarm(0)
    if output is not None:
        sys.stdout.write(json.dumps(output) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:2]))
