"""`import --from hookify [DIR]` (docs/guide/team.md): hookify's rules (`hookify.*.local.md` in the project's
`.claude/`, or in DIR) added as learnings of the scope acted on, in one transaction. Every rule is
either imported or listed with the reason it cannot be (guard.hookify_rules); one imported before (the
same regex, tool and target) is not added twice."""

from __future__ import annotations

import glob
import os
from contextlib import closing
from typing import Any

from cortex_hooks import clock, confidence, location
from cortex_hooks.api import databases as db
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.learnings import row_values
from cortex_hooks.api.wording import clean, count
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import hookify_rules
from cortex_hooks.guard.learning_records import LearningFields
from cortex_hooks.notes import Notes
from cortex_hooks.regular_file import read_small
from cortex_hooks.store import learnings as store
from cortex_hooks.store.connection import Transaction
from cortex_hooks.validation import validated

PATTERN = "hookify.*.local.md"
MAX_RULE_BYTES = 256 * 1024  # a rule file is a few lines; a larger one is not read


def folder(given: str | None) -> str:
    """Where the rules are: DIR (or its `.claude/` when DIR is a project), else the project's `.claude/`."""
    if given is None:
        return os.path.join(location.project_root(), ".claude")
    if not os.path.isdir(given):
        raise CortexError(f"{given} is not a folder (hookify keeps its rules in .claude/{PATTERN})", USAGE)
    inner = os.path.join(given, ".claude")
    if not glob.glob(os.path.join(given, PATTERN)) and os.path.isdir(inner):
        return inner
    return given


def import_rules(databases: Databases, given: str | None, notes: Notes) -> dict[str, Any]:
    """Read every rule file, add what can be learnings; what was imported and what was not, and why."""
    where = folder(given)
    files = sorted(glob.glob(os.path.join(where, PATTERN)))
    imported: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    wanted: list[tuple[str, str, LearningFields]] = []
    start = confidence.show(db.config(databases, notes).policy.start)
    for path in files:
        name = os.path.basename(path)
        front: dict[str, Any] = {}
        try:
            front, message = hookify_rules.front_matter(_read(path))
            learning = hookify_rules.learning(front, message, name)
            fields = _fields(learning, start)
        except hookify_rules.Refused as error:
            refused.append(
                {"file": name, "name": str(front.get("name") or _name(path)), "reason": str(error)}
            )
            continue
        wanted.append((name, str(learning["name"]), fields))
    if wanted:
        now = clock.iso(clock.now())
        with closing(db.for_writing(databases, notes)) as connection, Transaction(connection):
            for name, rule, fields in wanted:
                known = store.with_match(connection, fields.regex, fields.tool, fields.target)
                if known is not None:
                    refused.append(
                        {"file": name, "name": rule, "reason": f"imported before: learning #{known}"}
                    )
                    continue
                learning_id = store.insert(connection, row_values(fields, now))
                imported.append({"file": name, "name": rule, "id": learning_id, "regex": fields.regex,
                                 "tool": fields.tool, "target": fields.target,
                                 "action": fields.action})  # fmt: skip
    return {"folder": where, "scope": databases.scope, "imported": imported, "not_imported": refused}


def _read(path: str) -> str:
    try:
        return read_small(path, MAX_RULE_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise hookify_rules.Refused("not UTF-8 text") from None
    except (OSError, ValueError) as error:
        raise hookify_rules.Refused(f"cannot be read ({getattr(error, 'strerror', None) or error})") from None


def _name(path: str) -> str:
    base = os.path.basename(path)
    return base.removeprefix("hookify.").removesuffix(".local.md")


def _fields(learning: dict[str, Any], start: str) -> LearningFields:
    values = {key: learning[key] for key in ("anti_pattern", "correct_pattern", "regex", "tool", "target")}
    values["confidence"] = start
    values["action"] = learning["action"]
    values["severity"] = "high" if learning["action"] != "warn" else "medium"
    try:
        fields: LearningFields = validated(LearningFields, values, "rule")
        return fields
    except CortexError as error:
        raise hookify_rules.Refused(error.message.removeprefix("rule: ")) from None


# What people read of it, from the CLI and the MCP server alike. The text of `import --from
# hookify`: each rule imported, each one not and why.


def imported(result: dict[str, Any]) -> str:
    where = clean(result["folder"], one_line=True)
    lines = [
        f"Imported {count(len(result['imported']), 'rules')} of hookify from {where} ({result['scope']}); "
        f"{len(result['not_imported'])} not imported."
    ]
    for item in result["imported"]:
        lines.append(
            f"  #{item['id']} {clean(item['name'], one_line=True)} [{item['action']}, {item['tool']}, "
            f"{item['target']}]: {clean(item['regex'], one_line=True)}"
        )
    for item in result["not_imported"]:
        lines.append(
            f"  not imported: {clean(item['file'], one_line=True)}: {clean(item['reason'], one_line=True)}"
        )
    return "\n".join(lines)
