"""The rules of one line of the shared format (docs/guide/team.md), as plain functions, without pydantic.

The hooks read a changed team file with these (importing pydantic and building the model cost a
hook ~100 ms, the whole budget of the first call after a change); guard.packs.shared_format's pydantic models
wrap the very same functions as validators, so the two agree on every rule and every word, as
memory.given and the memory import's model do. `learning` and `memory` return the line's values
with the defaults filled in, or raise ValueError naming each offending field (`field: message`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cortex_hooks import checks
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching
from cortex_hooks.memory import given

SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*:[a-z0-9][a-z0-9-]*")
TARGETS = ("content", "path", "input", "raw")
ACTIONS = ("block", "ask", "warn")
SEVERITIES = ("low", "medium", "high", "critical")
LEARNING_DEFAULTS: dict[str, Any] = {
    "tool": "*",
    "target": "content",
    "action": "warn",
    "severity": "medium",
    "rewrite": None,
    "context": None,
}
LEARNING_REQUIRED = ("id", "regex", "anti_pattern", "correct_pattern")
MEMORY_DEFAULTS: dict[str, Any] = {"type": given.DEFAULT_TYPE, "tags": []}
MEMORY_REQUIRED = ("id", "kind", "content")
EXAMPLE_KINDS = ("deny", "allow")  # what a rule's examples say it does with each (docs/internals/judge.md)
MAX_EXAMPLE_BYTES = 64 * 1024  # one example, in UTF-8: a command, not a file
MAX_EXAMPLES = 100  # of each kind, per rule
MAX_POLICY = 4_000  # characters of a pack's policy


def slug(value: str) -> str:
    if not SLUG.fullmatch(value):
        raise ValueError("must be a slug like `core.git:reset-hard` (lower case, one colon)")
    return value


def regex(pattern: str) -> str:
    """A pattern that compiles within bounds and cannot take exponential time on benign text."""
    try:
        matching.compile_pattern(pattern)
    except CortexError as error:
        raise ValueError(error.message) from None
    from cortex_hooks.guard.unmatchable import nested_quantifiers

    wrong = nested_quantifiers(pattern)
    if wrong is not None:
        raise ValueError(wrong)
    return pattern


def tool(matcher: str) -> str:
    try:
        return matching.check_tool_matcher(matcher)
    except CortexError as error:
        raise ValueError(error.message) from None


def checked_rewrite(template: str | None, fields: dict[str, object]) -> str | None:
    """A rewrite as given, or ValueError when its learning (the fields validated before it:
    regex, tool, target) cannot carry it or it makes its own match (guard.rewrite)."""
    if template is None:
        return None
    from cortex_hooks.guard import rewrite

    if "regex" not in fields or "tool" not in fields or "target" not in fields:
        return template  # one of them is invalid and reported: nothing to check against
    refused = rewrite.refusal(str(fields["tool"]), str(fields["target"]))
    if refused:
        raise ValueError(refused)
    if not fields["regex"]:
        raise ValueError("a rewrite needs a regex: it replaces what the regex matches")
    try:
        rewrite.check(str(fields["regex"]), template, str(fields["target"]))
    except CortexError as error:
        raise ValueError(error.message) from None
    return template


def examples(value: object, rule: str = "") -> dict[str, list[str]] | None:
    """A rule's examples (`{"deny": [...], "allow": [...]}`, either kind may be left out), or
    ValueError naming the rule (`rule`, its id) and the offending example: each a string, no NUL,
    at most MAX_EXAMPLE_BYTES in UTF-8, at most MAX_EXAMPLES of each kind."""
    if value is None:
        return None
    of = f" of rule {rule}" if rule else ""
    if not isinstance(value, dict) or not value:
        raise ValueError(f'must be an object such as {{"deny": [...], "allow": [...]}}{of}')
    found: dict[str, list[str]] = {}
    for kind, items in value.items():
        if kind not in EXAMPLE_KINDS:
            raise ValueError(f"{str(kind)[:40]!r}{of} is no kind of example (deny or allow)")
        if not isinstance(items, list):
            raise ValueError(f"{kind}{of} must be a list of commands")
        if len(items) > MAX_EXAMPLES:
            raise ValueError(f"{kind}{of} holds {len(items):,} examples (at most {MAX_EXAMPLES})")
        for number, item in enumerate(items):
            where = f"{kind}[{number}]{of}"
            if not isinstance(item, str):
                raise ValueError(f"{where} is not a string")
            if "\x00" in item:
                raise ValueError(f"{where} holds a NUL character")
            if not checks.text(checks.encodable(item)).strip():
                raise ValueError(f"{where} is blank")
            if len(item) > MAX_EXAMPLE_BYTES // 4 and len(item.encode("utf-8")) > MAX_EXAMPLE_BYTES:
                raise ValueError(f"{where} is over {MAX_EXAMPLE_BYTES // 1024} KiB")
        found[kind] = list(items)
    return found


def policy(value: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """A pack's policy line (`{"kind": "policy", "pack": NAME, "policy": TEXT}`, the first line
    of a pack file): what the pack denies and lets through, in words; `name`: the pack's."""
    problems = [f"{field}: Field required" for field in ("kind", "pack", "policy") if field not in value]
    problems += [
        f"{field}: Extra inputs are not permitted"
        for field in value
        if field not in ("kind", "pack", "policy")
    ]
    pack, text = value.get("pack"), value.get("policy")
    if "pack" in value and (not isinstance(pack, str) or not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", pack)):
        problems.append("pack: must be a pack's name (lower case, digits, `.`, `_`, `-`)")
    elif name is not None and pack is not None and pack != name:
        problems.append(f"pack: names {pack!r}, but this is the file of {name!r}")
    if "policy" in value:
        if not isinstance(text, str) or not text.strip():
            problems.append("policy: must be the pack's policy, in words")
        elif len(text) > MAX_POLICY:
            problems.append(f"policy: must be at most {MAX_POLICY:,} characters, got {len(text):,}")
        else:
            checks.encodable(text)
    if problems:
        raise ValueError("; ".join(problems[:5]))
    return {"kind": "policy", "pack": pack, "policy": text}


def _one_of(choices: tuple[str, ...]) -> Any:
    def rule(value: str) -> str:
        if value not in choices:
            *first, last = (repr(choice) for choice in choices)
            raise ValueError(f"Input should be {', '.join(first)} or {last}")
        return value

    return rule


def _text(value: str) -> str:
    return checks.text(value)


def _same(value: Any) -> Any:
    return value


_LEARNING_RULES: dict[str, tuple[Any, bool]] = {  # field: (rule, None allowed)
    "id": (slug, False),
    "tool": (tool, False),
    "target": (_one_of(TARGETS), False),
    "regex": (regex, False),
    "anti_pattern": (_text, False),
    "correct_pattern": (_text, False),
    "action": (_one_of(ACTIONS), False),
    "severity": (_one_of(SEVERITIES), False),
    "rewrite": (_same, True),
    "context": (_same, True),
}


def learning(value: dict[str, Any]) -> dict[str, Any]:
    """A learning line's values, every rule met, defaults filled in."""
    problems: list[str] = [f"{name}: Field required" for name in LEARNING_REQUIRED if name not in value]
    problems += [
        f"{name}: Extra inputs are not permitted"
        for name in value
        if name not in _LEARNING_RULES and name != "examples"
    ]
    found = {**LEARNING_DEFAULTS, "examples": None}
    try:
        found["examples"] = examples(value.get("examples"), str(value.get("id", ""))[:80])
    except ValueError as error:
        problems.append(f"examples: {error}")
    for name, (rule, nullable) in _LEARNING_RULES.items():
        if name not in value:
            continue
        item = value[name]
        if item is None and nullable:
            found[name] = None
            continue
        if not isinstance(item, str):
            problems.append(f"{name}: Input should be a valid string")
            continue
        try:
            found[name] = rule(checks.encodable(item))
        except ValueError as error:
            problems.append(f"{name}: {error}")
    if found["rewrite"] is not None and not any(
        p.split(":")[0] in ("regex", "tool", "target") for p in problems
    ):
        try:
            checked_rewrite(found["rewrite"], found)
        except ValueError as error:
            problems.append(f"rewrite: {error}")
    if problems:
        raise ValueError("; ".join(problems[:5]))
    return found


def memory(value: dict[str, Any]) -> dict[str, Any]:
    """A memory line's values (`"kind": "memory"`), every rule met, defaults filled in."""
    known = ("id", "kind", "content", "type", "tags")
    problems: list[str] = [f"{name}: Field required" for name in MEMORY_REQUIRED if name not in value]
    problems += [f"{name}: Extra inputs are not permitted" for name in value if name not in known]
    found = {**MEMORY_DEFAULTS, "kind": "memory"}
    for name, rule in (("id", slug), ("content", given.content), ("type", given.memory_type)):
        if name in value:
            try:
                if not isinstance(value[name], str):
                    raise ValueError("Input should be a valid string")
                found[name] = rule(checks.encodable(value[name]))
            except ValueError as error:
                problems.append(f"{name}: {error}")
    if "tags" in value:
        tags = given.listed(value["tags"])
        if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
            problems.append("tags: Input should be a valid list of strings")
        else:
            try:
                found["tags"] = given.tags([given.tag(tag) for tag in tags])
            except ValueError as error:
                problems.append(f"tags: {error}")
    if problems:
        raise ValueError("; ".join(problems[:5]))
    return found


# What git leaves in a file it could not merge: the lines between are both sides' (docs/guide/team.md).
CONFLICT_MARKERS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")


def parsed(line: str, *, memories: bool = False) -> tuple[str, dict[str, Any]]:
    """A line's kind (learning or memory, allowed where `memories`: the team file) and its JSON
    object (a learning's without `kind`); ValueError when it is no such line."""
    if line.startswith(CONFLICT_MARKERS):
        raise ValueError("a merge-conflict marker: resolve the conflict (git left both sides here)")
    try:
        value = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deeply)") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    kind = value.get("kind", "learning")
    if kind == "memory" and memories:
        return "memory", value
    if kind == "learning":
        return "learning", {key: item for key, item in value.items() if key != "kind"}
    if kind == "policy":
        raise ValueError("kind: a pack's policy stands only on the first line of a pack's file")
    raise ValueError(f"kind: must be {'learning or memory' if memories else 'learning'}, got {kind!r}")


def entry_values(line: str, *, memories: bool = False) -> dict[str, Any]:
    """One line's values, every rule met (`kind` included); ValueError saying what is wrong."""
    kind, value = parsed(line, memories=memories)
    if kind == "memory":
        return memory(value)
    return {**learning(value), "kind": "learning"}
