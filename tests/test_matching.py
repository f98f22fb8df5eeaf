"""What a learning is matched against: Claude Code tool matchers, the target texts, timed regexes."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import regex

from cortex_hooks import config
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching


@pytest.mark.parametrize(
    ("matcher", "tool", "accepts"),
    [
        ("Bash", "Bash", True),
        ("Bash", "bash", False),  # case-sensitive
        ("Bash", "PowerShell", False),
        ("Bash", "BashOutput", False),  # an exact name is not a prefix
        ("Edit", "NotebookEdit", False),
        ("Bash|PowerShell", "PowerShell", True),
        ("Bash|PowerShell", "Bash", True),
        ("Bash|PowerShell", "Write", False),
        ("Edit,Write", "Write", True),
        ("Edit, Write", "Write", True),
        ("Edit,Write", "MultiEdit", False),
        ("*", "Bash", True),
        ("*", "mcp__github__search_repositories", True),
        ("", "Write", True),
        ("Edit.*", "NotebookEdit", True),  # a regex is unanchored
        ("Edit.*", "Edit", True),
        ("^Edit$", "NotebookEdit", False),
        ("^Edit$", "Edit", True),
        ("mcp__.*", "mcp__github__search_repositories", True),
        ("mcp__.*", "Bash", False),
        ("mcp__memory__.*", "mcp__memory__create_entities", True),
        ("mcp__memory", "mcp__memory__create_entities", False),  # exact name, matches nothing
        ("Write|Edit.*", "MultiEdit", True),
        ("write.*", "Write", False),  # case-sensitive as a regex too
        ("Agent|Task", "Task", True),
        ("my-tool", "my-tool", True),
        ("Notebook.dit", "NotebookEdit", True),
    ],
)
def test_tool_accepts_follows_claude_code_matchers(matcher: str, tool: str, accepts: bool) -> None:
    assert matching.tool_accepts(matcher, tool) is accepts


def test_a_literal_followed_by_any_text_is_judged_as_the_regex_would() -> None:
    """`mcp__github__.*` is answered without compiling it: the same answer as a regex search."""
    import random
    import re

    rng = random.Random(7)
    alphabet = "ab_-1Z"
    for _ in range(2000):
        literal = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5)))
        tool = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert matching.tool_accepts(literal + ".*", tool) is (re.search(literal + ".*", tool) is not None)
    assert matching.tool_accepts("mcp__git-hub__.*", "mcp__git-hub__push") is True
    assert matching.tool_accepts("jira__.*", "mcp__github__push") is False


def test_a_bash_command_is_searched_by_the_literals_stored_with_the_learning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The judge hands over the literals saved with a learning: its pattern is not parsed again at
    a deny, and the answers are those of the pattern parsed."""
    from cortex_hooks.guard import prefilter
    from cortex_hooks.guard.shell.bash_command import BashCommand

    pattern = r"(?i)git\s+push\s+(-f|--force)\b"
    stored = prefilter.literals(pattern)
    assert stored is not None
    commands = ["git status && GIT PUSH --force origin", "echo 'git push --force' | cat", "ls", "git push -f"]
    parsed = [matching.where(pattern, BashCommand(command), 1.0, 0.0) for command in commands]
    assert parsed == [1, None, None, 0]
    monkeypatch.setattr(
        prefilter, "requirements", lambda pattern: pytest.fail("the pattern was parsed again")
    )
    assert [matching.where(pattern, BashCommand(command), 1.0, 0.0, stored) for command in commands] == parsed


def test_an_invalid_regex_matcher_is_refused_when_saved() -> None:
    with pytest.raises(CortexError, match="not a valid regex") as raised:
        matching.check_tool_matcher("Bash(")
    assert raised.value.code == 2
    assert matching.check_tool_matcher("mcp__.*") == "mcp__.*"
    assert matching.check_tool_matcher("Bash|Edit") == "Bash|Edit"


EDITS = {
    "file_path": "/p/a.py",
    "edits": [
        {"old_string": "a", "new_string": "first"},
        {"old_string": "b", "new_string": "second", "replace_all": True},
    ],
}


@pytest.mark.parametrize(
    ("matcher", "rule"),
    [
        ("Bash(git:*)", True),
        ("Read(./src/x.py)", True),
        ("WebFetch(domain:example.com)", True),
        ("Edit|Bash(rm:*)", True),
        (" Bash(ls) ", True),
        ("Bash", False),
        ("Edit|Write", False),
        ("mcp__.*", False),
        ("mcp__github__(create|list)_issue", False),
        ("(Edit|Write)", False),
        ("Notebook(Edit|Read)", False),  # a regex group: no alternative is a rule by itself
        ("*", False),
    ],
)
def test_a_permission_rule_is_refused_as_a_tool_matcher(matcher: str, rule: bool) -> None:
    if rule:
        with pytest.raises(CortexError, match="looks like a permission rule"):
            matching.check_tool_matcher(matcher)
    else:
        assert matching.check_tool_matcher(matcher) == matcher


@pytest.mark.parametrize(
    ("tool", "tool_input", "content", "path"),
    [
        ("Bash", {"command": "git push --force", "description": "push"}, ["git push --force"], []),
        ("PowerShell", {"command": "Remove-Item x"}, ["Remove-Item x"], []),
        ("Write", {"file_path": "/p/.env", "content": "SECRET=1"}, ["SECRET=1"], ["/p/.env"]),
        (
            "Edit",
            {"file_path": "/p/a.py", "old_string": "old", "new_string": "new"},
            ["new"],
            ["/p/a.py"],
        ),
        ("MultiEdit", EDITS, ["first", "second"], ["/p/a.py"]),
        (
            "NotebookEdit",
            {"notebook_path": "/p/n.ipynb", "new_source": "import os", "cell_id": "c1"},
            ["import os"],
            ["/p/n.ipynb"],
        ),
        ("Read", {"file_path": "/p/r.md", "limit": 5}, None, ["/p/r.md"]),
        ("Grep", {"pattern": "TODO", "path": "src", "-i": True}, None, ["src"]),
        ("Glob", {"pattern": "**/*.py", "path": "/p"}, None, ["/p"]),
        ("WebFetch", {"url": "https://example.com", "prompt": "read"}, None, []),
        ("mcp__github__create_issue", {"title": "é", "body": "x"}, None, []),
    ],
)
def test_fragments_per_tool_and_target(
    tool: str, tool_input: dict[str, Any], content: list[str] | None, path: list[str]
) -> None:
    compact = json.dumps(tool_input, separators=(",", ":"), ensure_ascii=False)
    expected_content = [compact] if content is None else content
    assert matching.fragments("content", tool, tool_input) == expected_content
    assert matching.fragments("path", tool, tool_input) == path
    assert matching.fragments("input", tool, tool_input) == [compact]


def test_input_target_is_compact_json_with_non_ascii_kept() -> None:
    tool_input = {"command": "echo 'héllo'", "timeout": 5}
    (text,) = matching.fragments("input", "Bash", tool_input)
    assert text == '{"command":"echo \'héllo\'","timeout":5}'
    assert json.loads(text) == tool_input


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"description": "no command"}),
        ("Bash", {"command": 42}),
        ("Write", {"file_path": "/p/x"}),
        ("MultiEdit", {"file_path": "/p/x", "edits": "not a list"}),
        ("MultiEdit", {"file_path": "/p/x", "edits": [{"old_string": "a"}, 7]}),
    ],
)
def test_missing_content_gives_no_text(tool: str, tool_input: dict[str, Any]) -> None:
    assert matching.fragments("content", tool, tool_input) == []


def test_multiedit_skips_malformed_edits_but_keeps_the_others() -> None:
    tool_input = {"edits": [{"new_string": "kept"}, {"new_string": 3}, "x", {"new_string": "also"}]}
    assert matching.fragments("content", "MultiEdit", tool_input) == ["kept", "also"]


def test_a_non_string_path_is_no_path() -> None:
    assert matching.fragments("path", "Write", {"file_path": None, "content": "x"}) == []


def test_compile_pattern_refuses_what_does_not_compile() -> None:
    with pytest.raises(CortexError, match="invalid regex") as raised:
        matching.compile_pattern("rm (-rf")
    assert raised.value.code == 2
    assert matching.compile_pattern(r"rm\s+-rf").search("rm  -rf /") is not None


def test_search_matches_any_fragment() -> None:
    compiled = matching.compile_pattern(r"--force\b")
    assert matching.search(compiled, ["git status", "git push --force"], 1.0, 0.5)
    assert not matching.search(compiled, ["git status", "git push --forced"], 1.0, 0.5)
    assert not matching.search(compiled, [], 1.0, 0.5)


def test_a_catastrophic_pattern_times_out() -> None:
    compiled = matching.compile_pattern(r"(a|aa)+$")
    text = "a" * 60 + "b"
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        matching.search(compiled, [text], 0.05, 0.5)
    assert time.monotonic() - started < 10


def test_a_plain_pattern_over_a_large_text_runs_to_the_end() -> None:
    # `[a-z]{2}\d` is honest but not a literal scan: over 4 MiB it needs far more than the
    # base timeout, so only a budget that grows with the text lets it finish.
    text = "x" * (4 * 1_048_576) + " rm ab9"
    compiled = matching.compile_pattern(r"[a-z]{2}\d")
    defaults = config.DEFAULT
    assert matching.search(compiled, [text], defaults.regex_timeout, defaults.regex_timeout_per_mib)
    assert regex.search(r"[a-z]{2}\d", text) is not None  # the brute-force answer agrees
