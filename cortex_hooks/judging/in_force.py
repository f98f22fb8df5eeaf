"""The rules in force (docs/internals/judge.md), as the judge reads them (guard.judge.Rules): the built-in
protection, and the learnings of each open scope — from its database through the prefilter's
index, or, for a database another process holds unreadable, from its guard file. Read only.

The hook, explain, replay, doctor and the proof of a rule's examples all judge through this one
view, so the prefilter, the tool matcher, the regex timeouts of each scope's configuration and
the precedence of one id in several places are the same for all of them.

A call that matches nothing ends in `candidates`, having cost one index lookup per scope: the
prefilter's keys of its texts (guard.prefilter), the rows whose tool matcher accepts the tool and
whose required literals are in the text, and nothing else — no regex, no clock, no settings.
"""

from __future__ import annotations

import json
import sqlite3

from cortex_hooks import location, stored
from cortex_hooks.guard import matching, prefilter
from cortex_hooks.guard.judge import Candidate
from cortex_hooks.store import learnings as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from cortex_hooks.config import Config
    from cortex_hooks.guard.call import Call
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.guard.rewrite import Correction
    from cortex_hooks.guard.selfguard.protected import Refusal
    from cortex_hooks.notes import Notes
    from cortex_hooks.store.scopes import Scope
    from cortex_hooks.stored import Learning

    Protection = Callable[[str, dict[str, Any], object], Refusal | None]


class InForce:
    """The rules of these scopes (project first), and the built-in protection when `protection`
    is given (hooks.built_in.refusal: tool, input, cwd → refusal). `problems`:
    what could not be read (a learning skipped), for stderr or a report. `configs`: each scope's
    configuration by its path, when the caller keeps them across calls (a replay)."""

    def __init__(
        self,
        scopes: list[Scope],
        *,
        protection: Protection | None = None,
        problems: list[str] | None = None,
        notes: Notes | None = None,
        configs: dict[str, Config] | None = None,
    ) -> None:
        self.scopes = scopes
        self.problems = problems if problems is not None else []
        self.waiting: set[str] = set()  # scopes another process holds the write lock of (see `hits`)
        self._protection = protection
        self._notes = notes
        self._configs = configs if configs is not None else {}
        self._found: list[tuple[Call, list[Candidate]]] = []
        self._refused: list[tuple[Call, Refusal | None]] = []

    def config(self, scope: Scope) -> Config:
        """The configuration in force for a scope's database (read once)."""
        found = self._configs.get(scope.path)
        if found is None:
            found = self._configs[scope.path] = location.config_for(scope.path, self._notes)
        return found

    def protection(self, call: Call) -> Refusal | None:
        """The built-in protection's refusal of a call, read once for the call (the hook judges it
        again inside its write transaction: the rows may have changed, the call has not)."""
        if self._protection is None:
            return None
        for seen, refused in self._refused:
            if seen is call:
                return refused
        refused = None  # a few substring tests: all that a call which cannot reach the guard pays
        if location.names_own_place(call.input, call.cwd):
            refused = self._protection(call.tool, call.input, call.cwd)
        self._refused.append((call, refused))
        return refused

    def candidates(self, call: Call) -> list[Candidate]:
        """Each scope's learnings the prefilter and the tool matcher let through; kept for the
        call (the hook judges it again inside its write transaction)."""
        for seen, found in self._found:
            if seen is call:
                return found
        texts = call.every_text()
        looked = lookups(call.tool, texts)
        found = []
        for index, scope in enumerate(self.scopes):
            rows = scope_candidates(scope, call.tool, texts, looked)
            if rows:
                config = self.config(scope)
                timeouts = (config.regex_timeout, config.regex_timeout_per_mib)
                found += [Candidate(row, index, scope.name, timeouts) for row in rows]
        self._found.append((call, found))
        return found

    def hits(self, found: Sequence[tuple[Candidate, Correction | None]]) -> list[Hit]:
        """The matched learnings as they are now, each at its confidence before this match's
        boost: as stored; for a scope whose write lock another process holds (`waiting`), with
        the writes still pending on it (store.pending); for a guard file, as the file has it plus
        the boosts pending."""
        from cortex_hooks.guard.hits import Hit

        corrections = {(candidate.source, candidate.row.id): fix for candidate, fix in found}
        hits: list[Hit] = []
        for index, scope in enumerate(self.scopes):
            ids = [candidate.row.id for candidate, _fix in found if candidate.source == index]
            if not ids:
                continue
            policy = self.config(scope).policy
            for row, before in self._rows(scope, ids):
                correction = corrections.get((index, row.id))
                hits.append(Hit.of(row, before, scope=scope.name, policy=policy, correction=correction))
        return hits

    def _rows(self, scope: Scope, ids: list[int]) -> list[tuple[Learning, int | None]]:
        """The rows of these matched learnings, and the confidence each is judged at (None: as
        the row has it)."""
        from cortex_hooks.store import pending

        policy = self.config(scope).policy
        if scope.connection is None:  # its guard file's rows, plus the boosts still pending
            from cortex_hooks import confidence

            waiting = pending.entries(scope.path)
            judged = []
            for row in scope.guard or []:
                if row.id not in ids:
                    continue
                before = row.confidence
                for entry in waiting:
                    if entry.get("op") == "match" and row.id in entry.get("ids", []):
                        before = confidence.boosted(before, policy)
                judged.append((row, before))
            return judged
        rows = store.matched(scope.connection, ids)
        if scope.name not in self.waiting:
            return [(row, None) for row in rows]
        waiting = pending.unapplied(scope.connection, scope.path)
        return [(row, pending.pending_confidence(scope.connection, waiting, row, policy)) for row in rows]

    def one_per_id(self, hits: list[Hit]) -> list[Hit]:
        return one_per_id(hits, self.scopes)


def lookups(tool_name: str, texts: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    """What the prefilter looks up per key letter (content and raw share theirs: a Bash
    command's loosened, see prefilter.lookup, so each text is cut into grams once), and the keys
    of the short texts: made once for every scope."""
    looked = dict(
        prefilter.lookup(target, tool_name, texts[target]) for target in ("content", "path", "input")
    )
    return looked, _text_keys(looked)


def scope_candidates(
    scope: Scope,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
) -> list[stored.Candidate]:
    """One scope's learnings that may match: the prefilter's and the tool matcher's candidates,
    or, for a database another process holds, its guard file's learnings for this tool."""
    if scope.connection is None:
        found = [stored.candidate(learning) for learning in scope.guard or []]
        return [
            row
            for row in found
            if row is not None and row.target in texts and matching.tool_accepts(row.tool, tool_name)
        ]
    return _indexed(scope.connection, tool_name, texts, looked)


def _indexed(
    connection: sqlite3.Connection,
    tool_name: str,
    texts: dict[str, list[str]],
    looked: tuple[dict[str, list[str]], str],
) -> list[stored.Candidate]:
    """The learnings the prefilter and the tool matcher let through, without compiling a regex;
    `looked`: the texts by key letter and the keys of the short ones."""
    rows: list[stored.Candidate] = []
    seen: dict[str, tuple[str, list[str]]] = {}  # each target's text as looked up, made once
    for row in store.candidates(connection, _lookup_keys(connection, *looked), tool_name):
        if matching.tool_accepts(row.tool, tool_name) and _satisfied(row, tool_name, texts, seen):
            rows.append(row)
    return rows


def _satisfied(
    row: stored.Candidate, tool_name: str, texts: dict[str, list[str]], seen: dict[str, tuple[str, list[str]]]
) -> bool:
    """The learning's required literals, in its target's text as the prefilter looked it up."""
    target = row.target
    if target not in seen:
        seen[target] = prefilter.lookup(target, tool_name, texts[target])
    letter, fragments = seen[target]
    return prefilter.satisfied(row.literals, fragments, loose=letter == prefilter.LOOSE)


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


def one_per_id(hits: list[Hit], scopes: list[Scope]) -> list[Hit]:
    """The matches after guard.precedence: of an id held in several places the highest place's
    entry, at the strictest action among them (docs/guide/team.md)."""
    from cortex_hooks.store import team  # a match only: the no-match path never reads the team's rows

    places: dict[tuple[str, int], tuple[str, str | None]] = {}
    readable = [scope for scope in scopes if scope.connection is not None]
    for scope in readable:
        ids = [hit.id for hit in hits if hit.scope == scope.name]
        if ids:
            places.update(
                ((scope.name, i), key) for i, key in team.keys_of(scope.connection, ids, scope.name).items()
            )
    keys = sorted({key for _place, key in places.values() if key is not None})
    if not keys:
        return hits  # no match is of an id: nothing to resolve (and guard.precedence not imported)
    from cortex_hooks.guard import precedence

    entries: dict[str, list[precedence.Entry]] = {}
    for scope in readable:
        for key, entry in team.holding(scope.connection, keys, scope.name):
            entries.setdefault(key, []).append(entry)
    matches = [precedence.Match(*places.get((hit.scope, hit.id), (hit.scope, None))) for hit in hits]
    for hit, match in zip(hits, matches, strict=True):
        if match.place == "team":
            hit.team = match.key
    kept = []
    for hit, (stands, action) in zip(hits, precedence.resolve(matches, entries), strict=True):
        if stands:
            if action is not None:
                hit.action = action
            kept.append(hit)
    return kept
