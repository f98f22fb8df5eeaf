"""A rule's examples (SPEC §20): the shared format carries them (`examples: {"deny": [...],
"allow": [...]}`) and validates them like the rest of a line, a pack's file carries its policy on
its first line, and every shipped pack rule fires on its deny examples and on none of its allow
examples through the hook's own evaluation path (that of `cortex-hooks explain`, for now)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

from cortex_hooks.errors import CortexError
from cortex_hooks.guard import packs, shared, shared_rules

LINE = {"anti_pattern": "a", "correct_pattern": "b", "id": "team:rule", "regex": "^git reset", "tool": "Bash"}


def line(**fields: Any) -> str:
    return json.dumps({**LINE, **fields}, sort_keys=True)


def problem(text: str) -> str:
    """What both readers of a line say of it: the pydantic model (team check, packs) and the
    hooks' plain rules (guard.shared_rules); they must agree."""
    with pytest.raises(ValueError, match=r"\w") as model:
        shared.entry(text)
    with pytest.raises(ValueError, match=r"\w") as plain:
        shared_rules.entry_values(text)
    assert str(plain.value).split(": ", 1)[0] in str(model.value)
    return str(model.value)


def test_a_rule_without_examples_is_valid_and_written_as_before() -> None:
    record = shared.entry(line())
    assert isinstance(record, shared.SharedLearning)
    assert record.examples is None
    assert "examples" not in shared.dump([record])  # a team file's bytes do not change
    assert shared_rules.entry_values(line())["examples"] is None


def test_examples_are_kept_in_the_canonical_form() -> None:
    examples = {"deny": ["git reset --hard"], "allow": ["git reset --soft HEAD~1", "echo 'git reset'"]}
    record = shared.entry(line(examples=examples))
    assert isinstance(record, shared.SharedLearning)
    assert record.examples == examples
    written = shared.dump([record])
    assert json.loads(written)["examples"] == examples
    assert shared.dump(shared.read(written, "team")) == written
    assert shared_rules.entry_values(line(examples={"deny": []}))["examples"] == {"deny": []}


@pytest.mark.parametrize(
    ("examples", "said"),
    [
        ({"deny": [1]}, "deny[0] of rule team:rule is not a string"),
        ({"allow": ["ls", None]}, "allow[1] of rule team:rule is not a string"),
        ({"deny": ["x" * (1 << 20)]}, "deny[0] of rule team:rule is over 64 KiB"),
        ({"deny": ["é" * 40_000]}, "deny[0] of rule team:rule is over 64 KiB"),  # 80,000 bytes
        ({"deny": ["git reset\x00 --hard"]}, "deny[0] of rule team:rule holds a NUL"),
        ({"deny": ["   "]}, "deny[0] of rule team:rule is blank"),
        ({"deny": ["x"] * 101}, "holds 101 examples"),
        ({"maybe": ["x"]}, "'maybe' of rule team:rule is no kind of example"),
        ({"deny": "git reset --hard"}, "deny of rule team:rule must be a list"),
        (["git reset --hard"], "must be an object"),
        ({}, "must be an object"),
    ],
)
def test_a_bad_example_is_refused_naming_the_rule_and_the_field(examples: object, said: str) -> None:
    found = problem(line(examples=examples))
    assert found.startswith("examples: ")
    assert said in found


def test_an_example_at_the_bound_is_kept() -> None:
    record = shared.entry(line(examples={"deny": ["x" * shared_rules.MAX_EXAMPLE_BYTES]}))
    assert isinstance(record, shared.SharedLearning)


def test_team_check_names_a_bad_example_with_its_rule(db: Path) -> None:
    team = Path.cwd() / ".claude" / "cortex-team.jsonl"
    team.parent.mkdir(parents=True, exist_ok=True)
    team.write_text(line(examples={"deny": ["git reset\x00"]}) + "\n")
    result = cli("team", "check")
    assert result.code == 1
    assert "examples: deny[0] of rule team:rule holds a NUL character" in result.stdout + result.stderr


POLICY = '{"kind": "policy", "pack": "mine", "policy": "Denies x; passes y."}'


def test_a_pack_file_begins_with_its_policy() -> None:
    text = POLICY + "\n" + line(id="mine:rule") + "\n"
    records = shared.read(text, "pack mine", pack="mine")
    assert [record.id for record in records] == ["mine:rule"]
    entries, said = shared.problems(text, "pack mine", pack="mine")
    assert said == []
    assert isinstance(entries[0], shared.PackPolicy)
    assert entries[0].policy == "Denies x; passes y."


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (line(id="mine:rule") + "\n", "pack mine line 1: kind: a pack's file begins with its policy"),
        (POLICY.replace('"mine"', '"other"') + "\n", "pack: names 'other', but this is the file of 'mine'"),
        (POLICY.replace('"Denies x; passes y."', '""') + "\n", "policy: must be the pack's policy"),
        (POLICY.replace('"Denies x; passes y."', json.dumps("x" * 5_000)) + "\n", "at most 4,000 characters"),
        ('{"hits": 3, ' + POLICY[1:] + "\n", "hits: Extra inputs are not permitted"),
        (POLICY + "\n" + POLICY + "\n", "line 2: kind: a pack's policy stands only on the first line"),
    ],
)
def test_a_pack_file_with_a_bad_policy_is_refused(text: str, said: str) -> None:
    with pytest.raises(CortexError, match=r"\w") as refused:
        shared.read(text, "pack mine", pack="mine")
    assert said in refused.value.message


def test_a_policy_line_in_a_team_file_is_refused() -> None:
    assert "a pack's policy stands only on the first line" in problem(POLICY)


def test_every_shipped_pack_has_a_policy_and_every_rule_both_kinds_of_examples() -> None:
    for name in packs.names():
        assert len(packs.policy(name)) > 100, name
        for record in packs.load(name):
            assert record.examples is not None, record.id
            assert record.examples.get("deny"), record.id
            assert record.examples.get("allow"), record.id


# --- every pack rule's examples through the hook's evaluation path ---------------------------


def slugs(db: Path) -> dict[int, str]:
    with closing(sqlite3.connect(db)) as connection:
        rows = connection.execute("SELECT id, slug FROM learning WHERE slug IS NOT NULL").fetchall()
    return {int(row[0]): str(row[1]) for row in rows}


def test_every_pack_rule_denies_its_deny_examples_and_none_of_its_allow_examples(db: Path) -> None:
    """Through `explain`'s evaluation (the hook's): each pack enabled in a real database, each
    example judged as a Bash call; a rule that misses one of its deny examples, or fires on one of
    its allow examples, is named. (The lead switches this to the one judge at merge.)"""
    from cortex_hooks.api import databases, explain
    from cortex_hooks.notes import Notes

    for name in packs.names():
        assert cli("packs", "enable", name).code == 0
    by_id = slugs(db)
    where = databases.find()
    wrong: list[str] = []
    for name in packs.names():
        for record in packs.load(name):
            assert record.examples is not None
            for kind in ("deny", "allow"):
                for example in record.examples.get(kind, []):
                    found = explain.explain(where, "Bash", {"command": example}, Notes())
                    fired = {
                        by_id.get(int(report["id"]))
                        for report in found.learnings
                        if report["result"] == "match"
                    }
                    if (record.id in fired) != (kind == "deny"):
                        wrong.append(
                            f"{record.id}: {kind} example {example!r} (fired: {sorted(map(str, fired))})"
                        )
    assert wrong == []


def test_the_installed_hook_denies_a_deny_example_of_each_pack(db: Path) -> None:
    """The same, end to end, for one deny and one allow example of each pack."""
    for name in packs.names():
        assert cli("packs", "enable", name).code == 0
    for name in packs.names():
        record = packs.load(name)[0]
        assert record.examples is not None
        for kind in ("deny", "allow"):
            example = record.examples[kind][0]
            payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(db.parent),
                       "tool_name": "Bash", "tool_input": {"command": example}}  # fmt: skip
            result = run("cortex-pre-tool-use", stdin=json.dumps(payload), timeout=120)
            assert result.code == 0, result.stderr
            denied = '"permissionDecision": "deny"' in result.stdout
            assert denied is (kind == "deny"), (record.id, kind, example, result.stdout[:300])
    assert cli_json("packs")
