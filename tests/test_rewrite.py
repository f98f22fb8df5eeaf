"""Auto-correct, pure (guard.rewrite, docs/guide/actions.md): the match inside the matched simple command is
replaced in the command as written; a correction that would be empty, too long, a no-op or a
loop is not applied; add and update refuse a rewrite that makes its own match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching, rewrite
from cortex_hooks.guard.shell import reader
from cortex_hooks.guard.shell.bash_command import BashCommand

TIMEOUTS = (1.0, 1.0)


def corrected(pattern: str, template: str, command: str, target: str = "content") -> rewrite.Correction:
    subject = matching.subject(target, "Bash", [command])
    where = matching.where(pattern, subject, *TIMEOUTS)
    assert where is not None, f"{pattern!r} does not match {command!r}"
    return rewrite.correct(pattern, template, command, subject, index=where, timeouts=TIMEOUTS)


@pytest.mark.parametrize(
    ("pattern", "template", "command", "expected"),
    [
        (r"^pip\b", "python3 -m pip", "pip install requests", "python3 -m pip install requests"),
        # only the matched simple command changes; the rest is kept as written
        (
            r"^pip\b",
            "python3 -m pip",
            "cd app &&  pip install x ; ls",
            "cd app &&  python3 -m pip install x ; ls",
        ),
        # wrappers and assignments stay where they are
        (r"^pip\b", "python3 -m pip", "FOO=1 sudo pip install x", "FOO=1 sudo python3 -m pip install x"),
        # a program named by a path is one word: it is replaced whole
        (r"^pip\b", "python3 -m pip", "/usr/bin/pip install x", "python3 -m pip install x"),
        # groups of the match: \1, \g<name>
        (r"^npm (?:install|i) (\S+)", r"pnpm add \1", "npm i lodash", "pnpm add lodash"),
        (
            r"^npm (?:install|i) (?P<pkg>\S+)",
            r"pnpm add \g<pkg>",
            "npm install left-pad",
            "pnpm add left-pad",
        ),
        # a run of blanks between words, as written, is inside the match
        (
            r"^git push --force(?![\w-])",
            "git push --force-with-lease",
            "git  push   --force origin",
            "git push --force-with-lease origin",
        ),
        # a quoted word shown as written maps to itself
        (r"^git commit --no-verify", "git commit", 'git commit --no-verify -m "x y"', 'git commit -m "x y"'),
        # an empty rewrite removes the match
        (r" --no-verify\b", "", "git commit --no-verify -m x", "git commit -m x"),
        # inside a heredoc fed to a shell: the body is part of the command as written
        (
            r"^pip\b",
            "python3 -m pip",
            "bash <<EOF\npip install x\nEOF",
            "bash <<EOF\npython3 -m pip install x\nEOF",
        ),
        # \\ is a backslash
        (r"^echo a", r"echo b\\c", "echo a", r"echo b\c"),
    ],
)
def test_the_match_is_replaced_in_the_command_as_written(
    pattern: str, template: str, command: str, expected: str
) -> None:
    found = corrected(pattern, template, command)
    assert (found.command, found.problem) == (expected, None)


def test_target_raw_replaces_in_the_raw_string() -> None:
    found = corrected(r"(?<!uv )pip install", "uv pip install", "echo 'pip install' && true", target="raw")
    assert found.command == "echo 'uv pip install' && true"
    assert corrected(r"pip install", "uv pip install", "pip install x", target="raw").problem is not None


@pytest.mark.parametrize(
    ("pattern", "template", "command", "problem"),
    [
        # the match lies in a string the shell runs again: not the command as written
        (r"^pip\b", "python3 -m pip", "bash -c 'pip install x'", "not in the command as written"),
        (r"^pip\b", "python3 -m pip", "eval pip install x", "not in the command as written"),
        # a match that ends inside a word the reader rewrote (`/usr/bin/pip` read as `pip`)
        (r"^pi", "PI", "/usr/bin/pip x", "not in the command as written"),
        # empty, a no-op, a loop
        (r"^rm -rf /tmp/x$", "", "rm -rf /tmp/x", "would be empty"),
        (r"^ls\b", "ls", "ls -la", "changes nothing"),
        (r"^pip\b", "pip", "pip install x", "changes nothing"),
        (r"\bpip install", "pip install --user", "pip install x", "a loop"),
    ],
)
def test_a_correction_that_cannot_apply_is_refused_with_its_reason(
    pattern: str, template: str, command: str, problem: str
) -> None:
    found = corrected(pattern, template, command)
    assert found.command is None
    assert found.problem is not None
    assert problem in found.problem


def test_a_correction_over_the_size_limit_is_refused() -> None:
    found = corrected(r"^echo x", "echo " + "y" * rewrite.MAX_CORRECTED, "echo x")
    assert found.command is None
    assert found.problem is not None
    assert "over" in found.problem


@pytest.mark.parametrize(
    ("pattern", "template", "target", "refused"),
    [
        (r"pip install", "python3 -m pip install", "content", "makes its own match"),
        (r"^pip\b", "python3 -m pip", "content", None),
        (r"^pip (\w+)", r"uv pip \1", "content", None),
        (r"^pip (\w+)", r"uv pip \2", "content", "does not expand"),
        (r"^pip (\w+)", r"uv pip \g<name>", "content", "does not expand"),
        (r"^pip (\w+)", "uv \\q", "content", "does not expand"),
        (r"pip", "pip3", "raw", "makes its own match"),
    ],
)
def test_add_and_update_refuse_a_rewrite_that_makes_its_own_match(
    pattern: str, template: str, target: str, refused: str | None
) -> None:
    if refused is None:
        rewrite.check(pattern, template, target)
        return
    with pytest.raises(CortexError) as raised:
        rewrite.check(pattern, template, target)
    assert refused in raised.value.message


@pytest.mark.parametrize(
    ("tool", "target"),
    [("*", "content"), ("Write", "content"), ("Bash|Write", "content"), ("Bash", "path"), ("Bash", "input")],
)
def test_a_rewrite_is_for_bash_commands_only(tool: str, target: str) -> None:
    assert rewrite.refusal(tool, target) is not None
    assert rewrite.refusal("Bash", "content") is None
    assert rewrite.refusal("Bash", "raw") is None


_WORD = st.text(alphabet="abcdefgh-./", min_size=1, max_size=6)
_QUOTED = st.builds(lambda word: f"'{word} x'", _WORD)
_BLANKS = st.sampled_from([" ", "  ", "\t", " \\\n "])


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(st.one_of(_WORD, _QUOTED), min_size=1, max_size=5),
    blanks=st.lists(_BLANKS, min_size=5, max_size=5),
    before=st.sampled_from(["", "sudo ", "FOO=1 ", "cd x && ", "true; ", "env A=b "]),
)
def test_a_simple_commands_pieces_are_where_they_were_written(
    words: list[str], blanks: list[str], before: str
) -> None:
    """Every piece of a simple command's text that was written as it reads is found, as is, at
    the place its span names in the command: what a rewrite relies on."""
    command = before + "".join(word + blank for word, blank in zip(words, blanks, strict=False)).rstrip(
        " \t\\\n"
    )
    for simple in reader.read(command).commands:
        if simple.spans is None:
            continue
        for low, high, written_low, written_high in simple.spans:
            piece = simple.text[low:high]
            written = command[written_low:written_high]
            assert (
                piece == written
                or written.endswith(piece.split("/")[-1])
                or "\\\n" in written
                or (piece.strip("'\"") in written)
            ), (command, simple.text, piece, written)


@settings(max_examples=200, deadline=None)
@given(
    program=st.sampled_from(["pip", "/usr/bin/pip", "sudo pip", "FOO=1 pip", "env pip"]),
    rest=st.lists(st.text(alphabet="abcxyz-=", min_size=1, max_size=5), max_size=4),
    tail=st.sampled_from(["", " && ls", " | head", "; echo done"]),
)
def test_a_rewrite_corrects_exactly_the_matched_word(program: str, rest: list[str], tail: str) -> None:
    command = " ".join([program, *rest]) + tail
    found = corrected(r"^pip\b", "python3 -m pip", command)
    assert found.command is not None, found.problem
    assert found.command.count("python3 -m pip") == 1
    assert found.command.endswith(" ".join(rest) + tail) or not rest
    assert BashCommand(found.command).reading.texts()[0].startswith("python3 -m pip")
