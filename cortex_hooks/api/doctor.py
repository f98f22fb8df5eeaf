"""Doctor: checks what a user would otherwise debug by hand, and says how to fix each problem.

The hooks' wiring in Claude Code settings, the database (integrity, schema version,
permissions), the config file, and every learning's regex (compiles, finishes a probe within
the timeout, and has the prefilter keys the hook relies on). Reads only; exit 1 on a problem.
pydantic validates the config file and the team file, and is imported only for one that exists
(it and its models are ~11 MiB of a doctor's ~40 MiB over a thousand learnings).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import stat
from contextlib import closing

from cortex_hooks import location, log
from cortex_hooks.api import packs, team_read
from cortex_hooks.api.databases import Databases
from cortex_hooks.capture import health
from cortex_hooks.config import DEFAULT, Config
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching, prefilter, team_rules
from cortex_hooks.install import wiring
from cortex_hooks.install.wiring import SCRIPTS
from cortex_hooks.judging import proof
from cortex_hooks.store import keeper, learnings
from cortex_hooks.store import team as team_store
from cortex_hooks.store.connection import open_database, user_version

PROBES = ("a" * 3000 + "!", "x " * 1500 + "!", "-" * 3000 + "\n", "aA0_ -/." * 400 + "\x00")


class Report:
    def __init__(self) -> None:
        self.checks: list[dict[str, str]] = []

    def ok(self, what: str, detail: str) -> None:
        self.checks.append({"check": what, "status": "ok", "detail": detail})

    def problem(self, what: str, detail: str, fix: str) -> None:
        self.checks.append({"check": what, "status": "problem", "detail": detail, "fix": fix})

    @property
    def failed(self) -> bool:
        return any(check["status"] == "problem" for check in self.checks)


def check(databases: Databases) -> Report:
    """Every check of the project's wiring and of the database acted on; with the project's
    database, the user-global one too."""
    report = Report()
    path = databases.path
    _check_wiring(report, location.project_root())
    if databases.scope == "project":
        _check_team_file(report, location.project_root(), path)
        _suggest_packs(report, databases)
    _check_database(report, path)
    _check_keeper(report, path)
    if databases.scope == "project":
        _check_global(report, databases.user)
    return report


def _check_keeper(report: Report, path: str) -> None:
    """The keeper: whether it keeps this database, and what it put back lately."""
    if not os.path.exists(path):
        return
    folder = location.keeper_folder(path)
    ledger = keeper.ledger(folder)
    if ledger is None:  # said, not a problem: the next session start (or install) keeps it
        report.ok("keeper", "not kept yet: the next session start or `cortex-hooks install` keeps it")
        return
    watched = len(ledger.get("files") or {})
    report.ok(
        "keeper", f"kept outside the project, {watched} files watched (`cortex-hooks integrity` says where)"
    )
    for event in keeper.events(folder, last=5):
        report.ok("keeper", f"{event.get('at', '?')} put back: {event.get('what', '')}")


def _suggest_packs(report: Report, databases: Databases) -> None:
    """The packs that fit the project and are not enabled (guard.packs.fit): said, not a problem."""
    line = packs.fit_line(databases)
    if line is not None:
        report.ok("packs that fit", line)


def _check_team_file(report: Report, project: str, database: str) -> None:
    """The team file (docs/guide/team.md), when there is one: its bad lines named, whether it is trusted."""
    path = location.team_path(project)
    if not os.path.lexists(path):
        return
    from cortex_hooks.api import team  # pydantic, for the file's lines: only when there is a file

    records, problems = team.parsed(project)
    if problems:
        report.problem(
            "team file",
            f"{path}: " + "; ".join(team_rules.bounded(problems)),
            "fix those lines (cortex-hooks team check lists every problem); the other lines work",
        )
    trusted = False
    loaded = team_read.load(project)
    if os.path.exists(database) and loaded.data is not None:
        try:
            with closing(open_database(database)) as connection:
                state = team_store.state(connection)
        except (CortexError, sqlite3.Error):
            state = None
        trusted = state is not None and state.trusted == team_rules.digest(loaded.data)
    detail = f"{path}: {len(records)} entries, {'trusted' if trusted else 'not trusted here'}"
    declared = [(getattr(record, "action", None), getattr(record, "rewrite", None)) for record in records]
    if trusted or not any(team_rules.waiting(declared).values()):
        report.ok("team file", detail)
    else:
        report.problem(
            "team file",
            detail + " (its blocks and asks act as warnings, its rewrites do nothing)",
            "review it, then run cortex-hooks team trust",
        )


def _check_wiring(report: Report, project: str) -> None:
    files = [
        os.path.join(project, ".claude", "settings.json"),
        os.path.join(project, ".claude", "settings.local.json"),
        os.path.join(os.path.expanduser("~"), ".claude", "settings.json"),
    ]
    found: dict[str, list[str]] = {event: [] for event in SCRIPTS}
    for file in files:
        try:
            with open(file, encoding="utf-8") as handle:
                data = json.load(handle)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as error:
            report.problem("settings", f"{file} is not readable JSON ({error})", "repair or remove it")
            continue
        for event, commands in wiring.our_commands(data).items():
            found[event] += commands
    for event, script in SCRIPTS.items():
        if not found[event]:
            report.problem(
                f"hook {event}",
                f"{script} is not wired in any settings file",
                "run `cortex-hooks install`",
            )
            continue
        broken = [command for command in found[event] if not _runnable(command)]
        if broken:
            report.problem(
                f"hook {event}",
                f"command not executable: {broken[0]}",
                "run `cortex-hooks install` again from the environment cortex-hooks is installed in",
            )
        else:
            report.ok(f"hook {event}", found[event][0])


def _runnable(command: str) -> bool:
    try:
        program = shlex.split(command)[0]
    except (ValueError, IndexError):
        return False
    if os.sep in program:
        return os.access(program, os.X_OK)
    return shutil.which(program) is not None


def _check_database(report: Report, path: str) -> None:
    if not os.path.exists(path):
        report.problem(
            "database",
            f"none at {path}: the hooks do nothing here",
            "record a learning: `cortex-hooks add …`",
        )
        return
    _check_permissions(report, path)
    try:
        connection = open_database(path)
    except CortexError as error:
        report.problem("database", error.message, "restore a backup, or upgrade cortex-hooks if it is newer")
        return
    file = location.config_path(path)
    values, problem = _read_config(file)
    with closing(connection):
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity == "ok":
            report.ok("database", f"{path} (schema {user_version(connection)}, integrity ok)")
        else:
            report.problem("database", f"integrity check: {integrity}", "restore a backup or export/import")
        try:
            _check_learnings(report, connection, values, path)
            _check_capture(report, connection)
        except sqlite3.Error as error:  # a damaged schema: say so, and keep checking the rest
            report.problem("database", f"cannot be read: {error}", "restore a backup of the database")
    if problem is not None:
        report.problem("config", f"{file}: {problem}", "fix the file (defaults are used meanwhile)")
    elif os.path.exists(file):
        report.ok("config", file)
    entries = log.last_entries(path)
    if entries:
        report.ok("log", f"{log.path_beside(path)}; last internal errors: " + " | ".join(entries))


def _check_capture(report: Report, connection: sqlite3.Connection) -> None:
    for ok, detail, fix in health.checks(connection):
        if ok:
            report.ok("capture", detail)
        else:
            report.problem("capture", detail, fix)


def _check_global(report: Report, path: str) -> None:
    """The user-global database, when there is one: usable, or what the hooks skip."""
    if not os.path.exists(path):
        return
    try:
        with closing(open_database(path)) as connection:
            report.ok("global database", f"{path} (schema {user_version(connection)})")
    except CortexError as error:
        report.problem(
            "global database",
            f"{error.message}: the hooks skip it",
            "cortex-hooks doctor --global (its own checks), or move it aside",
        )


def _check_permissions(report: Report, path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    for target, fix in (
        (path, f"chmod 600 {shlex.quote(path)}"),
        (directory, f"chmod 700 {shlex.quote(directory)}"),
    ):
        mode = stat.S_IMODE(os.stat(target).st_mode)
        if target != path and os.path.basename(target) != location.DIRECTORY:
            continue  # a directory of the user's choosing (CORTEX_DB): not ours to judge
        if mode & 0o077:
            report.problem("permissions", f"{target} is {oct(mode)}, readable by others", fix)
        else:
            report.ok("permissions", f"{target} is {oct(mode)}")


def _read_config(file: str) -> tuple[Config, str | None]:
    """The values the hooks use and what is wrong with the file: the hooks' own reading."""
    if not os.path.exists(file):  # as location.config_for: no file, the defaults
        return DEFAULT, None
    from cortex_hooks import config_file  # pydantic: only when there is a file to validate

    return config_file.read(file)


def _check_learnings(report: Report, connection: sqlite3.Connection, config: Config, path: str) -> None:
    rows = learnings.select(connection, "active")  # what SQLite cannot check: each regex, each matcher
    stored = learnings.keys_by_learning(connection)
    literals = learnings.literals_by_learning(connection)
    bad = 0
    for row in rows:
        try:  # stored before the matcher was checked as it is now (a permission rule, say)
            matching.check_tool_matcher(row.tool)
        except CortexError as error:
            rule = matching.permission_rule(row.tool)
            tool = shlex.quote(rule[0]) if rule else "MATCHER"
            report.problem(
                f"learning #{row.id}",
                f"{error.message}: it never matches",
                f"cortex-hooks update {row.id} --tool {tool}",
            )
            bad += 1
            continue
        if not row.regex:
            continue
        name = f"learning #{row.id}"
        try:
            for probe in (*PROBES, row.regex * 20):
                matching.evaluate(row.regex, [probe], config.regex_timeout, 0)
        except matching.Unusable as error:
            if error.timed_out:
                report.problem(
                    name,
                    f"regex {row.regex!r} did not finish a probe within {config.regex_timeout}s: "
                    "the hook skips it whenever it runs that long",
                    f"simplify it: cortex-hooks update {row.id} --regex=NEW",
                )
            else:
                report.problem(
                    name, error.message, f"cortex-hooks update {row.id} --regex=NEW (or archive it)"
                )
            bad += 1
            continue
        derived = set(prefilter.keys(row.regex, row.target)), prefilter.literals(row.regex)
        if (stored.get(row.id, set()), literals.get(row.id)) != derived:
            report.problem(
                name,
                "its prefilter data is missing or stale, so the hook may skip it",
                f"cortex-hooks update {row.id} --regex={shlex.quote(row.regex)}",
            )
            bad += 1
    with_regex = sum(1 for row in rows if row.regex)
    if not bad:
        report.ok("learnings", f"{len(rows)} active, {with_regex} with a regex, every regex sound")
    _prove_examples(report, connection, path)


def _prove_examples(report: Report, connection: sqlite3.Connection, path: str) -> None:
    """Each active rule's examples through the judge, by the hook's own path (docs/internals/judge.md): a rule
    that cannot fire, or fires on its own allow example, is named."""
    failures = proof.stored(connection, path)
    for row, failure in failures:
        report.problem(
            failure.rule,
            str(failure).removeprefix(f"{failure.rule}: "),
            f"see why: cortex-hooks explain; then mend it: cortex-hooks update {row.id} --regex=…",
        )
    if not failures and (count := proof.proving(connection)):
        report.ok("examples", f"{count} rules with examples, each fires on its deny examples only")
