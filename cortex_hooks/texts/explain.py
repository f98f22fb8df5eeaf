"""The text of explain: the decision, then each learning as the hook evaluated it."""

from __future__ import annotations

from cortex_hooks.texts.words import clean, count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.explain import Explained


def explained(result: Explained, *, every: bool) -> str:
    """The decision and the learnings for this tool (`every`: for other tools too)."""
    shown = [report for report in result.learnings if every or report["tool_accepted"]]
    lines = [f"Tool call: {result.tool} — the hook would: {result.decision.upper()}"]
    if result.built_in is not None:
        lines.append(
            "Built-in protection (not a learning: it never decays; the learnings below are judged "
            f"beside it): {clean(result.built_in)}"
        )
    if result.corrected is not None:
        lines.append(f"Corrected command (what would run): {clean(result.corrected, one_line=True)[:200]}")
    if result.read_as is not None:
        lines.append(f"Read as {count(len(result.read_as), 'simple commands')}:")
        lines += [f"  {clean(text, one_line=True)[:100]}" for text in result.read_as]
    if not result.learnings:
        lines.append("No active learnings.")
    for report in shown:
        effect = f" -> {report['effect']}" if report["effect"] else ""
        text = " | ".join(report["text"]) or "(nothing: this tool has no such text)"
        matched = report["matched_command"]
        where = f" in `{clean(matched, one_line=True)[:80]}`" if matched is not None else ""
        lines.append(
            f"#{report['id']}{' (global)' if report['scope'] == 'global' else ''} "
            f"{clean(report['anti_pattern'], one_line=True)[:70]}\n"
            f"    regex {clean(report['regex'] or '-', one_line=True)} on {report['target']}: "
            f"{clean(text, one_line=True)[:100]}\n"
            f"    {report['result']}{where}{effect} (confidence {report['confidence']:.2f}"
            f", action {report['action']})"
        )
        if report["rewrite"] is not None:
            made = report["corrected"] or report["rewrite_problem"]
            detail = f": {clean(made, one_line=True)[:100]}" if made else ""
            lines.append(f"    rewrite {clean(report['rewrite'], one_line=True)!r}{detail}")
    hidden = len(result.learnings) - len(shown)
    if hidden:
        are = "learning is" if hidden == 1 else "learnings are"
        lines.append(f"{hidden} {are} for other tools (--all lists them).")
    return "\n".join(lines)
