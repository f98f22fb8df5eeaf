"""What a person gives for a memory (docs/guide/memories.md): one set of rules (memory.given) for remember,
update and index-code, checked without pydantic, and for an import file's pydantic model alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, run

from cortex_hooks.errors import CortexError
from cortex_hooks.memory import given
from cortex_hooks.memory.records import ImportedMemory
from cortex_hooks.validation import validated

SURROGATE = "holds characters that are not valid Unicode (a lone surrogate)"
TYPES = "'architecture', 'decision', 'pattern', 'gotcha', 'progress', 'context', 'code_description' or 'code'"

# Each given and what a person reads: the same words whichever front door checked it.
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"content": ""}, "content: String should have at least 1 character"),
    ({"content": " \n\t "}, "content: must hold more than white space"),
    ({"content": "x\udc80"}, f"content: {SURROGATE}"),
    ({"content": "ok", "type": "rumour"}, f"type: Input should be {TYPES}"),
    ({"content": "ok", "summary": ""}, "summary: must be 1 to 200 characters long, got 0"),
    ({"content": "ok", "summary": "s" * 201}, "summary: must be 1 to 200 characters long, got 201"),
    ({"content": "ok", "summary": "\udc80"}, f"summary: {SURROGATE}"),
    ({"content": "ok", "priority": 0}, "priority: must lie in [1, 10], got 0"),
    ({"content": "ok", "priority": 11}, "priority: must lie in [1, 10], got 11"),
    ({"content": "ok", "tags": [""]}, "tags.0: must be 1 to 100 characters long, got 0"),
    (
        {"content": "ok", "tags": ["a", "", "b" * 101]},
        "tags.1: must be 1 to 100 characters long, got 0; tags.2: must be 1 to 100 characters long, got 101",
    ),
    ({"content": "ok", "tags": ["x\udc80"]}, f"tags: {SURROGATE}"),
    (
        {"content": "", "summary": "", "priority": 0, "tags": [""]},
        "content: String should have at least 1 character; summary: must be 1 to 200 characters long, "
        "got 0; priority: must lie in [1, 10], got 0; tags.0: must be 1 to 100 characters long, got 0",
    ),
    ({"content": "\udc80 ", "summary": "\udc80"}, f"content: {SURROGATE}; summary: {SURROGATE}"),
    ({}, "content: Field required"),
]

ACCEPTED: list[tuple[dict[str, Any], given.MemoryFields]] = [
    ({"content": "ok"}, given.MemoryFields("ok")),
    (
        {"content": " a\nb", "type": "gotcha", "summary": "s" * 200, "priority": 10, "pinned": True},
        given.MemoryFields(" a\nb", "gotcha", "s" * 200, 10, [], True),
    ),
    ({"content": "ok", "summary": "  "}, given.MemoryFields("ok", summary="  ")),
    ({"content": "ok", "priority": 1}, given.MemoryFields("ok", priority=1)),
    ({"content": "ok", "tags": ["  ", "a", " a ", "b"]}, given.MemoryFields("ok", tags=["a", "b"])),
    ({"content": "ok", "tags": "one"}, given.MemoryFields("ok", tags=["one"])),
]


def imported(data: dict[str, Any]) -> given.MemoryFields:
    memory: ImportedMemory = validated(ImportedMemory, data, "invalid memory")
    return memory.fields()


@pytest.mark.parametrize("check", [given.checked, lambda data, _: imported(data)], ids=["stdlib", "import"])
@pytest.mark.parametrize(("data", "message"), REFUSED)
def test_both_front_doors_refuse_with_the_same_words(check: Any, data: dict[str, Any], message: str) -> None:
    with pytest.raises(CortexError) as refused:
        check(data, "invalid memory")
    assert (refused.value.message, refused.value.code) == (f"invalid memory: {message}", 2)


@pytest.mark.parametrize(("data", "expected"), ACCEPTED)
def test_both_front_doors_accept_the_same_fields(data: dict[str, Any], expected: given.MemoryFields) -> None:
    assert given.checked(data, "invalid memory") == expected
    assert imported(data) == expected


def test_a_limit_is_set_in_one_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import file's model calls memory.given's rules: a limit changed there changes both."""
    monkeypatch.setattr(given, "TAG_LENGTH", 3)
    monkeypatch.setattr(given, "PRIORITIES", (1, 3))
    data = {"content": "ok", "tags": ["abcd"], "priority": 4}
    words = "priority: must lie in [1, 3], got 4; tags.0: must be 1 to 3 characters long, got 4"
    for check in (given.checked, lambda data, _: imported(data)):
        with pytest.raises(CortexError) as refused:
            check(data, "invalid memory")
        assert refused.value.message == f"invalid memory: {words}"


def test_a_field_no_memory_has_is_a_callers_mistake() -> None:
    with pytest.raises(TypeError, match="path"):
        given.checked({"content": "ok", "path": "x"}, "invalid memory")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["remember", "ok", "--priority", "0"], "invalid memory: priority: must lie in [1, 10], got 0"),
        (["remember", "ok", "--summary", "", "--tag", ""], "invalid memory: summary: must be 1 to 200 "
         "characters long, got 0; tags.0: must be 1 to 100 characters long, got 0"),
        (["remember", ""], "invalid memory: content: String should have at least 1 character"),
        (["memories", "update", "1", "--priority", "11"],
         "invalid memory: priority: must lie in [1, 10], got 11"),
        (["memories", "update", "1", "--content", " "],
         "invalid memory: content: must hold more than white space"),
        (["index-code", "code.py", "--prose", "  "],
         "invalid prose: content: must hold more than white space"),
    ],
)  # fmt: skip
def test_the_cli_refuses_bad_fields_and_writes_nothing(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "code.py").write_text("print('hello')\n")
    before = cli_json("remember", "the first memory", "--priority", "3")
    refused = cli(*argv)
    assert (refused.code, refused.stdout, refused.stderr) == (2, "", f"cortex-hooks: {message}\n")
    assert cli_json("memories", "list", "--all") == [before]


def test_update_keeps_what_is_not_given_and_derives_the_summary_again() -> None:
    first = cli_json("remember", "old words\nmore", "--tag", "a", "--priority", "3", "--type", "gotcha")
    assert cli("memories", "update", "1", "--priority", "4").stdout == "Updated memory #1.\n"
    kept = cli_json("memories", "show", "1")
    assert (kept["summary"], kept["tags"], kept["type"], kept["priority"]) == (
        "old words",
        ["a"],
        "gotcha",
        4,
    )
    changed = cli_json("memories", "update", "1", "--content", "new words")
    assert (changed["summary"], changed["tags"], changed["created_at"]) == (
        "new words",
        ["a"],
        first["created_at"],
    )
    summarized = cli_json("memories", "update", "1", "--summary", "mine")
    assert (summarized["summary"], summarized["content"]) == ("mine", "new words")


def _imports_pydantic(*argv: str, cwd: Path) -> bool:
    """Whether the installed console script, run with these arguments, imports pydantic."""
    done = run("cortex-hooks", *argv, env={"PYTHONPROFILEIMPORTTIME": "1"}, cwd=cwd)
    assert done.code == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "cortex_hooks.cli" in imported, done.stderr  # the probe sees the imports
    return "pydantic" in imported


def test_remember_and_its_kin_never_import_pydantic(tmp_path: Path) -> None:
    """pydantic's import and a model's first build were half of `remember`: what a person gives
    is checked with the standard library, and a record is built (pydantic) only for `--json`."""
    (tmp_path / "code.py").write_text("print('hello')\n")
    for argv in (
        ["remember", "the billing retries go through the orders queue", "--tag", "kafka"],
        ["remember", "the billing retries go through the orders queue twice"],
        ["memories", "update", "1", "--priority", "7", "--content", "the billing queue"],
        ["memories", "pin", "1"],
        ["index-code", "code.py", "--prose", "says hello"],
        ["forget", "--match", "billing", "--yes"],
        ["forget", "2"],
    ):
        assert not _imports_pydantic(*argv, cwd=tmp_path), argv
    shown = json.loads(run("cortex-hooks", "memories", "show", "1", "--json", cwd=tmp_path).stdout)
    assert (shown["priority"], shown["pinned"], shown["status"]) == (7, True, "archived")
    assert _imports_pydantic("remember", "printed as JSON", "--json", cwd=tmp_path)
