"""What the agent did after each deny, ask and rewrite of a session (docs/guide/outcomes.md),
worked out at its end from its transcript: the catches PreToolUse left open, read from where the
transcript stood at the first of them (transcripts.call_log: the calls and their results), decided by
guard.catch_outcomes, settled in one transaction per database. Then, while time is left, the open
catches of other sessions whose transcript grew since it was last read: a session whose end Claude
Code never sent, or whose end ran out of time, or one still running beside this one.

Nothing is lost and nothing counted twice: a catch is decided by the first call that decides it,
so a transcript read in part decides only what it can and leaves the rest open for a later read
(a resumed session's end, the next session's); a settled catch is never read again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

from cortex_hooks import location
from cortex_hooks.guard import catch_outcomes
from cortex_hooks.guard.call import Call
from cortex_hooks.hooks import kept_call
from cortex_hooks.store import outcomes as store
from cortex_hooks.store.transaction import Transaction, locked
from cortex_hooks.stored.outcome_rows import Caught, Outcome
from cortex_hooks.transcripts import call_log, formats

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.store.scopes import Scope
    from cortex_hooks.transcripts.summary import Summarizer

OPEN_DAYS = store.OPEN_DAYS


def settle(
    scopes: list[Scope],
    session: str,
    transcript: str | None,
    *,
    deadline: float,
    now: str,
    summary: Summarizer | None = None,
) -> list[str]:
    """This session's open catches worked out from its transcript, then other sessions' while
    time is left (monotonic `deadline`); notes for stderr. `summary` is fed the bytes of this
    session's transcript that the reading reads from its start (the transcript read once)."""
    notes: list[str] = []
    readable = [scope for scope in scopes if scope.connection is not None]
    _session(readable, session, transcript, deadline=deadline, now=now, notes=notes, summary=summary)
    others: dict[str, str] = {}
    for scope in readable:
        waiting_here = store.waiting_sessions(scope.connection, session)
        if waiting_here:  # catches no session will decide now are dropped first: not read again
            _expire(scope, now, notes)
            waiting_here = store.waiting_sessions(scope.connection, session)
        for waiting, path in waiting_here:
            others.setdefault(waiting, path)
    for waiting, path in others.items():
        if time.monotonic() >= deadline:
            break
        _session(readable, waiting, path, deadline=deadline, now=now, notes=notes)
    return notes


def _session(
    scopes: list[Scope],
    session: str,
    transcript: str | None,
    *,
    deadline: float,
    now: str,
    notes: list[str],
    summary: Summarizer | None = None,
) -> None:
    loaded = [
        (scope, outcome, caught)
        for scope in scopes
        for outcome, caught in store.open_catches(scope.connection, session)
    ]
    if not loaded:
        return
    path = transcript or next((row.transcript for _, row, _ in loaded if row.transcript), None)
    if path is None:
        return  # no transcript to read: the catches stay open (a retry PreToolUse saw stands)
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return  # gone, or not yet written: the catches stay open for a later read
    if all(row.read == size and row.transcript == path for _, row, _ in loaded):
        return  # read to its end before, and not grown since: nothing new can decide them
    catches = []
    for index, (scope, row, caught) in enumerate(loaded):
        config = location.config_for(scope.path)
        rule = catch_outcomes.Rule(
            caught.regex,
            caught.tool,
            caught.target,
            caught.correct_pattern,
            (config.regex_timeout, config.regex_timeout_per_mib),
        )
        start = row.offset if row.transcript == path and row.offset <= size else 0
        jobs = frozenset(json.loads(row.jobs))
        catches.append(catch_outcomes.Catch(row.answer, row.call_id, jobs, rule, start=start, key=index))
    watch = catch_outcomes.Watch()
    for catch in catches:
        watch.add(catch)
    left = call_log.Left()
    if summary is not None and (path != transcript or formats.format_of(path) != formats.CLAUDE):
        summary = None  # another file, or another agent's transcript: summarized on its own
    try:
        _read(
            watch,
            path,
            min(catch.start for catch in catches),
            deadline,
            left,
            grams=_grams(catches),
            summary=summary,
        )
        if summary is not None:  # what it was fed: the file from its start to where this stopped
            summary.read_to, summary.ended = left.offset, left.ended
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        notes.append(f"outcomes of session {session} not worked out: transcript not read ({reason})")
        return
    _write(scopes, loaded, watch, size=size if left.ended else None, now=now, notes=notes)


def _grams(catches: list[catch_outcomes.Catch]) -> call_log.Grams | None:
    """What a transcript line must hold for a call in it to matter to these catches: one of the
    learnings' prefilter grams (it may match again), or the name of a program of their jobs or of
    their correct way (it may do the same job, or the correct way). None when every line must be
    read: a learning of other tools than Bash, a catch of a file's job."""
    from cortex_hooks.guard import prefilter

    learned = {
        (rule.tool, rule.target, tuple(prefilter.keys(rule.regex, rule.target)))
        for rule in (catch.rule for catch in catches)
    }
    grams = call_log.grams([(tool, target, list(keys)) for tool, target, keys in learned])
    if grams is None:
        return None
    named: set[str] = set()
    for catch in catches:
        for job in catch.jobs:
            if job.startswith(("write ", "read ")):
                return None
            named.add(job.split(" ", 1)[0])
        if catch.rule.way.words is not None:
            named.add(catch.rule.way.words[0])
    needles = {prefilter.loosen(name).encode() for name in named if prefilter.loosen(name)}
    return call_log.Grams(sorted(set(grams.exact) | needles), grams.folded, commands=True)


def _read(
    watch: catch_outcomes.Watch,
    path: str,
    start: int,
    deadline: float,
    left: call_log.Left,
    *,
    grams: call_log.Grams | None,
    summary: Summarizer | None,
) -> None:
    """The transcript's calls and results from `start`, seen by the watch, until every catch is
    decided, the file ends or the deadline comes; a line without any of the `grams` holds no call
    that matters to them (only the results in it are read). With `summary`, the file is read from
    its start and every block fed to it too (the calls before `start` are not looked at)."""
    first = 0 if summary is not None else start
    body = summary.body if summary is not None else None
    head = summary.head if summary is not None else None
    if grams is None:
        found = call_log.read(
            path,
            deadline=deadline,
            since=None,
            grams=None,
            left=left,
            start=first,
            after=start,
            results=watch.awaits,
            body=body,
            head=head,
        )
    else:  # only the calls whose commands may matter: the file searched a block at a time
        found = call_log.scan(
            path,
            deadline=deadline,
            grams=grams,
            wanted=watch.awaits,
            left=left,
            start=first,
            after=start,
            body=body,
            head=head,
        )
    for item in found:
        if isinstance(item, call_log.Result):
            result = catch_outcomes.result_of(item.error, item.text)
            watch.see(catch_outcomes.Seen(item.id, result=result, offset=item.offset))
        else:
            watch.see(
                catch_outcomes.Seen(item.id, call=Call(item.tool, item.input, item.cwd), offset=item.offset)
            )
        if watch.idle:
            return


def _write(
    scopes: list[Scope],
    loaded: list[tuple[Scope, Outcome, Caught]],
    watch: catch_outcomes.Watch,
    *,
    size: int | None,
    now: str,
    notes: list[str],
) -> None:
    """The decisions, each in its database's transaction; with `size` (the transcript was read to
    its end), the catches still open marked as read to it; old undecided catches dropped."""
    decided = {catch.key: found for catch, found in watch.decided}
    # read whole, an answered deny that nothing after it decided was retried by no call
    undone = {catch.key for catch in watch.armed} if size is not None else set()
    expired = _days_before(now, OPEN_DAYS)
    shown: list[tuple[Scope, Outcome, Caught, str]] = []  # followed with a command: its rewrite, perhaps
    for scope in dict.fromkeys(scope for scope, _, _ in loaded):
        mine = [(index, row, caught) for index, (owner, row, caught) in enumerate(loaded) if owner is scope]
        try:
            with Transaction(scope.connection):
                for index, row, caught in mine:
                    if index in decided:
                        result, event = decided[index]
                        call = event.call if event is not None else None
                        kept = (call.tool, kept_call.text(call.every_text())) if call is not None else None
                        settled = store.settle(scope.connection, row.id, result, now=now, next_call=kept)
                        command = call.command if call is not None else None
                        if (
                            settled
                            and result == "followed"
                            and command is not None
                            and row.answer != "rewrite"
                        ):
                            shown.append((scope, row, caught, command))
                for index, row, _ in mine:
                    if index in undone:
                        store.unsettle(scope.connection, row.id)
                if size is not None:
                    store.read_to(
                        scope.connection, [row.id for index, row, _ in mine if index not in decided], size
                    )
                store.expire(scope.connection, expired)
        except sqlite3.OperationalError as error:
            if not locked(error):
                raise
            # another process holds the lock: the catches stay open, and are read again next time
            notes.append(f"{scope.name} database busy: outcomes kept for a later session end")
    if shown:
        _rewrites(scopes, shown, session=loaded[0][1].session_id, now=now, notes=notes)


def _rewrites(
    scopes: list[Scope],
    shown: list[tuple[Scope, Outcome, Caught, str]],
    *,
    session: str,
    now: str,
    notes: list[str],
) -> None:
    """Capture's proposals of the rewrites the agent's own retries show (docs/guide/outcomes.md), into the
    project's database when capture is on there: never a failed session end."""
    from cortex_hooks.store.scopes import project_scope

    project = project_scope(scopes)
    if project is None:
        return
    from cortex_hooks.capture import rewrites, switch

    if not switch.enabled(project.path):
        return
    proposed = 0
    try:
        with Transaction(project.connection):
            for scope, row, caught, command in shown:
                config = location.config_for(scope.path)
                learning = {"id": row.learning_id, **caught._asdict()}
                found = rewrites.propose(
                    project.connection,
                    learning,
                    scope.name,
                    caught=row.call,
                    followed=command,
                    session=session,
                    now=now,
                    timeouts=(config.regex_timeout, config.regex_timeout_per_mib),
                )
                proposed += found is not None
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        return  # busy: the agent's retry shows it again another time
    if proposed:
        notes.append(
            f"capture: {proposed} rewrite{'' if proposed == 1 else 's'} proposed (cortex-hooks proposals)"
        )


def _expire(scope: Scope, now: str, notes: list[str]) -> None:
    """Drop the open outcomes too old to settle; another process holding the write lock leaves it
    to the next session end, without a word (nothing is lost by waiting)."""
    try:
        with Transaction(scope.connection):
            store.expire(scope.connection, _days_before(now, OPEN_DAYS))
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise


def _days_before(now: str, days: int) -> str:
    from datetime import timedelta

    from cortex_hooks import clock

    return clock.iso(clock.parse(now) - timedelta(days=days))
