"""The text of explain: the decision, then each learning as the hook evaluated it — the matches
first and in full, any other candidate in two lines — every line within the width given, a regex
cut to REGEX characters (`--json` has everything whole)."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean, count, fit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.explain import Explained

REGEX = 60  # a regex as explain shows it: a pack's run to 1,000 characters and more
DECISIONS = {"none": "ALLOW (nothing stops this call)"}


def explained(result: Explained, *, every: bool, width: int | None = None) -> str:
    """The decision and the learnings for this tool (`every`: for other tools too); each line cut
    to `width` characters (None: whole, for a pipe or a file)."""
    shown = [report for report in result.learnings if every or report["tool_accepted"]]
    shown.sort(key=lambda report: not report["result"].startswith("match"))  # what decides first
    decision = DECISIONS.get(result.decision, result.decision.upper())
    lines = [f"Tool call: {clean(result.tool, one_line=True)} — the hook would: {decision}"]
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
        lines += _learning(report)
    hidden = len(result.learnings) - len(shown)
    if hidden:
        are = "learning is" if hidden == 1 else "learnings are"
        lines.append(f"{hidden} {are} for other tools (--all lists them).")
    if any(len(report["regex"] or "") > REGEX for report in shown):
        lines.append(f"(A regex is cut at {REGEX} characters here: --json gives each whole.)")
    return "\n".join(fit(line, width) for text in lines for line in text.split("\n"))


def _learning(report: dict[str, Any]) -> list[str]:
    """A matched learning in three lines (what it ran on, what it matched, its effect); any
    other in two (its result)."""
    scope = " (global)" if report["scope"] == "global" else ""
    lines = [f"#{report['id']}{scope} {clean(report['anti_pattern'], one_line=True)[:70]}"]
    text = " | ".join(report["text"]) or "(nothing: this tool has no such text)"
    ran = f"regex {fit(clean(report['regex'] or '-', one_line=True), REGEX)} on {report['target']}: "
    ran += clean(text, one_line=True)[:100]
    if not report["result"].startswith("match"):
        said = report["result"]
        lines.append(f"    {said}: {ran}" if said == "no match" else f"    {said}")
        return lines
    effect = f" -> {report['effect']}" if report["effect"] else ""
    matched = report["matched_command"]
    where = f" in `{clean(matched, one_line=True)[:80]}`" if matched is not None else ""
    lines += [
        f"    {ran}",
        f"    {report['result']}{where}{effect} (confidence {report['confidence']:.2f}"
        f", action {report['action']})",
    ]
    if report["rewrite"] is not None:
        made = report["corrected"] or report["rewrite_problem"]
        detail = f": {clean(made, one_line=True)[:100]}" if made else ""
        lines.append(f"    rewrite {clean(report['rewrite'], one_line=True)!r}{detail}")
    return lines
