"""Shared fixtures: every test gets its own database, HOME and working directory; the user's real
ones are never touched — a test that would reach them fails before it writes."""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# On a loaded 2-core machine (CI, parallel workers) Hypothesis may find generating inputs "too
# slow": that says nothing about the code under test, so it never fails a run.
settings.register_profile("cortex", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile("cortex")

# The real Claude Code client's fixtures (claude, namespace, project, learn) for the tests that
# drive it; a test module's own fixture of the same name (project) takes precedence in that module.
pytest_plugins = ["claude_client"]

# No SessionStart of a test starts a resident recall process (it would outlive the test with the
# local model loaded), from a fixture of any scope: tests/test_resident.py turns it back on.
os.environ["CORTEX_RESIDENT"] = "off"

REAL_HOME = Path(os.environ.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir).resolve()
CHECKOUT = Path(__file__).resolve().parent.parent


class YouForgotToChooseAPlace(AssertionError):
    """A test reached for the real home or the checkout instead of its own temp directory."""


def _forbidden(path: str | Path) -> bool:
    resolved = Path(path).resolve()
    return any(resolved == place or resolved.is_relative_to(place) for place in (REAL_HOME, CHECKOUT))


def _footprint() -> dict[str, float | None]:
    paths = [REAL_HOME / name for name in (".cortex", ".claude/settings.json")]
    paths += [CHECKOUT / ".cortex"]
    return {str(path): path.stat().st_mtime if path.exists() else None for path in paths}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own database path, HOME and working directory.

    The first line of defence raises before anything is written: the real home cannot be looked
    up (HOME is a temp directory and the password database will not name it), and a project root
    found by walking up from the working directory may not be the real home or the checkout. The
    second checks afterwards that neither was written (a subprocess is out of reach of the first).
    """
    if _forbidden(tmp_path):
        raise YouForgotToChooseAPlace(f"{tmp_path} lies in {REAL_HOME} or {CHECKOUT}: use --basetemp")
    before = _footprint()
    home = tmp_path / "home"
    home.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CORTEX_DB", str(tmp_path / "cortex.db"))
    for variable in (
        "CLAUDE_PROJECT_DIR",
        "CORTEX_NOW",
        "VOYAGE_API_KEY",
        "VOYAGE_BASE_URL",
        # where Claude Code keeps its own memory (install.claude_paths): the test's HOME decides
        "CLAUDE_CONFIG_DIR",
        # where the keeper keeps its copies (location.keeper_folder): the test's HOME decides
        "XDG_STATE_HOME",
        "CORTEX_STATE_DIR",
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        "CLAUDE_CODE_SIMPLE",
        # a terminal's width, which cuts the lines of list and explain: tests that want one set it
        "COLUMNS",
    ):
        monkeypatch.delenv(variable, raising=False)
    # Semantic recall off unless a test turns it on: the results of keyword recall do not depend
    # on whether this machine has the embeddings extra (tests/test_embeddings*.py turn it on).
    monkeypatch.setenv("CORTEX_EMBEDDINGS", "off")
    monkeypatch.chdir(cwd)  # a project root is looked for from here: never the checkout or the home

    real_getpwuid = pwd.getpwuid

    def getpwuid(uid: int) -> pwd.struct_passwd:  # expanduser's fallback when HOME is unset
        entry = real_getpwuid(uid)
        if _forbidden(entry.pw_dir):
            raise YouForgotToChooseAPlace(f"the real home {entry.pw_dir} was looked up")
        return entry

    monkeypatch.setattr(pwd, "getpwuid", getpwuid)

    from cortex_hooks import location

    real_project_root = location.project_root

    def project_root() -> str:
        root = real_project_root()
        if _forbidden(root):
            raise YouForgotToChooseAPlace(f"the project root {root} is the real home or the checkout")
        return root

    monkeypatch.setattr(location, "project_root", project_root)
    yield tmp_path / "cortex.db"
    assert _footprint() == before, "a test wrote to the real HOME or the checkout"


@pytest.fixture
def db(isolated: Path) -> Path:
    """The path of this test's database (CORTEX_DB); the CLI creates it on its first write."""
    return isolated
