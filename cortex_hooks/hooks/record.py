"""What a judged call leaves behind: each learning that matched boosted and counted, with what it
answered and the call as written, in its history (SPEC §3, §4.1), and a deny of the built-in
protection counted under its own name (SPEC §20: in the project's database, else the global one),
each database in one transaction; the verdict judged again inside them, so the gate reads each
confidence as the boost finds it (another hook may have boosted it since). A database another
process holds keeps its boosts for the next process that can write (store.pending). Imported only
once a call matched.
"""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack

from cortex_hooks import clock
from cortex_hooks.guard.judge import Judgment, judge
from cortex_hooks.hooks import kept_call, pipeline
from cortex_hooks.store import history, pending
from cortex_hooks.store import learnings as store
from cortex_hooks.store.transaction import Transaction, locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.call import Call
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.judging.in_force import InForce
    from cortex_hooks.scopes import Scope


def recorded(call: Call, rules: InForce, judged: Judgment, outcome: pipeline.Outcome) -> Judgment:
    """The call's matches written, and the verdict as judged inside the write transactions. A
    write that fails (a full disk, a read-only file system) never changes the answer (SPEC §21:
    fail closed): the verdict judged before stands, and the failure is said beside it."""
    try:
        return _recorded(call, rules, judged, outcome)
    except (sqlite3.Error, OSError) as error:
        outcome.problems.append(f"the matches could not be recorded ({error}): the verdict stands")
        return judged


def _recorded(call: Call, rules: InForce, judged: Judgment, outcome: pipeline.Outcome) -> Judgment:
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
            if scope in writing:
                policy = rules.config(scope).policy
                answers = {hit.id: hit.answer for hit in hits}
                store.record_matches(scope.connection, list(answers), now, policy, answers=answers, call=kept)
            else:
                _keep_for_later(scope.path, hits, kept, now)
    return judged


def _keep_for_later(path: str, hits: list[Hit], kept: tuple[str, str], now: str) -> None:
    """The boosts of these matches, with what each answered and the call as written, kept in the
    database's pending file for the next process that can write (store.pending)."""
    answers = {hit.id: hit.answer for hit in hits}
    pending.append(
        path,
        "match",
        ids=list(answers),
        answers={str(i): said for i, said in answers.items()},
        tool=kept[0],
        call=kept[1],
        now=now,
    )
