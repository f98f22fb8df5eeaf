"""The candidates of a tool call run: their regexes on what each target reads, the matches
boosted and kept for the history in one transaction (or, for a database another process holds,
judged from its guard file and kept for later), a rewrite worked out and its corrected command
checked again. Imported only once a candidate survived the prefilter.
"""

from __future__ import annotations

import sqlite3

from cortex_hooks import location
from cortex_hooks.guard import matching
from cortex_hooks.hooks import pipeline, tool_call
from cortex_hooks.hooks.tool_call import ToolCall
from cortex_hooks.scopes import Scope
from cortex_hooks.store import learnings as store
from cortex_hooks.store.connection import Transaction, locked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _matches(
    scope: Scope, rows: list[sqlite3.Row], subjects: dict[str, Any], problems: list[str], config: Any
) -> dict[int, tuple[sqlite3.Row, int]]:
    """The candidates whose regex matches what their target reads (`subjects`: a Bash command as
    the shell reads it), with the index of the text (or simple command) it matched in."""
    named = "global learning" if scope.is_global else "learning"
    matched: dict[int, tuple[sqlite3.Row, int]] = {}
    for row in rows:
        try:
            where = matching.where(
                row["regex"], subjects[row["target"]], config.regex_timeout, config.regex_timeout_per_mib
            )
        except matching.Unusable as error:
            problems.append(f"{named} #{row['id']} skipped: {error.message}")
            continue
        if where is not None:
            matched[row["id"]] = (row, where)
    return matched


def _corrections(
    matched: dict[int, tuple[sqlite3.Row, int]], call: ToolCall, subjects: dict[str, Any], config: Any
) -> dict[int, Any]:
    """What each matched learning with a rewrite makes of the command (guard.rewrite): pure of
    the confidence, so worked out before the transaction."""
    found: dict[int, Any] = {}
    command = call.tool_input.get("command")
    if call.tool_name != matching.READ_TOOL or not isinstance(command, str):
        return found
    for learning_id, (row, where) in matched.items():
        if row["rewrite"] is None:
            continue
        from cortex_hooks.guard import rewrite

        timeouts = (config.regex_timeout, config.regex_timeout_per_mib)
        subject = subjects[row["target"]]
        found[learning_id] = rewrite.correct(
            row["regex"], row["rewrite"], command, subject, index=where, timeouts=timeouts
        )
    return found


def recorded(
    scope: Scope,
    rows: list[sqlite3.Row],
    outcome: pipeline.Outcome,
    *,
    call: ToolCall,
    texts: dict[str, list[str]],
    subjects: dict[str, Any],
) -> list[Any]:
    """Run one scope's candidates' regexes and record its matches in one transaction, with what
    each answers by itself (guard.verdict.answer, pure) for the history, and the call as written
    (`texts`); its hits."""
    from cortex_hooks import clock
    from cortex_hooks.guard import hand_edits, verdict
    from cortex_hooks.hooks import kept_call

    config = location.config_for(scope.path)
    matched = _matches(scope, rows, subjects, outcome.problems, config)
    if not matched:
        return []
    corrections = _corrections(matched, call, subjects, config)
    connection, now, policy = scope.connection, clock.iso(clock.now()), config.policy
    kept = (call.tool_name, kept_call.text(texts))
    ids = list(matched)
    try:
        with Transaction(connection):
            # read inside the transaction: the gate is judged on the confidence before this boost
            readable, unreadable = hand_edits.split(store.matched(connection, ids))
            hits = [
                verdict.Hit.of(row, scope=scope.name, policy=policy, correction=corrections.get(row["id"]))
                for row in readable
            ]
            answers = {hit.id: verdict.answer(hit) for hit in hits}
            store.record_matches(connection, list(answers), now, policy, answers=answers, call=kept)
    except sqlite3.OperationalError as error:
        if not locked(error):
            raise
        # Another process holds the write lock: decide from what can be read, never by waiting
        # for the writer, and keep the boost for the next process that can write.
        from cortex_hooks.store import pending

        readable, unreadable = hand_edits.split(store.matched(connection, ids))
        waiting = pending.unapplied(connection, scope.path)
        hits = [
            verdict.Hit.of(
                row,
                pending.pending_confidence(connection, waiting, row, policy),
                scope=scope.name,
                policy=policy,
                correction=corrections.get(row["id"]),
            )
            for row in readable
        ]
        _keep_for_later(scope.path, hits, kept, now)
        outcome.notes.append(pending.kept_note(scope.name, "boost"))
    outcome.problems += unreadable  # a hand-edited value is never boosted, nor read
    return hits


def guarded(
    scope: Scope,
    rows: list[Any],
    outcome: pipeline.Outcome,
    *,
    call: ToolCall,
    texts: dict[str, list[str]],
    subjects: dict[str, Any],
) -> list[Any]:
    """The hits of a locked database's learnings, from its guard file (store.guard_file): each
    judged at its confidence there plus the boosts still pending, each boost kept for later."""
    from cortex_hooks import clock, confidence
    from cortex_hooks.guard import verdict
    from cortex_hooks.hooks import kept_call
    from cortex_hooks.store import pending

    config = location.config_for(scope.path)
    matched = _matches(scope, rows, subjects, outcome.problems, config)
    if not matched:
        return []
    corrections = _corrections(matched, call, subjects, config)
    waiting = pending.entries(scope.path)
    hits = []
    for row, _where in matched.values():
        before = row["confidence"]
        for entry in waiting:
            if entry.get("op") == "match" and row["id"] in entry.get("ids", []):
                before = confidence.boosted(before, config.policy)
        correction = corrections.get(row["id"])
        hits.append(
            verdict.Hit.of(row, before, scope=scope.name, policy=config.policy, correction=correction)
        )
    _keep_for_later(scope.path, hits, (call.tool_name, kept_call.text(texts)), clock.iso(clock.now()))
    return hits


def _keep_for_later(path: str, hits: list[Any], kept: tuple[str, str], now: str) -> None:
    """The boosts of these matches, with what each answered and the call as written, kept in the
    database's pending file for the next process that can write (store.pending)."""
    from cortex_hooks.guard import verdict
    from cortex_hooks.store import pending

    answers = {hit.id: verdict.answer(hit) for hit in hits}
    pending.append(
        path,
        "match",
        ids=list(answers),
        answers={str(i): said for i, said in answers.items()},
        tool=kept[0],
        call=kept[1],
        now=now,
    )


def recheck(decided: Any, call: ToolCall, scopes: list[Scope], problems: list[str]) -> Any:
    """A rewrite's corrected command checked against every learning of every scope, as the
    call itself was but read only (no boost, no history: the agent never sent that command),
    and the verdict that makes."""
    from cortex_hooks import location
    from cortex_hooks.guard import hand_edits, verdict

    corrected = {**call.tool_input, "command": decided.corrected}
    texts = {target: matching.fragments(target, call.tool_name, corrected) for target in matching.TARGETS}
    subjects = {target: matching.subject(target, call.tool_name, texts[target]) for target in texts}
    looked = tool_call.lookups(call.tool_name, texts)
    again: list[Any] = []
    for scope in scopes:
        rows = tool_call.candidates(scope, call.tool_name, texts, looked, problems)
        config = location.config_for(scope.path)
        matched = _matches(scope, rows, subjects, problems, config) if rows else {}
        if not matched:
            continue
        if scope.connection is None:  # its guard file's rows, as they are there
            found = [row for row, _where in matched.values()]
        else:
            found, unreadable = hand_edits.split(store.matched(scope.connection, list(matched)))
            problems += unreadable
        again += [verdict.Hit.of(row, scope=scope.name, policy=config.policy) for row in found]
    from cortex_hooks.upkeep import team_precedence

    again = team_precedence.one_per_id(again, scopes)  # one id in several places, as for the call
    return verdict.recheck(decided, again, call.tool_input, str(call.tool_input.get("command")))
