"""Shared fixtures: every test gets its own database and HOME; the user's real ones are never touched."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def _footprint(home: str | None) -> dict[str, float | None]:
    paths = [Path(home, name) for name in (".cortex", ".claude/settings.json")] if home else []
    return {str(path): path.stat().st_mtime if path.exists() else None for path in paths}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own database path and HOME; a test that touches the real ones fails."""
    real_home = os.environ.get("HOME")
    before = _footprint(real_home)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CORTEX_DB", str(tmp_path / "cortex.db"))
    for variable in ("CLAUDE_PROJECT_DIR", "CORTEX_NOW"):
        monkeypatch.delenv(variable, raising=False)
    yield tmp_path / "cortex.db"
    assert _footprint(real_home) == before, "a test wrote to the real HOME"


@pytest.fixture
def db(isolated: Path) -> Path:
    """The path of this test's database (CORTEX_DB); the CLI creates it on its first write."""
    return isolated
