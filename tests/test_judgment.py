"""The judgment goals of issue 24 on labelled corpora, through the hook's own evaluator (and a
sample through the installed hook): the seven careful learnings and the core packs, on dcg's public
corpus (../shared/corpora/dcg beside the checkout) and on our own corpora (tests/corpora)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from judging import CORPORA, DCG, cases, core, denied, needs_dcg
from support import cli, cli_json, run

from cortex_hooks.guard.packs import shared_format, shipped


def careful() -> list[shared_format.SharedLearning]:
    return shared_format.read((CORPORA / "careful.jsonl").read_text(), "careful")


def figures(
    learnings: list[shared_format.SharedLearning], corpus: list[tuple[str, bool]], target: str = "content"
) -> dict[str, Any]:
    safe = [command for command, bad in corpus if not bad]
    bad = [command for command, bad in corpus if bad]
    return {
        "safe": len(safe),
        "safe_denied": [command for command in safe if denied(learnings, command, target)],
        "destructive": len(bad),
        "missed": [command for command in bad if not denied(learnings, command, target)],
    }


@needs_dcg
def test_careful_learnings_on_dcg_deny_almost_no_safe_command() -> None:
    found = figures(careful(), cases(DCG))
    assert found["safe"] == 249
    assert len(found["safe_denied"]) <= 3, found["safe_denied"]
    assert found["destructive"] - len(found["missed"]) >= 95, found["missed"]


@needs_dcg
def test_the_raw_string_denied_what_the_reader_does_not() -> None:
    """The same learnings on the raw string (target raw): the figures of issue 24's `now`."""
    found = figures(careful(), cases(DCG), "raw")
    assert len(found["safe_denied"]) > 30


def test_careful_learnings_on_agent_commands_deny_at_most_two_percent_of_safe_ones() -> None:
    found = figures(careful(), cases(CORPORA / "agent_commands.toml"))
    assert found["safe"] >= 100
    assert len(found["safe_denied"]) <= 0.02 * found["safe"], found["safe_denied"]
    assert len(found["missed"]) <= 0.1 * found["destructive"], found["missed"]


@needs_dcg
def test_core_packs_on_dcg() -> None:
    found = figures(core(), cases(DCG))
    assert found["destructive"] == 101
    assert len(found["missed"]) <= 2, found["missed"]
    assert len(found["safe_denied"]) <= 2, found["safe_denied"]


def every_pack() -> list[shared_format.SharedLearning]:
    return [record for name in shipped.names() for record in shipped.load(name)]


NEW_PACKS = ["containers", "kubernetes", "infrastructure", "databases", "cloud", "publishing"]


@pytest.mark.parametrize("name", NEW_PACKS)
def test_each_pack_on_its_own_corpus(name: str) -> None:
    """each pack's labelled corpus (written from its policy): every destructive command
    denied by the pack, no safe one denied by it, nor by any other pack."""
    corpus = cases(CORPORA / f"pack_{name}.toml")
    found = figures(shipped.load(name), corpus)
    assert found["destructive"] >= 50
    assert found["safe"] >= 60
    assert found["missed"] == []
    assert found["safe_denied"] == []
    assert figures(every_pack(), corpus)["safe_denied"] == []


@needs_dcg
def test_every_pack_on_dcg_denies_only_what_dcg_left_for_future_packs() -> None:
    """With every pack enabled, dcg's 101 destructive commands are still denied, and the only
    "safe" ones denied are those dcg labels allow for want of a containers or kubernetes pack."""
    found = figures(every_pack(), cases(DCG))
    assert found["destructive"] == 101
    assert found["missed"] == []
    assert found["safe_denied"] == [
        "docker system prune",
        "docker system prune -a",
        "kubectl delete namespace prod",
        "kubectl delete all --all",
    ]


@pytest.mark.parametrize("corpus", ["pack_core_git", "pack_core_filesystem", "agent_commands"])
def test_core_packs_on_their_own_corpora(corpus: str) -> None:
    found = figures(core(), cases(CORPORA / f"{corpus}.toml"))
    assert found["safe_denied"] == []
    assert found["missed"] == []


@pytest.mark.parametrize("name", shipped.names())
def test_a_pack_file_is_valid_and_canonical(name: str) -> None:
    import pack_sources

    text = shipped.text(name)
    assert text == pack_sources.build()[name]  # edit tests/pack_sources/, then `python tests/pack_sources`
    entries, problems = shared_format.problems(text, name, pack=name)
    assert problems == []
    policy, *rest = entries
    assert isinstance(policy, shared_format.PackPolicy)
    assert policy.pack == name
    assert policy.policy == shipped.policy(name)
    records = [record for record in rest if isinstance(record, shared_format.SharedLearning)]
    assert records == rest
    assert shared_format.dump(records, policy) == text  # policy first, keys and lines sorted, a final newline
    assert all(record.id.startswith(name + ":") for record in records)
    assert all(record.action == "block" and record.tool == "Bash" for record in records)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"b": 1, "a": 2}\n', "keys are not sorted"),
        ("not json\n", "not JSON"),
        ('{"anti_pattern": "a", "correct_pattern": "b", "id": "x:y", "regex": "("}\n', "regex"),
        ('{"anti_pattern": "a", "correct_pattern": "b", "id": "Bad Id", "regex": "x"}\n', "id"),
        ('{"anti_pattern": "a", "correct_pattern": "b", "hits": 3, "id": "x:y", "regex": "x"}\n', "hits"),
        ('{"anti_pattern": "a", "correct_pattern": "b", "id": "x:y", "regex": "x"}', "final newline"),
        (
            '{"anti_pattern": "a", "correct_pattern": "b", "id": "x:z", "regex": "x"}\n'
            '{"anti_pattern": "a", "correct_pattern": "b", "id": "x:y", "regex": "x"}\n',
            "not sorted by id",
        ),
    ],
)
def test_the_shared_format_names_each_problem(text: str, problem: str) -> None:
    from cortex_hooks.errors import CortexError

    with pytest.raises(CortexError, match=problem):
        shared_format.read(text, "team")


def hook(command: str, cwd: Path) -> Any:
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": str(cwd), "tool_name": "Bash",
               "tool_input": {"command": command}}  # fmt: skip
    return run("cortex-pre-tool-use", stdin=json.dumps(payload), timeout=120)


BAD_COMMANDS = [
    "echo 'unclosed; rm -rf /",
    "cat <<EOF\nno terminator\nrm -rf /",
    "$(" * 10_000,
    "git reset --hard\x00",
    "echo \\udcff \\ud800",
    "echo " + "x" * 50_000_000,
]


@pytest.mark.parametrize("command", BAD_COMMANDS, ids=lambda command: repr(command[:20]))
def test_bad_input_through_the_installed_hook_never_fails_it(command: str, db: Path) -> None:
    assert cli("packs", "enable", "core").code == 0
    result = hook(command, db.parent)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    if "git reset --hard" in command and not command.startswith("echo"):
        assert '"permissionDecision": "deny"' in result.stdout


SQL_ROWS = "INSERT INTO audit (id, note) VALUES (1, 'drop table, only as text');\n" * 16_000  # 1 MB
PACKS_BAD_INPUT = [  # issue 37's bad input, every pack enabled: (command, denied)
    ("psql -d app <<'SQL'\n" + SQL_ROWS + "SQL\n", False),
    ("psql -d app <<'SQL'\n" + SQL_ROWS + "DROP TABLE users;\nSQL\n", True),
    ("psql -d app -f /srv/unseen/migration.sql", False),  # what the hook cannot see is no guess
    ("docker compose -f /srv/app/docker-compose.prod.yml down", False),
    (" | ".join(["grep -v -e skip"] * 10_000), False),
    (" | ".join([*(["grep -v -e skip"] * 9_999), "xargs rm -rf"]), True),
]


@pytest.mark.parametrize(("command", "denied"), PACKS_BAD_INPUT, ids=lambda value: repr(value)[:30])
def test_bad_input_with_every_pack_is_decided_by_the_installed_hook(
    command: str, denied: bool, db: Path
) -> None:
    """Decided, never a failure (the time is bench.py's: a 1 MB SQL heredoc, 10,000 pipeline stages)."""
    for name in shipped.names():
        assert cli("packs", "enable", name).code == 0
    result = hook(command, db.parent)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert ('"permissionDecision": "deny"' in result.stdout) is denied


def test_the_packs_through_the_installed_hook_agree_with_the_evaluator(db: Path) -> None:
    cli_json("packs", "enable", "core")
    for command, bad in (
        cases(CORPORA / "pack_core_git.toml")[::7] + cases(CORPORA / "pack_core_filesystem.toml")[::7]
    ):
        result = hook(command, db.parent)
        assert result.code == 0, (command, result.stderr)
        assert ('"permissionDecision": "deny"' in result.stdout) is bad, command
