"""`cortex-hooks export` / `import` end to end: the format, new ids, all or nothing."""

from __future__ import annotations

import hashlib
import json
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from support import Result, added, cli, cli_json, payload, run

KINDS = ("learnings", "decisions", "errors", "todos")
NOW = {"CORTEX_NOW": "2025-06-01T12:00:00Z"}


def export(db: Path | None = None) -> dict[str, Any]:
    args = ("export",) if db is None else ("export", "--db", str(db))
    result = cli(*args)
    assert result.code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def import_file(path: Path, *options: str, **kwargs: Any) -> Result:
    return cli("import", str(path), *options, **kwargs)


def write(tmp_path: Path, document: Any, name: str = "memory.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def add(anti: str, *options: str, **kwargs: Any) -> dict[str, Any]:
    return added(*options, anti=anti, correct=f"not {anti}", **kwargs)


def without_ids(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in record.items() if key != "id"} for record in records]


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def rejected(result: Result, field: str) -> None:
    assert result.code == 2, (result.code, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks:")
    assert field in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def fingerprint(db: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(db.parent.glob(db.name + "*")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def test_export_format_and_archived_rows() -> None:
    kept = add("kept", "--regex", "kept", "--auto-block")
    archived = add("archived")
    cli_json("archive", str(archived["id"]))
    cli_json("show", str(kept["id"]))
    document = export()
    assert set(document) == {"version", *KINDS, "memories", "edges"}
    assert document["version"] == 2  # version 2 adds memories and edges (docs/guide/memories.md)
    for kind in KINDS:
        assert isinstance(document[kind], list)
    by_anti = {record["anti_pattern"]: record for record in document["learnings"]}
    assert set(by_anti) == {"kept", "archived"}
    assert by_anti["archived"]["archived_at"] is not None
    assert by_anti["kept"]["archived_at"] is None
    assert by_anti["kept"]["access_count"] == 1
    # The records are exactly what --json prints.
    assert sorted(document["learnings"], key=lambda r: r["id"]) == sorted(
        cli_json("list", "--all"), key=lambda r: r["id"]
    )


def test_export_of_a_missing_database_is_empty_and_creates_nothing(db: Path) -> None:
    document = export()
    assert document == {
        "version": 2,
        "learnings": [],
        "decisions": [],
        "errors": [],
        "todos": [],
        "memories": [],
        "edges": [],
    }
    assert not db.exists()


def test_export_to_a_file(tmp_path: Path) -> None:
    add("one")
    target = tmp_path / "out.json"
    result = cli("export", "--output", str(target))
    assert result.code == 0, result.stderr
    assert result.stdout == ""
    assert json.loads(target.read_text()) == export()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_import_assigns_new_ids(tmp_path: Path) -> None:
    first = add("first")
    second = add("second")
    path = write(tmp_path, export())
    result = import_file(path)
    assert result.code == 0, result.stderr
    records = cli_json("list")
    assert len(records) == 4
    assert len({record["id"] for record in records}) == 4
    copies = [record for record in records if record["id"] not in (first["id"], second["id"])]
    assert sorted(record["anti_pattern"] for record in copies) == ["first", "second"]


def test_import_keeps_counters_and_times_when_given(tmp_path: Path) -> None:
    record: dict[str, Any] = {
        "id": 77,
        "anti_pattern": "old habit",
        "correct_pattern": "new habit",
        "regex": "old",
        "tool": "Bash",
        "target": "path",
        "severity": "high",
        "auto_block": True,
        "pinned": True,
        "confidence": 0.45,
        "access_count": 5,
        "last_accessed": "2021-02-03T04:05:06Z",
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-06-01T00:00:00Z",
        "archived_at": "2022-01-01T00:00:00Z",
        "context": "from another machine",
    }
    document = {"version": 1, "learnings": [record], "decisions": [], "errors": [], "todos": []}
    result = import_file(write(tmp_path, document), env=NOW)
    assert result.code == 0, result.stderr
    (imported,) = cli_json("list", "--all")
    for field in ("last_accessed", "created_at", "updated_at", "archived_at"):
        assert instant(imported[field]) == instant(record[field]), field
    for field in set(record) - {"id", "last_accessed", "created_at", "updated_at", "archived_at"}:
        assert imported[field] == record[field], field
    assert cli_json("list") == []  # it came archived


def test_import_fills_what_is_missing(tmp_path: Path) -> None:
    document = {"learnings": [{"anti_pattern": "a", "correct_pattern": "b"}]}
    result = import_file(write(tmp_path, document), env=NOW)
    assert result.code == 0, result.stderr
    (imported,) = cli_json("list")
    assert imported["confidence"] == 0.70
    assert imported["tool"] == "*"
    assert imported["target"] == "content"
    assert imported["severity"] == "medium"
    assert imported["access_count"] == 0
    assert imported["archived_at"] is None
    assert instant(imported["created_at"]) == instant(NOW["CORTEX_NOW"])


def test_a_null_regex_imports_as_no_regex(tmp_path: Path) -> None:
    document = {"learnings": [{"anti_pattern": "a", "correct_pattern": "b", "regex": None}]}
    assert import_file(write(tmp_path, document)).code == 0
    assert cli_json("list")[0]["regex"] is None


def test_import_of_a_bare_array_of_learnings(tmp_path: Path) -> None:
    records = [
        {"anti_pattern": "a", "correct_pattern": "b", "regex": "a+"},
        {"anti_pattern": "c", "correct_pattern": "d", "severity": "low"},
    ]
    result = import_file(write(tmp_path, records))
    assert result.code == 0, result.stderr
    imported = cli_json("list")
    assert sorted((r["anti_pattern"], r["regex"], r["severity"]) for r in imported) == [
        ("a", "a+", "medium"),
        ("c", None, "low"),
    ]


def test_import_from_stdin(tmp_path: Path) -> None:
    document = {"learnings": [{"anti_pattern": "piped", "correct_pattern": "ok"}]}
    result = cli("import", "-", stdin=json.dumps(document), process=True)  # a real pipe
    assert result.code == 0, result.stderr
    assert [r["anti_pattern"] for r in cli_json("list")] == ["piped"]


def test_imported_regexes_match(tmp_path: Path) -> None:
    document = {
        "learnings": [
            {"anti_pattern": "rm", "correct_pattern": "trash", "regex": r"rm\s+-rf", "auto_block": True}
        ]
    }
    assert import_file(write(tmp_path, document)).code == 0
    hooked = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"))
    assert hooked.code == 0, hooked.stderr
    assert hooked.json()["hookSpecificOutput"]["permissionDecision"] == "deny"


GOOD = {"anti_pattern": "fine", "correct_pattern": "fine too"}
INVALID = [
    ({"regex": "rm (-rf"}, "learnings.1.regex"),
    ({"confidence": 0.95}, "learnings.1.confidence"),
    ({"confidence": 0.29}, "learnings.1.confidence"),
    ({"confidence": 0.705}, "learnings.1.confidence"),
    ({"bogus": 1}, "learnings.1.bogus"),
    ({"severity": "urgent"}, "learnings.1.severity"),
    ({"target": "body"}, "learnings.1.target"),
    ({"anti_pattern": None}, "learnings.1.anti_pattern"),
    ({"regex": ""}, "learnings.1.regex"),  # would disarm it silently; null means no regex
    ({"tool": "Bash(git:*)"}, "learnings.1.tool"),  # a permission rule, not a tool matcher
]


@pytest.mark.parametrize(("change", "field"), INVALID)
@pytest.mark.parametrize("bare", [False, True])
def test_an_invalid_record_rejects_the_whole_file(
    change: dict[str, Any], field: str, bare: bool, tmp_path: Path, db: Path
) -> None:
    records = [GOOD, {**GOOD, **change}, GOOD]
    document: Any = records if bare else {"version": 1, "learnings": records}
    rejected(import_file(write(tmp_path, document)), field)
    assert not db.exists()


@pytest.mark.parametrize(("change", "field"), INVALID[:3])
def test_an_invalid_record_leaves_an_existing_database_unchanged(
    change: dict[str, Any], field: str, tmp_path: Path, db: Path
) -> None:
    add("existing")
    before = (fingerprint(db), export())
    document = {"version": 1, "learnings": [GOOD, {**GOOD, **change}]}
    rejected(import_file(write(tmp_path, document)), field)
    assert (fingerprint(db), export()) == before


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"version": 3, "learnings": []}, "version"),
        ({"version": 1, "learnings": [], "extra": []}, "extra"),
        ({"version": 1, "learnings": {"not": "a list"}}, "learnings"),
    ],
)
def test_an_invalid_file_is_rejected(document: Any, field: str, tmp_path: Path, db: Path) -> None:
    rejected(import_file(write(tmp_path, document)), field)
    assert not db.exists()


def test_a_file_that_is_not_json_or_missing_is_rejected(tmp_path: Path, db: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    for path in (broken, tmp_path / "missing.json"):
        result = import_file(path)
        assert result.code == 2, result.stderr
        assert len(result.stderr.splitlines()) == 1
        assert result.stderr.startswith("cortex-hooks:")
    assert not db.exists()


def test_a_fifo_or_a_device_is_refused_as_replay_refuses_them(tmp_path: Path, db: Path) -> None:
    """Issue 34 item 8: /dev/zero was read for 8 s into 4 GB, a FIFO hung; both are refused at
    once, in one line, and nothing is written."""
    import os

    fifo = tmp_path / "learnings.fifo"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo, tmp_path):
        result = import_file(path, timeout=20)
        assert result.code == 2, result.stderr
        assert result.stderr.count("\n") == 1
        assert "not a regular file" in result.stderr, result.stderr
    assert not db.exists()


def test_standard_input_past_the_limit_is_refused(db: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cortex_hooks", "import", "-"],
        stdin=open("/dev/zero", "rb"),  # noqa: SIM115 - closed with the process
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "larger than" in done.stderr
    assert not db.exists()


def _populate() -> None:
    add("plain")
    rich = add(
        "rich", "--regex", r"rich\b", "--tool", "Bash|Write", "--target", "path",
        "--severity", "critical", "--auto-block", "--pin", "--confidence", "0.35",
        "--context", "ctx é \x1b[0m",
    )  # fmt: skip
    cli_json("show", str(rich["id"]), env={"CORTEX_NOW": "2025-01-02T03:04:05Z"})
    gone = add("gone", env={"CORTEX_NOW": "2024-05-06T07:08:09Z"})
    cli_json("archive", str(gone["id"]))
    old = cli_json("decisions", "add", "--title", "old", "--reasoning", "because")
    cli_json("decisions", "add", "--title", "new", "--reasoning", "r", "--supersedes", str(old["id"]))
    cli_json("errors", "add", "--message", "boom", "--fix", "restart", "--severity", "high")
    todo = cli_json("todos", "add", "--text", "write docs", "--priority", "high")
    cli_json("todos", "archive", str(todo["id"]))


def test_round_trip_into_a_fresh_database(tmp_path: Path) -> None:
    _populate()
    original = export()
    assert len(original["learnings"]) == 3
    fresh = tmp_path / "fresh" / "cortex.db"
    fresh.parent.mkdir()
    result = import_file(write(tmp_path, original), "--db", str(fresh))
    assert result.code == 0, result.stderr
    copied = export(fresh)
    for kind in ("learnings", "errors", "todos"):
        assert without_ids(copied[kind]) == without_ids(original[kind]), kind

    # Decisions: same records, `superseded_by` pointing at the copy of the same decision.
    def titled(document: dict[str, Any]) -> list[dict[str, Any]]:
        title = {record["id"]: record["title"] for record in document["decisions"]}
        return [
            {**record, "superseded_by": title.get(record["superseded_by"])}
            for record in without_ids(document["decisions"])
        ]

    assert titled(copied) == titled(original)
    assert titled(copied)[0]["superseded_by"] == "new"


def test_round_trip_of_learnings_only_into_a_database_with_rows(tmp_path: Path) -> None:
    _populate()
    original = export()
    result = import_file(write(tmp_path, original["learnings"]), "--db", str(tmp_path / "two.db"))
    assert result.code == 0, result.stderr
    assert without_ids(export(tmp_path / "two.db")["learnings"]) == without_ids(original["learnings"])


def test_import_json_reports_the_counts(tmp_path: Path) -> None:
    document = {"learnings": [GOOD, GOOD]}
    result = import_file(write(tmp_path, document), "--json")
    assert result.code == 0, result.stderr
    counts = json.loads(result.stdout)
    assert counts["learnings"] == 2
