"""SessionStart: record the session, prune, then inject the review prompt and the snapshot."""

from __future__ import annotations

import sqlite3
import sys
from datetime import datetime
from types import ModuleType
from typing import Any

from cortex_hooks import agents, clock, location
from cortex_hooks.api import startup
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import review
from cortex_hooks.hooks import payloads, pipeline
from cortex_hooks.judging import protocol
from cortex_hooks.store import pending, sessions
from cortex_hooks.store.connection import Transaction, upgrade_notes
from cortex_hooks.store.scopes import Scope, project_scope
from cortex_hooks.store.transaction import locked


def main() -> int:
    return pipeline.run("SessionStart", parse, handle, kept=True, agent=agents.named(sys.argv[1:]))


def parse(payload: dict[str, Any], agent: ModuleType | None = None) -> payloads.SessionStartPayload:
    return payloads.parse(payloads.SessionStartPayload, payload, agent)


def handle(payload: payloads.SessionStartPayload, scopes: list[Scope]) -> pipeline.Outcome:
    now = clock.now()
    notes: list[str] = []
    agent = payload.agent
    project = location.hook_project(payload.cwd)  # the folder whose CLAUDE.local.md Claude Code reads
    for scope in scopes:
        _start(scope, payload, now, notes)
        _kept(scope, project, notes)
        if agent is not None and agent.DECAY == "day":  # no session end is awaited: decay by the day
            from cortex_hooks.hooks import day_of_use

            try:
                day_of_use.decay(scope, agent.NAME, now, notes)
            except sqlite3.Error as error:  # never costs the agent its context
                _skipped(notes, f"{scope.name} day's decay not run", error)
    waiting = _team_file(scopes, project, notes)
    _expire_proposals(scopes, now, notes)
    shown, total = startup.pending_proposals(scopes)  # read once: shown in the text, then counted
    text, awaiting = startup.session_text(scopes, now, (shown, total), project)
    _keep_recall_warm(scopes, project, payload.session_id)
    upgraded = " ".join(f"cortex-hooks {note}." for note in upgrade_notes())  # said to the person
    answer = agent.session_start if agent is not None else _claude_code
    if not text:
        said = " ".join(part for part in (upgraded, waiting) if part)
        return pipeline.Outcome(answer(waiting, said or None), notes=notes)
    _count_shown(scopes, shown, now, notes)
    if total:
        from cortex_hooks.capture import texts

        message = texts.system_message(total, awaiting)
    else:
        message = review.system_message(awaiting) if awaiting else None
    unclear = startup.unclear_count(scopes)
    retrying = review.unclear_message(unclear) if unclear else None  # the person hears it too
    message = " ".join(part for part in (upgraded, message, retrying, waiting) if part) or None
    if waiting:
        text = f"{text}\n\n{waiting}"
    return pipeline.Outcome(answer(text, message), notes=notes)


def _claude_code(text: str | None, message: str | None) -> dict[str, Any] | None:
    if text:
        return protocol.session_start(text, message)
    return {"systemMessage": message} if message else None


def _keep_recall_warm(scopes: list[Scope], project: str, session: str) -> None:
    """The session's command-line recalls answered warm (api.resident), when semantic recall
    runs the local model for the project's database."""
    scope = project_scope(scopes)
    if scope is None:
        return
    from cortex_hooks.api import resident
    from cortex_hooks.embeddings.backend import in_force

    user = next((other.path for other in scopes if other.is_global), location.global_database())
    setting = in_force(location.config_for(scope.path).embeddings)
    resident.start(scope.path, user, project, setting, session)


def _team_file(scopes: list[Scope], project: str, notes: list[str]) -> str | None:
    """The team file read in when it changed (docs/guide/team.md), its problems named; the one line to say
    while it waits to be trusted."""
    scope = project_scope(scopes)
    if scope is None:
        return None
    from cortex_hooks.api import team_file
    from cortex_hooks.guard import team_rules as team
    from cortex_hooks.store import team as team_store

    try:
        notes += team_file.refresh(scope.connection, project, scope.path)
        if team_store.trusted(scope.connection):
            from cortex_hooks.api.team_read import HELD

            state = team_store.state(scope.connection)
            return HELD if state is not None and HELD in str(state.problems) else None
        listed = team_store.listed(scope.connection)
    except (sqlite3.Error, CortexError) as error:  # never costs the agent its context
        notes.append(f"team file not read: {error}")
        return None
    return team.waiting_line(team.waiting([(row.action, row.rewrite) for row in listed]))


def _skipped(notes: list[str], what: str, error: Exception) -> None:
    """A step a session start may leave to the next one, said — unless another process held the
    write lock: that is no failure (the next start does it), and a busy project is not told so."""
    if not (isinstance(error, sqlite3.Error) and locked(error)):
        notes.append(f"{what}: {error}")


def _expire_proposals(scopes: list[Scope], now: datetime, notes: list[str]) -> None:
    """Proposals shown at 10 session starts without an answer expire (docs/guide/capture.md)."""
    project = project_scope(scopes)
    if project is None:
        return
    from cortex_hooks.capture import recurrence
    from cortex_hooks.store import proposals

    try:
        with Transaction(project.connection):
            proposals.expire(project.connection, recurrence.EXPIRES_AFTER, clock.iso(now))
    except sqlite3.Error as error:  # proposals never cost the agent its context
        _skipped(notes, "proposals not expired", error)


def _count_shown(scopes: list[Scope], shown: list[dict[str, Any]], now: datetime, notes: list[str]) -> None:
    """Count this start for each proposal shown (one shown at 10 starts unanswered expires)."""
    project = project_scope(scopes)
    if not shown or project is None:
        return
    from cortex_hooks.store import proposals

    try:
        with Transaction(project.connection):
            proposals.shown(project.connection, [int(item["id"]) for item in shown], clock.iso(now))
    except sqlite3.Error as error:
        _skipped(notes, "proposals shown, not counted", error)


def _kept(scope: Scope, project: str, notes: list[str]) -> None:
    """A database no version kept yet kept from now on, quietly (doctor says so); never at the
    agent's cost."""
    from cortex_hooks.keeper import check

    try:
        check.adopt_new(scope, project if not scope.is_global else None)
    except (sqlite3.Error, OSError) as error:
        _skipped(notes, f"{scope.name} database not kept", error)


def _start(scope: Scope, payload: payloads.SessionStartPayload, now: datetime, notes: list[str]) -> None:
    """Record the session and prune, in one scope."""
    config = location.config_for(scope.path)
    # A resumed or compacted session is already recorded: its row stays as it is, so the context
    # is injected again without counting a new session. Under another process's lock the start
    # is kept for later, and the context is read all the same.
    start = {"session": payload.session_id, "source": payload.source, "now": clock.iso(now)}
    recorded = pending.write_or_keep(
        scope.connection,
        scope.path,
        lambda: sessions.record_start(scope.connection, payload.session_id, payload.source, start["now"]),
        "start",
        **start,
    )
    if recorded is None:
        notes.append(pending.kept_note(scope.name, "session start"))
    if config.prune:
        try:
            with Transaction(scope.connection):
                startup.prune(scope.connection, config, now, dry_run=False)
        except (sqlite3.Error, ValueError) as error:  # pruning never costs the agent its context
            _skipped(notes, f"{scope.name} pruning skipped", error)
    try:  # a new version's packs (docs/guide/packs.md): updated by slug, the user's state kept
        from cortex_hooks.api import pack_refresh

        pack_refresh.refresh(scope, now, config.policy.start)
    except (sqlite3.Error, CortexError) as error:  # never costs the agent its context
        _skipped(notes, f"{scope.name} packs not refreshed", error)
