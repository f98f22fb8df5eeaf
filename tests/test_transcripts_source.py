"""The one transcript reader (cortex_hooks.transcripts): the bounds every user of it relies on,
the same records whatever block boundaries fall where, and the session's summary gathered in the
same pass as the outcomes' reading (SessionEnd reads the transcript once)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES

from cortex_hooks.transcripts import call_log, source
from cortex_hooks.transcripts import summary as transcript

SOON = 30.0


def read_lines(path: Path, start: int = 0, deadline: float | None = None) -> tuple[list[Any], source.Left]:
    left = source.Left()
    found = list(
        source.lines(str(path), start=start, deadline=deadline or time.monotonic() + SOON, left=left)
    )
    return found, left


def test_whole_lines_with_their_numbers_and_offsets(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n\n{"c":3}\n')
    found, left = read_lines(path)
    assert found == [(1, 0, b'{"a":1}'), (2, 8, b'{"b":2}'), (3, 16, b""), (4, 17, b'{"c":3}')]
    assert (left.ended, left.cut, left.offset, left.problems) == (True, False, 25, [])
    again, _ = read_lines(path, start=16)  # from a byte offset: numbers counted from there
    assert again == [(1, 16, b""), (2, 17, b'{"c":3}')]


def test_a_last_line_cut_off_mid_way_is_not_read_and_a_whole_one_is(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":"cut off')
    found, left = read_lines(path)
    assert [line for _, _, line in found] == [b'{"a":1}']
    assert (left.ended, left.cut, left.offset) == (False, True, 8)  # the next reading starts there
    assert left.problems == [(str(path), "line 2, its last, is cut off mid-way: not read")]
    path.write_bytes(b'{"a":1}\n{"b":2}')  # whole JSON without its newline: read
    found, left = read_lines(path)
    assert [line for _, _, line in found] == [b'{"a":1}', b'{"b":2}']
    assert (left.ended, left.offset) == (True, 15)


def test_a_line_over_max_line_is_passed_over_with_its_head_shown(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    huge = b'{"type":"assistant","x":"' + b"a" * (source.MAX_LINE + 5) + b'"}\n'
    path.write_bytes(b'{"a":1}\n' + huge + b'{"c":3}\n')
    heads: list[bytes] = []
    left = source.Left()
    found = list(source.lines(str(path), deadline=time.monotonic() + SOON, left=left, head=heads.append))
    assert [(number, line) for number, _, line in found] == [(1, b'{"a":1}'), (3, b'{"c":3}')]
    assert found[1][1] == 8 + len(huge)
    assert len(heads) == 1
    assert heads[0].startswith(b'{"type":"assistant"')
    assert len(heads[0]) == source.HEAD
    assert left.ended
    assert left.problems == [(str(path), "1 line over 8 MiB skipped")]


def test_the_deadline_stops_at_a_line_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' * 1000)
    left = source.Left()
    reading = source.lines(str(path), deadline=time.monotonic() + SOON, left=left)
    next(reading)
    next(reading)
    assert left.offset == 8000  # the block is read; the lines are handed out one by one
    left = source.Left()
    assert list(source.lines(str(path), deadline=time.monotonic() - 1, left=left)) == []
    assert (left.ended, left.offset) == (False, 0)
    assert "within its deadline" in left.problems[0][1]


@pytest.mark.parametrize("kind", ["fifo", "directory", "dev-null"])
def test_only_a_regular_file_is_opened(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "t.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/null")
    with pytest.raises(OSError, match=r"not a regular file|Is a directory"):
        read_lines(path)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=40),
    block=st.integers(min_value=1, max_value=2000),  # as BLOCK is to MAX_LINE: at most as long
)
def test_the_lines_are_the_same_whatever_the_block_size(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], block: int
) -> None:
    """Every line up to MAX_LINE is read whole, at its offset, and every longer one passed over
    (its head shown), wherever the blocks' boundaries fall."""
    path = tmp_path_factory.mktemp("blocks") / "t.jsonl"
    written = [
        json.dumps({"n": number, "x": "y" * size}).encode() + b"\n" for number, size in enumerate(sizes)
    ]
    path.write_bytes(b"".join(written))
    heads: list[bytes] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "BLOCK", block)
        patch.setattr(source, "MAX_LINE", 2000)
        left = source.Left()
        found = list(source.lines(str(path), deadline=time.monotonic() + SOON, left=left, head=heads.append))
    offsets = [sum(map(len, written[:index])) for index in range(len(written))]
    kept = [index for index, line in enumerate(written) if len(line) - 1 <= 2000]
    assert found == [(index + 1, offsets[index], written[index][:-1]) for index in kept]
    assert len(heads) == len(written) - len(kept)
    assert left.ended


def _bench_like(path: Path, calls_count: int) -> None:
    """A transcript of prompts, Bash calls with results (one denied and retried), Writes and
    Edits (one of them failed), as Claude Code writes it (compact JSON)."""
    records: list[dict[str, Any]] = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "Please fix the build"}}
    ]
    for number in range(calls_count):
        tool, tool_input = (
            ("Bash", {"command": f"git push --force origin b{number}"})
            if number % 3 == 0
            else (
                "Write" if number % 3 == 1 else "Edit",
                {"file_path": f"/p/f{number % 7}.py", "content": "x"},
            )
        )
        use = {"type": "tool_use", "id": f"t{number}", "name": tool, "input": tool_input}
        records.append({"type": "assistant", "sessionId": "s", "message": {"content": [use]}})
        result = {
            "type": "tool_result",
            "tool_use_id": f"t{number}",
            "content": "ok",
            "is_error": number % 11 == 0,
        }
        records.append({"type": "user", "sessionId": "s", "message": {"role": "user", "content": [result]}})
    path.write_text("".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records))


@pytest.mark.parametrize("scanned", [True, False], ids=["block-scan", "every-line"])
def test_the_summary_fed_by_the_outcomes_reading_is_the_summary_read_alone(
    tmp_path: Path, scanned: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SessionEnd reads the transcript once: the summary gathered from the blocks the outcomes'
    reading reads (its calls looked at from a later byte only) is the one a reading of its own
    finds, and the outcomes' reading finds the same calls as without it."""
    path = tmp_path / "t.jsonl"
    _bench_like(path, 300)
    monkeypatch.setattr(source, "BLOCK", 4096)  # many blocks, lines across their boundaries
    alone = transcript.summarize(str(path))
    after = path.read_bytes().index(b'"t150"')
    after = path.read_bytes().rindex(b"\n", 0, after) + 1
    grams = call_log.Grams([b"gitpush"], [], commands=True)

    def reading(summarizer: transcript.Summarizer | None, start: int) -> list[Any]:
        left = source.Left()
        feed: dict[str, Any] = (
            {"body": summarizer.body, "head": summarizer.head} if summarizer is not None else {}
        )
        if scanned:
            found = call_log.scan(
                str(path),
                deadline=time.monotonic() + SOON,
                grams=grams,
                wanted=lambda _: True,
                left=left,
                start=start,
                after=after,
                **feed,
            )
        else:
            found = call_log.read(
                str(path),
                deadline=time.monotonic() + SOON,
                since=None,
                grams=None,
                left=left,
                start=start,
                after=after,
                results=True,
                **feed,
            )
        items = [item._replace(line=0) for item in found]  # lines are counted from `start`
        if summarizer is not None:
            summarizer.read_to, summarizer.ended = left.offset, left.ended
        return items

    summarizer = transcript.Summarizer()
    assert reading(summarizer, 0) == reading(None, after)
    assert summarizer.ended
    assert summarizer.read_to == path.stat().st_size
    together = summarizer.summary()
    assert (together.summary, together.key_changes) == (alone.summary, alone.key_changes)
    assert alone.summary == "Please fix the build"
    assert len(alone.key_changes) == 14


def test_the_summary_read_on_from_where_a_shared_reading_stopped(tmp_path: Path) -> None:
    path = FIXTURES / "transcript.jsonl"
    alone = transcript.summarize(str(path))
    summarizer = transcript.Summarizer()
    left = source.Left()
    for _, _, body in source.blocks(str(path), deadline=time.monotonic() + SOON, left=left):
        summarizer.body(body[: body.index(b"\n") + 1])  # fed the first line only, then stopped
        summarizer.read_to = len(body[: body.index(b"\n") + 1])
        break
    rest = transcript.summarize(str(path), into=summarizer, start=summarizer.read_to)
    assert (rest.summary, rest.key_changes) == (alone.summary, alone.key_changes)
