"""A decision never depends on what it does not read (docs/guide/selfguard.md item 3).

A lone surrogate, deep nesting or an odd type in a field PreToolUse does not read never stops a
deny; a lone surrogate in the command it does read is read as U+FFFD (what the shell is handed:
tests/test_claude_code_integrity.py shows it with the real client) and still matched. The hooks
run as Claude Code runs them: the installed scripts, the payload on stdin, a real database.
JSON of any depth is read and written by cortex_hooks.json_values, held here to the standard
library's json wherever that one can go.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import cli_json, payload, run

from cortex_hooks import json_values

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"


def nested(depth: int, kind: str = "dict") -> str:
    if kind == "list":
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def with_raw(data: dict[str, Any], where: str, raw: str) -> bytes:
    """The payload's JSON with `"where": raw` spliced into tool_input (or the top level)."""
    text = json.dumps(data)
    if where == "top":
        return (text[:-1] + f', "extra": {raw}}}').encode()
    head, tail = text.split('"tool_input": {', 1)
    return (head + '"tool_input": {' + f'"{where}": {raw}, ' + tail).encode()


@pytest.fixture
def blocker(db: Path) -> Path:
    cli_json(
        "add",
        "--anti-pattern",
        "rm -rf",
        "--correct",
        "trash it",
        "--regex",
        r"rm\s+-rf",
        "--tool",
        "Bash",
        "--auto-block",
    )
    return db


def decision(stdout: str) -> str | None:
    if not stdout.strip():
        return None
    value: str | None = json.loads(stdout)["hookSpecificOutput"].get("permissionDecision")
    return value


BASH = payload("pre_tool_use.bash")  # rm -rf /home/dev/proj/build && echo REMOVED

UNREAD: dict[str, bytes] = {
    "surrogate in the description": with_raw(BASH, "description", '"task \\udfff"'),
    "surrogate in the session id": json.dumps(BASH | {"session_id": "s\ud800"}).encode(),
    "surrogate in an unknown key": with_raw(BASH, "top", '{"\\udc00": "\\ud800x"}'),
    "extra key 1,000 deep": with_raw(BASH, "extra", nested(1_000)),
    "extra key 100,000 deep": with_raw(BASH, "extra", nested(100_000)),
    "extra list 100,000 deep": with_raw(BASH, "extra", nested(100_000, "list")),
    "deep key at the top level": with_raw(BASH, "top", nested(5_000)),
    "description of another type": with_raw(BASH, "description", '{"odd": [1, 2.5, null]}'),
    "no session id": json.dumps({k: v for k, v in BASH.items() if k != "session_id"}).encode(),
    "session id of another type": json.dumps(BASH | {"session_id": 5}).encode(),
    "timeout of another type": with_raw(BASH, "timeout", '"soon"'),
}


@pytest.mark.parametrize("name", list(UNREAD))
def test_what_the_decision_does_not_read_never_stops_a_deny(blocker: Path, name: str) -> None:
    result = run(PRE, stdin=UNREAD[name])
    assert result.code == 0, result.stderr
    assert decision(result.stdout) == "deny", result.stderr
    assert "Traceback" not in result.stderr
    assert "invalid payload" not in result.stderr


def test_a_surrogate_in_the_command_is_read_as_u_fffd_and_still_matched(blocker: Path) -> None:
    data = json.dumps(BASH | {"tool_input": {"command": "rm -rf build\udfff && echo \ud83d"}})
    assert "\\udfff" in data  # a lone surrogate is written as its escape
    result = run(PRE, stdin=data)
    assert decision(result.stdout) == "deny"
    assert "lone surrogate" in result.stderr
    assert "U+FFFD" in result.stderr
    # a learning on the character the shell runs in its place matches it
    cli_json("add", "--anti-pattern", "odd", "--correct", "x", "--regex", "build\ufffd", "--tool", "Bash")
    warned = run(PRE, stdin=json.dumps(BASH | {"tool_input": {"command": "echo build\udfff"}}))
    assert warned.code == 0, warned.stderr
    assert "odd" in json.loads(warned.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_learning_on_the_whole_input_reads_a_deep_input(db: Path) -> None:
    """target input reads every field: a deep one is matched in its compact JSON."""
    cli_json(
        "add",
        "--anti-pattern",
        "deep",
        "--correct",
        "x",
        "--regex",
        r'"a":\{"a":1\}',
        "--target",
        "input",
        "--auto-block",
    )
    result = run(PRE, stdin=with_raw(BASH, "extra", nested(3_000)))
    assert decision(result.stdout) == "deny", result.stderr


@pytest.mark.parametrize("hook", [START, END])
def test_the_session_hooks_store_a_surrogate_as_u_fffd(db: Path, hook: str) -> None:
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    fixture = "session_start.startup" if hook == START else "session_end.other"
    data = json.dumps(payload(fixture) | {"session_id": "s\udfff", "extra": {"k": "\ud800"}}).encode()
    result = run(hook, stdin=data)
    assert result.code == 0, result.stderr
    (session,) = cli_json("sessions", "list")
    assert session["id"] == "s\ufffd"


@pytest.mark.parametrize("hook", [PRE, START, END])
@pytest.mark.parametrize("raw", [b"[" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 99_999])
def test_deep_text_that_is_not_json_is_still_one_line_and_exit_1(db: Path, hook: str, raw: bytes) -> None:
    result = run(hook, stdin=raw)
    assert result.code == 1
    assert result.stderr.startswith("cortex-hooks: ")
    assert result.stderr.count("\n") == 1
    assert "payload is not JSON" in result.stderr


# --- json_values against the standard library ----------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@given(JSON, st.sampled_from([None, 0, 2]), st.booleans())
def test_the_stack_parser_reads_what_json_reads(value: Any, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert json_values._parse(text) == json.loads(text)
    assert "".join(json_values._pieces(value)) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(st.text(max_size=40))
def test_the_stack_parser_refuses_what_json_refuses(text: str) -> None:
    try:
        expected: Any = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError, match=r"."):
            json_values._parse(text)
        return
    found = json_values._parse(text)
    assert found == expected or (isinstance(found, float) and math.isnan(found))


@pytest.mark.parametrize(
    "text", ["NaN", "[Infinity, -Infinity]", " {} ", "[1,]", '{"a":1,}', "[1 2]", '"\\ud800"', "01"]
)
def test_edge_texts_read_as_json_reads_them(text: str) -> None:
    try:
        expected: Any = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError, match=r"."):
            json_values._parse(text)
        return
    assert repr(json_values._parse(text)) == repr(expected)


def test_any_depth_is_read_walked_and_written() -> None:
    depth = 100_000
    text = '{"k":' + nested(depth) + ',"s":["x\ud800"]}'
    value = json_values.loads(text)
    assert json_values.compact(value) == text
    assert sum(1 for _ in json_values.strings(value)) == depth + 3
    json_values.map_strings(value, str.upper)
    assert value["S"] == ["X\ud800"]
