"""A rule's examples: the calls it must catch (`deny`) and the calls it must let through
(`allow`) — validated by guard.shared_rules.examples, the one rule for every source — each made
into the tool call a hook would see; and the proof, through the one judge and the very rules the
hook reads (prefilter included), that a rule fires on the first and not on the second. A rule
that silently never fires is the guard defect users report most.

An example is the text the rule's target reads of one call of its tool: a Bash command (target
content or raw), the text written (content, for Write, Edit, MultiEdit, NotebookEdit), a file's
path (path), or the call's tool_input as JSON (input, and content for any other tool; a text that
is no JSON object is given as `{"text": …}`). The tool is the first of FIRST_TOOLS the rule's
tool matcher accepts, else the first name it lists.
"""

from __future__ import annotations

import json

from cortex_hooks.guard import matching
from cortex_hooks.guard.call import Call
from cortex_hooks.guard.shared_rules import EXAMPLE_KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.judge import Rules
    from cortex_hooks.stored import Learning

# The tools an example is made for, in this order: the first one the tool matcher accepts.
FIRST_TOOLS = (
    "Bash",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Read",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "Agent",
    "Task",
    "PowerShell",
)
_WRITTEN = {"Write": "content", "Edit": "new_string", "NotebookEdit": "new_source"}


def stored(value: object) -> object:
    """Examples as the database keeps them: JSON text, keys sorted (NULL for none); a text as it is."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def loaded(stored: object) -> dict[str, list[str]] | None:
    """Examples as the database keeps them (JSON text, NULL for none), or as given."""
    if not stored:
        return None
    value = json.loads(stored) if isinstance(stored, str) else stored
    return value if isinstance(value, dict) else None


def tool_of(matcher: str) -> str | None:
    """The tool an example of a rule with this tool matcher is a call of, or None when no tool
    can be named for it (a regex that accepts none of FIRST_TOOLS)."""
    for tool in FIRST_TOOLS:
        if matching.tool_accepts(matcher, tool):
            return tool
    names = [name.strip() for name in matcher.replace(",", "|").split("|")]
    if names and all(names) and matching.tool_accepts(matcher, names[0]):
        return names[0]
    return None


def call_of(example: str, tool: str, target: str) -> Call:
    """The tool call an example stands for (see the module's notes)."""
    if tool in ("Bash", "PowerShell") and target in ("content", "raw"):
        return Call(tool, {"command": example})
    if target == "path":
        field = "notebook_path" if tool == "NotebookEdit" else "file_path" if tool in _PATH_TOOLS else "path"
        return Call(tool, {field: example})
    if target == "content" and tool in _WRITTEN:
        return Call(tool, {"file_path": "example", _WRITTEN[tool]: example})
    if target == "content" and tool == "MultiEdit":
        return Call(tool, {"file_path": "example", "edits": [{"old_string": "", "new_string": example}]})
    try:
        given = json.loads(example)
    except ValueError:
        given = None
    return Call(tool, given if isinstance(given, dict) else {"text": example})


_PATH_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "Read"})


class Failure:
    """A rule whose examples do not hold: which rule (`rule`: its id or slug, as a person names
    it), the example, and what is wrong (`cannot fire`, `fires on its allow example`, or why no
    call could be made of it)."""

    __slots__ = ("example", "problem", "rule")

    def __init__(self, rule: str, example: str | None, problem: str) -> None:
        self.rule = rule
        self.example = example
        self.problem = problem

    def __str__(self) -> str:
        if self.example is None:
            return f"{self.rule}: {self.problem}"
        shown = self.example if len(self.example) <= 80 else self.example[:79] + "…"
        return f"{self.rule}: {self.problem}: {json.dumps(shown, ensure_ascii=False)}"


def proved(rules: Rules, rule: Learning, scope: str, name: str) -> list[Failure]:
    """Each example of one rule (a stored learning) judged under
    `rules` (where the rule is in force, in `scope`): a deny example it does not catch, or an
    allow example it catches, is a failure."""
    examples = loaded(rule.examples) or {}
    if not examples:
        return []
    tool = tool_of(rule.tool)
    if tool is None:
        problem = f"its tool matcher {rule.tool!r} names no tool an example can be a call of"
        return [Failure(name, None, problem)]
    failures = []
    for kind in EXAMPLE_KINDS:
        for example in examples.get(kind, []):
            from cortex_hooks.guard.judge import judge

            judged = judge(call_of(example, tool, rule.target), rules)
            fired = any(hit.id == rule.id and hit.scope == scope for hit in judged.matched)
            if kind == "deny" and not fired:
                failures.append(Failure(name, example, "cannot fire: it does not catch its deny example"))
            elif kind == "allow" and fired:
                failures.append(Failure(name, example, "fires on its own allow example"))
    return failures
