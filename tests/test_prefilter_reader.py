"""The prefilter against brute force on the command reader's texts (docs/guide/command-reader.md):
PreToolUse decides on the raw Bash command, with loosened keys (guard.prefilter.loosen), whether a
learning may match; the regex then meets the simple commands the reader made of it (quotes
removed from the program, whitespace joined, wrappers dropped, strings read again). Whenever a
learning's regex matches a command as read, the learning must be a candidate on the raw command,
and the transcript line that records the command is never passed over by replay or SessionEnd."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from typing import Any

import regex
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from test_prefilter import is_candidate

from cortex_hooks.guard import matching, prefilter
from cortex_hooks.guard.shell import reader
from cortex_hooks.guard.shell.bash_command import BashCommand
from cortex_hooks.store import learnings
from cortex_hooks.store.connection import open_database
from cortex_hooks.store.transaction import Transaction
from cortex_hooks.transcripts import call_log

BOUNDED = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = st.sampled_from(
    ["git", "reset", "--hard", "rm", "-rf", "/tmp/x", "$HOME", "a.b", "K", "\u212a", "x=1", "-", "{}", ";"]
)


@st.composite
def word(draw: st.DrawFn) -> str:
    """A word as an agent might write it: plain, quoted, escaped, split by a line continuation."""
    text = draw(WORDS)
    form = draw(st.integers(0, 6))
    if form == 1:
        return f'"{text}"'
    if form == 2:
        return f"'{text}'"
    if form == 3:
        return "\\" + text
    if form == 4 and len(text) > 1:
        return text[:1] + "\\\n" + text[1:]
    if form == 5:
        return f"$'{text}'"
    return text


@st.composite
def simple(draw: st.DrawFn) -> str:
    words = draw(st.lists(word(), min_size=1, max_size=5))
    spaces = draw(
        st.lists(st.sampled_from([" ", "  ", "\t", " \\\n "]), min_size=len(words), max_size=len(words))
    )
    body = "".join(space + text for space, text in zip(spaces, words, strict=True)).lstrip()
    prefix = draw(
        st.sampled_from(
            ["", "sudo ", "env A=1 ", "FOO='a b' ", "nice -n 5 ", "command ", "xargs -0 ", "/usr/bin/"]
        )
    )
    return prefix + body


@st.composite
def command(draw: st.DrawFn) -> str:  # noqa: PLR0912 (one shape per branch)
    """A command line: simple commands joined and nested the ways the reader unpicks."""
    parts = draw(st.lists(simple(), min_size=1, max_size=3))
    shape = draw(st.integers(0, 16))
    first = parts[0]
    if shape == 1:
        return f"bash -c '{first}'"
    if shape == 2:
        return f'sh -c "{first}"'
    if shape == 3:
        return f"echo $({first}) && {' | '.join(parts[1:]) or 'ls'}"
    if shape == 4:
        return f"bash <<EOF\n{first}\nEOF"
    if shape == 5:
        return f"eval {first}"
    if shape == 6:
        return f"({first}); {{ {parts[-1]}; }}"
    if shape == 7:
        return f"echo '{first}' | sh"
    if shape == 8:
        return f"python3 -c \"import os; os.system('{first}')\""
    # strings parallel, env -S and flock -c run; what a query client or an interpreter
    # reads from a heredoc (shown after its command); a string that is only `$(cat <<EOF … EOF)`
    if shape == 9:
        return f"parallel -j 2 {first} ::: a b"
    if shape == 10:
        return f"parallel '{first}' ::: a && parallel ::: '{parts[-1]}'"
    if shape == 11:
        return f"env -S '{first}' x; flock /tmp/l -c '{parts[-1]}'"
    if shape == 12:
        return f"psql -d app <<'SQL' | {parts[-1]}\n{first}\nSQL"
    if shape == 13:
        return f"python3 - <<EOF\nos.system('{first}')\nEOF"
    if shape == 14:
        return f'bash -c "$(cat <<EOF\n{first}\nEOF\n)"'
    return draw(st.sampled_from([" && ", " | ", "; ", "\n", " || "])).join(parts)


def reader_matches(pattern: str, text: str) -> bool:
    try:
        return matching.evaluate(pattern, BashCommand(text), 1.0, 1.0)
    except matching.Unusable:
        return False


@BOUNDED
@given(command(), st.data())
@example('"git" reset   --hard', None)
@example("sudo   git\t'reset' \\\n --hard", None)
@example("bash -c 'git  reset --hard'", None)
@example("echo $'rm' -rf", None)
@example("psql -d app <<'SQL' | ls\ngit reset --hard\nSQL", None)
@example("python3 - <<EOF\nos.system('git reset --hard')\nEOF", None)
def test_a_literal_of_any_simple_command_keeps_the_learning_a_candidate(
    text: str, data: st.DataObject | None
) -> None:
    reading = reader.read(text)
    assume(reading.commands)
    for simple_command in reading.commands:
        piece = simple_command.text
        if data is not None:
            start = data.draw(st.integers(0, len(piece)))
            piece = piece[start : start + data.draw(st.integers(1, 12))]
        assume(piece.strip())
        for pattern in (
            regex.escape(piece),
            "(?i)" + regex.escape(piece.upper()),
            r"\s+".join(map(regex.escape, piece.split())),
        ):
            if reader_matches(pattern, text):
                assert is_candidate(pattern, "content", [text], "Bash"), (pattern, text)
                assert is_candidate(pattern, "content", ["x" * 5000 + "\n" + text], "Bash"), (pattern, text)


def transcript_line(text: str, *, ascii_only: bool) -> bytes:
    """The assistant line Claude Code writes for a Bash call of this command (compact JSON)."""
    block = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": text, "description": "x"}}
    record = {"type": "assistant", "cwd": "/home/dev", "message": {"role": "assistant", "content": [block]}}
    return json.dumps(record, separators=(",", ":"), ensure_ascii=ascii_only).encode()


@BOUNDED
@given(command(), st.data())
@example("sudo   git\t'reset' \\\n --hard", None)
@example("echo $'rm' -rf", None)
@example("psql -d app <<'SQL' | ls\ngit reset --hard\nSQL", None)
def test_the_lookup_and_the_transcript_line_test_agree(text: str, data: st.DataObject | None) -> None:
    """One definition of a learning's keys (guard.prefilter.keys) gives both the hook's lookup
    (the stored keys found among the call's grams, then the literals) and the test of a
    transcript's line (prefilter.line_grams and loosen_json: replay's and SessionEnd's
    outcomes'): whenever the lookup makes the learning a candidate for a command, the line that
    records the command is never passed over unread, whatever JSON escapes its writer chose —
    and the learning's own SQL lookup finds it."""
    reading = reader.read(text)
    assume(reading.commands)
    piece = reading.commands[-1].text
    if data is not None:
        start = data.draw(st.integers(0, len(piece)))
        piece = piece[start : start + data.draw(st.integers(1, 12))]
    assume(piece.strip())
    for pattern in (regex.escape(piece), "(?i)" + regex.escape(piece.upper())):
        if not is_candidate(pattern, "content", [text], "Bash"):
            continue
        keys = prefilter.keys(pattern, "content")
        line_test = call_log.grams([("Bash", "content", keys)])
        if line_test is None:  # no gram can tell: every line is read
            continue
        command_test = call_log.Grams(line_test.exact, line_test.folded, commands=True)
        for ascii_only in (True, False):
            line = transcript_line(text, ascii_only=ascii_only)
            assert line_test.held(line), (pattern, text, ascii_only)
            assert command_test.held(line), (pattern, text, ascii_only)
        assert stored_lookup(pattern, text), (pattern, text)


def stored_lookup(pattern: str, text: str) -> bool:
    """Whether the store's SQL lookup (learning_key by the grams PreToolUse cuts the command
    into) finds a learning of this pattern for this Bash command."""
    if "connection" not in _STORE:
        folder = tempfile.mkdtemp(prefix="cortex-prefilter-")
        _STORE["connection"] = open_database(os.path.join(folder, "cortex.db"), create=True)
        atexit.register(shutil.rmtree, folder, True)  # one database for every example, removed at exit
        atexit.register(_STORE["connection"].close)
    connection = _STORE["connection"]
    row = {
        **dict.fromkeys(learnings.COLUMNS),
        **{"anti_pattern": "x", "correct_pattern": "y", "regex": pattern, "tool": "Bash"},
        **{"target": "content", "severity": "medium", "action": "block", "pinned": 0, "confidence": 50},
        **{"access_count": 0, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"},
        **{"muted": 0},
    }
    with Transaction(connection):
        learning_id = learnings.insert(connection, row)
    letter, looked = prefilter.lookup("content", "Bash", [text])
    found = learnings.candidates(connection, json.dumps(prefilter.text_keys(letter, looked)), "Bash")
    return any(item.id == learning_id for item in found)


_STORE: dict[str, Any] = {}
