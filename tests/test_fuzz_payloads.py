"""Fuzzing the hooks' payloads: nothing but the documented outcomes ever happens.

Generated payloads — valid ones built from the real fixtures, near-valid ones (fields dropped,
wrong types) and hostile ones (huge strings, odd Unicode and lone surrogates, NUL bytes, deep
nesting, JSON that is not an object, bytes that are not JSON) — go through each entry point's
whole pipeline in-process (cortex_hooks.hooks.pipeline.run: read, parse, open, decide, write, emit) on a
real database. The documented outcomes: exit 0 with no output or one JSON object of
the event's shape, every text under 9,500 characters; or exit 1 with exactly one `cortex-hooks`
line on stderr, nothing on stdout and nothing written. Never a traceback, never exit 2.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import sys
from collections.abc import Callable
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import FIXTURES, cli_json, payload, reminder_unless_regex, run

from cortex_hooks.hooks import pipeline, pre_tool_use, session_end, session_start

EVENTS: dict[str, tuple[str, ModuleType, str]] = {
    "PreToolUse": ("pre_tool_use.bash", pre_tool_use, "cortex-pre-tool-use"),
    "SessionStart": ("session_start.startup", session_start, "cortex-session-start"),
    "SessionEnd": ("session_end.other", session_end, "cortex-session-end"),
}
TEXT_CAP = 9_500
FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


# --- the database every example runs against ------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Learnings every kind of payload can reach: a blocker, warnings by content, path and input,
    one awaiting review (SessionStart then speaks), one on odd characters anywhere in the input."""
    path = tmp_path_factory.mktemp("template") / "cortex.db"
    odd = "[\\x00-\\x08\\ud800-\\udfff\\u202e]"
    for options in (
        ["--regex", r"rm\s+-rf", "--auto-block", "--anti-pattern", "rm -rf", "--correct", "trash"],
        ["--regex", r"echo", "--anti-pattern", "echo", "--correct", "printf"],
        ["--regex", r"\.env$", "--target", "path", "--anti-pattern", "env file", "--correct", "vault"],
        ["--regex", r"password", "--target", "input", "--anti-pattern", "secret", "--correct", "env var"],
        ["--regex", odd, "--target", "input", "--anti-pattern", "odd", "--correct", "plain"],
        [
            "--regex",
            r"(?i)drop\s+table",
            "--tool",
            "mcp__.*|Bash",
            "--anti-pattern",
            "drop",
            "--correct",
            "sql",
        ],
        ["--confidence", "0.30", "--anti-pattern", "stale", "--correct", "fresh"],
    ):
        cli_json("add", f"--db={path}", *reminder_unless_regex(options))
    return path


@pytest.fixture
def seeded(template: Path, db: Path) -> Path:
    shutil.copyfile(template, db)
    return db


def dump(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


# --- running a hook in-process --------------------------------------------------------------------


class Outcome:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr


def invoke(event: str, raw: bytes) -> Outcome:
    """pipeline.run as the console script runs it, with stdin, stdout and stderr in memory."""
    module = EVENTS[event][1]
    stdout, stderr = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    try:
        with redirect_stdout(stdout), redirect_stderr(stderr):
            code = pipeline.run(event, module.parse, module.handle)
    finally:
        sys.stdin = saved
    return Outcome(code, stdout.getvalue(), stderr.getvalue())


def texts(event: str, output: dict[str, Any]) -> list[str]:
    """The output's texts, after checking it has the documented shape of the event."""
    if event == "PreToolUse":
        assert set(output) == {"hookSpecificOutput"}, output
        specific = output["hookSpecificOutput"]
        assert specific["hookEventName"] == "PreToolUse"
        assert set(specific) <= {
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason",
            "additionalContext",
        }
        assert set(specific) - {"hookEventName"}, "an output that says nothing"
        if "permissionDecision" in specific:
            assert specific["permissionDecision"] == "deny"
            assert specific["permissionDecisionReason"]
        else:
            assert "permissionDecisionReason" not in specific
        found = [specific.get("permissionDecisionReason"), specific.get("additionalContext")]
    else:
        assert event == "SessionStart", f"{event} has no output"
        assert set(output) <= {"systemMessage", "hookSpecificOutput"}
        assert "hookSpecificOutput" in output
        specific = output["hookSpecificOutput"]
        assert set(specific) == {"hookEventName", "additionalContext"}
        assert specific["hookEventName"] == "SessionStart"
        found = [output.get("systemMessage"), specific["additionalContext"]]
    assert all(isinstance(text, str) for text in found if text is not None)
    return [text for text in found if text is not None]


def assert_documented(event: str, outcome: Outcome, before: list[str], db: Path) -> None:
    assert "Traceback" not in outcome.stderr, outcome.stderr
    lines = outcome.stderr.splitlines()
    assert all(line.startswith("cortex-hooks") for line in lines), outcome.stderr
    # "internal error" is the boundary's last line of defence: a path nobody thought through.
    assert "internal error" not in outcome.stderr, outcome.stderr
    if outcome.code == 1:
        assert len(lines) == 1, outcome.stderr
        assert outcome.stdout == ""
        assert dump(db) == before, "a failed hook wrote to the database"
        return
    assert outcome.code == 0, (outcome.code, outcome.stderr)
    if outcome.stdout:
        assert outcome.stdout.endswith("\n"), outcome.stdout
        assert outcome.stdout.count("\n") == 1, outcome.stdout
        output = json.loads(outcome.stdout)
        assert isinstance(output, dict)
        for text in texts(event, output):
            assert len(text) < TEXT_CAP
    if event == "PreToolUse" and not outcome.stdout:
        assert dump(db) == before, "a PreToolUse without a decision wrote to the database"


def check(event: str, raw: bytes, db: Path) -> Outcome:
    before = dump(db)
    outcome = invoke(event, raw)
    assert_documented(event, outcome, before, db)
    return outcome


# --- strategies -----------------------------------------------------------------------------------

# Every code point, lone surrogates included (json.dumps writes them as "\udXXX" escapes).
ANY_CHAR = st.characters(codec=None, exclude_categories=())
ODD_TEXT = st.text(ANY_CHAR, max_size=40) | st.sampled_from(
    ["\x00", "\ud800", "\udfff", "a\ud800b", "\u202e\u2066", "\x1b[2J", "\ufeff", "\U0010ffff", "é" * 3, ""]
)
HUGE_TEXT = st.builds(
    lambda unit, n: unit * n,
    st.sampled_from(["a", "rm -rf /", "\x00", "é", "\ud800"]),
    st.integers(1_000, 300_000),
)
TEXT = (
    ODD_TEXT
    | st.text(max_size=60)
    | HUGE_TEXT
    | st.sampled_from(["rm -rf /tmp/x", "echo hi", "DROP TABLE x"])
)
JSON_LEAF = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | ODD_TEXT
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_TEXT, inner, max_size=4),
    max_leaves=12,
)
TOOLS = st.sampled_from(
    ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "PowerShell", "mcp__db__query", "Task"]
) | st.text(ANY_CHAR, min_size=1, max_size=20)  # Claude Code always names the tool


@st.composite
def tool_inputs(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    text = draw(TEXT)
    shapes: dict[str, dict[str, Any]] = {
        "Bash": {"command": text, "description": draw(ODD_TEXT)},
        "PowerShell": {"command": text},
        "Write": {"file_path": draw(TEXT), "content": text},
        "Edit": {"file_path": draw(TEXT), "old_string": draw(ODD_TEXT), "new_string": text},
        "MultiEdit": {
            "file_path": draw(TEXT),
            "edits": draw(
                st.lists(st.fixed_dictionaries({"old_string": ODD_TEXT, "new_string": TEXT}), max_size=3)
            ),
        },
        "NotebookEdit": {"notebook_path": draw(TEXT), "new_source": text},
    }
    base = shapes.get(tool, {"query": text, "path": draw(ODD_TEXT)})
    return base | draw(st.dictionaries(ODD_TEXT, JSON_VALUE, max_size=3))


@st.composite
def valid(draw: st.DrawFn, event: str) -> dict[str, Any]:
    """A payload of the event as Claude Code sends it, its values drawn (fixture-shaped)."""
    data = payload(EVENTS[event][0])
    data["session_id"] = draw(st.uuids().map(str) | st.text(ANY_CHAR, min_size=1, max_size=30))
    data["cwd"] = draw(ODD_TEXT)
    if event == "PreToolUse":
        tool = draw(TOOLS)
        data["tool_name"] = tool
        data["tool_input"] = draw(tool_inputs(tool))
    elif event == "SessionStart":
        data["source"] = draw(st.sampled_from(["startup", "resume", "clear", "compact"]) | ODD_TEXT)
    else:
        data["reason"] = draw(st.sampled_from(["clear", "logout", "prompt_input_exit", "other"]) | ODD_TEXT)
        data["transcript_path"] = draw(
            st.sampled_from([str(FIXTURES / "transcript.jsonl"), "/nonexistent/t.jsonl", str(FIXTURES), ""])
            | st.none()
            | ODD_TEXT.map(lambda text: "relative-" + text)
        )
    return data


@st.composite
def near_valid(draw: st.DrawFn, event: str) -> dict[str, Any]:
    """A valid payload with fields dropped or given values of the wrong type."""
    data = draw(valid(event))
    for key in draw(st.lists(st.sampled_from(sorted(data)), max_size=3, unique=True)):
        if draw(st.booleans()):
            del data[key]
        else:
            data[key] = draw(JSON_VALUE)
    return data


def nested(depth: int, leaf: str, kind: str) -> str:
    if kind == "list":
        return "[" * depth + leaf + "]" * depth
    return '{"a":' * depth + leaf + "}" * depth


@st.composite
def raw_payloads(draw: st.DrawFn, event: str) -> bytes:
    """The bytes on stdin: a payload serialised in several ways, or hostile bytes and JSON."""
    choice = draw(st.integers(0, 6))
    if choice == 0:
        return json.dumps(draw(valid(event))).encode()
    if choice == 1:
        return json.dumps(draw(near_valid(event))).encode()
    if choice == 2:  # not ASCII-escaped: raw UTF-8 (lone surrogates would not encode: escaped then)
        text = json.dumps(draw(valid(event)), ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()
    if choice == 3:  # deep nesting inside an otherwise valid payload
        depth = draw(st.sampled_from([10, 500, 990, 2_000, 50_000]))
        field = draw(st.sampled_from(["tool_input", "session_id", "extra", "source", "reason"]))
        data = json.dumps(draw(valid(event)))
        inner = nested(
            depth, draw(st.sampled_from(["1", '"x"', "{}"])), draw(st.sampled_from(["list", "dict"]))
        )
        value = '{"command":' + inner + "}" if field == "tool_input" else inner
        return (data[:-1] + f', "{field}": ' + value + "}").encode()
    if choice == 4:  # JSON that is not an object
        other = draw(JSON_VALUE.filter(lambda v: not isinstance(v, dict)) | st.just([draw(valid(event))]))
        return json.dumps(other).encode()
    if choice == 5:  # NUL bytes and other raw bytes around or inside the JSON
        encoded = json.dumps(draw(valid(event))).encode()
        at = draw(st.integers(0, len(encoded)))
        return encoded[:at] + draw(st.binary(min_size=1, max_size=8)) + encoded[at:]
    return draw(st.binary(max_size=200))


# --- the properties -------------------------------------------------------------------------------


@FUZZ
@given(data=st.data())
def test_pre_tool_use_fuzzed_payloads_have_only_documented_outcomes(
    seeded: Path, data: st.DataObject
) -> None:
    check("PreToolUse", data.draw(raw_payloads("PreToolUse")), seeded)


@FUZZ
@given(data=st.data())
def test_session_start_fuzzed_payloads_have_only_documented_outcomes(
    seeded: Path, data: st.DataObject
) -> None:
    check("SessionStart", data.draw(raw_payloads("SessionStart")), seeded)


@FUZZ
@given(data=st.data())
def test_session_end_fuzzed_payloads_have_only_documented_outcomes(seeded: Path, data: st.DataObject) -> None:
    check("SessionEnd", data.draw(raw_payloads("SessionEnd")), seeded)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(event=st.sampled_from(sorted(EVENTS)), data=st.data())
def test_valid_payloads_of_every_event_succeed(seeded: Path, event: str, data: st.DataObject) -> None:
    """A payload Claude Code could send never fails, whatever its strings hold (lone surrogates
    aside, which no real client sends: they are allowed to fail, but only as documented)."""
    value = data.draw(valid(event))
    raw = json.dumps(value).encode()
    outcome = check(event, raw, seeded)
    if "\\ud" not in raw.decode():
        assert outcome.code == 0, outcome.stderr


# --- the same through the real processes ----------------------------------------------------------

HOSTILE: dict[str, Callable[[str], bytes]] = {
    "lone-surrogates": lambda event: json.dumps(
        payload(EVENTS[event][0], session_id="s\ud800", tool_input={"command": "rm -rf \udfff"})
    ).encode(),
    "nul-in-strings": lambda event: json.dumps(
        payload(EVENTS[event][0], session_id="a\x00b", tool_input={"command": "rm -rf /\x00"})
    ).encode(),
    "deep-tool-input": lambda event: (
        json.dumps(payload(EVENTS[event][0]))[:-1].encode()
        + b', "tool_input": '
        + nested(5_000, "1", "dict").encode()
        + b"}"
    ),
    "huge-strings": lambda event: json.dumps(
        payload(
            EVENTS[event][0], session_id="s" * 2_000_000, tool_input={"command": "rm -rf " + "x" * 2_000_000}
        )
    ).encode(),
    "nul-in-transcript-path": lambda event: json.dumps(
        payload(EVENTS[event][0], transcript_path=str(FIXTURES / "transcript.jsonl") + "\x00.jsonl")
    ).encode(),
    "bidi-and-escapes": lambda event: json.dumps(
        payload(EVENTS[event][0], source="\u202e\x1b[2J", reason="\x1b]0;x\x07")
    ).encode(),
}


@pytest.mark.parametrize("event", sorted(EVENTS))
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_payloads_through_the_installed_scripts(seeded: Path, event: str, name: str) -> None:
    before = dump(seeded)
    result = run(EVENTS[event][2], stdin=HOSTILE[name](event))
    assert_documented(event, Outcome(result.code, result.stdout, result.stderr), before, seeded)
