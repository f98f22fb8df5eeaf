"""`import --from hookify [DIR]` (docs/guide/team.md): hookify's rule files read as hookify reads them, each
rule imported (regex, tool, target, action) or named with the reason it cannot be; the imported
learnings then act in the hook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

from cortex_hooks.guard import hookify_rules

RULES = {
    "rm": """---
name: block-dangerous-rm
enabled: true
event: bash
pattern: rm\\s+-rf
action: block
---

**Dangerous rm command detected!** Check the path first.
""",
    "env": """---
name: warn-env-edits
enabled: true
event: file
conditions:
  - field: file_path
    operator: regex_match
    pattern: \\.env$
  - field: new_text
    operator: contains
    pattern: API_KEY
---
An API key in a .env file.
""",
    "stop": """---
name: require-tests
enabled: true
event: stop
pattern: .*
---
Run the tests first.
""",
    "console": """---
name: no-console-log
event: file
conditions:
  - field: new_text
    operator: regex_match
    pattern: console\\.log\\(
  - field: new_text
    operator: not_contains
    pattern: eslint-disable
---
Remove console.log.
""",
    "ts": """---
name: ts-only
event: file
conditions:
  - field: file_path, operator: ends_with, pattern: .ts
---
A TypeScript file.
""",
    "both": """---
name: secrets-and-debug
event: file
action: warn
conditions:
  - field: new_text
    operator: contains
    pattern: SECRET
  - field: new_text
    operator: regex_match
    pattern: debug\\s*=\\s*true
---
Secret and debug together.
""",
    "off": """---
name: old-rule
enabled: false
event: bash
pattern: sudo
---
Disabled.
""",
    "nofront": "Just a note, no front matter.\n",
    "everything": """---
name: catch-all
event: bash
pattern: .*
action: block
---
Think before every command.
""",
    "nested": """---
name: slow
event: bash
pattern: (a+)+$
---
Slow.
""",
    "ask": """---
name: ask-before-publish
event: bash
pattern: npm\\s+publish
action: ask
---
Publishing: ask first.
""",
}


def write_rules(folder: Path, names: list[str] | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in RULES.items():
        if names is None or name in names:
            (folder / f"hookify.{name}.local.md").write_text(text)


def test_front_matter_is_read_as_hookify_reads_it() -> None:
    front, message = hookify_rules.front_matter(RULES["env"])
    assert front == {
        "name": "warn-env-edits",
        "enabled": True,
        "event": "file",
        "conditions": [
            {"field": "file_path", "operator": "regex_match", "pattern": "\\.env$"},
            {"field": "new_text", "operator": "contains", "pattern": "API_KEY"},
        ],
    }
    assert message == "An API key in a .env file."
    inline, _ = hookify_rules.front_matter(RULES["ts"])
    assert inline["conditions"] == [{"field": "file_path", "operator": "ends_with", "pattern": ".ts"}]
    assert hookify_rules.front_matter("no front matter") == ({}, "no front matter")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rm", {"regex": "(?i:rm\\s+-rf)", "tool": "Bash", "target": "content", "action": "block"}),
        ("ts", {"regex": "\\.ts\\Z", "tool": "Edit|Write|MultiEdit", "target": "path", "action": "warn"}),
        ("ask", {"tool": "Bash", "action": "ask"}),
        ("both", {"regex": "(?s)(?=.*?(?:SECRET))(?=.*?(?:(?i:debug\\s*=\\s*true)))", "target": "content"}),
    ],
)
def test_a_rule_becomes_one_learning(name: str, expected: dict[str, str]) -> None:
    front, message = hookify_rules.front_matter(RULES[name])
    learning = hookify_rules.learning(front, message, f"hookify.{name}.local.md")
    assert {key: learning[key] for key in expected} == expected
    assert message.split()[0] in learning["correct_pattern"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("env", "both a file's path and its content"),
        ("stop", "event stop"),
        ("console", "not_contains"),
        ("off", "disabled"),
        ("nofront", "no front matter"),
        ("everything", "matches every call"),  # issue 34 item 8: it would stop all work
    ],
)
def test_what_cannot_be_a_learning_says_why(name: str, reason: str) -> None:
    front, message = hookify_rules.front_matter(RULES[name])
    with pytest.raises(hookify_rules.Refused, match=reason):
        hookify_rules.learning(front, message, name)


def test_import_lists_every_rule_imported_or_not_and_the_learnings_act(db: Path) -> None:
    write_rules(Path.cwd() / ".claude")
    result = cli_json("import", "--from", "hookify")
    imported = {item["name"]: item for item in result["imported"]}
    refused = {item["name"]: item["reason"] for item in result["not_imported"]}
    assert set(imported) | set(refused) == {
        hookify_rules.front_matter(text)[0].get("name", "nofront") for text in RULES.values()
    }
    assert set(imported) == {"block-dangerous-rm", "ts-only", "secrets-and-debug", "ask-before-publish"}
    assert "nested unbounded" in refused["slow"]
    assert "matches every call" in refused["catch-all"]
    assert imported["ask-before-publish"]["action"] == "ask"
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(Path.cwd()),
               "tool_name": "Bash",
               "tool_input": {"command": "RM -RF /srv/data"}}  # fmt: skip
    denied = run("cortex-pre-tool-use", stdin=json.dumps(payload))
    assert '"permissionDecision": "deny"' in denied.stdout  # case-insensitive, as hookify matched it
    again = cli_json("import", "--from", "hookify")
    assert again["imported"] == []
    assert all(
        "imported before" in item["reason"] for item in again["not_imported"] if item["name"] in imported
    )
    text = cli("import", "--from", "hookify").stdout
    assert "not imported: hookify.stop.local.md: event stop" in text
    assert "not imported: hookify.everything.local.md: its pattern" in text


def test_import_from_a_folder_named_and_bad_input(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    write_rules(other / ".claude", ["rm"])
    result: Any = cli_json("import", "--from", "hookify", str(other))  # a project: its .claude/
    assert [item["name"] for item in result["imported"]] == ["block-dangerous-rm"]
    (other / ".claude" / "hookify.bin.local.md").write_bytes(b"---\nname: \xff\xfe\n---\n")
    result = cli_json("import", "--from", "hookify", str(other / ".claude"))
    assert any("not UTF-8" in item["reason"] for item in result["not_imported"])
    assert cli("import", "--from", "hookify", str(tmp_path / "missing")).code == 2
    assert cli("import").code == 2  # a FILE, or --from hookify


def test_an_empty_folder_imports_nothing_and_creates_nothing(db: Path) -> None:
    result = cli_json("import", "--from", "hookify")
    assert result["imported"] == []
    assert result["not_imported"] == []
    assert not db.exists()
