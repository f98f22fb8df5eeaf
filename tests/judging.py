"""The labelled corpora of the judgment goals (tests/corpora, and dcg's public corpus beside the
checkout or where CORTEX_DCG_CORPUS names it), and the hook's own evaluator applied to a command:
for test_judgment and test_plugin (the plugin's packs-alone judge, on the same corpora)."""

from __future__ import annotations

import glob
import os
import tomllib
from pathlib import Path

import pytest

from cortex_hooks.guard import matching
from cortex_hooks.guard.packs import shared_format, shipped

CORPORA = Path(__file__).parent / "corpora"
DCG = Path(
    os.environ.get("CORTEX_DCG_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpora" / "dcg"
)
needs_dcg = pytest.mark.skipif(not DCG.is_dir(), reason=f"dcg's corpus is not at {DCG} (CORTEX_DCG_CORPUS)")


def cases(path: Path) -> list[tuple[str, bool]]:
    """The labelled commands of a TOML corpus file or folder: dcg's format (`[[case]]` tables,
    `command` and `expected`), or ours, `deny = [...]` and `allow = [...]` lists beside them."""
    files = sorted(glob.glob(str(path / "**" / "*.toml"), recursive=True)) if path.is_dir() else [str(path)]
    found: list[tuple[str, bool]] = []
    for name in files:
        with open(name, "rb") as stream:
            corpus = tomllib.load(stream)
        for case in corpus.get("case", []):
            if "command" in case:
                found.append(
                    (case["command"], (case.get("expected") or case.get("expected_decision")) == "deny")
                )
        found += [(command, True) for command in corpus.get("deny", [])]
        found += [(command, False) for command in corpus.get("allow", [])]
    return found


def core() -> list[shared_format.SharedLearning]:
    return [record for name in shipped.expand("core") for record in shipped.load(name)]


def denied(learnings: list[shared_format.SharedLearning], command: str, target: str) -> bool:
    subject = matching.subject(target, "Bash", [command])
    return any(matching.evaluate(record.regex, subject, 1.0, 1.0) for record in learnings)
