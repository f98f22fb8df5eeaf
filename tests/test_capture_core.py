"""The pure core of capture: reading, segments, detectors, regex synthesis, redaction."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import regex
from transcripts import NOT_FOUND, Transcript

from cortex_hooks.capture import detect, reading, regex_synthesis, segments
from cortex_hooks.guard.verdict_texts import ASK_HEADER, DENY_HEADER
from cortex_hooks.redact import MASK, is_secret, redact

FIXTURES = Path(__file__).parent / "fixtures"


def scan(transcript: Transcript, tmp_path: Path, successes: list[str] | None = None) -> detect.Found:
    path = transcript.write(tmp_path / "t.jsonl")
    chunk = reading.read(str(path), 0, time.monotonic() + 30)
    assert chunk.finished
    return detect.scan(chunk.events, 0, True, successes or [])


def search(pattern: str, text: str) -> bool:
    return regex.search(pattern, text) is not None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cd app && python x.py", ["cd app", "python x.py"]),
        ("a || b; c | d", ["a", "b", "c", "d"]),
        ("echo 'a && b' && ls", ["echo 'a && b'", "ls"]),
        ('grep "x|y" f | wc -l', ['grep "x|y" f', "wc -l"]),
        ("echo a\\;b", ["echo a\\;b"]),
        ("", []),
    ],
)
def test_segments_split_on_operators_outside_quotes(command: str, expected: list[str]) -> None:
    assert segments.split(command) == expected


def test_words_keep_quoted_text_whole() -> None:
    assert segments.words('git commit -m "a b"') == ["git", "commit", "-m", '"a b"']


FIXED = [
    # (name, failed command, its output, exit code, the command that worked, matched, not matched)
    (
        "python to python3",
        "python hello.py",
        NOT_FOUND.format(word="python"),
        127,
        "python3 hello.py",
        "python other.py",
        "python3 other.py",
    ),
    (
        "pytest wrapped by uv run",
        "pytest -q",
        NOT_FOUND.format(word="pytest"),
        127,
        "uv run pytest -q",
        "pytest tests",
        "uv run pytest tests",
    ),
    (
        "a misspelled flag",
        "ls --colr=auto src",
        "ls: unrecognized option '--colr=auto'\nTry 'ls --help' for more information.",
        2,
        "ls --color=auto src",
        "ls -l --colr=auto",
        "ls --color=auto",
    ),
    (
        "a chained cd then python",
        "cd app && python manage.py test",
        NOT_FOUND.format(word="python"),
        127,
        "cd app && python3 manage.py test",
        "cd x && python y.py",
        "cd x && python3 y.py",
    ),
    (
        "make check where only test exists",
        "make check",
        "make: *** No rule to make target 'check'.  Stop.",
        2,
        "make test",
        "make -j4 check",
        "make test",
    ),
    (
        "a module run without its wrapper",
        "python3 -m pytest",
        "/usr/bin/python3: No module named pytest",
        1,
        "uv run python3 -m pytest",
        "python3 -m pytest -q",
        "uv run python3 -m pytest",
    ),
]


@pytest.mark.parametrize("case", FIXED, ids=[case[0] for case in FIXED])
def test_failed_then_fixed_gives_one_narrow_candidate(
    tmp_path: Path, case: tuple[str, str, str, int, str, str, str]
) -> None:
    _name, failed, output, code, fixed, matched, unmatched = case
    found = scan(Transcript().prompt("go").bash(failed, output, code=code).bash(fixed), tmp_path)
    assert [c.signal for c in found.candidates] == ["failed-then-fixed"]
    candidate = found.candidates[0]
    assert search(candidate.regex, failed)
    assert search(candidate.regex, matched)
    assert not search(candidate.regex, fixed)
    assert not search(candidate.regex, unmatched)
    assert not any(search(candidate.regex, text) for text in regex_synthesis.benign())
    assert fixed.rsplit("&&", maxsplit=1)[-1].strip() in candidate.correct_pattern


def test_our_own_asks_and_denies_are_no_failures(tmp_path: Path) -> None:
    """An ask `claude -p` refused, and a corrected command denied, are our answers, not the
    call's failure: never a failed call capture learns from."""
    from cortex_hooks.capture import reading
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.guard.verdict_texts import rechecked

    hit = Hit(id=1, anti_pattern="x", correct_pattern="y", severity="medium", before=70)
    transcript = (
        Transcript()
        .tool("Bash", {"command": "makee test"}, f"{ASK_HEADER}\n- learning #1 ...", error=True)
        .tool("Bash", {"command": "makee x"}, rechecked(hit, "make x", "deny"), error=True)
        .bash("makee y", NOT_FOUND.format(word="makee"), code=127)
    )
    path = transcript.write(tmp_path / "t.jsonl")
    chunk = reading.read(str(path), 0, float("inf"))
    statuses = [event.status for event in chunk.events if isinstance(event, reading.Call)]
    assert statuses == ["ignored", "ignored", "error"]


def _deny(command: str) -> Transcript:
    return Transcript().tool(
        "Bash", {"command": command}, f"{DENY_HEADER}\n- learning #1 ...\n  NEVER: x\n  DO: y", error=True
    )


HARD_NEGATIVES = {
    "a TDD loop": Transcript()
    .bash("pytest tests/test_a.py", "FAILED tests/test_a.py::test_x - assert 1 == 2\n1 failed", code=1)
    .tool("Edit", {"file_path": "a.py", "old_string": "1", "new_string": "2"}, "ok")
    .bash("pytest tests/test_a.py")
    .bash("uv run pytest tests/test_b.py", "pytest-8.3 ... FAILED tests/test_b.py - Error", code=1)
    .bash("uv run pytest tests/test_c.py"),
    "grep exit 1": Transcript()
    .bash("grep -rn foo src", "", code=1)
    .bash("grep -rn bar src", "src/x.py: bar"),
    "rg exit 1 in a chain": Transcript().bash("cd src && rg needle", "", code=1).bash("cd src && rg other"),
    "an Edit validation error": Transcript()
    .tool(
        "Edit",
        {"file_path": "a.py", "old_string": "absent", "new_string": "x"},
        "<tool_use_error>String to replace not found in file.\nString: absent</tool_use_error>",
        error=True,
    )
    .tool("Edit", {"file_path": "a.py", "old_string": "present", "new_string": "x"}, "ok"),
    "a Bash validation error": Transcript()
    .tool(
        "Bash", {"command": "python x"}, "<tool_use_error>InputValidationError</tool_use_error>", error=True
    )
    .bash("python3 x"),
    "our own deny": _deny("python hello.py").bash("python3 hello.py"),
    "git push fixed by an added step": Transcript()
    .bash("git push", "! [rejected] main -> main (fetch first)\nerror: failed to push some refs", code=1)
    .bash("git pull --rebase && git push"),
    "an interrupt": Transcript()
    .tool("Bash", {"command": "sleep 100"}, "[Request interrupted by user for tool use]", error=True)
    .bash("sleep 1"),
    "a user rejection": Transcript()
    .tool(
        "Bash",
        {"command": "rm -rf build"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        error=True,
    )
    .bash("rm -rf dist"),
    "an identical rerun": Transcript()
    .bash("npm install", "npm error network ETIMEDOUT", code=1)
    .bash("npm install"),
    "a failed test file swapped for another": Transcript()
    .bash("pytest tests/a.py", "ERROR: file or directory not found: tests/a.py", code=4)
    .bash("pytest tests/b.py"),
    "no problem": Transcript().bash("pytest -q").prompt("no problem, carry on with pytest"),
    "no worries": Transcript().bash("pytest -q").prompt("no worries about pytest"),
    "never mind": Transcript().bash("npm test").prompt("never mind, npm is fine"),
    "a question": Transcript().bash("npm test").prompt("no, why did you run `npm test`?"),
    "don't worry": Transcript().bash("npm test").prompt("don't worry about npm"),
    "a correction in a system reminder": Transcript()
    .bash("npm test")
    .prompt("<system-reminder>no, don't use npm, use pnpm</system-reminder>"),
    "a correction in slash-command text": Transcript()
    .bash("npm test")
    .prompt("<command-name>/review</command-name>\n<command-args>never use npm</command-args>"),
    "a correction in local command output": Transcript()
    .bash("npm test")
    .prompt("<local-command-stdout>no, don't use npm</local-command-stdout>"),
    "a correction in a meta line": Transcript().bash("npm test").prompt("no, don't use npm", isMeta=True),
    "a correction in a sidechain": Transcript()
    .bash("npm test")
    .prompt("no, don't use npm", isSidechain=True),
    "a correction in a compact summary": Transcript()
    .bash("npm test")
    .prompt("never use npm here", isCompactSummary=True),
    "a correction naming nothing the calls did": Transcript().bash("ls").prompt("no, do it differently"),
    "a redirect naming a call's word": Transcript().bash("ls tests").prompt("no, the tests in src/ first"),
    "a redirect with a backticked span": Transcript()
    .bash("cat a.py")
    .prompt("no, look at `a.py` again later"),
    "a long prompt": Transcript().bash("npm test").prompt("no, don't use npm " + "because " * 60),
}


@pytest.mark.parametrize("transcript", HARD_NEGATIVES.values(), ids=HARD_NEGATIVES.keys())
def test_hard_negatives_give_no_candidate(tmp_path: Path, transcript: Transcript) -> None:
    found = scan(transcript, tmp_path)
    assert [(c.signal, c.regex) for c in found.candidates] == []


CORRECTIONS = [
    # (name, the call before, the prompt, matched by the regex, not matched)
    ("use X not Y", "pytest -q", "no, use `uv run pytest` not pytest", "pytest -x", "uv run pytest"),
    ("don't use X", "npm install left-pad", "don't use npm, use pnpm", "npm ci", "pnpm install"),
    ("instead of X, use Y", "pip install requests", "instead of pip, use uv pip", "pip list", "uv pip list"),
    (
        "never with a flag",
        "git commit --no-verify -m x",
        "never pass `--no-verify`",
        "git commit --no-verify",
        "git commit",
    ),
    (
        "remember:",
        "docker compose up",
        "remember: `docker compose` needs the dev profile",
        "docker compose up -d",
        "docker ps",
    ),
]


@pytest.mark.parametrize(
    ("call", "prompt", "matched", "unmatched"),
    [case[1:] for case in CORRECTIONS],
    ids=[case[0] for case in CORRECTIONS],
)
def test_corrections_at_first_sight(
    tmp_path: Path, call: str, prompt: str, matched: str, unmatched: str
) -> None:
    found = scan(Transcript().bash(call).prompt(prompt), tmp_path)
    assert [c.signal for c in found.candidates] == ["user-correction"]
    candidate = found.candidates[0]
    assert search(candidate.regex, call)
    assert search(candidate.regex, matched)
    assert not search(candidate.regex, unmatched)
    assert candidate.correct_pattern == prompt


def test_secrets_are_redacted_in_evidence(tmp_path: Path) -> None:
    key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"
    found = scan(
        Transcript()
        .bash(
            f"curl -H 'x-api-key: {key}' --retyr 3 https://api.example.com",
            "curl: option --retyr: is unknown",
            code=2,
        )
        .bash(f"curl -H 'x-api-key: {key}' --retry 3 https://api.example.com"),
        tmp_path,
    )
    assert len(found.candidates) == 1
    candidate = found.candidates[0]
    everything = " ".join(
        (
            candidate.anti_pattern,
            candidate.correct_pattern,
            candidate.failed,
            candidate.fixed,
            candidate.regex,
        )
    )
    assert key not in everything
    assert MASK in candidate.failed


def test_a_candidate_whose_forbidden_word_is_a_secret_is_dropped(tmp_path: Path) -> None:
    found = scan(
        Transcript()
        .bash("deploy --key AKIAABCDEFGHIJKLMNOP", "deploy: unknown argument AKIAABCDEFGHIJKLMNOP", code=2)
        .bash("deploy --key AKIAZZZZZZZZZZZZZZZZ"),
        tmp_path,
    )
    assert found.candidates == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("https://bob:hunter22@example.com/x", "hunter22"),
        ("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"),
        ("password=correcthorse", "correcthorse"),
        ("mytool --api-key s3cr3tvalue99", "s3cr3tvalue99"),
        ("Authorization: Bearer abc123def456", "abc123def456"),
        ("blob a8f9Dk2l3m4n5o6p7q8r9s0tAbCdEfGh12 end", "a8f9Dk2l3m4n5o6p7q8r9s0tAbCdEfGh12"),
    ],
)
def test_redaction(text: str, secret: str) -> None:
    assert secret not in redact(text)
    assert is_secret(secret) or is_secret(text)


@pytest.mark.parametrize(
    "text",
    ["git commit -m 'fix auth flow'", "ls /usr/lib/python3.11/site-packages/foo", "echo $TOKEN", "make test"],
)
def test_redaction_leaves_ordinary_text(text: str) -> None:
    assert redact(text) == text


def test_a_regex_matching_the_projects_successful_calls_is_refused(tmp_path: Path) -> None:
    transcript = Transcript().bash("make check", "make: *** No rule to make target 'check'.  Stop.", code=2)
    transcript.bash("make test")
    found = scan(
        transcript, tmp_path, successes=["make check", "make check V=1", "make check -j2"] + ["ls"] * 10
    )
    assert found.candidates == []
    assert any("successful calls" in reason for reason in found.skipped)


def test_failures_without_a_fix_are_repeated_failure_occurrences(tmp_path: Path) -> None:
    transcript = Transcript()
    for _ in range(3):
        transcript.bash("pnpm test", NOT_FOUND.format(word="pnpm"), code=127)
    found = scan(transcript, tmp_path)
    assert [c.signal for c in found.candidates] == ["repeated-failure"] * 3
    assert len({c.fingerprint for c in found.candidates}) == 1


def test_the_shared_fixture_is_read_and_gives_nothing(tmp_path: Path) -> None:
    chunk = reading.read(str(FIXTURES / "transcript.jsonl"), 0, time.monotonic() + 30)
    prompts = [e.text for e in chunk.events if isinstance(e, reading.Prompt)]
    calls = [e for e in chunk.events if isinstance(e, reading.Call)]
    assert prompts == ["Please add a greeting module and fix the typo"]
    assert [c.tool for c in calls] == ["Write", "Edit", "Bash"]
    assert [c.status for c in calls] == ["ok", "ok", "error"]
    assert calls[2].exit_code == 2
    assert chunk.session_id == "ce995a99-0777-4e7f-82cb-bc2a00f90ca9"
    assert detect.scan(chunk.events, 0, True, []).candidates == []


def test_a_scan_in_pieces_finds_what_one_scan_finds(tmp_path: Path) -> None:
    transcript = Transcript().bash("python a.py", NOT_FOUND.format(word="python"), code=127)
    transcript.bash("python3 a.py").bash("npm test").prompt("no, don't use npm")
    path = transcript.write(tmp_path / "t.jsonl")
    whole = [c.regex for c in detect.scan(_events(path), 0, True, []).candidates]
    assert len(whole) == 2
    for cut in range(1, len(_events(path))):
        events = _events(path)  # fresh calls: a scan marks the failures it decided
        first = detect.scan(events[:cut], 0, False, [])
        second = detect.scan(events, cut, True, [])
        assert sorted(c.regex for c in first.candidates + second.candidates) == sorted(whole)


def _events(path: Path) -> list[reading.Event]:
    return reading.read(str(path), 0, time.monotonic() + 30).events


def test_a_line_still_being_written_is_left_for_later(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    text = Transcript().prompt("hello").text()
    path.write_text(text + '{"type":"user","message":{"content":"no, do', encoding="utf-8")
    chunk = reading.read(str(path), 0, time.monotonic() + 30)
    assert chunk.end == len(text.encode())
    assert len(chunk.events) == 1


def test_malformed_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"type":"user",\n[1,2]\n"user"\n' + Transcript().prompt("hi").text(), encoding="utf-8")
    chunk = reading.read(str(path), 0, time.monotonic() + 30)
    assert [e.text for e in chunk.events if isinstance(e, reading.Prompt)] == ["hi"]


@pytest.mark.parametrize(
    ("name", "signals"),
    [
        ("transcript", []),  # the shared fixture: a failed run with no fix
        ("transcript.make_check", ["failed-then-fixed"]),  # recorded: make check, then make test
        ("transcript.denied", []),  # recorded: make check denied by our own learning
    ],
)
def test_transcripts_recorded_with_the_real_client(name: str, signals: list[str]) -> None:
    chunk = reading.read(str(FIXTURES / f"{name}.jsonl"), 0, time.monotonic() + 30)
    found = detect.scan(chunk.events, 0, True, [])
    assert [c.signal for c in found.candidates] == signals
    for candidate in found.candidates:
        assert search(candidate.regex, "make check")
        assert not search(candidate.regex, "make test")
