"""The hot path's import budget, in one list: what a PreToolUse call that matches nothing may load.

Every tool call of the agent pays for each module the hook imports; the rest of the package
imports normally. A module added to this path is a choice made here, in the open: the list below
is the whole of it (the package's modules, and none of the costly third-party ones).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import cli_json, payload

# The package's modules a call that matches nothing loads, with the databases it reads.
NO_MATCH = {
    "cortex_hooks",
    "cortex_hooks.agents",
    "cortex_hooks.agents.claude",
    "cortex_hooks.api",
    "cortex_hooks.api.team_file",
    "cortex_hooks.boundary",
    "cortex_hooks.errors",
    "cortex_hooks.frozen",
    "cortex_hooks.guard",
    "cortex_hooks.guard.call",
    "cortex_hooks.guard.judge",
    "cortex_hooks.guard.matching",
    "cortex_hooks.guard.prefilter",
    "cortex_hooks.hooks",
    "cortex_hooks.hooks.pipeline",
    "cortex_hooks.hooks.pre_tool_use",
    "cortex_hooks.judging",
    "cortex_hooks.judging.in_force",
    "cortex_hooks.keeper",
    "cortex_hooks.keeper.check",
    "cortex_hooks.keeper.environment",
    "cortex_hooks.location",
    "cortex_hooks.regular_file",
    "cortex_hooks.store",
    "cortex_hooks.store.connection",
    "cortex_hooks.store.keeper",
    "cortex_hooks.store.learnings",
    "cortex_hooks.store.scopes",
    "cortex_hooks.store.team_stat",
    "cortex_hooks.store.transaction",
    "cortex_hooks.store.version",
    "cortex_hooks.stored",
}
# Never on that path: validation, the regex engine (the stored keys decide first), processes,
# temporary files, the answer texts, the redactor; nor `typing` (2.3 ms: records are
# cortex_hooks.frozen's, annotations under TYPE_CHECKING), nor `zlib` (a shared library, 0.3 ms:
# the keeper's folder is named by location.crc32).
NEVER = (
    "pydantic",
    "typing",
    "regex",
    "zlib",
    "subprocess",
    "tempfile",
    "cortex_hooks.redact",
    "cortex_hooks.guard.verdict_texts",
)

PROGRAM = (
    "import os, sys\n"
    "def report():\n"
    "    print(sorted(name for name in sys.modules if name.split('.')[0] in {roots!r}), file=sys.stderr)\n"
    "leave = os._exit\n"
    "os._exit = lambda status: (report(), sys.stderr.flush(), leave(status))\n"
    "from cortex_hooks.hooks import pre_tool_use\n"
    "sys.exit(pre_tool_use.main())\n"
)


def loaded(command: str, db: Path, *, answer: str = "") -> set[str]:
    roots = {"cortex_hooks", *(name.split(".")[0] for name in NEVER)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(roots=roots)],
        input=json.dumps(payload("pre_tool_use.bash", tool_input={"command": command})),
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_DB": str(db)},
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert answer in done.stdout if answer else done.stdout == ""
    return set(json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"')))


@pytest.mark.parametrize("command", ["ls -la", "git status && npm test"])
def test_a_call_that_matches_nothing_loads_the_listed_modules_and_no_other(db: Path, command: str) -> None:
    cli_json(
        "add", "--anti-pattern", "never", "--correct", "x", "--regex", r"\bnever-matches\b", "--auto-block"
    )
    modules = loaded(command, db)
    assert not [name for name in modules if name.split(".")[0] in NEVER or name in NEVER]
    assert modules == NO_MATCH, (sorted(modules - NO_MATCH), sorted(NO_MATCH - modules))


def test_a_kept_database_whose_watched_files_are_unchanged_loads_no_more(db: Path) -> None:
    """Installed, the keeper watches the settings and config files: a call stats them and reads
    nothing more (keeper.watched_files only once one changed)."""
    (Path.cwd() / ".git").mkdir(exist_ok=True)
    cli_json("install")
    modules = loaded("ls -la", db)
    assert modules == NO_MATCH, (sorted(modules - NO_MATCH), sorted(NO_MATCH - modules))
    settings = Path.cwd() / ".claude" / "settings.local.json"
    settings.write_text(settings.read_text() if settings.exists() else "{}\n")
    os.utime(settings, ns=(0, 0))  # its fingerprint changed, its text not
    assert "cortex_hooks.keeper.watched_files" in loaded("ls -la", db, answer="")


def test_a_match_loads_more_than_the_budget(db: Path) -> None:
    """The list is the no-match path's own: a deny loads the texts and the judge's whole reading."""
    cli_json("add", "--anti-pattern", "rm build", "--correct", "x", "--regex", r"\brm\b", "--auto-block")
    modules = loaded("rm -rf build", db, answer='"permissionDecision": "deny"')
    assert modules > NO_MATCH
    assert "cortex_hooks.guard.verdict_texts" in modules
    assert "typing" not in modules  # a deny pays for the regex engine, never for typing


def test_a_pack_deny_weighs_precedence_without_typing(db: Path) -> None:
    """A pack learning has a shared id: its deny reads guard.precedence, its records too."""
    cli_json("packs", "enable", "core")
    modules = loaded("git reset --hard", db, answer='"permissionDecision": "deny"')
    assert "cortex_hooks.guard.precedence" in modules
    assert "typing" not in modules
