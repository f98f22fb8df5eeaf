"""Sessions of the labelled set (tests/corpora/outcomes.toml) played through the installed hooks, as
Claude Code plays them: the assistant's tool_use line written to the transcript, then PreToolUse
with the real payload, then the tool's result as the client writes it after the hook's answer (a
deny's reason as the error, an ask refused where no one can answer or answered by the person, a
rewrite's corrected command run), and SessionEnd at the end. The lines have the shape of Claude
Code 2.1.197's own (tests/fixtures/transcript.jsonl), written compact as the client writes them.
"""

from __future__ import annotations

import json
import sqlite3
import tomllib
import uuid
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from support import cli_json, payload, reminder_unless_regex, run

CORPUS = Path(__file__).parent / "corpora" / "outcomes.toml"
PROJECT = "/home/dev/proj"
DECLINED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for "
    "the user to tell you how to proceed."
)


def corpus() -> dict[str, Any]:
    return tomllib.loads(CORPUS.read_text())


SESSIONS_AT = "2026-11-28T10:00:00Z"  # the sessions' clock
LEARNED_AT = "2026-11-28T09:00:00Z"  # the learnings', before it


def add_learnings(learnings: dict[str, dict[str, Any]], env: dict[str, str]) -> dict[str, int]:
    """The corpus's learnings added with the CLI: their ids by name. They are written an hour
    before the sessions' clock (`play`'s `now`), whatever the real time: a catch made before a
    learning's last change counts for its old wording only."""
    env = {"CORTEX_NOW": LEARNED_AT, **env}
    ids = {}
    for name, fields in learnings.items():
        args = ["--anti-pattern", fields["anti_pattern"], "--correct", fields["correct"]]
        args += [f"--regex={fields['regex']}", "--tool", fields.get("tool", "Bash")]
        if "target" in fields:
            args += ["--target", fields["target"]]
        if "action" in fields:
            args += ["--action", fields["action"]]
        if "rewrite" in fields:
            args += ["--rewrite", fields["rewrite"]]
        ids[name] = cli_json("add", *reminder_unless_regex(args), env=env)["id"]
    return ids


class Transcript:
    """A session's transcript, written line by line as Claude Code writes it."""

    def __init__(self, path: Path, session: str, now: str) -> None:
        self.path = path
        self.session = session
        self.now = now
        self.parent: str | None = None
        self.turn = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self.write({"type": "queue-operation", "operation": "enqueue", "timestamp": now, "sessionId": session,
                    "content": "Please do the task."})  # fmt: skip
        self.record({"type": "user", "promptId": str(uuid.uuid4()),
                     "message": {"role": "user", "content": "Please do the task."},
                     "permissionMode": "bypassPermissions", "promptSource": "sdk"})  # fmt: skip

    def write(self, line: dict[str, Any], cut: bool = False) -> None:
        text = json.dumps(line, separators=(",", ":"), ensure_ascii=False)
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(text[: len(text) // 2] if cut else text + "\n")

    def record(self, fields: dict[str, Any], cut: bool = False) -> str:
        """A conversation line with the envelope the client gives every one."""
        own = str(uuid.uuid4())
        self.write(
            {"parentUuid": self.parent, "isSidechain": False, **fields, "uuid": own, "timestamp": self.now,
             "userType": "external", "entrypoint": "sdk-cli", "cwd": PROJECT, "sessionId": self.session,
             "version": "2.1.197", "gitBranch": "HEAD"},
            cut,
        )  # fmt: skip
        self.parent = own
        return own

    def assistant(self, content: list[dict[str, Any]], cut: bool = False) -> str:
        self.turn += 1
        message = {"id": f"msg_{self.session[:8]}_{self.turn:06d}", "type": "message", "role": "assistant",
                   "model": "claude-opus-4-8", "content": content, "stop_reason": "tool_use",
                   "stop_sequence": None, "usage": {"input_tokens": 19085, "output_tokens": 5}}  # fmt: skip
        return self.record({"message": message, "requestId": f"req_{self.turn}", "type": "assistant"}, cut)

    def result(self, call_id: str, source: str, text: str, error: bool, cut: bool = False) -> None:
        block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": text}
        if error:
            block["is_error"] = True
        self.record({"type": "user", "promptId": str(uuid.uuid4()),
                     "message": {"role": "user", "content": [block]},
                     "toolUseResult": f"Error: {text}" if error else {"stdout": text, "stderr": ""},
                     "sourceToolAssistantUUID": source}, cut)  # fmt: skip


def tool_of(step: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if "call" in step:
        return "Bash", {"command": step["call"], "description": "task"}
    if "write" in step:
        return "Write", {"file_path": step["write"], "content": "KEY=value\n"}
    return "Read", {"file_path": step["read"]}


class Played:
    """What one session left: its id, transcript, and each catch labelled: (learning name, the
    call's id, the label)."""

    def __init__(self, session: str, transcript: Path) -> None:
        self.session = session
        self.transcript = transcript
        self.labelled: list[tuple[str, str, str]] = []
        self.unlabelled: list[tuple[int, str]] = []  # (step, learning id) caught without a label


def play(
    session: dict[str, Any],
    ids: dict[str, int],
    env: dict[str, str],
    home: Path,
    now: str = SESSIONS_AT,
    *,
    before_end: Callable[[], None] | None = None,
) -> Played:
    """One session of the corpus through the installed hooks; its SessionEnd sent (and one before
    each resume), `before_end` done right before the last."""
    session_id = str(uuid.uuid4())
    transcript = Transcript(
        home / ".claude" / "projects" / "-home-dev-proj" / f"{session_id}.jsonl", session_id, now
    )
    played = Played(session_id, transcript.path)
    names = {number: name for name, number in ids.items()}
    clock = {**env, "CORTEX_NOW": now}
    for number, step in enumerate(session["steps"]):
        if "resume" in step:
            end(session_id, transcript.path, clock)
            clock = {**env, "CORTEX_NOW": step["resume"]}
            transcript.now = step["resume"]
            continue
        tool, tool_input = tool_of(step)
        call_id = f"toolu_01{uuid.uuid4().hex[:22]}"
        cut = bool(step.get("cut"))
        source = transcript.assistant(
            [{"type": "tool_use", "id": call_id, "name": tool, "input": tool_input}]
        )
        answer = run(
            "cortex-pre-tool-use",
            stdin=payload("pre_tool_use.bash", session_id=session_id, transcript_path=str(transcript.path),
                          cwd=PROJECT, tool_name=tool, tool_input=tool_input, tool_use_id=call_id),
            env=clock,
        )  # fmt: skip
        assert answer.code == 0, answer.stderr
        decided = answer.json()["hookSpecificOutput"] if answer.stdout.strip() else {}
        for name, label in step.get("expect", {}).items():
            played.labelled.append((name, call_id, label))
        caught = _caught(clock["CORTEX_DB"], call_id)
        for learning_id in caught:
            if names[learning_id] not in step.get("expect", {}):
                played.unlabelled.append((number, names[learning_id]))
        text, error = _result(step, decided)
        transcript.result(
            call_id, source, text, error, cut=cut
        )  # cut: the line being written when it stopped
        if cut:
            break
    if before_end is not None:
        before_end()
    end(session_id, transcript.path, clock)
    return played


def _result(step: dict[str, Any], decided: dict[str, Any]) -> tuple[str, bool]:
    """The tool's result as the client writes it after the hook's answer."""
    said = decided.get("permissionDecision")
    if said == "deny":
        return decided["permissionDecisionReason"], True
    if said == "ask":
        if step.get("person") == "yes":
            return "HEAD is now at 3f2a1c9 wip", False
        if step.get("person") == "no":
            return DECLINED, True
        return decided["permissionDecisionReason"], True  # claude -p: no one can answer, it refuses
    if step.get("fails"):
        return "Exit code 1\nmake: *** [Makefile:12: test] Error 1", True
    return "ok", False


def end(session_id: str, transcript: Path, env: dict[str, str]) -> None:
    ended = run(
        "cortex-session-end",
        stdin=payload(
            "session_end.other", session_id=session_id, transcript_path=str(transcript), cwd=PROJECT
        ),
        env=env,
    )
    assert ended.code == 0, ended.stderr


def _caught(database: str, call_id: str) -> list[int]:
    with closing(sqlite3.connect(database)) as connection:
        return [
            row[0]
            for row in connection.execute("SELECT learning_id FROM outcome WHERE call_id = ?", (call_id,))
        ]


def outcomes(database: str) -> dict[tuple[int, str], str]:
    """Every catch's outcome as the database holds it ("unknown" while it has none)."""
    with closing(sqlite3.connect(database)) as connection:
        return {
            (row[0], row[1]): row[2] or "unknown"
            for row in connection.execute("SELECT learning_id, call_id, result FROM outcome")
        }
