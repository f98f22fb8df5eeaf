"""The PreToolUse decision, pure: what each match answers (deny, ask, rewrite or warn), what the
call gets when several match (block > ask > warn; one rewrite per call), and the texts."""

from __future__ import annotations

from cortex_hooks import confidence
from cortex_hooks.guard import actions
from cortex_hooks.guard import verdict_texts as texts
from cortex_hooks.guard.hits import Hit
from cortex_hooks.guard.verdict_texts import DENY_HEADER, TEXT_LIMIT, WARN_HEADER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DENY_HEADER", "TEXT_LIMIT", "WARN_HEADER", "Hit", "Verdict", "answer", "decide", "recheck"]


def answer(hit: Hit, *, rewrites: bool = True) -> str:
    """What this match does by itself: `rewrite` (a trusted learning whose correction of this
    call applies), `deny` or `ask` (a trusted block or ask learning), else `warn`. Trusted: its
    confidence before this match's boost passes the gate. Each hit is judged alone, so the
    history records it in the very transaction that boosts, before the verdict is put together;
    `rewrites=False` for a corrected command checked again (one rewrite per call)."""
    trusted = confidence.blocks(hit.before, hit.policy)
    if not trusted:
        return "warn"
    if rewrites and hit.correction is not None and hit.correction.command is not None:
        return "rewrite"
    return actions.ANSWERS[hit.action]


def blocks(hit: Hit) -> bool:
    """Whether this match alone denies the call."""
    return answer(hit) == "deny"


class Verdict:
    """What the call gets: `answer` deny, ask, rewrite or warn; the reason (deny, ask) naming the
    learnings in `blocking`; the agent's context (`warning`); for a rewrite, the learning that
    corrected the call (`rewriting`), the corrected command and, once checked again (`recheck`),
    the whole tool_input to run (`updated_input`)."""

    __slots__ = ("answer", "blocking", "corrected", "reason", "rewriting", "updated_input", "warning")

    def __init__(
        self,
        answer: str,
        blocking: list[Hit],
        reason: str | None,
        warning: str | None,
        *,
        rewriting: Hit | None = None,
        corrected: str | None = None,
        updated_input: dict[str, Any] | None = None,
    ) -> None:
        self.answer = answer
        self.blocking = blocking
        self.reason = reason
        self.warning = warning
        self.rewriting = rewriting
        self.corrected = corrected
        self.updated_input = updated_input

    @property
    def decision(self) -> str:
        return self.answer

    @property
    def deny_reason(self) -> str | None:
        return self.reason if self.answer == "deny" else None


def decide(hits: list[Hit], policy: confidence.Policy | None = None) -> Verdict | None:
    """The verdict on the matches of the call as written: deny when a trusted block learning
    matched; else the one rewrite of the strictest rewriting learning (to be checked again, see
    `recheck`); else ask when a trusted ask learning matched; the other matches as one warning
    in the agent's context; None when nothing matched. Each hit is judged by its own scope's
    policy unless `policy` is given."""
    if not hits:
        return None
    if policy is not None:
        for hit in hits:
            hit.policy = policy
    answered = [(hit, answer(hit)) for hit in hits]
    denying = [hit for hit, said in answered if said == "deny"]
    if denying:
        return _refusal("deny", denying, hits, DENY_HEADER)
    rewriting = [hit for hit, said in answered if said == "rewrite"]
    if rewriting:
        chosen = max(rewriting, key=lambda hit: actions.strictness(hit.action))  # first of the strictest
        assert chosen.correction is not None
        return Verdict("rewrite", [chosen], None, None, rewriting=chosen, corrected=chosen.correction.command)
    asking = [hit for hit, said in answered if said == "ask"]
    if asking:
        return _refusal("ask", asking, hits, texts.ASK_HEADER)
    return Verdict("warn", [], None, texts.listed(WARN_HEADER, hits, "AVOID", TEXT_LIMIT))


def recheck(first: Verdict, again: list[Hit], tool_input: dict[str, Any], written: str) -> Verdict:
    """The verdict of a rewrite once its corrected command was checked against every learning
    (`again`: the matches of the corrected command, judged without rewrites): denied if it would
    be denied, asked about if it would be asked about (the person then approves the corrected
    command), else run, the agent told what was corrected and warned of the other matches."""
    from cortex_hooks.guard import rewrite

    chosen, corrected = first.rewriting, first.corrected
    assert chosen is not None
    assert corrected is not None
    updated = rewrite.corrected_input(tool_input, corrected)
    answered = [(hit, answer(hit, rewrites=False)) for hit in again]
    for said in ("deny", "ask"):
        refusing = [hit for hit, given in answered if given == said]
        if refusing:
            refused = _refusal(said, refusing, again, texts.rechecked(chosen, corrected, said))
            if said == "ask":
                refused.updated_input = updated
                refused.rewriting, refused.corrected = chosen, corrected
            return refused
    note = texts.correction(chosen, written, corrected, TEXT_LIMIT // 2 if again else TEXT_LIMIT)
    warning = note
    if again:
        warning += "\n" + texts.listed(WARN_HEADER, again, "AVOID", TEXT_LIMIT - len(note) - 1)
    return Verdict(
        "rewrite", [chosen], None, warning, rewriting=chosen, corrected=corrected, updated_input=updated
    )


def _refusal(said: str, refusing: list[Hit], hits: list[Hit], header: str) -> Verdict:
    """A deny or an ask naming the learnings that refuse, the other matches as a warning."""
    warning = [hit for hit in hits if hit not in refusing]
    limit = TEXT_LIMIT * 2 // 3 if warning else TEXT_LIMIT
    reason = texts.listed(header, refusing, texts.VERBS[said], limit)
    context = texts.listed(WARN_HEADER, warning, "AVOID", TEXT_LIMIT - len(reason)) if warning else None
    return Verdict(said, refusing, reason, context)
