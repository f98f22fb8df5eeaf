"""`cortex-hooks` learnings commands end to end, through the installed console script."""

from __future__ import annotations

import hashlib
import json
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support import Result, added, cli, cli_json, payload, reminder_unless_regex, run

FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": int,
    "anti_pattern": str,
    "correct_pattern": str,
    "regex": (str, type(None)),
    "tool": str,
    "target": str,
    "severity": str,
    "auto_block": bool,
    "pinned": bool,
    "confidence": (int, float),
    "access_count": int,
    "last_accessed": (str, type(None)),
    "created_at": str,
    "updated_at": str,
    "archived_at": (str, type(None)),
    "context": (str, type(None)),
}


def add(*options: str, **kwargs: Any) -> dict[str, Any]:
    return added(*options, anti="rm -rf", correct="use trash", **kwargs)


def instant(text: str) -> datetime:
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert parsed.utcoffset() is not None, f"{text} has no time zone"
    assert parsed.utcoffset().total_seconds() == 0, f"{text} is not UTC"  # type: ignore[union-attr]
    return parsed


def listed(*options: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = cli_json("list", *options)
    return records


def ids(records: list[dict[str, Any]]) -> list[int]:
    return [record["id"] for record in records]


def fails_with_usage(result: Result) -> None:
    """Exit 2, one stderr line starting `cortex-hooks:`, nothing on stdout, no traceback."""
    assert result.code == 2, (result.code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks:"), result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def fingerprint(db: Path) -> tuple[str, Any]:
    """The database bytes (WAL and all) and its rows as the CLI exports them."""
    digest = hashlib.sha256()
    for path in sorted(db.parent.glob(db.name + "*")):
        digest.update(path.name.encode() + path.read_bytes())
    exported = json.loads(cli("export").stdout)
    return digest.hexdigest(), exported


def test_add_defaults_and_record_shape() -> None:
    record = add()
    assert set(FIELDS) <= set(record)
    for field, kind in FIELDS.items():
        assert isinstance(record[field], kind), (field, record[field])
    assert record["id"] >= 1
    assert record["anti_pattern"] == "rm -rf"
    assert record["correct_pattern"] == "use trash"
    assert record["regex"] is None
    assert record["tool"] == "*"
    assert record["target"] == "content"
    assert record["severity"] == "medium"
    assert record["confidence"] == 0.70
    assert record["auto_block"] is False
    assert record["pinned"] is False
    assert record["access_count"] == 0
    assert record["last_accessed"] is None
    assert record["archived_at"] is None
    assert record["context"] is None
    assert instant(record["created_at"]) == instant(record["updated_at"])


def test_add_with_every_option() -> None:
    record = add(
        "--regex", r"rm\s+-rf", "--tool", "Bash|PowerShell", "--target", "input",
        "--severity", "critical", "--auto-block", "--pin", "--confidence", "0.85",
        "--context", "cleaning build dirs",
    )  # fmt: skip
    assert record["regex"] == r"rm\s+-rf"
    assert record["tool"] == "Bash|PowerShell"
    assert record["target"] == "input"
    assert record["severity"] == "critical"
    assert record["auto_block"] is True
    assert record["pinned"] is True
    assert record["confidence"] == 0.85
    assert record["context"] == "cleaning build dirs"
    assert cli_json("show", str(record["id"]))["regex"] == r"rm\s+-rf"


def test_cortex_now_fixes_the_times() -> None:
    record = add(env={"CORTEX_NOW": "2024-03-05T06:07:08Z"})
    assert instant(record["created_at"]) == datetime(2024, 3, 5, 6, 7, 8, tzinfo=UTC)
    assert instant(record["updated_at"]) == datetime(2024, 3, 5, 6, 7, 8, tzinfo=UTC)
    shown = cli_json("show", str(record["id"]), env={"CORTEX_NOW": "2024-04-01T00:00:00+00:00"})
    assert instant(shown["last_accessed"]) == datetime(2024, 4, 1, tzinfo=UTC)


def test_ids_are_distinct_and_list_shows_them_in_order() -> None:
    first, second, third = add()["id"], add()["id"], add()["id"]
    assert len({first, second, third}) == 3
    assert sorted(ids(listed())) == sorted([first, second, third])


def test_list_does_not_count_and_show_counts_exactly_one_access() -> None:
    learning = str(add()["id"])
    for _ in range(3):
        assert cli("list").code == 0
        assert listed()[0]["access_count"] == 0
    assert listed("--all")[0]["access_count"] == 0
    first = cli_json("show", learning)
    assert first["access_count"] == 1
    assert first["last_accessed"] is not None
    assert cli("show", learning).code == 0  # the human form counts too
    assert cli_json("show", learning)["access_count"] == 3
    assert listed()[0]["access_count"] == 3


def test_update_changes_every_add_option() -> None:
    learning = str(add("--regex", "rm")["id"])
    updated = cli_json(
        "update", learning, "--anti-pattern", "new anti", "--correct", "new correct",
        "--regex", "drop", "--tool", "Bash", "--target", "path", "--severity", "high",
        "--auto-block", "--pin", "--confidence", "0.55", "--context", "why",
    )  # fmt: skip
    expected = {
        "anti_pattern": "new anti",
        "correct_pattern": "new correct",
        "regex": "drop",
        "tool": "Bash",
        "target": "path",
        "severity": "high",
        "auto_block": True,
        "pinned": True,
        "confidence": 0.55,
        "context": "why",
    }
    assert {field: updated[field] for field in expected} == expected
    assert cli_json("show", learning) | {"access_count": 0, "last_accessed": None} == updated | {
        "access_count": 0,
        "last_accessed": None,
    }
    assert cli_json("update", learning, "--no-auto-block")["auto_block"] is False
    assert cli_json("show", learning)["pinned"] is True  # untouched by --no-auto-block


def test_update_keeps_the_other_fields() -> None:
    record = add("--severity", "low", "--tool", "Write", "--confidence", "0.45")
    updated = cli_json("update", str(record["id"]), "--context", "more")
    for field in ("anti_pattern", "correct_pattern", "tool", "severity", "confidence", "created_at"):
        assert updated[field] == record[field], field
    assert updated["context"] == "more"


def test_update_of_the_regex_takes_effect_on_matching() -> None:
    learning = str(add("--regex", "never-in-the-command", "--auto-block")["id"])
    assert run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).stdout == ""
    cli_json("update", learning, "--regex", r"rm\s+-rf")
    hooked = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"))
    assert hooked.code == 0, hooked.stderr
    output = hooked.json()["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"#{learning}" in output["permissionDecisionReason"]
    cli_json("update", learning, "--regex", "gone-again")
    assert run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).stdout == ""


def test_update_of_the_target_takes_effect_on_matching() -> None:
    learning = str(add("--regex", '"description":"x"')["id"])
    assert run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).stdout == ""
    cli_json("update", learning, "--target", "input")
    output = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).json()
    assert f"#{learning}" in output["hookSpecificOutput"]["additionalContext"]


def test_no_regex_removes_the_regex_and_excludes_regex(db: Path) -> None:
    learning = str(add("--regex", r"rm\s+-rf", "--auto-block")["id"])
    before = fingerprint(db)
    fails_with_usage(cli("update", learning, "--regex", "x", "--no-regex"))
    fails_with_usage(cli("add", "--anti-pattern", "a", "--correct", "b", "--regex", "x", "--no-regex"))
    assert fingerprint(db) == before
    updated = cli_json("update", learning, "--no-regex")
    assert (updated["regex"], updated["auto_block"]) == (None, True)
    assert run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash")).stdout == ""


def test_an_empty_regex_is_refused_with_the_way_to_remove_one() -> None:
    learning = str(add("--regex", "rm")["id"])
    result = cli("update", learning, "--regex=")
    fails_with_usage(result)
    assert "--no-regex" in result.stderr
    assert cli_json("show", learning)["regex"] == "rm"


def test_a_permission_rule_as_tool_says_what_a_matcher_is() -> None:
    result = cli("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", "--tool", "Bash(git:*)")
    fails_with_usage(result)
    assert "permission rule" in result.stderr
    for shown in ("Edit|Write", "mcp__.*", "--tool Bash --regex '^git\\b'"):
        assert shown in result.stderr, shown


@pytest.mark.parametrize(
    "matcher",
    ["Bash", "Edit|Write", "Edit,Write", "mcp__.*", "mcp__gh__(create|list)_issue", "(Edit|Write)", "*"],
)
def test_tool_matchers_of_every_form_are_still_accepted(matcher: str) -> None:
    assert add("--tool", matcher)["tool"] == matcher


def test_regex_given_in_the_equals_form_may_begin_with_a_dash() -> None:
    record = add("--regex=--force")
    assert record["regex"] == "--force"
    updated = cli_json("update", str(record["id"]), "--regex=-f\\b")
    assert updated["regex"] == "-f\\b"
    assert cli_json("add", "--no-regex", "--anti-pattern=-x", "--correct=--y")["anti_pattern"] == "-x"


def test_pin_and_unpin() -> None:
    learning = str(add()["id"])
    assert cli_json("pin", learning)["pinned"] is True
    assert cli_json("show", learning)["pinned"] is True
    assert cli_json("unpin", learning)["pinned"] is False
    assert cli_json("show", learning)["pinned"] is False
    assert cli("pin", learning).code == 0
    assert cli_json("show", learning)["pinned"] is True


def test_keep_puts_confidence_back_to_seventy() -> None:
    low = str(add("--confidence", "0.30")["id"])
    high = str(add("--confidence", "0.90")["id"])
    assert cli_json("keep", low)["confidence"] == 0.70
    assert cli_json("keep", high)["confidence"] == 0.70
    assert cli_json("show", low)["confidence"] == 0.70


def test_archive_hides_and_restore_brings_back() -> None:
    kept = add()["id"]
    archived = add()["id"]
    record = cli_json("archive", str(archived))
    assert record["archived_at"] is not None
    instant(record["archived_at"])
    assert ids(listed()) == [kept]
    assert ids(listed("--archived")) == [archived]
    assert sorted(ids(listed("--all"))) == sorted([kept, archived])
    assert cli_json("show", str(archived))["archived_at"] == record["archived_at"]
    restored = cli_json("restore", str(archived))
    assert restored["archived_at"] is None
    assert sorted(ids(listed())) == sorted([kept, archived])
    assert listed("--archived") == []


def test_archived_learnings_never_match() -> None:
    learning = str(add("--regex", r"rm\s+-rf", "--auto-block")["id"])
    cli_json("archive", learning)
    hooked = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"))
    assert (hooked.code, hooked.stdout) == (0, "")
    assert cli_json("show", learning)["access_count"] == 1  # only the show itself


def test_list_review_shows_only_low_unpinned_active_learnings() -> None:
    at_threshold = add("--confidence", "0.40")["id"]
    floor = add("--confidence", "0.30")["id"]
    above = add("--confidence", "0.41")["id"]
    pinned = add("--confidence", "0.30", "--pin")["id"]
    archived = add("--confidence", "0.30")["id"]
    cli_json("archive", str(archived))
    assert sorted(ids(listed("--review"))) == sorted([at_threshold, floor])
    assert above not in ids(listed("--review"))
    assert pinned not in ids(listed("--review"))


def test_human_list_and_show_name_the_learning() -> None:
    learning = add("--anti-pattern", "curl | sh", "--correct", "download then read")["id"]
    table = cli("list")
    assert table.code == 0
    assert "curl | sh" in table.stdout
    assert str(learning) in table.stdout
    detail = cli("show", str(learning))
    assert detail.code == 0
    assert "curl | sh" in detail.stdout
    assert "download then read" in detail.stdout


def test_human_output_strips_terminal_escapes_but_json_keeps_them() -> None:
    hostile = "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b2J"
    learning = str(add("--anti-pattern", hostile, "--correct", "plain \x1b[1mbold")["id"])
    for args in (("list",), ("list", "--all"), ("show", learning)):
        result = cli(*args)
        assert result.code == 0, result.stderr
        assert "red" in result.stdout
        assert "\x1b" not in result.stdout
        assert "\x9b" not in result.stdout
        assert "\x07" not in result.stdout
    assert cli_json("show", learning)["anti_pattern"] == hostile
    assert listed()[0]["correct_pattern"] == "plain \x1b[1mbold"


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "--all"),
        ("list", "--archived"),
        ("list", "--review"),
        ("show", "1"),
        ("update", "1", "--severity", "high"),
        ("pin", "1"),
        ("unpin", "1"),
        ("keep", "1"),
        ("archive", "1"),
        ("restore", "1"),
    ],
)
def test_json_prints_exactly_one_value(args: tuple[str, ...]) -> None:
    add()
    add()
    result = cli(*args, "--json")
    assert result.code == 0, result.stderr
    value = json.loads(result.stdout)  # raises on anything after the first value
    assert isinstance(value, list if args[0] == "list" else dict)


def test_list_of_an_empty_or_missing_database(db: Path) -> None:
    assert listed() == []
    assert cli("list").code == 0
    assert not db.exists()  # reading never creates the database


INVALID_ADD = [
    ("--regex", "rm (-rf"),
    ("--regex", "[z-a]"),
    ("--confidence", "0.29"),
    ("--confidence", "0.91"),
    ("--confidence", "0.705"),
    ("--confidence", "abc"),
    ("--confidence", "nan"),
    ("--confidence", ""),
    ("--severity", "urgent"),
    ("--severity", "High"),
    ("--target", "body"),
    ("--tool", "Bash("),
    ("--regex", ""),  # would silently disarm the learning: --no-regex says so on update
    ("--tool", "Bash(git:*)"),  # permission-rule syntax, never a tool name
    ("--tool", "Read(./secrets.txt)"),
    ("--tool", "WebFetch(domain:example.com)"),
    ("--tool", "Edit|Bash(rm:*)"),
]


@pytest.mark.parametrize("option", INVALID_ADD)
def test_invalid_add_is_refused_and_creates_nothing(option: tuple[str, str], db: Path) -> None:
    fails_with_usage(cli("add", "--anti-pattern", "a", "--correct", "b", *reminder_unless_regex(option)))
    assert not db.exists()
    assert not list(db.parent.glob(db.name + "*"))


@pytest.mark.parametrize(
    "args",
    [
        ("add", "--no-regex", "--anti-pattern", "a"),
        ("add", "--correct", "b"),
        ("add", "--no-regex", "--anti-pattern", "", "--correct", "b"),
        ("frobnicate",),
        ("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", "--no-such-option"),
        ("show",),
        ("show", "abc"),
        ("list", "--archived", "--all"),
    ],
)
def test_usage_errors_are_refused_and_create_nothing(args: tuple[str, ...], db: Path) -> None:
    fails_with_usage(cli(*args))
    assert not db.exists()


@pytest.mark.parametrize("option", INVALID_ADD)
def test_invalid_update_is_refused_and_changes_nothing(option: tuple[str, str], db: Path) -> None:
    learning = str(add("--regex", "ok")["id"])
    before = fingerprint(db)
    fails_with_usage(cli("update", learning, *option))
    assert fingerprint(db) == before


@pytest.mark.parametrize(
    "args",
    [
        ("show", "999"),
        ("update", "999", "--severity", "low"),
        ("pin", "999"),
        ("unpin", "999"),
        ("keep", "999"),
        ("archive", "999"),
        ("restore", "999"),
        ("show", "0"),
        ("show", "-1"),
    ],
)
def test_unknown_ids_are_refused_and_change_nothing(args: tuple[str, ...], db: Path) -> None:
    add()
    before = fingerprint(db)
    fails_with_usage(cli(*args))
    assert fingerprint(db) == before


@pytest.mark.parametrize("args", [("show", "999"), ("keep", "5"), ("update", "3", "--pin")])
def test_an_unknown_id_without_a_database_creates_nothing(args: tuple[str, ...], db: Path) -> None:
    fails_with_usage(cli(*args))
    assert not db.exists()


def test_a_regex_the_standard_library_warns_about_prints_nothing_extra() -> None:
    result = cli("add", "--anti-pattern", "a", "--correct", "b", "--regex", "[[a]x", process=True)
    assert result.code == 0
    assert result.stderr == ""


@pytest.mark.parametrize("where", ["before", "after"])
def test_db_option_before_or_after_the_command(where: str, tmp_path: Path, db: Path) -> None:
    other = tmp_path / "elsewhere" / "memory.db"
    other.parent.mkdir()
    db_option = ("--db", str(other))
    command = ("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", "--json")
    args = db_option + command if where == "before" else command + db_option
    result = cli(*args)
    assert result.code == 0, result.stderr
    assert other.exists()
    assert not db.exists()
    listed_there = cli("list", "--json", "--db", str(other))
    assert ids(listed_there.json()) == [result.json()["id"]]
    assert cli("--db", str(other), "show", str(result.json()["id"])).code == 0
    assert listed() == []


def _assert_private_project_database(project: Path) -> None:
    directory = project / ".cortex"
    database = directory / "cortex.db"
    assert database.is_file()
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert (directory / ".gitignore").read_text().split() == ["*"]


def test_database_in_claude_project_dir_is_private(tmp_path: Path, db: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {"CORTEX_DB": "", "CLAUDE_PROJECT_DIR": str(project)}
    assert cli("add", "--no-regex", "--anti-pattern", "a", "--correct", "b", env=env).code == 0
    _assert_private_project_database(project)
    assert not db.exists()
    assert len(cli_json("list", env=env)) == 1


def test_database_at_the_nearest_git_root_is_private(tmp_path: Path, db: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    nested = project / "src" / "pkg"
    nested.mkdir(parents=True)
    result = cli(
        "add", "--no-regex", "--anti-pattern", "a", "--correct", "b", env={"CORTEX_DB": ""}, cwd=nested
    )
    assert result.code == 0, result.stderr
    _assert_private_project_database(project)
    assert not (nested / ".cortex").exists()
    assert not db.exists()


def test_explicit_db_file_is_private(db: Path) -> None:
    add()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
