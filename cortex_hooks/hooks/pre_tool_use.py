"""PreToolUse: match the tool call against learnings; boost, then deny, ask, correct or warn
(SPEC §4.1, §16).

This is the hot path, run before every tool call. A call that cannot match any learning costs
a JSON parse, an index lookup and nothing else: `regex`, the clock and the settings are imported
only once a candidate survives the prefilter and the tool matcher. pydantic is never imported
here (unless a config file is to be read): it alone costs more than the whole no-match path, and
the few payload fields this hook uses are checked with the standard library.
"""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import location
from cortex_hooks.errors import CortexError
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.hooks import pipeline
from cortex_hooks.scopes import Scope
from cortex_hooks.store import learnings as store
from cortex_hooks.store.connection import Transaction, locked
from cortex_hooks.upkeep import team_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def main() -> int:
    return pipeline.leave(pipeline.run("PreToolUse", parse, handle, guard_files=True))


class ToolCall:
    __slots__ = ("cwd", "tool_input", "tool_name")

    def __init__(self, tool_name: str, tool_input: dict[str, Any], cwd: object = None) -> None:
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.cwd = cwd  # where the team file is looked for, when Claude Code names no project


def parse(payload: dict[str, Any]) -> ToolCall | pipeline.Outcome:
    """The fields this hook's decision reads, checked with the standard library (no pydantic
    here); nothing else (SPEC §19): the session id, a description, an extra key of any type or
    depth never stops a deny. A call the built-in protection denies is decided here, before any
    database is opened."""
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name:
        raise CortexError("invalid payload: tool_name must be a non-empty string")
    if not isinstance(tool_input, dict):
        raise CortexError("invalid payload: tool_input must be a JSON object")
    problem = matching.mistyped(tool_name, tool_input)
    if problem:
        raise CortexError(f"invalid payload: {problem}")
    if location.names_own_place(tool_input, payload.get("cwd")):  # SPEC §19; others pay substring tests
        from cortex_hooks.hooks import built_in

        refused = built_in.refusal(tool_name, tool_input, payload.get("cwd"))
        if refused is not None:
            return pipeline.Outcome(built_in.output(refused))
    return ToolCall(tool_name, tool_input, payload.get("cwd"))


def handle(call: ToolCall, scopes: list[Scope]) -> pipeline.Outcome:
    """The learnings of every scope against this call; one verdict on all their matches."""
    texts = {
        target: matching.fragments(target, call.tool_name, call.tool_input) for target in matching.TARGETS
    }
    outcome = pipeline.Outcome()
    looked = _looked(call.tool_name, texts)
    hits: list[Any] = []
    subjects: dict[str, Any] | None = None
    for scope in scopes:
        if scope.connection is None:  # held unreadable by another process: its guard file decides
            outcome.notes.append(
                f"{scope.name} database held by another process: decided from its guard file"
            )
        elif not scope.is_global:  # the team file, read in only when its stat changed (SPEC §17)
            outcome.problems += team_file.refresh(
                scope.connection, location.hook_project(call.cwd), scope.path
            )
        rows = _rows(scope, call.tool_name, texts, looked, outcome.problems)
        if not rows:
            continue
        # past here the hot path imports more; a call that matches nothing never gets here
        if subjects is None:
            subjects = {target: matching.subject(target, call.tool_name, texts[target]) for target in texts}
        decide = _match if scope.connection is not None else _guarded
        hits += decide(scope, rows, outcome, call=call, texts=texts, subjects=subjects)
    if hits:
        from cortex_hooks.guard import verdict
        from cortex_hooks.hooks import protocol
        from cortex_hooks.upkeep import team_precedence

        hits = team_precedence.one_per_id(hits, scopes)
        decided = verdict.decide(hits)
        if decided is not None and decided.answer == "rewrite":
            decided = _recheck(decided, call, scopes, outcome.problems)
        outcome.output = protocol.pre_tool_use(decided) if decided else None
    return outcome


def _looked(tool_name: str, texts: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    """What the prefilter looks up per key letter (content and raw share theirs: a Bash
    command's loosened, see prefilter.lookup, so each text is cut into grams once), and the keys
    of the short texts: made once for every scope."""
    looked = dict(
        prefilter.lookup(target, tool_name, texts[target]) for target in ("content", "path", "input")
    )
    return looked, _text_keys(looked)


def _rows(
    scope: Scope,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
    problems: list[str],
) -> list[Any]:
    """One scope's learnings that may match: the prefilter's and the tool matcher's candidates,
    or, for a database another process holds, its guard file's learnings for this tool."""
    if scope.connection is None:
        return [
            row
            for row in scope.guard or []
            if row["target"] in texts and matching.tool_accepts(row["tool"], tool_name)
        ]
    return _candidates(scope.connection, tool_name, texts, looked, problems)


def _candidates(
    connection: sqlite3.Connection,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
    problems: list[str],
) -> list[sqlite3.Row]:
    """The learnings the prefilter and the tool matcher let through, without compiling a regex;
    `looked`: the texts by key letter and the keys of the short ones."""
    rows: list[sqlite3.Row] = []
    for row in store.candidates(connection, _lookup_keys(connection, *looked), tool_name):
        if (
            type(row["tool"]) is not str
            or type(row["regex"]) is not str
            or type(row["literals"]) is bytes
            or not (row["rewrite"] is None or type(row["rewrite"]) is str)
        ):
            problems.append(_unreadable(row))  # a hand edit: this learning is skipped, not the rest
        elif matching.tool_accepts(row["tool"], tool_name) and _satisfied(row, tool_name, texts):
            rows.append(row)
    return rows


def _satisfied(row: sqlite3.Row, tool_name: str, texts: dict[str, list[str]]) -> bool:
    """The learning's required literals, in its target's text as the prefilter looked it up."""
    letter, fragments = prefilter.lookup(row["target"], tool_name, texts[row["target"]])
    return prefilter.satisfied(row["literals"], fragments, loose=letter == prefilter.LOOSE)


def _unreadable(row: sqlite3.Row) -> str:
    from cortex_hooks.guard import hand_edits

    return hand_edits.named(row["id"], row) or f"learning #{row['id']} skipped: it cannot be read"


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


def _match(
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
        answers = {hit.id: verdict.answer(hit) for hit in hits}
        pending.append(
            scope.path,
            "match",
            ids=list(answers),
            answers={str(i): said for i, said in answers.items()},
            tool=kept[0],
            call=kept[1],
            now=now,
        )
        outcome.notes.append(pending.kept_note(scope.name, "boost"))
    outcome.problems += unreadable  # a hand-edited value is never boosted, nor read
    return hits


def _guarded(
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
    answers = {hit.id: verdict.answer(hit) for hit in hits}
    pending.append(
        scope.path,
        "match",
        ids=list(answers),
        answers={str(i): said for i, said in answers.items()},
        tool=call.tool_name,
        call=kept_call.text(texts),
        now=clock.iso(clock.now()),
    )
    return hits


def _recheck(decided: Any, call: ToolCall, scopes: list[Scope], problems: list[str]) -> Any:
    """A rewrite's corrected command checked against every learning of every scope, as the
    call itself was but read only (no boost, no history: the agent never sent that command),
    and the verdict that makes."""
    from cortex_hooks import location
    from cortex_hooks.guard import hand_edits, verdict

    corrected = {**call.tool_input, "command": decided.corrected}
    texts = {target: matching.fragments(target, call.tool_name, corrected) for target in matching.TARGETS}
    subjects = {target: matching.subject(target, call.tool_name, texts[target]) for target in texts}
    looked = _looked(call.tool_name, texts)
    again: list[Any] = []
    for scope in scopes:
        rows = _rows(scope, call.tool_name, texts, looked, problems)
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


def _text_keys(looked: dict[str, list[str]]) -> str:
    """The prefilter keys short texts could satisfy (see cortex_hooks.guard.prefilter), as the JSON
    the candidate query reads: made once for every scope."""
    keys: list[str] = []
    for letter, fragments in looked.items():
        if sum(map(len, fragments)) <= prefilter.SCAN_ABOVE:
            keys += prefilter.text_keys(letter, fragments)
    return json.dumps(keys)


def _lookup_keys(connection: sqlite3.Connection, looked: dict[str, list[str]], short: str) -> str:
    """The keys of short texts, and those of one database's keys that a long text holds."""
    long = [
        key
        for letter, fragments in looked.items()
        if sum(map(len, fragments)) > prefilter.SCAN_ABOVE
        for key in prefilter.present_keys(store.keys_of_target(connection, letter), fragments)
    ]
    return json.dumps([*json.loads(short), *long]) if long else short
