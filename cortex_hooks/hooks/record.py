"""What a judged call leaves behind, each database in one transaction: each learning that matched boosted
and counted, with what it answered and the call as written, in its history (docs/guide/confidence.md);
each deny, ask and rewrite as a catch whose outcome the session will show, and the earlier catches this
call retries; a deny of the built-in protection counted under its own name (docs/internals/judge.md: in
the project's database, else the global one). The verdict is judged again inside the transactions, so the
gate reads each confidence as the boost finds it (another hook may have boosted it since). A database
another process holds keeps its boosts for the next process that can write (store.pending). Imported only
once a call matched."""

from __future__ import annotations

import os
import sqlite3
from contextlib import ExitStack

from cortex_hooks import clock
from cortex_hooks.guard import catch_outcomes
from cortex_hooks.guard.judge import Judgment, judge
from cortex_hooks.hooks import kept_call, pipeline
from cortex_hooks.store import history, outcomes, pending
from cortex_hooks.store import learnings as store
from cortex_hooks.store.transaction import Transaction, locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.call import Call, Origin
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.judging.in_force import InForce
    from cortex_hooks.store.scopes import Scope


def recorded(
    call: Call, rules: InForce, judged: Judgment, outcome: pipeline.Outcome, origin: Origin | None = None
) -> Judgment:
    """The call's matches written, and the verdict as judged inside the write transactions; with
    where the call was asked (`origin`), each deny, ask and rewrite as a catch whose outcome is
    to be worked out, and the earlier catches of this session it retries. A write that
    fails (a full disk, a read-only file system) never changes the answer (docs/internals/integrity.md: fail
    closed): the verdict judged before stands, and the failure is said beside it."""
    try:
        return _recorded(call, rules, judged, outcome, origin)
    except (sqlite3.Error, OSError) as error:
        outcome.problems.append(f"the matches could not be recorded ({error}): the verdict stands")
        return judged


def _recorded(
    call: Call, rules: InForce, judged: Judgment, outcome: pipeline.Outcome, origin: Origin | None
) -> Judgment:
    now = clock.iso(clock.now())
    kept = (call.tool, kept_call.text(call.every_text()))
    touched = {hit.scope for hit in judged.matched}
    counting = next((scope for scope in rules.scopes if scope.connection is not None), None)
    if judged.protection is not None and counting is not None:
        touched.add(counting.name)
    with ExitStack() as stack:
        writing: list[Scope] = []
        for scope in rules.scopes:
            if scope.name not in touched or scope.connection is None:
                continue
            try:
                stack.enter_context(Transaction(scope.connection, light=True))  # a boost only strengthens
            except sqlite3.OperationalError as error:
                if not locked(error):
                    raise
                # Another process holds the write lock: decide from what can be read, never by
                # waiting for the writer, and keep the boost for the next process that can write.
                rules.waiting.add(scope.name)
                outcome.notes.append(pending.kept_note(scope.name, "boost"))
                continue
            writing.append(scope)
        judged = judge(call, rules)  # again: each row as it is inside the transaction
        if judged.protection is not None and counting in writing:
            assert counting is not None
            history.record_protection(counting.connection, kept[0], kept[1], now)
        for scope in rules.scopes:
            hits = [hit for hit in judged.matched if hit.scope == scope.name]
            if not hits:
                continue
            caught = _catches(call, rules, hits, origin, kept=kept, now=now)
            if scope in writing:
                policy = rules.config(scope).policy
                answers = {hit.id: hit.answer for hit in hits}
                store.record_matches(scope.connection, list(answers), now, policy, answers=answers, call=kept)
                if origin is not None and origin.session is not None:
                    outcomes.retried_again(
                        scope.connection, origin.session, list(answers), call=kept, now=now
                    )
                outcomes.record(scope.connection, caught)
            else:
                _keep_for_later(scope.path, hits, kept, now, caught)
    return judged


def _catches(
    call: Call, rules: InForce, hits: list[Hit], origin: Origin | None, *, kept: tuple[str, str], now: str
) -> list[dict[str, Any]]:
    """The denies, asks and rewrites among these matches, as catches whose outcome is worked out
    later (store.outcomes): with the jobs of the simple command each learning matched, and how
    far the session's transcript was written (the caught call's line is written before the hook
    runs: everything after it is what came next). None without a session to work it out in."""
    caught = [hit for hit in hits if hit.answer in catch_outcomes.CAUGHT]
    if not caught or origin is None or origin.session is None:
        return []
    offset = 0
    if origin.transcript is not None:
        try:
            offset = os.stat(origin.transcript).st_size
        except (OSError, ValueError):
            offset = 0  # read from its start, if it is there at the session's end
    found = {(candidate.scope, candidate.row.id): candidate for candidate in rules.candidates(call)}
    rows = []
    for hit in caught:
        candidate = found.get((hit.scope, hit.id))
        if candidate is not None:
            row = candidate.row
            jobs = catch_outcomes.caught_jobs(call, row.regex, row.target, candidate.timeouts)
        else:  # a guard file's row: read without its index (the jobs of every simple command)
            jobs = catch_outcomes.jobs(call)
        rows.append(
            {
                "learning_id": hit.id,
                "session_id": origin.session,
                "call_id": origin.call_id or "",
                "answer": hit.answer,
                "at": now,
                "tool": kept[0],
                "call": kept[1],
                "jobs": sorted(jobs),
                "transcript": origin.transcript,
                "offset": offset,
            }
        )
    return rows


def _keep_for_later(
    path: str, hits: list[Hit], kept: tuple[str, str], now: str, caught: list[dict[str, Any]]
) -> None:
    """The boosts of these matches, with what each answered, the call as written and its catches,
    kept in the database's pending file for the next process that can write (store.pending)."""
    answers = {hit.id: hit.answer for hit in hits}
    pending.append(
        path,
        "match",
        ids=list(answers),
        answers={str(i): said for i, said in answers.items()},
        tool=kept[0],
        call=kept[1],
        now=now,
        caught=caught,
    )
