"""Hostile rules and data: bounded time and memory, verbatim storage, harmless display.

Bounds here are generous and prove boundedness, they are not timing goals: a catastrophic regex
costs its timeout and the others still decide; 50 MB of Write content and a 100 MB transcript
are handled in seconds and in memory that does not grow with the input; text that looks like
SQL or drives a terminal is stored and exported verbatim, escaped in JSON, stripped of control
characters in the CLI's human output; and no hook text ever exceeds 9,500 characters.
"""

from __future__ import annotations

import json
import resource
import shutil
import sqlite3
import subprocess
import tempfile
import unicodedata
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import add, cli, cli_json, payload, run, script, stored_as_of_old

PRE, START, END = "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"
TIME = shutil.which("time", path="/usr/bin:/bin")
CAP = 9_500


class Measured:
    def __init__(self, code: int, stdout: str, stderr: str, seconds: float, peak_mb: float | None) -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr
        self.seconds, self.peak_mb = seconds, peak_mb  # seconds: of CPU, the child's (user + system)


def measured(name: str, stdin: Path) -> Measured:
    """Run an installed script with stdin from a file: the CPU seconds it took and its peak RSS.

    CPU time, not wall time: on a loaded machine (two cores shared by several test runs) the wall
    time says how busy the machine is, not how much work the script did; a bound on the work is
    what these tests assert (how fast it is on an idle machine is benchmarks/bench.py's).

    The peak comes from /usr/bin/time, which forks the script itself: a child forked straight
    from this (large) test process would report the test process's own memory as its peak.
    """
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch, "rss")
        argv = [script(name)]
        if TIME:
            argv = [TIME, "-f", "%M", "-o", str(report), *argv]
        with open(stdin, "rb") as source:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            completed = subprocess.run(argv, stdin=source, capture_output=True, timeout=120, check=False)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        peak = int(report.read_text().split()[-1]) / 1024 if TIME else None
    return Measured(
        completed.returncode,
        completed.stdout.decode("utf-8", "replace"),
        completed.stderr.decode("utf-8", "replace"),
        seconds,
        peak,
    )


def assert_peak_below(result: Measured, megabytes: float) -> None:
    if result.peak_mb is None:
        pytest.skip("no /usr/bin/time to measure a child's peak memory")
    assert result.peak_mb < megabytes, f"peak RSS {result.peak_mb:.0f} MB"


def records() -> dict[int, dict[str, Any]]:
    return {int(r["id"]): r for r in cli_json("list", "--all")}


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# --- catastrophic regexes -------------------------------------------------------------------------

WORDS = "|".join(f"word{n}x" for n in range(5_000))
COUNTED = "(?:" + "|".join(f"a{{{n}}}b?" for n in range(1, 2_001)) + ")+$"
CATASTROPHIC = {
    "nested-alternation": r"(a|aa)+$",
    "backreference": r"(a*)*\1$",
    "overlapping-classes": r"(\w|\d|a)+\s*!$",
    "alternation-5000": rf"(?:{WORDS}|a+a+)+$",
}


def _bash(command: str, tmp_path: Path) -> Path:
    source = tmp_path / "stdin.json"
    source.write_text(json.dumps(payload("pre_tool_use.bash", tool_input={"command": command})))
    return source


def test_catastrophic_regexes_are_bounded_and_the_others_still_decide(db: Path, tmp_path: Path) -> None:
    blocker = add("--auto-block", anti="rm -rf", correct="trash", regex=r"rm\s+-rf")
    hostile = {name: add(anti=name, regex="placeholder") for name in CATASTROPHIC}
    for name, pattern in CATASTROPHIC.items():  # as stored: nested quantifiers are refused at add now
        stored_as_of_old(db, hostile[name], regex=pattern)
    warner = add(anti="echo", regex=r"echo\s+a")
    result = measured(PRE, _bash("rm -rf /tmp/x; echo " + "a" * 48 + "!", tmp_path))
    assert result.code == 0, result.stderr
    assert result.seconds < 10, f"{result.seconds:.1f} s of CPU"
    specific = json.loads(result.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert f"#{blocker}" in specific["permissionDecisionReason"]
    assert f"#{warner}" in specific["additionalContext"]
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("cortex-hooks"), result.stderr
    timed_out = [name for name, lid in hostile.items() if f"#{lid} skipped: its regex timed out" in lines[0]]
    assert "nested-alternation" in timed_out
    after = records()
    for name in timed_out:  # a skipped learning is neither boosted nor counted
        assert (after[hostile[name]]["access_count"], after[hostile[name]]["confidence"]) == (0, 0.7), name
    assert after[blocker]["access_count"] == after[warner]["access_count"] == 1


def test_a_regex_that_is_costly_to_compile_does_not_hold_the_hook(db: Path, tmp_path: Path) -> None:
    """Thousands of counted repeats: compiling it (which no timeout covers) costs seconds and
    gigabytes in the `regex` module. `add` refuses it; stored anyway (by hand, or by an older
    version), the hook skips it without compiling and stays bounded in time and memory."""
    blocker = add("--auto-block", anti="rm -rf", correct="trash", regex=r"rm\s+-rf")
    # A process of its own: were the pattern compiled, it would cost gigabytes.
    refused = cli("add", "--anti-pattern", "counted", "--correct", "c", f"--regex={COUNTED}", process=True)
    assert refused.code == 2
    assert refused.stderr.count("\n") == 1
    assert "too costly" in refused.stderr
    counted = add(anti="counted", regex="a+")
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("UPDATE learning SET regex = ? WHERE id = ?", (COUNTED, counted))
    result = measured(PRE, _bash("rm -rf /tmp/x; echo " + "a" * 48 + "!", tmp_path))
    assert result.code == 0, result.stderr
    assert f"#{blocker}" in json.loads(result.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert f"learning #{counted} skipped" in result.stderr
    assert result.seconds < 10, f"{result.seconds:.1f} s of CPU"
    assert_peak_below(result, 400)


# --- huge inputs ----------------------------------------------------------------------------------


def test_a_50_mb_write_is_matched_to_its_end_in_bounded_time_and_memory(db: Path, tmp_path: Path) -> None:
    end_marker = add("--auto-block", anti="marker at the end", regex=r"THE_END_MARKER\d+")
    by_tool = add("--tool", "Write", anti="console.log", regex=r"console\.log\(")
    by_input = add("--target", "input", anti="token", regex=r"secret_token_[0-9]+")
    absent = add(anti="never there", regex=r"NOT_IN_THIS_FILE")
    line = "x = compute(1)  # an ordinary line of generated source\n"
    content = line * (50 * 1024 * 1024 // len(line)) + "console.log(1)\nsecret_token_7\nTHE_END_MARKER42\n"
    source = tmp_path / "write.json"
    source.write_text(
        json.dumps(
            payload(
                "pre_tool_use.bash",
                tool_name="Write",
                tool_input={"file_path": "/p/big.py", "content": content},
            )
        )
    )
    del content
    result = measured(PRE, source)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert result.seconds < 30, f"{result.seconds:.1f} s of CPU"
    specific = json.loads(result.stdout)["hookSpecificOutput"]
    assert f"#{end_marker}" in specific["permissionDecisionReason"]  # evaluated to the very end
    assert f"#{by_tool}" in specific["additionalContext"]
    assert f"#{by_input}" in specific["additionalContext"]
    assert all(len(text) < CAP for text in specific.values())
    counts = {lid: r["access_count"] for lid, r in records().items()}
    assert counts == {end_marker: 1, by_tool: 1, by_input: 1, absent: 0}
    assert_peak_below(result, 400)


def _transcript(path: Path, huge_line: int) -> None:
    """About 100 MB of real-shaped (compact) transcript lines; with `huge_line`, one Write of that
    many bytes among them, as Claude Code records a large Write."""
    first = compact({"type": "user", "message": {"role": "user", "content": "Please refactor the parser"}})
    text = compact({"type": "assistant", "message": {"content": [{"type": "text", "text": "t" * 4000}]}})
    with open(path, "w") as out:
        out.write(first + "\n")
        written = 0
        if huge_line:
            block = {
                "type": "tool_use",
                "id": "w1",
                "name": "Write",
                "input": {"file_path": "/p/huge.py", "content": "c" * huge_line},
            }
            big = compact({"type": "assistant", "message": {"content": [block]}})
            out.write(big + "\n")
            written += len(big)
        chunk = (text + "\n") * 256
        while written < 100 * 1024 * 1024:
            out.write(chunk)
            written += len(chunk)


@pytest.mark.parametrize("huge_line", [0, 60 * 1024 * 1024], ids=["many-lines", "one-60mb-write-line"])
def test_a_100_mb_transcript_is_read_in_bounded_time_and_memory(
    db: Path, tmp_path: Path, huge_line: int
) -> None:
    lid = add(anti="decays")
    transcript = tmp_path / "transcript.jsonl"
    _transcript(transcript, huge_line)
    source = tmp_path / "end.json"
    source.write_text(
        json.dumps(payload("session_end.other", session_id="big", transcript_path=str(transcript)))
    )
    result = measured(END, source)
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert result.seconds < 5, f"{result.seconds:.1f} s of CPU"
    assert records()[lid]["confidence"] == 0.69
    (session,) = cli_json("sessions", "list")
    assert session["summary"] == "Please refactor the parser"
    if huge_line:
        assert {"file": "/p/huge.py", "action": "Write"} in session["key_changes"]
    assert_peak_below(result, 100)


# --- SQL-looking and terminal-escape text ---------------------------------------------------------

SQL = "'); DROP TABLE learning; --"
ESCAPES = "\x1b[2J\x1b]0;pwned\x07"
OTHER_CONTROLS = "bell\x07 back\x08 csi\x9b31m bidi\u202eevil\u202c cr\rover del\x7f"
NUL_TEXT = "nul\x00byte"


def _unsafe(text: str) -> list[str]:
    """Characters that can drive a terminal: C0/C1 controls (but newline), bidi overrides."""
    bidi = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    return [c for c in text if (unicodedata.category(c) == "Cc" and c != "\n") or c in bidi]


@pytest.fixture
def hostile_text(db: Path, tmp_path: Path) -> int:
    source = tmp_path / "hostile.json"
    record = {
        "anti_pattern": SQL,
        "correct_pattern": ESCAPES,
        "regex": r"DROP\s+TABLE",
        "context": OTHER_CONTROLS + " " + NUL_TEXT,
        "auto_block": True,
    }
    source.write_text(
        json.dumps([record, {"anti_pattern": ESCAPES + SQL, "correct_pattern": SQL, "regex": "DROP"}])
    )
    assert cli("import", str(source)).code == 0
    return 1


def test_hostile_text_is_stored_and_exported_verbatim(hostile_text: int) -> None:
    shown = cli_json("show", str(hostile_text))
    assert (shown["anti_pattern"], shown["correct_pattern"]) == (SQL, ESCAPES)
    assert shown["context"] == OTHER_CONTROLS + " " + NUL_TEXT
    exported = cli("export")
    assert exported.code == 0, exported.stderr
    learning = json.loads(exported.stdout)["learnings"][0]
    assert (learning["anti_pattern"], learning["correct_pattern"]) == (SQL, ESCAPES)
    assert learning["context"] == OTHER_CONTROLS + " " + NUL_TEXT
    assert "\x1b" not in exported.stdout  # JSON escapes it: the terminal never sees the byte
    assert len(records()) == 2  # and the table is still there


@pytest.mark.parametrize("command", [["list"], ["list", "--all"], ["show", "1"], ["show", "2"], ["snapshot"]])
def test_human_output_holds_no_control_characters(hostile_text: int, command: list[str]) -> None:
    result = cli(*command)
    assert result.code == 0, result.stderr
    assert _unsafe(result.stdout) == [], result.stdout
    assert "DROP TABLE learning" in result.stdout  # shown, harmlessly


def test_hook_outputs_show_hostile_text_without_its_control_characters(hostile_text: int) -> None:
    """What the model is shown is sanitized (controls, zero-width and bidi characters stripped);
    the stored text stays verbatim (see test_hostile_text_is_stored_and_exported_verbatim)."""
    for lid in (1, 2):  # below the block gate, and awaiting review
        cli_json("update", str(lid), "--confidence", "0.30")
    # the SQL unquoted: a quoted word is data to the command reader (docs/guide/command-reader.md)
    pre = run(
        PRE, stdin=payload("pre_tool_use.bash", tool_input={"command": "sqlite3 app.db DROP TABLE users"})
    )
    start = run(START, stdin=payload("session_start.startup"))
    for result in (pre, start):
        assert result.code == 0, result.stderr
        assert _unsafe(result.stdout.rstrip("\n")) == [], "raw control characters on the protocol channel"
    specific = pre.json()["hookSpecificOutput"]
    assert SQL in specific["additionalContext"]
    assert "[2J ]0;pwned" in specific["additionalContext"]  # the escapes' printable rest, harmless
    context = start.json()["hookSpecificOutput"]["additionalContext"]
    assert SQL in context
    for text in (specific["additionalContext"], context):
        assert _unsafe(text) == [], text
        assert not set(text) & set("\u200b\u200c\u200d\u2060\ufeff"), text


# --- every emitted text under the cap, however large the memory -----------------------------------


@pytest.fixture(scope="module")
def huge_memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 learnings of 5,000-character texts: blockers, warnings, and many awaiting review."""
    db = tmp_path_factory.mktemp("huge") / "cortex.db"
    learnings = []
    for n in range(2_000):
        learnings.append(
            {
                "anti_pattern": f"anti {n} " + "A\u00e9" * 2_500,
                "correct_pattern": f"correct {n} " + "C\n" * 2_500,
                "regex": r"rm\s+-rf" if n % 2 else r"echo\s+REMOVED",
                "auto_block": n % 2 == 1,
                "confidence": 0.3 if n % 4 == 0 else 0.9,
                "context": "x" * 5_000,
            }
        )
    source = db.parent / "huge.json"
    source.write_text(
        json.dumps(
            {"version": 1, "learnings": learnings, "todos": [{"text": "t" * 5000, "priority": "high"}] * 50}
        )
    )
    completed = subprocess.run(
        [script("cortex-hooks"), "import", str(source), f"--db={db}"], capture_output=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return db


def _texts(output: dict[str, Any]) -> list[str]:
    specific = output.get("hookSpecificOutput", {})
    found = [
        output.get("systemMessage"),
        *(specific.get(key) for key in ("permissionDecisionReason", "additionalContext")),
    ]
    return [text for text in found if isinstance(text, str)]


@pytest.mark.parametrize("hook", [PRE, START])
def test_every_emitted_text_stays_under_the_cap(huge_memory: Path, db: Path, hook: str) -> None:
    shutil.copyfile(huge_memory, db)
    fixture = "pre_tool_use.bash" if hook == PRE else "session_start.startup"
    result = run(hook, stdin=payload(fixture))
    assert result.code == 0, result.stderr
    texts = _texts(result.json())
    assert texts, result.stdout
    assert all(len(text) < CAP for text in texts), [len(text) for text in texts]
    if hook == PRE:
        specific = result.json()["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny"
        assert len(specific["permissionDecisionReason"]) + len(specific["additionalContext"]) < CAP
    else:
        assert "systemMessage" in result.json()


def test_snapshot_of_a_huge_memory_stays_under_the_cap(huge_memory: Path, db: Path) -> None:
    shutil.copyfile(huge_memory, db)
    result = cli("snapshot")
    assert result.code == 0, result.stderr
    assert 0 < len(result.stdout) < CAP
