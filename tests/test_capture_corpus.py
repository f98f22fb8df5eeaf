"""Capture's precision on a synthetic corpus (tests/capture_corpus.py): 40 sessions of everyday
work with four real mistakes mixed in give exactly those four proposals."""

from __future__ import annotations

from pathlib import Path

import regex
from capture_corpus import corpus
from support import cli_json

from cortex_hooks.capture.regex_synthesis import COMMAND_POSITION as AT


def test_the_corpus_gives_exactly_its_four_mistakes(tmp_path: Path) -> None:
    for transcript in corpus():
        cli_json("capture", "--transcript", str(transcript.write(tmp_path / f"{transcript.session}.jsonl")))
    found = {(proposal["signal"], proposal["regex"]) for proposal in cli_json("proposals")}
    assert found == {
        ("failed-then-fixed", AT + r"python(?=[\s;&|)]|$)"),
        ("failed-then-fixed", AT + r"python3\s+\-m\s+pytest(?=[\s;&|)]|$)"),
        ("failed-then-fixed", AT + r"make\s(?:[^;&|\n]*\s)?check(?=[\s;&|)]|$)"),
        ("user-correction", AT + r"npm(?=[\s;&|)]|$)"),
    }


def test_the_proposals_match_none_of_the_everyday_commands(tmp_path: Path) -> None:
    everyday = {
        "python3 scripts/run_3.py",
        "uv run python3 -m pytest -x",
        "pytest tests/test_3.py -q",
        "uv run pytest tests/test_4.py",
        "git pull --rebase && git push",
        "cd src && rg 'func_3'",
        "make test",
        "pnpm install",
    }
    for transcript in corpus():
        cli_json("capture", "--transcript", str(transcript.write(tmp_path / f"{transcript.session}.jsonl")))
    for proposal in cli_json("proposals"):
        assert not [command for command in everyday if regex.search(proposal["regex"], command)], proposal
