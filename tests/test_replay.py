"""Replay: what the guard would have done with past tool calls, read only, by the hook's
own evaluation; Claude Code's folder of a project found as the client names it; bad input named
on stderr, never fatal, never a hang."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import add, cli, cli_json, script
from transcripts import NOT_FOUND, Transcript

from cortex_hooks.guard import prefilter
from cortex_hooks.replay import folder
from cortex_hooks.transcripts import call_log

HANG = 120  # seconds: a replay still running past this hangs (the tests are not timed)


@pytest.fixture(autouse=True)
def _claude_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


def session(
    path: Path, commands: list[str], *, name: str = "s1", at: str = "2026-11-21T10:00:00.000Z"
) -> Path:
    transcript = Transcript(name)
    for command in commands:
        transcript.bash(command, at=at)
    path.parent.mkdir(parents=True, exist_ok=True)
    return transcript.write(path)


def replayed(*args: str, **kwargs: Any) -> dict[str, Any]:
    result: dict[str, Any] = cli_json("replay", *args, **kwargs)
    return result


def by_id(report: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {item["id"]: item for item in report["learnings"]}


# --- Claude Code's folder of a project (found with the real client 2.1.197: see the README) ----


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/dev/app", "-home-dev-app"),
        ("/tmp/exp/my_proj.v2 é", "-tmp-exp-my-proj-v2--"),  # every character not a letter or digit
        ("/tmp/exp/x😀y", "-tmp-exp-x--y"),  # one dash per UTF-16 unit
        ("/tmp/exp/" + "c" * 191, "-tmp-exp-" + "c" * 191),  # 200 characters: kept whole
        ("/tmp/exp/" + "c" * 192, "-tmp-exp-" + "c" * 191 + "-pdhx5z"),  # cut at 200, a hash added
        ("/tmp/exp/" + "a" * 120 + "/" + "b" * 100, "-tmp-exp-" + "a" * 120 + "-" + "b" * 70 + "-cm2w0a"),
    ],
)
def test_the_folder_is_named_as_claude_code_names_it(path: str, name: str) -> None:
    """Each name here was read from the folder the real client made for that path."""
    assert folder.folder_name(path) == name


def test_the_folder_is_of_the_real_path_under_the_config_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "project"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    home = Path(os.environ["HOME"])
    assert folder.project_folder(str(link)) == str(
        home / ".claude" / "projects" / folder.folder_name(str(real))
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    assert folder.project_folder(str(real)).startswith(str(tmp_path / "config" / "projects") + os.sep)


def test_by_default_this_projects_transcripts_are_replayed(db: Path) -> None:
    blocked = add("--tool", "Bash", "--auto-block", anti="force push", regex=r"^git push\b.*--force(?![\w-])")
    project = Path(os.getcwd())  # the CLI's project: its working directory (no marker above it)
    where = Path(folder.project_folder(str(project)))
    session(where / "one.jsonl", ["git push --force origin main", "ls"])
    session(where / "sub" / "subagents" / "agent-1.jsonl", ["git push origin HEAD --force"], name="s2")
    report = replayed()
    assert report["paths"] == [str(where)]
    assert (report["transcripts"], report["calls"]) == (2, 3)
    assert by_id(report)[blocked]["denied"] == 2
    assert report["answers"] == {"deny": 2, "ask": 0, "rewrite": 0, "warn": 0, "none": 1}


def test_no_transcripts_here_is_said_not_failed(db: Path) -> None:
    add(anti="x", regex="x")
    result = cli("replay", "--json")
    assert result.code == 0
    assert "no transcripts of this project" in result.stderr
    assert result.json()["calls"] == 0


# --- the report --------------------------------------------------------------------------------


def test_each_learning_gets_its_counts_and_its_latest_redacted_examples(db: Path, tmp_path: Path) -> None:
    blocked = add("--tool", "Bash", "--auto-block", anti="force push", regex=r"^git push\b.*--force(?![\w-])")
    asked = add("--tool", "Bash", "--action", "ask", anti="curl to shell", regex=r"^curl\b")
    fixed = add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip", regex=r"^pip\b")
    warned = add("--tool", "Bash", anti="sudo", regex=r"^sudo\b")
    quiet = add("--tool", "Bash", "--auto-block", anti="never seen", regex=r"^zzz\b")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    commands = [f"git push --force https://x:{token}@github.com/o/r.git"] + [
        f"git push --force origin b{n}" for n in range(4)
    ]
    session(tmp_path / "t" / "a.jsonl", [*commands, "curl -s x.sh", "pip install x", "sudo ls", "ls"])
    report = replayed(str(tmp_path / "t"))
    learnings = by_id(report)
    assert set(learnings) == {blocked, asked, fixed, warned, quiet}
    assert {
        key: learnings[blocked][key] for key in ("matched", "denied", "asked", "rewritten", "warned")
    } == {
        "matched": 5,
        "denied": 5,
        "asked": 0,
        "rewritten": 0,
        "warned": 0,
    }
    assert (learnings[asked]["asked"], learnings[fixed]["rewritten"], learnings[warned]["warned"]) == (
        1,
        1,
        1,
    )
    assert learnings[quiet]["matched"] == 0
    examples = learnings[blocked]["examples"]
    assert len(examples) == 3  # at most three
    assert all(example["answer"] == "deny" and example["tool"] == "Bash" for example in examples)
    assert token not in json.dumps(report)  # the one redactor
    (rewrite,) = learnings[fixed]["examples"]
    assert (rewrite["call"], rewrite["corrected"]) == ("pip install x", "python3 -m pip install x")
    assert set(rewrite) == {"answer", "tool", "call", "corrected", "session", "at", "transcript", "line"}
    assert report["answers"] == {"deny": 5, "ask": 1, "rewrite": 1, "warn": 1, "none": 1}
    text = cli("replay", str(tmp_path / "t")).stdout
    assert "would have denied 5" in text
    assert "python3 -m pip install x" in text
    assert "1 learning matched no call." in text
    assert token not in text


def test_the_learnings_are_judged_as_they_are_now(db: Path, tmp_path: Path) -> None:
    """No boost between calls: a block learning below the gate warns at every call of a replay."""
    weak = add("--auto-block", "--confidence", "0.40", anti="force push", regex=r"--force(?![\w-])")
    session(tmp_path / "a.jsonl", ["git push --force"] * 3)
    learning = by_id(replayed(str(tmp_path / "a.jsonl")))[weak]
    assert (learning["warned"], learning["denied"], learning["trusted"]) == (3, 0, False)


def test_replay_is_read_only(db: Path, tmp_path: Path) -> None:
    learning = add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    session(tmp_path / "a.jsonl", ["git push --force"] * 3)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    listed = cli_json("list")
    replayed(str(tmp_path / "a.jsonl"))
    cli("replay", "--learning", str(learning), str(tmp_path / "a.jsonl"))
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert cli_json("list") == listed  # no boost, no access counted
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM learning_day").fetchone() == (0,)


def test_no_database_is_created(tmp_path: Path, db: Path) -> None:
    session(tmp_path / "a.jsonl", ["git reset --hard"])
    report = replayed("--pack", "core.git", str(tmp_path / "a.jsonl"))
    assert not db.exists()
    assert sum(item["denied"] for item in report["learnings"]) == 1
    assert all(
        item["slug"].startswith("core.git:") and item["pack"] == "core.git" for item in report["learnings"]
    )
    assert replayed(str(tmp_path / "a.jsonl"))["learnings"] == []
    assert not db.exists()


def test_one_learning_one_pack_one_proposal(db: Path, tmp_path: Path) -> None:
    first = add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    add(anti="ls", regex=r"^ls\b")
    cli("archive", str(first))
    session(tmp_path / "a.jsonl", ["git push --force", "ls", "git reset --hard HEAD~1"])
    only = replayed("--learning", str(first), str(tmp_path / "a.jsonl"))
    assert [item["id"] for item in only["learnings"]] == [first]  # archived: replayed as if active
    assert only["learnings"][0]["denied"] == 1
    assert cli("replay", "--learning", "99", str(tmp_path)).code == 2
    assert cli("replay", "--pack", "nope", str(tmp_path)).code == 2
    assert cli("replay", "--proposal", "7", str(tmp_path)).code == 2
    assert cli("replay", "--learning", "1", "--pack", "core.git").code == 2  # one selection at a time


def test_since_keeps_only_the_recent_calls(db: Path, tmp_path: Path) -> None:
    learning = add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    session(tmp_path / "old.jsonl", ["git push --force"], at="2026-10-01T10:00:00.000Z")
    session(tmp_path / "new.jsonl", ["git push --force"], name="s2", at="2026-11-19T10:00:00.000Z")
    now = {"CORTEX_NOW": "2026-11-20T00:00:00Z"}
    assert by_id(replayed(str(tmp_path), env=now))[learning]["denied"] == 2
    recent = replayed(str(tmp_path), "--since", "7", env=now)
    assert by_id(recent)[learning]["denied"] == 1
    assert recent["since"] == "2026-11-13T00:00:00.000Z"
    assert cli("replay", "--since", "0").code == 2


# --- the same evaluation as the hook ---------------------------------------------------------

COMMANDS = [
    "git push --force",
    "git commit -m 'never git push --force'",
    "echo git push --force",
    "pip install requests && git push origin main --force",
    "sudo pip install x",
    "bash -c 'pip install x'",
    "cat <<EOF\ngit push --force\nEOF",
    "curl https://x.sh | sh",
    "npm i lodash",
    "ls -la",
]


def test_replay_answers_what_explain_and_the_hook_answer(db: Path, tmp_path: Path) -> None:
    add("--tool", "Bash", "--auto-block", anti="force push", regex=r"^git push\b.*--force(?![\w-])")
    add("--tool", "Bash", "--rewrite", "python3 -m pip", anti="pip", regex=r"^pip\b")
    add("--tool", "Bash", "--target", "raw", "--action", "ask", anti="curl to shell", regex=r"\|\s*sh$")
    add("--tool", "Bash", "--rewrite", r"pnpm add \1", anti="npm", regex=r"^npm (?:i|install) (\S+)")
    add("--action", "block", anti="sudo", regex=r"^sudo\b")
    for number, command in enumerate(COMMANDS):
        session(tmp_path / f"{number}.jsonl", [command], name=f"s{number}")
    for number, command in enumerate(COMMANDS):
        report = replayed(str(tmp_path / f"{number}.jsonl"))
        answered = [answer for answer, count in report["answers"].items() if count]
        explained = cli_json("explain", "--tool", "Bash", "--command", command)
        assert answered == [explained["decision"]], command


@settings(max_examples=150, deadline=None)
@given(
    command=st.text(alphabet=st.sampled_from(list("ab \"'\\$\n\t-é;|x")), max_size=30),
    literal=st.text(alphabet=st.sampled_from(list("ab -é'\"x")), min_size=1, max_size=6),
    ascii_only=st.booleans(),
)
def test_a_line_passed_over_unread_could_not_have_matched(
    command: str, literal: str, ascii_only: bool
) -> None:
    """The transcript line's prefilter (a learning's loosened grams looked for in the raw JSON
    line) never passes over a call the learning's keys would let through."""
    keys = [key for key in prefilter.keys(prefilter_pattern(literal), "content") if key[0] == prefilter.LOOSE]
    exact = [key[2:].encode() for key in keys if key[1] == "="]
    folded = [key[2:].encode() for key in keys if key[1] == "~"]
    if not keys or any(key[1] == "*" for key in keys):
        return
    loose = prefilter.loosen(command)
    holds = any(key[2:] in (loose.lower() if key[1] == "~" else loose) for key in keys)
    line = json.dumps(
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "input": {"command": command}}]}},
        separators=(",", ":"),
        ensure_ascii=ascii_only,
    ).encode()
    if holds:
        assert call_log.Grams(exact, folded).held(line)


def prefilter_pattern(literal: str) -> str:
    import re

    return re.escape(literal)


# --- bad input: named on stderr, never fatal, never a hang --------------------------------------


def run_replay(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed CLI in a process of its own, stopped if it hangs."""
    return subprocess.run(
        [script("cortex-hooks"), "replay", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )


def test_bad_transcripts_are_named_and_the_rest_is_read(db: Path, tmp_path: Path) -> None:
    learning = add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    good = session(tmp_path / "bad" / "good.jsonl", ["git push --force"])
    truncated = tmp_path / "bad" / "truncated.jsonl"
    truncated.write_bytes(good.read_bytes() + good.read_bytes()[:90])  # a call cut off mid-line
    fifo = tmp_path / "bad" / "fifo.jsonl"
    os.mkfifo(fifo)
    long_line = tmp_path / "bad" / "long.jsonl"
    with long_line.open("wb") as stream:
        stream.write(b'{"type":"assistant","x":"' + b"a" * (100 << 20) + b'"}\n')
        stream.write(good.read_bytes())
    sparse = tmp_path / "bad" / "sparse.jsonl"
    with sparse.open("wb") as stream:
        stream.truncate(2 << 30)  # 2 GB of zeros, no newline
    result = run_replay(str(tmp_path / "bad"), "/dev/zero")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert by_id(report)[learning]["denied"] == 3  # good's, truncated's whole one, long's after the line
    named = {Path(item["path"]).name for item in report["skipped"]}
    assert {"truncated.jsonl", "fifo.jsonl", "long.jsonl", "sparse.jsonl", "zero"} <= named
    for name in ("truncated.jsonl", "fifo.jsonl", "long.jsonl", "sparse.jsonl", "/dev/zero"):
        assert name in result.stderr
    assert all(line.startswith("cortex-hooks: ") for line in result.stderr.splitlines())


def test_a_folder_of_fifty_thousand_files_is_read(db: Path, tmp_path: Path) -> None:
    learning = add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    many = tmp_path / "many"
    many.mkdir()
    line = Transcript("s").bash("git push --force").text()
    for number in range(50_000):
        (many / f"{number:05}.jsonl").write_text(line if number % 10_000 == 0 else "")
    result = run_replay(str(many))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["transcripts"] == 50_000
    assert by_id(report)[learning]["denied"] == 5


def test_a_replay_on_a_terminal_shows_progress_and_a_pipe_shows_none(db: Path, tmp_path: Path) -> None:
    add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    session(tmp_path / "a.jsonl", ["git push --force"])
    piped = subprocess.run(
        [script("cortex-hooks"), "replay", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert "replay: 1/1" not in piped.stderr
    program = (
        "import os, pty, sys\n"
        "pid, fd = pty.fork()\n"
        "if pid == 0:\n"
        f"    os.execv({script('cortex-hooks')!r}, ['cortex-hooks', 'replay', {str(tmp_path)!r}])\n"
        "out = b''\n"
        "while True:\n"
        "    try:\n"
        "        chunk = os.read(fd, 4096)\n"
        "    except OSError:\n"
        "        break\n"
        "    if not chunk:\n"
        "        break\n"
        "    out += chunk\n"
        "os.waitpid(pid, 0)\n"
        "sys.stdout.write(out.decode('utf-8', 'replace'))\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=HANG, check=False
    )
    assert "replay: 1/1 transcripts, 1 calls" in shown.stdout
    assert "would have denied 1" in shown.stdout


# --- dry runs that turn something on ---------------------------------------------------------


def test_packs_enable_dry_run_shows_the_replay_of_the_pack(db: Path) -> None:
    where = Path(folder.project_folder(os.getcwd()))
    session(where / "a.jsonl", ["git reset --hard HEAD~3", "git status", "rm -rf build"])
    dry = cli_json("packs", "enable", "core.git", "--dry-run")
    (summary,) = dry
    assert summary["dry_run"] is True
    reset = {item["slug"]: item for item in summary["replay"]["learnings"]}["core.git:reset-hard"]
    assert reset["denied"] == 1
    assert reset["examples"][0]["call"] == "git reset --hard HEAD~3"
    text = cli("packs", "enable", "core", "--dry-run").stdout
    assert "core.git:reset-hard" in text
    assert "would have denied 1" in text
    assert not db.exists()


def test_accept_dry_run_shows_the_replay_of_the_learning_it_would_make(db: Path) -> None:
    where = Path(folder.project_folder(os.getcwd()))
    where.mkdir(parents=True)
    word = "makee"
    for name in ("s1", "s2"):
        transcript = (
            Transcript(name).bash(f"{word} test", NOT_FOUND.format(word=word), code=127).bash("make test")
        )
        transcript.write(where / f"{name}.jsonl")
        cli("capture", "--transcript", str(where / f"{name}.jsonl"))
    (proposal,) = cli_json("proposals")
    assert proposal["rewrite"] == "make"  # the fix, as a suggested rewrite
    dry = cli_json("accept", str(proposal["id"]), "--dry-run", "--rewrite")
    assert dry["dry_run"] is True
    assert dry["learning"]["rewrite"] == "make"
    (learning,) = dry["replay"]["learnings"]
    assert (learning["proposal"], learning["rewritten"]) == (proposal["id"], 2)
    assert learning["examples"][0]["corrected"] == "make test"
    assert cli_json("proposals")[0]["status"] == "proposed"  # nothing accepted
    replay_only = replayed("--proposal", str(proposal["id"]))
    assert replay_only["learnings"][0]["warned"] == 2  # as accepted: warn only
    accepted = cli_json("accept", str(proposal["id"]), "--rewrite")
    assert (accepted["rewrite"], accepted["action"]) == ("make", "warn")


def test_a_path_with_no_transcript_is_not_told_every_call_passed(db: Path, tmp_path: Path) -> None:
    add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    (tmp_path / "empty").mkdir()
    result = cli("replay", str(tmp_path / "empty"))
    assert result.code == 0
    assert "No tool call was read, so there is nothing to judge." in result.stdout
    assert "let every call through" not in result.stdout


def test_a_path_that_does_not_exist_is_a_usage_error(db: Path, tmp_path: Path) -> None:
    add("--auto-block", anti="force push", regex=r"--force(?![\w-])")
    session(tmp_path / "real.jsonl", ["git push --force"])
    for args in ([str(tmp_path / "missing.jsonl")], [str(tmp_path / "real.jsonl"), str(tmp_path / "typo")]):
        result = run_replay(*args)
        assert result.returncode == 2, result
        assert result.stdout == ""
        assert result.stderr == f"cortex-hooks: replay: no such file or folder: {args[-1]}\n"
