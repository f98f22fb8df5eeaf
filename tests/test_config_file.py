"""`.cortex/config.toml`: a file that validates works in every hook; a file that does not,
that is no regular file or that is too large is reported once on stderr and the defaults decide."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from support import Result, cli_json, payload, run

from cortex_hooks import config_file
from cortex_hooks.config import DEFAULT

PRE = "cortex-pre-tool-use"
START = "cortex-session-start"
BOM = b"\xef\xbb\xbf"


def config(db: Path) -> Path:
    return db.parent / "config.toml"


@pytest.fixture
def auto_block(db: Path) -> int:
    """An auto-block learning at the start (0.70) that the PreToolUse fixture's command matches."""
    options = ["--regex", r"rm\s+-rf", "--auto-block", "--anti-pattern", "rm", "--correct", "trash"]
    record = cli_json("add", *options)
    return int(record["id"])


def confidence(learning_id: int) -> float:
    records = {int(record["id"]): record for record in cli_json("list", "--all")}
    value: float = records[learning_id]["confidence"]
    return value


def pre_tool_use() -> Result:
    """The fixture's `rm -rf`; the timeout guards against a config read that never returns."""
    return run(PRE, stdin=payload("pre_tool_use.bash"), timeout=10)


def decision(result: Result) -> Any:
    return result.json()["hookSpecificOutput"]["permissionDecision"]


def assert_reported_once(result: Result, *named: str) -> None:
    """Exit 0 (the hook did its job with the defaults), one `cortex-hooks` line naming the file."""
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks"), lines[0]
    assert "config.toml" in lines[0]
    assert "using the defaults" in lines[0]
    for name in named:
        assert name in lines[0], lines[0]


# --- values that validated, then broke a hook ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[pruning]\nunused_days = 1000000\n", "unused_days"),  # timedelta overflow
        ("[pruning]\nrarely_used_days = 1000000\n", "rarely_used_days"),
        ("[pruning]\nrarely_used_accesses = 100000000000000000000\n", "rarely_used_accesses"),  # > int64
        ('[confidence]\nstart = "1e999999999"\n', "start"),  # decimal.Overflow
    ],
)
def test_a_value_the_code_cannot_compute_is_refused_and_session_start_runs(
    db: Path, text: str, named: str
) -> None:
    cli_json("add", "--no-regex", "--anti-pattern", "anti", "--correct", "correct")
    config(db).write_text(text)
    result = run(START, stdin=payload("session_start.startup"), timeout=10)
    assert_reported_once(result, named)
    assert result.json()["hookSpecificOutput"]["hookEventName"] == "SessionStart"


@pytest.mark.parametrize("gate", ["0.95", "0.90"])
def test_a_block_gate_at_or_above_the_ceiling_is_refused_and_auto_block_still_denies(
    db: Path, auto_block: int, gate: str
) -> None:
    """At or above the ceiling (0.90) no confidence could ever pass the gate: auto-block would be
    off without a word."""
    config(db).write_text(f"[confidence]\nblock_gate = {gate}\n")
    result = pre_tool_use()
    assert_reported_once(result, "block_gate")
    assert decision(result) == "deny"
    assert confidence(auto_block) == 0.8  # the default boost


def test_a_byte_order_mark_is_accepted(db: Path, auto_block: int) -> None:
    config(db).write_bytes(BOM + b"[confidence]\nboost = 0.05\n")
    result = pre_tool_use()
    assert (result.code, result.stderr) == (0, "")
    assert decision(result) == "deny"
    assert confidence(auto_block) == 0.75  # the file's boost, not the default


def _not_regular(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)  # no writer: an open() waits for one forever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # never ends: a read() eats all memory
    else:
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_config_that_is_not_a_regular_file_is_not_read(db: Path, auto_block: int, kind: str) -> None:
    _not_regular(config(db), kind)
    result = pre_tool_use()
    assert_reported_once(result, "not a regular file")
    assert decision(result) == "deny"


def test_a_config_larger_than_64_kib_is_refused(db: Path, auto_block: int) -> None:
    config(db).write_text("[confidence]\nboost = 0.05\n" + "# a comment\n" * 6000)  # valid TOML
    result = pre_tool_use()
    assert_reported_once(result, "larger than")
    assert decision(result) == "deny"
    assert confidence(auto_block) == 0.8  # the default boost


# --- the bounds, table-driven on config_file.read (the one reading hooks and doctor use) ----------


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[confidence]\nstart = 0.30\n", "floor < start <= ceiling"),  # start at the floor
        ("[confidence]\nstart = 0.95\n", "floor < start <= ceiling"),
        ("[confidence]\nfloor = 0.90\nstart = 0.90\n", "floor < start <= ceiling"),
        ("[confidence]\nboost = 0\n", "boost"),
        ("[confidence]\nboost = 0.60\n", "boost"),  # ceiling - floor
        ("[confidence]\ndecay = 0\n", "decay"),
        ("[confidence]\ndecay = 0.60\n", "decay"),
        ("[confidence]\nblock_gate = 0.20\n", "block_gate"),  # below the floor
        ("[confidence]\nblock_gate = 0.90\n", "block_gate"),
        ("[confidence]\nreview_threshold = 0.20\n", "review_threshold"),
        ("[confidence]\nreview_threshold = 0.70\n", "review_threshold"),  # every new learning
        ("[confidence]\nstart = 1.5\n", "start"),
        ("[regex]\ntimeout = nan\n", "timeout"),
        ("[regex]\ntimeout_per_mib = inf\n", "timeout_per_mib"),
        ("[pruning]\nunused_days = 36501\nrarely_used_days = 36501\n", "unused_days"),
        ("[pruning]\nunused_days = 400\n", "unused_days <= rarely_used_days"),
        ("[pruning]\nrarely_used_accesses = 1000001\n", "rarely_used_accesses"),
        ("a = " + "[" * 5000, "nested too deeply"),
        ("\ufeff\ufeff[regex]\n", "not TOML"),  # one mark is an encoding's, a second is text
    ],
)
def test_values_beyond_the_bounds_are_refused(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    values, problem = config_file.read(str(path))
    assert problem is not None
    assert named in problem, problem
    assert values is DEFAULT


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[confidence]\nfloor = 0\nstart = 0.02\nceiling = 0.02\nreview_threshold = 0\nblock_gate = 0.01\n"
        "boost = 0.01\ndecay = 0.01\n",
        "[confidence]\nfloor = 0.69\nreview_threshold = 0.69\nblock_gate = 0.89\n"
        "boost = 0.20\ndecay = 0.20\n",
        "[confidence]\nstart = 0.90\nreview_threshold = 0.89\n",
        "[pruning]\nunused_days = 36500\nrarely_used_days = 36500\nrarely_used_accesses = 1000000\n",
        "[pruning]\nunused_days = 1\nrarely_used_days = 1\n",
        "[regex]\ntimeout = 60\ntimeout_per_mib = 0\n",
    ],
)
def test_values_at_the_bounds_are_accepted(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    assert config_file.read(str(path))[1] is None


def test_a_file_rewritten_is_read_again_and_a_problem_said_once_or_in_every_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """config_file.load keys what it read by the file's bytes: a long-running process (the MCP
    server) sees every edit, even one of the same size within a clock tick. An invalid file is
    said once on stderr to a process without notes, and in every call's notes."""
    from cortex_hooks.notes import Notes

    path = tmp_path / "config.toml"
    config_file.forget()
    for start in ("0.50", "0.60", "0.50"):
        path.write_text(f"[confidence]\nstart = {start}\n")
        assert config_file.load(str(path)).policy.start == int(start[2:])
    path.write_text("[confidence]\nstart = 2\n")
    assert config_file.load(str(path)).policy.start == 70
    assert config_file.load(str(path)).policy.start == 70
    assert capsys.readouterr().err.count("ignoring invalid") == 1
    for _ in range(2):
        notes = Notes()
        config_file.load(str(path), notes)
        config_file.load(str(path), notes)
        assert [note.startswith(f"ignoring invalid {path}") for note in notes.said] == [True]
    assert capsys.readouterr().err == ""
