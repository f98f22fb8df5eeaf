"""hookify's rules (`.claude/hookify.*.local.md`, Claude Code's hookify plugin) read as learnings
(docs/guide/team.md), pure: each rule either becomes one learning (regex, tool, target, action) or is named
with the reason it cannot be. Never silently dropped.

A rule file is YAML front matter between `---` lines — `name`, `enabled` (default true), `event`
(bash, file, stop, prompt or all; default all), a `pattern` or a list of `conditions` (each
`field`, `operator`, default regex_match, and `pattern`), `action` (warn, block or ask; default
warn), `tool_matcher` — and a markdown body, the message. hookify reads the front matter with a
small parser of its own (top-level `key: value`, lists of `- key: value` items continued on
indented lines, or written `- a: x, b: y` on one line); this reads it the same way. hookify matches
`regex_match` case-insensitively against the raw field; every condition must hold.
"""

from __future__ import annotations

import re
from typing import Any

# hookify's event → the tools its rules see (its PreToolUse hook: Bash is `bash`; Edit, Write and
# MultiEdit are `file`; any other tool only loads rules of event `all`).
EVENT_TOOLS = {"bash": "Bash", "file": "Edit|Write|MultiEdit", "all": "*"}
# A condition's field → our target for those tools (None: no learning sees that field).
FIELD_TARGETS = {
    "command": "content",
    "new_text": "content",
    "new_string": "content",
    "content": "content",
    "file_path": "path",
}
_SHELL_OPERATORS = re.compile(r"&&|;|\\\||\|\||\\n")  # a pattern about how commands are joined


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (as hookify's parser reads it) and the message body; ({}, text) without one."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
    if not text.startswith("---"):
        return {}, text
    parts = text.split("---", 2)
    if len(parts) < 3:
        return {}, text
    reader = _Reader()
    for line in parts[1].split("\n"):
        if line.strip() and not line.strip().startswith("#"):
            reader.line(line)
    reader.close()
    return reader.found, parts[2].strip()


class _Reader:
    """hookify's front-matter reading, line by line: top-level keys, and lists of items."""

    def __init__(self) -> None:
        self.found: dict[str, Any] = {}
        self.key: str | None = None
        self.items: list[Any] = []
        self.item: dict[str, str] | None = None

    def close(self) -> None:
        if self.key is not None:
            self.found[self.key] = [*self.items, *([self.item] if self.item else [])]
        self.key, self.items, self.item = None, [], None

    def line(self, line: str) -> None:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if indent == 0 and ":" in line and not stripped.startswith("-"):
            self.close()
            name, value = (part.strip() for part in line.split(":", 1))
            if value:
                self.found[name] = _scalar(value)
            else:
                self.key = name
        elif stripped.startswith("-") and self.key is not None:
            self._list_item(stripped[1:].strip())
        elif indent > 2 and self.item is not None and ":" in line:
            self.item.update([_pair(stripped)])

    def _list_item(self, body: str) -> None:
        if self.item:
            self.items.append(self.item)
            self.item = None
        if ":" in body and "," in body:  # `- field: command, operator: regex_match`, as hookify splits it
            self.items.append(dict(_pair(part) for part in body.split(",") if ":" in part))
        elif ":" in body:
            self.item = dict([_pair(body)])
        else:
            self.items.append(_unquoted(body))


def _unquoted(value: str) -> str:
    return value.strip().strip('"').strip("'")


def _pair(text: str) -> tuple[str, str]:
    name, value = text.split(":", 1)
    return name.strip(), _unquoted(value)


def _scalar(value: str) -> object:
    value = _unquoted(value)
    return {"true": True, "false": False}.get(value.lower(), value)


class Refused(ValueError):
    """Why a rule cannot be a learning."""


def learning(front: dict[str, Any], message: str, file_name: str) -> dict[str, Any]:
    """The learning a rule becomes (the fields of `cortex-hooks add`), or Refused saying why not."""
    if not front:
        raise Refused("no front matter (a hookify rule starts with ---)")
    name = str(front.get("name") or "unnamed")
    if front.get("enabled", True) is False:
        raise Refused("disabled in hookify (enabled: false)")
    event = str(front.get("event", "all"))
    if event not in EVENT_TOOLS:
        raise Refused(f"event {event}: cortex-hooks guards tool calls (bash, file, all), not {event}")
    action = str(front.get("action", "warn"))
    if action not in ("warn", "block", "ask"):
        raise Refused(f"action {action!r}: hookify itself only warns on it; say warn, block or ask")
    conditions = _conditions(front, event)
    regex, target = _combined(conditions)
    if _matches_everything(regex):
        raise Refused(
            f"its pattern {regex[:80]!r} matches every call (an empty one and any command alike): "
            "as a learning it would stop all work; give a pattern of what the rule is about"
        )
    tool = str(front.get("tool_matcher") or EVENT_TOOLS[event])
    if target == "path" and tool in ("Bash", "*"):
        raise Refused("file_path is a field of file tools: give event file")
    if target == "content" and tool == "Bash" and _SHELL_OPERATORS.search(regex):
        target = "raw"  # about how commands are joined: the raw command, as hookify reads it
    summary = " ".join(message.split())[:500] or f"hookify rule {name}"
    return {
        "anti_pattern": f"hookify rule {name} ({file_name}): {summary}"[:1000],
        "correct_pattern": summary,
        "regex": regex,
        "tool": tool,
        "target": target,
        "action": action,
        "name": name,
    }


_ANY_CALL = ("ls", "x", "git status", "npm test", "cd src && make", "/tmp/a.txt", "{}", "#")


def _matches_everything(regex: str) -> bool:
    """Whether a rule's regex matches whatever it is given (`.*`, `^`, `.+`, `.`): it matches
    each of a few calls that share nothing."""
    try:
        compiled = re.compile(regex)
        return all(compiled.search(text) for text in _ANY_CALL)
    except (re.error, RecursionError, OverflowError):
        return False  # a bad regex is refused where it is compiled, with its own reason


def _conditions(front: dict[str, Any], event: str) -> list[dict[str, str]]:
    conditions = front.get("conditions")
    if isinstance(conditions, list) and conditions:
        if not all(isinstance(item, dict) for item in conditions):
            raise Refused("conditions must be a list of field/operator/pattern items")
        return [{key: str(value) for key, value in item.items()} for item in conditions]
    pattern = front.get("pattern")
    if not pattern:
        raise Refused("no pattern and no conditions: hookify never matches it")
    field = {"bash": "command", "file": "new_text"}.get(event, "content")
    return [{"field": field, "operator": "regex_match", "pattern": str(pattern)}]


def _combined(conditions: list[dict[str, str]]) -> tuple[str, str]:
    """One regex for conditions that must all hold, on one target; Refused when they cannot be."""
    targets = set()
    parts = []
    for condition in conditions:
        field = condition.get("field", "")
        target = FIELD_TARGETS.get(field)
        if target is None:
            raise Refused(f"field {field or '(none)'}: a learning matches a call's command, content or path")
        targets.add(target)
        parts.append(_operator(condition.get("operator", "regex_match"), condition.get("pattern", "")))
    if len(targets) > 1:
        raise Refused("conditions on both a file's path and its content: a learning matches one of them")
    (target,) = targets
    if len(parts) == 1:
        return parts[0], target
    return "(?s)" + "".join(f"(?=.*?(?:{part}))" for part in parts), target


def _operator(operator: str, pattern: str) -> str:
    if not pattern:
        raise Refused("a condition with an empty pattern")
    literal = re.escape(pattern)
    if operator == "regex_match":
        return f"(?i:{pattern})"  # hookify compiles it with re.IGNORECASE
    if operator == "contains":
        return literal
    if operator == "equals":
        return rf"\A{literal}\Z"
    if operator == "starts_with":
        return rf"\A{literal}"
    if operator == "ends_with":
        return rf"{literal}\Z"
    if operator == "not_contains":
        raise Refused("operator not_contains: a learning matches what a call holds, not what it lacks")
    raise Refused(f"operator {operator!r}: hookify never matches it")
