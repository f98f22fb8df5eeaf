"""Rules prove they fire: examples validated where a rule is written (add, update, an
import file, a team line, a pack line), proved through the judge by doctor, `packs check` and
`team check` (exit 1 naming the rule), and a rewrite the built-in protection would refuse is
refused wherever a rule is written (it must not launder a call)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

from cortex_hooks.config import DEFAULT
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import examples, shared_rules
from cortex_hooks.guard.packs import shared_format, shipped
from cortex_hooks.guard.packs.shared_format import SharedLearning
from cortex_hooks.judging import proof

FORCE = (
    "--anti-pattern",
    "force push",
    "--correct=--force-with-lease",
    "--tool",
    "Bash",
    "--action",
    "block",
)


def add(*options: str) -> Any:
    return cli("add", *FORCE, *options)


def test_examples_are_kept_shown_and_updated_by_kind(db: Path) -> None:
    lease = "git push --force-with-lease"
    made = cli_json("add", *FORCE, "--regex", r"git push (-f|--force)(?!-with-lease)\b",
                    "--deny-example", "git push --force", "--allow-example", lease)  # fmt: skip
    assert made["examples"] == {"deny": ["git push --force"], "allow": ["git push --force-with-lease"]}
    changed = cli_json("update", str(made["id"]), "--deny-example", "git push -f origin main")
    assert changed["examples"] == {
        "deny": ["git push -f origin main"],
        "allow": ["git push --force-with-lease"],
    }
    exported = cli_json("export")
    assert exported["learnings"][0]["examples"] == changed["examples"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"deny": [1]}, "deny[0] is not a string"),
        ({"deny": ["x" * 1_048_576]}, "is over 64 KiB"),
        ({"allow": ["rm\x00-rf"]}, "NUL"),
        ({"deny": "git push -f"}, "deny must be a list"),
        ({"block": ["x"]}, "'block' is no kind of example"),
    ],
)
def test_an_import_with_a_bad_example_is_refused_and_writes_nothing(
    db: Path, tmp_path: Path, value: Any, said: str
) -> None:
    learning = {"anti_pattern": "a", "correct_pattern": "b", "regex": "x", "tool": "Bash", "examples": value}
    path = tmp_path / "import.json"
    path.write_text(json.dumps({"version": 1, "learnings": [learning]}))
    result = cli("import", str(path))
    assert result.code == 2
    assert "learnings.0.examples" in result.stderr
    assert said in result.stderr
    assert cli_json("list") == []  # nothing written


def test_a_rule_without_examples_is_valid_and_has_nothing_to_prove(db: Path) -> None:
    assert add("--regex", "git push").code == 0
    report = cli("doctor")
    assert "ok      examples" not in report.stdout
    assert "cannot fire" not in report.stdout


def test_doctor_names_a_rule_that_cannot_fire_and_one_that_fires_on_its_allow_example(db: Path) -> None:
    add("--regex", r"git push (-f|--force)\b", "--deny-example", "git push --force",
        "--allow-example", "git push --force-with-lease")  # fmt: skip
    add("--regex", r"git\s+push\s+--force\b", "--deny-example", "git push -f")  # -f is not --force
    add("--regex", r"^git reset --hard\b", "--deny-example", "git reset --hard",
        "--allow-example", "git reset --soft HEAD~1")  # fmt: skip
    result = cli("doctor")
    assert result.code == 1
    assert (
        'learning #1: fires on its own allow example: "git push --force-with-lease"'
        in result.stdout.replace("PROBLEM ", "")
    )
    assert "learning #2: cannot fire" in result.stdout.replace("PROBLEM ", "")
    assert "learning #3" not in result.stdout  # its examples hold


def test_a_muted_or_archived_rule_is_not_proved(db: Path) -> None:
    add("--regex", r"git\s+push\s+--force\b", "--deny-example", "git push -f")
    assert cli("archive", "1").code == 0
    assert "cannot fire" not in cli("doctor").stdout


def test_the_shipped_packs_each_prove_their_examples() -> None:
    result = cli("packs", "check")
    assert result.code == 0, result.stdout
    for name in shipped.names():
        for record in shipped.load(name):
            assert proof.given([record], name, DEFAULT) == []


def test_packs_check_names_a_pack_line_whose_examples_contradict_its_regex() -> None:
    record = SharedLearning.model_validate(
        {
            "id": "x.y:push",
            "regex": r"^git push\b",
            "anti_pattern": "a",
            "correct_pattern": "b",
            "tool": "Bash",
            "examples": {"deny": ["git pull"], "allow": ["git push origin main"]},
        }
    )
    found = [str(failure) for failure in proof.given([record], "x.y", DEFAULT)]
    assert found == [
        'x.y:push: cannot fire: it does not catch its deny example: "git pull"',
        'x.y:push: fires on its own allow example: "git push origin main"',
    ]


def test_team_check_proves_each_lines_examples(db: Path) -> None:
    line = {"action": "block", "anti_pattern": "a", "correct_pattern": "b", "id": "acme:push",
            "regex": r"^git push --force\b", "tool": "Bash",
            "examples": {"deny": ["git push -f"], "allow": ["git push"]}}  # fmt: skip
    team = Path.cwd() / ".claude" / "cortex-team.jsonl"
    team.parent.mkdir()
    team.write_text(json.dumps(line, sort_keys=True) + "\n")
    result = cli("team", "check")
    assert result.code == 1
    assert 'line 1: examples: cannot fire: it does not catch its deny example: "git push -f"' in result.stdout


@pytest.mark.parametrize(
    "rewrite",
    [
        "rm -rf .cortex; echo",
        "cortex-hooks archive 1 && echo",
        "sqlite3 .cortex/cortex.db 'delete from learning'",
    ],
)
def test_a_rewrite_the_built_in_protection_refuses_is_refused_everywhere(db: Path, rewrite: str) -> None:
    result = cli("add", "--anti-pattern", "date", "--correct", "x", "--tool", "Bash", "--regex", r"^date\b",
                 "--rewrite", rewrite)  # fmt: skip
    assert result.code == 2
    assert "rewrite: the built-in protection would refuse" in result.stderr
    assert (
        cli("add", "--anti-pattern", "d", "--correct", "x", "--tool", "Bash", "--regex", r"^date\b").code == 0
    )
    assert cli("update", "1", "--rewrite", rewrite).code == 2
    assert cli_json("show", "1")["rewrite"] is None


def test_a_team_line_whose_rewrite_would_launder_a_call_is_not_read(db: Path) -> None:
    line = {"action": "block", "anti_pattern": "a", "correct_pattern": "b", "id": "acme:date",
            "regex": r"^date\b", "tool": "Bash", "rewrite": "rm -rf .cortex; echo"}  # fmt: skip
    team = Path.cwd() / ".claude" / "cortex-team.jsonl"
    team.parent.mkdir()
    team.write_text(json.dumps(line, sort_keys=True) + "\n")
    cli("todos", "add", "--text", "a row, so the database exists")
    listed = cli_json("team", "list")
    assert listed["entries"] == [], listed
    assert any("line 1: rewrite: the built-in protection would refuse" in said for said in listed["problems"])


def test_an_example_is_made_into_the_call_of_its_tool_and_target() -> None:
    assert examples.call_of("git status", "Bash", "content").input == {"command": "git status"}
    assert examples.call_of("/p/.env", "Write", "path").input == {"file_path": "/p/.env"}
    assert examples.call_of("x = 1", "Write", "content").input["content"] == "x = 1"
    assert examples.call_of('{"sql": "DROP"}', "mcp__db__query", "input").input == {"sql": "DROP"}
    assert examples.tool_of("mcp__db__query|mcp__db__exec") == "mcp__db__query"
    assert examples.tool_of("*") == "Bash"
    assert examples.tool_of("^mcp__.*") is None


def test_the_report_names_a_rule_the_judge_does_not_bear_out(db: Path, tmp_path: Path) -> None:
    add("--regex", r"git\s+push\s+--force\b", "--deny-example", "git push -f")
    page = tmp_path / "report.html"
    assert cli("report", "--out", str(page)).code == 0
    text = page.read_text()
    assert "Rules the judge does not bear out" in text
    assert "learning #1: cannot fire" in text


# --- the format: examples on a line, a pack's policy line ------------------------------------

LINE = {"anti_pattern": "a", "correct_pattern": "b", "id": "team:rule", "regex": "^git reset", "tool": "Bash"}


def line(**fields: Any) -> str:
    return json.dumps({**LINE, **fields}, sort_keys=True)


def problem(text: str) -> str:
    """What both readers of a line say of it: the pydantic model (team check, packs) and the
    hooks' plain rules (guard.shared_rules); they must agree."""
    with pytest.raises(ValueError, match=r"\w") as model:
        shared_format.entry(text)
    with pytest.raises(ValueError, match=r"\w") as plain:
        shared_rules.entry_values(text)
    assert str(plain.value).split(": ", 1)[0] in str(model.value)
    return str(model.value)


def test_a_rule_without_examples_is_valid_and_written_as_before() -> None:
    record = shared_format.entry(line())
    assert isinstance(record, shared_format.SharedLearning)
    assert record.examples is None
    assert "examples" not in shared_format.dump([record])  # a team file's bytes do not change
    assert shared_rules.entry_values(line())["examples"] is None


def test_examples_are_kept_in_the_canonical_form() -> None:
    examples = {"deny": ["git reset --hard"], "allow": ["git reset --soft HEAD~1", "echo 'git reset'"]}
    record = shared_format.entry(line(examples=examples))
    assert isinstance(record, shared_format.SharedLearning)
    assert record.examples == examples
    written = shared_format.dump([record])
    assert json.loads(written)["examples"] == examples
    assert shared_format.dump(shared_format.read(written, "team")) == written
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
    record = shared_format.entry(line(examples={"deny": ["x" * shared_rules.MAX_EXAMPLE_BYTES]}))
    assert isinstance(record, shared_format.SharedLearning)


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
    records = shared_format.read(text, "pack mine", pack="mine")
    assert [record.id for record in records] == ["mine:rule"]
    entries, said = shared_format.problems(text, "pack mine", pack="mine")
    assert said == []
    assert isinstance(entries[0], shared_format.PackPolicy)
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
        shared_format.read(text, "pack mine", pack="mine")
    assert said in refused.value.message


def test_a_policy_line_in_a_team_file_is_refused() -> None:
    assert "a pack's policy stands only on the first line" in problem(POLICY)


def test_every_shipped_pack_has_a_policy_and_every_rule_both_kinds_of_examples() -> None:
    for name in shipped.names():
        assert len(shipped.policy(name)) > 100, name
        for record in shipped.load(name):
            assert record.examples is not None, record.id
            assert record.examples.get("deny"), record.id
            assert record.examples.get("allow"), record.id


def test_the_installed_hook_denies_a_deny_example_of_each_pack(db: Path) -> None:
    """Each pack enabled, one deny and one allow example of each through the installed hook."""
    for name in shipped.names():
        assert cli("packs", "enable", name).code == 0
    for name in shipped.names():
        record = shipped.load(name)[0]
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
