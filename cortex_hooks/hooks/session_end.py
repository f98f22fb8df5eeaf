"""SessionEnd: decay every unpinned, active learning once per session; store the session summary;
work out what the agent did after each deny, ask and rewrite; run the memory lifecycle; refresh
the push surface."""

from __future__ import annotations

import sqlite3
import sys
import time
from functools import partial
from types import ModuleType
from typing import Any

from cortex_hooks import agents, clock, location
from cortex_hooks.errors import CortexError
from cortex_hooks.hooks import payloads, pipeline
from cortex_hooks.install import surface_import
from cortex_hooks.store import learnings, pending, sessions, transaction
from cortex_hooks.store.scopes import Scope, project_scope
from cortex_hooks.transcripts import summary as transcript


def main() -> int:
    return pipeline.run("SessionEnd", parse, handle, agent=agents.named(sys.argv[1:]))


def parse(payload: dict[str, Any], agent: ModuleType | None = None) -> payloads.SessionEndPayload:
    return payloads.parse(payloads.SessionEndPayload, payload, agent)


def handle(payload: payloads.SessionEndPayload, scopes: list[Scope]) -> pipeline.Outcome:
    """Each scope decays once per session (the global one therefore once per session in any
    project); then the transcript's summary, read once (in the same pass as the outcomes' reading
    of it, where they read it), is stored beside each end. An agent whose session end is not
    awaited, or that has none (Codex's Stop ends a turn), decays once per day of use instead
    (hooks.day_of_use): here its session is only marked ended and summarized."""
    notes: list[str] = []
    now = clock.iso(clock.now())
    # The decay first, in its own transaction: it must never wait for, or depend on, the
    # transcript (a FIFO, /dev/zero, a huge file). The summary is a second, small write.
    if payload.agent is not None and payload.agent.DECAY == "day":
        ended = [scope for scope in scopes if _mark_ended(scope, payload, now, notes)]
    else:
        ended = [scope for scope in scopes if _decay(scope, payload, now, notes)]
    # a summary only beside an end this call made (a repeated SessionEnd stored it already)
    summarizer = transcript.Summarizer() if ended and payload.transcript_path else None
    started = time.monotonic()
    # a resumed session's end too: what it added may decide; the summary gathered as it reads
    _outcomes(payload, scopes, now, notes, summarizer)
    if ended:
        _record_summary(payload, ended, now, notes, summarizer, spent=time.monotonic() - started)
    for scope in scopes:  # after Part I's decay, before the surface shows the memories
        _lifecycle(scope, notes)
    # Last, after the decay and the summary are committed: a surface that cannot be written is
    # a note, never a failed session end; nor is a capture.
    _surface(payload, scopes, notes)
    _capture(payload, scopes, notes)
    _release_recall(payload, scopes)
    return pipeline.Outcome(notes=notes)


_STARTED = time.monotonic()  # this module is imported as the hook process starts
# What the agent did after each deny, ask and rewrite (docs/guide/outcomes.md): worked out from the transcript
# until OUTCOMES_UNTIL seconds into the hook (OUTCOMES_LEAST at least), before the lifecycle, the
# surface and capture; what is left stays open for the next session end to read (the
# whole hook within 1.5 s on a 100 MB transcript).
OUTCOMES_UNTIL = 0.9
OUTCOMES_LEAST = 0.1


def _outcomes(
    payload: payloads.SessionEndPayload,
    scopes: list[Scope],
    now: str,
    notes: list[str],
    summarizer: transcript.Summarizer | None,
) -> None:
    from cortex_hooks.hooks import session_outcomes

    deadline = max(time.monotonic() + OUTCOMES_LEAST, _STARTED + OUTCOMES_UNTIL)
    try:
        notes += session_outcomes.settle(
            scopes,
            payload.session_id,
            payload.transcript_path,
            deadline=deadline,
            now=now,
            summary=summarizer,
        )
    except sqlite3.Error as error:  # never a failed session end: the catches stay open
        notes.append(f"outcomes not worked out: {error}")


def _release_recall(payload: payloads.SessionEndPayload, scopes: list[Scope]) -> None:
    """The resident recall process told this session ended (api.resident): it exits a
    minute after its last session."""
    project = project_scope(scopes)
    if project is None:
        return
    from cortex_hooks.api import resident

    user = next((other.path for other in scopes if other.is_global), location.global_database())
    resident.end(project.path, user, location.hook_project(payload.cwd), payload.session_id)


# SessionEnd's goal is 1 s in all, on any transcript: capture scans until the hook has run
# CAPTURE_UNTIL seconds (the decay and the summary come first), at least CAPTURE_LEAST; the
# background worker takes the rest.
CAPTURE_UNTIL = 0.6
CAPTURE_LEAST = 0.03


def _capture(payload: payloads.SessionEndPayload, scopes: list[Scope], notes: list[str]) -> None:
    """Scan what the transcript gained since the last scan (docs/guide/capture.md), into the project's
    database, within the hook's budget; what is left goes to the background worker."""
    project = project_scope(scopes)
    if project is None:
        return
    from cortex_hooks.capture import switch

    if not switch.enabled(project.path):
        return
    _remembered(payload, project, notes)
    if not payload.transcript_path:
        return
    from cortex_hooks.capture import scanning, worker

    try:
        outcome = scanning.scan(
            project.connection,
            payload.transcript_path,
            payload.session_id,
            deadline=max(time.monotonic() + CAPTURE_LEAST, _STARTED + CAPTURE_UNTIL),
            now=clock.iso(clock.now()),
            policy=location.config_for(project.path).policy,
        )
    except sqlite3.Error as error:
        if not transaction.locked(error):
            notes.append(f"transcript not scanned for proposals: {error}")
            return
        # busy: the worker scans it later, from the same stored offset
        notes.append(pending.kept_note(project.name, "transcript scan"))
        behind = True
    except (OSError, ValueError):
        return  # the summary has said already that the transcript was not read
    else:
        behind = outcome.behind > 0
        if outcome.proposed and location.config_for(project.path).capture_llm == "claude-cli":
            behind = True  # the worker words new proposals (docs/guide/capture.md): never the hook itself
        if outcome.proposed:
            count = len(outcome.proposed)
            notes.append(f"capture: {count} new proposal{'' if count == 1 else 's'} (cortex-hooks proposals)")
    if behind:
        try:
            worker.start(project.path, (payload.session_id, payload.transcript_path))
        except OSError as error:
            notes.append(f"capture worker not started: {error}")


REMEMBERED_BUDGET = 0.15  # seconds of reading Claude Code's memory files and their rules; the rest waits


def _remembered(payload: payloads.SessionEndPayload, project: Scope, notes: list[str]) -> None:
    """Claude Code's own memory read for rules (docs/guide/claude-memory.md), before the transcript: its index
    brought in step with the files (the session may have written some), then the chunks not read
    yet, both within a small share of the budget (one file and one chunk at least); what is left
    waits for the next session end (or recall). A busy database costs nothing but the wait: the
    files are read again next time."""
    from cortex_hooks.api import claude_files as claude_memory
    from cortex_hooks.capture import remembering

    now = clock.iso(clock.now())
    deadline = min(_STARTED + CAPTURE_UNTIL, time.monotonic() + REMEMBERED_BUDGET)
    try:
        found = claude_memory.sources(location.hook_project(payload.cwd))
        claude_memory.refresh(project.connection, found, now, deadline)
        outcome = remembering.scan(project.connection, payload.session_id, deadline=deadline, now=now)
    except sqlite3.Error as error:
        if not transaction.locked(error):
            notes.append(f"Claude Code's memory not read for rules: {error}")
        return
    except (OSError, ValueError) as error:  # a folder gone while it was read: next time
        notes.append(f"Claude Code's memory not read for rules: {error}")
        return
    if outcome.proposed:
        count = len(outcome.proposed)
        notes.append(
            f"capture: {count} new proposal{'' if count == 1 else 's'} from Claude Code's memory"
            " (cortex-hooks proposals)"
        )


def _record_summary(
    payload: payloads.SessionEndPayload,
    ended: list[Scope],
    now: str,
    notes: list[str],
    summarizer: transcript.Summarizer | None,
    *,
    spent: float,
) -> None:
    """The transcript's summary, read once, stored beside each end this call made: what the
    outcomes' reading gathered, and the rest of the transcript read on (within what is left of
    SUMMARY_BUDGET after `spent` seconds of the shared reading)."""
    summary, problems = _summary(
        payload.transcript_path, summarizer, max(SUMMARY_LEAST, SUMMARY_BUDGET - spent)
    )
    notes += problems
    if summary.summary is not None or summary.key_changes:
        text, changes = summary.summary, summary.key_changes
        for scope in ended:
            pending.write_or_keep(
                scope.connection,
                scope.path,
                partial(
                    sessions.record_summary,
                    scope.connection,
                    payload.session_id,
                    summary=text,
                    key_changes=changes,
                ),
                "summary",
                session=payload.session_id,
                now=now,
                summary=text,
                key_changes=changes,
            )


def _surface(payload: payloads.SessionEndPayload, scopes: list[Scope], notes: list[str]) -> None:
    """Refresh the push surface (docs/guide/surface.md) of the project Claude Code runs in:
    CLAUDE_PROJECT_DIR, else the payload's cwd. That is the directory whose CLAUDE.local.md Claude
    Code reads, whatever CORTEX_DB says about where the database lives. Only where the user asked
    for a surface."""
    project = location.hook_project(payload.cwd)
    config = location.config_for(location.hook_database(payload.cwd))
    try:
        if not config.surface or not surface_import.wanted(project):
            return
        from cortex_hooks.api import surface_update as surface

        result = surface.refresh(
            scopes, project, budget=config.surface_budget, now=clock.now(), cli=location.cli_command()
        )
    except CortexError as error:
        notes.append(f"surface not written: {error.message}")
        return
    except (OSError, sqlite3.Error, ValueError) as error:
        notes.append(f"surface not written: {error}")
        return
    notes += result.skipped


LIFECYCLE_BUDGET = 0.05  # seconds per scope; what is left stays due for the next session end


def _lifecycle(scope: Scope, notes: list[str]) -> None:
    """The memory lifecycle (docs/guide/lifecycle.md) in bounded time. It never waits for the write lock: when
    another process holds it, the memories simply stay due for the next session end (nothing is
    lost, so nothing is kept for later either). Any other failure is a note, never a failed end."""
    import time

    from cortex_hooks.api import lifecycle_pass as lifecycle
    from cortex_hooks.store import lifecycle as lifecycle_store
    from cortex_hooks.store.transaction import Transaction, locked

    half_lives = location.config_for(scope.path).half_lives
    try:
        with lifecycle_store.without_waiting(scope.connection), Transaction(scope.connection):
            report = lifecycle.run(
                scope.connection,
                scope.path,
                scope.name,
                clock.now(),
                half_lives,
                deadline=time.monotonic() + LIFECYCLE_BUDGET,
            )
    except sqlite3.Error as error:
        if not locked(error):
            notes.append(f"{scope.name} memory lifecycle not run: {error}")
        return
    except OSError as error:
        notes.append(f"{scope.name} memory lifecycle not run: {error}")
        return
    notes += report.skipped


def _decay(scope: Scope, payload: payloads.SessionEndPayload, now: str, notes: list[str]) -> bool:
    """One scope's decay and end record, at most once per session; whether this call made them."""
    policy = location.config_for(scope.path).policy

    def end() -> bool:
        if sessions.has_ended(scope.connection, payload.session_id):
            return False
        learnings.decay_all(scope.connection, policy, now)
        sessions.record_end(scope.connection, payload.session_id, reason=payload.reason, now=now)
        return True

    # Under another process's lock the decay is kept, never lost, and applied once (store.pending
    # checks the session has not ended when it applies it).
    ended = pending.write_or_keep(
        scope.connection, scope.path, end, "end", session=payload.session_id, reason=payload.reason, now=now
    )
    if ended is None:
        notes.append(pending.kept_note(scope.name, "session end"))
    return ended is not False


def _mark_ended(scope: Scope, payload: payloads.SessionEndPayload, now: str, notes: list[str]) -> bool:
    """An end without a decay (its agent decays by the day): the session marked ended, again at
    each end of a turn; never waits for another process's lock (the next end marks it)."""
    from cortex_hooks.store.transaction import Transaction, locked

    try:
        with Transaction(scope.connection):
            sessions.record_end(scope.connection, payload.session_id, reason=payload.reason, now=now)
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        notes.append(
            f"another process holds the {scope.name} database's write lock: the end is marked next time"
        )
        return False
    return True


SUMMARY_BUDGET = 0.5  # seconds of reading for the summary, the outcomes' shared reading included
SUMMARY_LEAST = 0.05


def _summary(
    path: str | None, summarizer: transcript.Summarizer | None, budget: float
) -> tuple[transcript.Summary, list[str]]:
    """The transcript's summary; an unreadable transcript only costs the summary (and a note),
    never the decay."""
    if not path:
        return transcript.Summary(None, []), []
    if summarizer is not None and summarizer.ended:
        return summarizer.summary(), []
    start = summarizer.read_to if summarizer is not None else 0
    try:
        return transcript.summarize(path, budget, into=summarizer, start=start), []
    except (OSError, ValueError) as error:  # ValueError: a path open() refuses (a NUL byte)
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return transcript.Summary(None, []), [f"transcript not read ({reason})"]
