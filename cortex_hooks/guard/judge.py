"""The one judge: a tool call and the rules in force give the verdict, every rule that
matched with where it came from, and the text the model reads. The PreToolUse hook, `explain`,
`replay`, `doctor`, the proof of a rule's examples and the report all call `judge`; nothing else
puts a verdict together.

Its steps, in order:
1. the built-in protection (docs/guide/selfguard.md): a call that would weaken the guard is denied, whatever
   else matches; it never decays and cannot be archived or muted, and it hides no learning;
2. the learnings: the candidates the prefilter lets through (rules.candidates), each regex on what
   its target reads (guard.call);
3. one id in several places (docs/guide/team.md): the highest place's entry, at the strictest action;
4. each match alone (`answer`): trusted — its confidence before this match's boost passes the
   gate — a block denies, an ask asks, a rewrite corrects; anything else warns;
5. all of them: deny > rewrite > ask > warn, one rewrite per call, and a rewrite's corrected
   command judged again, whole, the built-in protection included (docs/internals/judge.md);
6. the texts (guard.verdict_texts): the harm in plain words first, then each learning's NEVER
   and DO lines; the other matches as the agent's context.

Pure: the rules are read through `Rules`, a read-only view (the scopes' databases for the hook,
explain, replay and doctor; an in-memory copy for a pack's or a team file's own examples).
"""

from __future__ import annotations

from cortex_hooks.guard.matching import Unusable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

    from cortex_hooks import stored
    from cortex_hooks.guard.call import Call
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.guard.rewrite import Correction
    from cortex_hooks.guard.selfguard.protected import Refusal

    class Rules(Protocol):
        """The rules in force, as the judge reads them (see cortex_hooks.judging.in_force)."""

        problems: list[str]  # what could not be read or decided (a learning skipped), for stderr

        def protection(self, call: Call) -> Refusal | None:
            """The built-in protection's refusal of this call, or None."""

        def candidates(self, call: Call) -> Sequence[Candidate]:
            """The learnings that may match this call (the prefilter's and the tool matcher's)."""

        def hits(self, found: Sequence[tuple[Candidate, Correction | None]]) -> list[Hit]:
            """The matched candidates as the verdict weighs them: each learning's row as it is now,
            at its confidence before this match's boost, with its source."""

        def one_per_id(self, hits: list[Hit]) -> list[Hit]:
            """The matches after precedence (docs/guide/team.md)."""


ANSWERS = ("deny", "ask", "rewrite", "warn", "allow")  # what a call gets, strictest first


class Candidate:
    """A learning that may match: what the prefilter read of it, the source it is read from (an
    index the rules understand), its scope and its regex timeouts."""

    __slots__ = ("row", "scope", "source", "timeouts")

    def __init__(self, row: stored.Candidate, source: int, scope: str, timeouts: tuple[float, float]) -> None:
        self.row = row
        self.source = source
        self.scope = scope
        self.timeouts = timeouts


class Judgment:
    """What a call gets: `answer` (deny, ask, rewrite, warn or allow); the built-in protection's
    refusal (`protection`), if any; every learning that matched (`hits`, each with its own
    answer, after precedence; `matched`: every learning whose regex matched, the ones precedence
    dropped too: what the history records); the reason the agent reads (deny) or the person
    (ask); the agent's context; for a
    rewrite, the learning that corrected the call, the corrected command, the whole tool_input
    that runs (`updated_input`) and the corrected command's own judgment (`again`)."""

    __slots__ = (
        "again",
        "answer",
        "context",
        "corrected",
        "hits",
        "matched",
        "protection",
        "reason",
        "rewriting",
        "updated_input",
    )

    def __init__(
        self,
        answer: str,
        *,
        protection: Refusal | None = None,
        hits: list[Hit] | None = None,
        reason: str | None = None,
        context: str | None = None,
        rewriting: Hit | None = None,
        corrected: str | None = None,
        updated_input: dict[str, Any] | None = None,
        again: Judgment | None = None,
    ) -> None:
        self.answer = answer
        self.protection = protection
        self.hits = hits or []
        self.matched = list(self.hits)
        self.reason = reason
        self.context = context
        self.rewriting = rewriting
        self.corrected = corrected
        self.updated_input = updated_input
        self.again = again


def judge(call: Call, rules: Rules, *, rewrites: bool = True) -> Judgment:
    """The verdict on this call under these rules (see the module's steps). `rewrites=False`
    judges a corrected command: no second rewrite in one call."""
    refused = rules.protection(call)
    found: list[tuple[Candidate, Correction | None]] = []
    for candidate in rules.candidates(call):
        row = candidate.row
        try:
            where = call.where(row.regex, row.target, candidate.timeouts, row.literals)
        except Unusable as error:
            named = "global learning" if candidate.scope == "global" else "learning"
            rules.problems.append(f"{named} #{row.id} skipped: {error.message}")
            continue
        if where is not None:
            found.append((candidate, _correction(call, candidate, where) if rewrites else None))
    if not found and refused is None:
        return Judgment("allow")
    matched = rules.hits(found) if found else []
    for hit in matched:  # what each answers by its own action (kept if precedence drops it)
        hit.answer = answer(hit, rewrites=rewrites)
    hits = rules.one_per_id(list(matched)) if matched else []
    for hit in hits:  # at the action precedence gives it
        hit.answer = answer(hit, rewrites=rewrites)
    if not hits and refused is None:  # none stands (archived meanwhile, or another place's entry won)
        return Judgment("allow")
    judged = _together(call, rules, refused, hits, rewrites)
    judged.matched = matched
    return judged


def strictest(judgments: Sequence[Judgment]) -> Judgment:
    """The verdict on one agent call that is several file calls (a patch: each file judged as its
    own call, guard.apply_patch): the strictest answers, deny > ask > rewrite > warn >
    allow; the warnings of several files are told together."""
    if not judgments:
        return Judgment("allow")
    chosen = min(judgments, key=lambda judged: ANSWERS.index(judged.answer))
    if chosen.answer != "warn":
        return chosen
    from cortex_hooks.guard import verdict_texts as texts

    contexts = [judged.context for judged in judgments if judged.answer == "warn" and judged.context]
    merged = Judgment("warn", hits=[hit for judged in judgments for hit in judged.hits])
    merged.context = "\n".join(contexts)[: texts.TEXT_LIMIT]
    return merged


def answer(hit: Hit, *, rewrites: bool = True) -> str:
    """What this match does by itself: `rewrite` (a trusted learning whose correction of this
    call applies), `deny` or `ask` (a trusted block or ask learning), else `warn`. Trusted: its
    confidence before this match's boost passes the gate (docs/guide/confidence.md)."""
    from cortex_hooks import confidence  # a match: past the no-match path
    from cortex_hooks.guard import actions

    if not confidence.blocks(hit.before, hit.policy):
        return "warn"
    if rewrites and hit.correction is not None and hit.correction.command is not None:
        return "rewrite"
    return actions.ANSWERS[hit.action]


def _together(call: Call, rules: Rules, refused: Refusal | None, hits: list[Hit], rewrites: bool) -> Judgment:
    """Step 5: the verdict on all of this call's matches."""
    from cortex_hooks.guard import actions
    from cortex_hooks.guard import verdict_texts as texts

    said = {hit.answer for hit in hits}
    if refused is not None or "deny" in said:
        return _refused("deny", refused, hits, texts.DENY_HEADER)
    if rewrites and "rewrite" in said:
        rewriting = [hit for hit in hits if hit.answer == "rewrite"]
        chosen = max(rewriting, key=lambda hit: actions.strictness(hit.action))  # first of the strictest
        command = chosen.correction.command if chosen.correction is not None else None
        assert command is not None  # a rewrite's answer is given only for a correction made
        return _rewritten(call, rules, hits, chosen, command)
    if "ask" in said:
        return _refused("ask", None, hits, texts.ASK_HEADER)
    context = texts.listed(texts.WARN_HEADER, hits, "AVOID", texts.TEXT_LIMIT)
    return Judgment("warn", hits=hits, context=context)


def _rewritten(call: Call, rules: Rules, hits: list[Hit], chosen: Hit, corrected: str) -> Judgment:
    """A rewrite: the corrected command judged again, whole, without a second rewrite; denied if
    it would be denied, asked about if it would be asked about (the person then approves the
    corrected command), else run, the agent told what was corrected and warned of the other
    matches of the corrected command."""
    from cortex_hooks.guard import verdict_texts as texts

    again = judge(call.corrected(corrected), rules, rewrites=False)
    updated = {**call.input, "command": corrected}
    written = str(call.input.get("command"))
    if again.answer in ("deny", "ask"):
        header = texts.rechecked(chosen, corrected, again.answer)
        refused = _refused(again.answer, again.protection, again.hits, header)
        refused.hits = hits
        refused.again = again
        if again.answer == "ask":
            refused.updated_input, refused.rewriting, refused.corrected = updated, chosen, corrected
        return refused
    note = texts.correction(
        chosen, written, corrected, texts.TEXT_LIMIT // 2 if again.hits else texts.TEXT_LIMIT
    )
    context = note
    if again.hits:
        context += "\n" + texts.listed(
            texts.WARN_HEADER, again.hits, "AVOID", texts.TEXT_LIMIT - len(note) - 1
        )
    return Judgment(
        "rewrite",
        hits=hits,
        context=context,
        rewriting=chosen,
        corrected=corrected,
        updated_input=updated,
        again=again,
    )


def _refused(said: str, refused: Refusal | None, hits: list[Hit], header: str) -> Judgment:
    """A deny or an ask: the built-in protection's words first (the harm), then the learnings that
    refuse; the other matches as a warning."""
    from cortex_hooks.guard import verdict_texts as texts

    refusing = [hit for hit in hits if hit.answer == said]
    others = [hit for hit in hits if hit.answer != said]
    limit = texts.TEXT_LIMIT * 2 // 3 if others else texts.TEXT_LIMIT
    if refused is not None:
        reason = texts.protected(refused, refusing, limit)
    else:
        reason = texts.listed(header, refusing, texts.VERBS[said], limit)
    context = (
        texts.listed(texts.WARN_HEADER, others, "AVOID", texts.TEXT_LIMIT - len(reason)) if others else None
    )
    return Judgment(said, protection=refused, hits=hits, reason=reason, context=context)


def _correction(call: Call, candidate: Candidate, where: int) -> Correction | None:
    """What a matched learning's rewrite makes of the command (guard.rewrite), or None when it has
    none or the call is no Bash command."""
    row = candidate.row
    command = call.command
    if row.rewrite is None or command is None:
        return None
    from cortex_hooks.guard import rewrite

    subject = call.subject(row.target)
    return rewrite.correct(row.regex, row.rewrite, command, subject, index=where, timeouts=candidate.timeouts)
