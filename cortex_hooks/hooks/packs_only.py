"""PreToolUse with the core packs alone, on the standard library: the Claude Code plugin's hook
while its Python environment is being made (plugin/bin/cortex-launch runs it from the plugin's own
folder with the person's python3, before pydantic and `regex` are installed).

No database is read or written (the person's learnings wait for the environment): each core pack
learning that blocks is judged as the hook judges it — its tool matcher, its target's text, a
Bash command read by the command reader simple command by simple command, data never matched —
with `re` in place of `regex` (every pack pattern compiles with both; tests/test_plugin.py
checks it) and one alarm bounding the whole call in place of `regex`'s timeout. A match denies,
naming the learnings; anything else, a problem included, lets the call through (SPEC §4.4).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from typing import Any

from cortex_hooks import sanitize
from cortex_hooks.guard import matching

BOUND = 5  # seconds for the whole call: past it the call goes ahead (fail open)
GROUP = "core."  # the packs `install` enables; the plugin's setup enables them too
SAID = (
    "cortex-hooks blocked this tool call: it matches a learned anti-pattern. Do it the correct way "
    "instead. (The cortex-hooks plugin's Python environment is not ready yet; until it is, only "
    "its core packs guard the tool calls.)"
)


class _Plain:
    """A pattern of `re` as guard.reading searches one of `regex` (its `timeout` is the alarm's)."""

    __slots__ = ("compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.compiled = re.compile(pattern)

    def search(self, text: str, position: int = 0, timeout: float | None = None) -> re.Match[str] | None:
        return self.compiled.search(text, position)


def learnings() -> list[dict[str, Any]]:
    """The blocking learnings of the shipped core packs, as their files hold them."""
    folder = os.path.join(os.path.dirname(matching.__file__), "packs")  # importlib.resources: 8 ms more
    found = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(GROUP) and name.endswith(".jsonl"):
            with open(os.path.join(folder, name), encoding="utf-8") as stream:
                found += [
                    learning for line in stream if (learning := json.loads(line)).get("action") == "block"
                ]
    return found


def matched(tool_name: str, tool_input: dict[str, Any]) -> list[dict[str, Any]]:
    """The core pack learnings this call matches."""
    from cortex_hooks.guard import reading

    hits = []
    for learning in learnings():
        if not matching.tool_accepts(learning.get("tool") or "*", tool_name):
            continue
        target = learning.get("target") or "content"
        texts = matching.fragments("content" if target == "raw" else target, tool_name, tool_input)
        subject = matching.subject(target, tool_name, texts)
        plain = _Plain(learning["regex"])
        if isinstance(subject, list):
            found = any(plain.search(text) for text in subject)
        else:
            found = reading.locate(plain, subject, float(BOUND), 0.0) is not None  # the alarm bounds it
        if found:
            hits.append(learning)
    return hits


def reason(hits: list[dict[str, Any]]) -> str:
    lines = [SAID]
    for learning in hits:
        lines += [
            f"- learning {learning['id']} ({learning.get('severity', 'medium')})",
            f"  NEVER: {sanitize.line(learning['anti_pattern'])}",
            f"  DO: {sanitize.line(learning['correct_pattern'])}",
        ]
    return "\n".join(lines)


def decide(payload: object, message: str = "") -> dict[str, Any] | None:
    """The hook's output for this payload: a deny, else the message for the person (the plugin's
    setup said), else None (the call goes ahead, nothing said)."""
    said: dict[str, Any] = {"systemMessage": message} if message else {}
    if not isinstance(payload, dict):
        return said or None
    tool_name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        return said or None
    if matching.mistyped(tool_name, tool_input):
        return said or None
    hits = matched(tool_name, tool_input)
    if not hits:
        return said or None
    return {
        **said,
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason(hits),
        },
    }


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
