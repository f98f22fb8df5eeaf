"""What a replay judges each past call with: the one judge (guard.judge) under the rules in force,
read only — the databases of the replay's setting, opened by each process that judges — and the
built-in protection, with the folder each call was made in (its transcript line's `cwd`).

Nothing is boosted between calls: every call is judged on the learnings as they are now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cortex_hooks.frozen import Record
from cortex_hooks.guard import catch_outcomes, matching
from cortex_hooks.guard.call import Call
from cortex_hooks.guard.judge import Judgment, judge
from cortex_hooks.judging import protection, protocol
from cortex_hooks.judging.in_force import InForce
from cortex_hooks.store.connection import open_database
from cortex_hooks.store.scopes import Scope, close

if TYPE_CHECKING:
    from cortex_hooks.config import Config
    from cortex_hooks.transcripts import call_log

BUILT_IN = ("built-in", 0)  # the built-in protection, among the learnings a replay counts


class Judged(Record):
    """What one call got: each rule that matched it, by (scope, id), with its own answer and its
    corrected command; the call's answer (deny, ask, rewrite, warn or allow), the command that
    would have run (a rewrite) and the hook's output, byte for byte (None: it prints none); the
    call as the judge read it, and each of its catches (a learning's deny, ask or rewrite: its
    key, answer, rule and the jobs of what it matched), whose outcome the replay works out."""

    answers: list[tuple[tuple[str, int], str, str | None]]
    answer: str
    corrected: str | None
    output: dict[str, Any] | None
    call: Call | None = None
    caught: tuple[tuple[tuple[str, int], str, catch_outcomes.Rule, frozenset[str]], ...] = ()


class Rules:
    """The rules of one replay in this process: `databases` ((scope, path), project first) opened
    here; when `protected`, the built-in protection too (a replay of the whole guard; a learning,
    a pack or a proposal is replayed alone, from a database of its own)."""

    def __init__(self, databases: list[tuple[str, str]], protected: bool) -> None:
        self.scopes = [Scope(name, open_database(path), path) for name, path in databases]
        self.protection = protection.refusal if protected else None
        self.configs: dict[str, Config] = {}
        self.rules: dict[tuple[str, int], catch_outcomes.Rule] = {}  # each caught learning's, read once

    def close(self) -> None:
        close(self.scopes)

    def judge(self, call: call_log.Call) -> Judged:
        """The answer PreToolUse would give this call now (nothing recorded)."""
        if matching.mistyped(call.tool, call.input):
            return Judged([], "allow", None, None)  # the hook refuses such a payload: no decision
        rules = InForce(self.scopes, protection=self.protection, configs=self.configs)
        asked = Call(call.tool, call.input, call.cwd)
        judged = judge(asked, rules)
        answers = [
            ((hit.scope, hit.id), hit.answer, hit.correction.command if hit.correction else None)
            for hit in judged.matched
        ]
        if judged.protection is not None:
            answers.insert(0, (BUILT_IN, "deny", None))
        corrected = judged.corrected if judged.updated_input is not None else None
        output = protocol.pre_tool_use(judged) if judged.answer != "allow" else None
        return Judged(
            answers, judged.answer, corrected, output, asked, tuple(self._caught(asked, rules, judged))
        )

    def _caught(self, call: Call, rules: InForce, judged: Judgment) -> list[Any]:
        """The call's catches as PreToolUse records them (hooks.record): each learning's deny, ask
        or rewrite, with the jobs of the simple command it matched."""
        wanted = {(hit.scope, hit.id): hit for hit in judged.matched if hit.answer in catch_outcomes.CAUGHT}
        caught = []
        for candidate in rules.candidates(call) if wanted else ():
            key = (candidate.scope, candidate.row.id)
            if key not in wanted:
                continue
            row = candidate.row
            hit = wanted[key]
            rule = self.rules.get(key)
            if rule is None:
                rule = self.rules[key] = catch_outcomes.Rule(
                    row.regex, row.tool, row.target, hit.correct_pattern, candidate.timeouts
                )
            jobs = catch_outcomes.caught_jobs(call, row.regex, row.target, candidate.timeouts)
            caught.append((key, hit.answer, rule, jobs))
        return caught
