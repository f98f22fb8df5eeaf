"""What capture says, pure: a proposal as JSON and as text, SessionStart's block and line."""

from __future__ import annotations

from typing import Any

from cortex_hooks import sanitize
from cortex_hooks.text_budget import Section

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.stored.capture_rows import Occurrence, Proposal


def record(row: Proposal, evidence: list[Occurrence]) -> dict[str, Any]:
    """A proposal as `--json` prints it (docs/guide/capture.md)."""
    return {
        "id": row.id,
        "kind": row.kind,
        "signal": row.signal,
        "anti_pattern": row.anti_pattern,
        "correct_pattern": row.correct_pattern,
        "regex": row.regex,
        "rewrite": row.rewrite,  # a suggested one (failed-then-fixed): `accept ID --rewrite` takes it
        "tool": row.tool,
        "content": row.content,
        "occurrences": row.occurrences,
        "evidence": [
            {"session": item.session_id, "failed": item.failed, "fixed": item.fixed or None}
            for item in evidence
        ],
        "status": row.status,
        "shown": row.shown,
        "learning_id": row.learning_id,
        "drafted": row.drafted,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def commands(proposal_id: int) -> str:
    return f"accept: `cortex-hooks accept {proposal_id}` · reject: `cortex-hooks reject {proposal_id}`"


def _evidence(item: dict[str, Any], signal: str) -> str:
    failed = sanitize.line(item["failed"], 100)
    if signal == "followed":
        return f"`{failed}` was denied, then the agent ran `{sanitize.line(item['fixed'], 100)}`"
    if signal == "user-correction":
        return f"after `{failed}` the person said: {sanitize.line(item['fixed'], 160)}"
    if signal == "remembered":
        return f"Claude Code's memory says: {sanitize.line(item['fixed'], 200)}"
    if item["fixed"]:
        return f"`{failed}` failed, then `{sanitize.line(item['fixed'], 100)}` worked"
    return f"`{failed}` failed"


def entry(proposal: dict[str, Any]) -> str:
    """One proposal on one line: what, the evidence, the commands that answer it."""
    first = proposal["evidence"][0] if proposal["evidence"] else None
    seen = f"seen {proposal['occurrences']} times" + (
        f"; {_evidence(first, proposal['signal'])}" if first else ""
    )
    if proposal["signal"] == "followed":
        return (
            f"- #{proposal['id']} (followed) learning #{proposal['learning_id']} "
            f"{sanitize.line(proposal['anti_pattern'], 120)}: correct its match to "
            f"`{sanitize.line(proposal['rewrite'] or '', 120)}` instead of denying it ({seen})"
            f" — {commands(proposal['id'])}"
        )
    return (
        f"- #{proposal['id']} ({proposal['signal']}) {sanitize.line(proposal['anti_pattern'], 160)}"
        f" — the correct way: {sanitize.line(proposal['correct_pattern'], 200)} ({seen})"
        f" — {commands(proposal['id'])}"
    )


def detail(proposal: dict[str, Any]) -> str:
    """A proposal for `cortex-hooks proposals`: several lines."""
    lines = [
        f"#{proposal['id']} {proposal['signal']} ({proposal['occurrences']} occurrence"
        f"{'' if proposal['occurrences'] == 1 else 's'}, {proposal['status']})",
        f"  AVOID: {sanitize.line(proposal['anti_pattern'])}",
        f"  DO:    {sanitize.line(proposal['correct_pattern'])}",
        f"  regex: {sanitize.line(proposal['regex'] or '')}",
    ]
    if proposal["signal"] == "followed":
        lines.insert(1, f"  for learning #{proposal['learning_id']}: accept gives it this rewrite")
        lines.append(f"  rewrite: {sanitize.line(proposal['rewrite'] or '')}")
    elif proposal.get("rewrite") is not None:
        lines.append(
            f"  rewrite (accept {proposal['id']} --rewrite takes it): {sanitize.line(proposal['rewrite'])}"
        )
    lines += [
        f"  evidence ({sanitize.line(item['session'], 12)}): {_evidence(item, proposal['signal'])}"
        for item in proposal["evidence"]
    ]
    lines.append(f"  {commands(proposal['id'])}".replace("`", ""))
    return "\n".join(lines)


def section(proposals: list[dict[str, Any]], total: int) -> Section:
    """SessionStart's block: the most recurrent proposals (`proposals` of `total`)."""
    one = total == 1
    heading = (
        f"cortex-hooks: {total} proposed learning{'' if one else 's'} from earlier sessions "
        f"{'awaits' if one else 'await'} the user's answer (each becomes a learning only if the user agrees):"
    )
    return Section(
        heading,
        [entry(item) for item in proposals],
        rank=0,
        more="cortex-hooks proposals",
        hidden=total - len(proposals),
    )


def system_message(proposed: int, awaiting_review: int) -> str | None:
    """The one line for the person: proposals and the review notice together."""
    parts = []
    if awaiting_review:
        verb = "learning awaits" if awaiting_review == 1 else "learnings await"
        parts.append(f"{awaiting_review} {verb} review — keep or archive? (cortex-hooks list --review)")
    if proposed:
        verb = "proposed learning awaits" if proposed == 1 else "proposed learnings await"
        parts.append(f"{proposed} {verb} your answer (cortex-hooks proposals)")
    return f"cortex-hooks: {'; '.join(parts)}" if parts else None
