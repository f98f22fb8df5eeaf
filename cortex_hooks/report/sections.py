"""The report's sections as HTML (pure): a chart where one is drawn, and a table that says it all
without one. Stored text goes through report.shown; everything else is escaped here."""

from __future__ import annotations

import html
from collections.abc import Collection

from cortex_hooks import confidence, sanitize
from cortex_hooks.report import charts, values
from cortex_hooks.report.drawing import Drawn
from cortex_hooks.report.shown import DETAIL, escaped, instant
from cortex_hooks.store import history


def e(value: object) -> str:
    """A value of ours (a number, a label, a command) escaped for HTML."""
    return html.escape(sanitize.line(str(value)), quote=True)


def _cmd(command: str) -> str:
    return f'<code class="cmd">{e(command)}</code>'


def _img(uri: str | None, alt: str, css: str = "chart") -> str:
    return f'<img class="{css}" src="{uri}" alt="{e(alt)}">' if uri else ""


def _table(caption: str, heads: list[str], rows: list[str], numeric: Collection[int] = ()) -> str:
    head = "".join(
        f'<th scope="col"{" class=num" if i in numeric else ""}>{e(h)}</th>' for i, h in enumerate(heads)
    )
    return (
        f'<div class="panel"><table><caption>{caption}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _more(shown: int, total: int, what: str, command: str) -> str:
    if total <= shown:
        return ""
    return f'<p class="more">{total - shown:,} more {e(what)} not shown: {_cmd(command)}</p>'


def activity(report: values.Report, drawn: Drawn | None) -> str:
    totals = memory = report.totals
    lead = (
        f"Over the last {report.days} days: {totals['matches']:,} matches, {totals['denies']:,} denied, "
        f"{totals['warnings']:,} warned; memories {memory['added']:,} added, {memory['recalled']:,} "
        f"recalled, {memory['archived']:,} archived, {memory['pruned']:,} pruned."
    )
    if totals["protections"]:
        lead += (
            f" The built-in protection denied {totals['protections']:,} calls that would weaken the guard."
        )
    lead += _after(totals)
    parts = [f'<h2>Activity</h2><p class="lead">{e(lead)}</p>']
    if report.put_back:  # what the keeper put back (docs/internals/integrity.md), the latest last
        items = "".join(f"<li>{instant(at)} UTC: {escaped(what, 400)}</li>" for at, what in report.put_back)
        parts.append(
            '<p class="lead">Changes to the guard that cortex-hooks did not make, put back '
            f"({_cmd(report.run('integrity'))} lists them):</p><ul>{items}</ul>"
        )
    if drawn is not None and (drawn.verdicts or drawn.outcomes or drawn.memory):
        parts.append('<div class="panel">')
        per = "week" if charts.weeks(report.since, report.generated[:10]) else "day"
        if drawn.verdicts:
            parts.append(
                f"<h3>Calls denied and warned per {per}</h3>{_img(drawn.verdicts, f'calls per {per}')}"
            )
        if drawn.outcomes:
            parts.append(
                f"<h3>After a deny, ask or rewrite: followed or retried, per {per} of the catch</h3>"
                f"{_img(drawn.outcomes, f'outcomes per {per}')}"
            )
        if drawn.memory:
            parts.append(f"<h3>Memories per {per}</h3>{_img(drawn.memory, f'memories per {per}')}")
        parts.append("</div>")
    days = [day for day in report.daily if any(day.counts.values())][-14:]
    if days:
        rows = [
            f"<tr><td>{escaped(day.day)}</td>"
            + "".join(
                f'<td class="num">{day.counts[k]:,}</td>'
                for k in ("matches", "denies", "warnings", "added", "recalled", "archived", "pruned")
            )
            + "</tr>"
            for day in reversed(days)
        ]
        heads = ["day", "matches", "denied", "warned", "added", "recalled", "archived", "pruned"]
        table = _table("The latest days with activity", heads, rows, set(range(1, 8)))
        charted = drawn is not None and (drawn.verdicts or drawn.memory)
        # with the charts drawn, the numbers are a click away; without them, they are the view
        parts.append(
            f'<details class="days"{"" if charted else " open"}><summary>The latest days in numbers</summary>'
            f"{table}</details>"
        )
    else:
        parts.append('<p class="empty">No history in this window yet.</p>')
    return "".join(parts)


def _after(totals: dict[str, int]) -> str:
    """What the agent did after the window's denies, asks and rewrites (docs/guide/outcomes.md)."""
    caught = totals["denies"] + totals["asks"] + totals["rewrites"]
    if not caught:
        return ""
    known = totals["followed"] + totals["retried"] + totals["asked"]
    answered = f", the person answered {totals['asked']:,}" if totals["asked"] else ""
    return (
        f" After its {caught:,} denies, asks and rewrites the agent followed the correct way "
        f"{totals['followed']:,} times and retried the anti-pattern {totals['retried']:,} times"
        f"{answered}; {caught - known:,} unknown."
    )


def _trend(line: values.Learning) -> str:
    if not line.series:
        return ""
    first, last = line.series[0].confidence, line.series[-1].confidence
    if len({point.confidence for point in line.series}) == 1:
        return f"steady at {confidence.show(last)}"
    return f"{confidence.show(first)} → {confidence.show(last)}"


def _learning_row(report: values.Report, line: values.Learning, drawn: Drawn | None) -> str:
    action = f'<span class="badge {line.action}">{line.action}</span>'
    if line.gated is not None and line.action == "warn":  # below the gate, it only warns for now
        label, does = ("auto-block", "denies") if line.gated == "block" else ("ask", "asks the person")
        action += f' <span class="badge gated" title="{label}: {does} once above the gate">{label}</span>'
    value = "—" if line.confidence is None else confidence.show(line.confidence)
    trend = _trend(line)
    spark = drawn.sparks.get(line.id) if drawn is not None else None
    shown = _img(spark, f"confidence {trend}", "spark") if spark else f'<span class="trend">{e(trend)}</span>'
    css = {"awaiting review": "review"}.get(line.review, line.review)
    review = f'<span class="badge {css}">{e(line.review)}</span>'
    verbs = {"awaiting review": ("keep", "archive"), "archived": ("restore",)}.get(line.review, ("archive",))
    commands = "".join(_cmd(report.run(verb, line.id)) for verb in verbs)
    counts = line.counts
    caught = counts["denies"] + counts["asks"] + counts["rewrites"]
    return (
        f'<tr id="learning-{line.id}"><td class="id">#{line.id}</td><td>{action}</td>'
        f'<td class="what">{escaped(line.anti_pattern)}'
        f'<div class="do"><b>do</b> {escaped(line.correct_pattern)}'
        f" · {escaped(line.tool, 40)} · {escaped(line.severity, 20)}</div>{_retried(line)}</td>"
        f'<td class="num"><span class="conf">{value}</span></td><td>{shown}</td>'
        f'<td class="num">{caught:,}</td><td class="num">{counts["followed"]:,}</td>'
        f'<td class="num">{counts["retried"]:,}</td><td class="num">{counts["warnings"]:,}</td>'
        f'<td class="when">{instant(line.last_match or "—")}</td>'
        f'<td>{review}<div class="cmds">{commands}</div></td></tr>'
    )


def _retried(line: values.Learning) -> str:
    """The latest catch the agent retried, and what it tried again (already redacted)."""
    if line.retried is None:
        return ""
    again = f" → then <code>{escaped(line.retried.again)}</code>" if line.retried.again else ""
    return (
        f'<div class="do"><b>last retried</b> {instant(line.retried.at)}: '
        f"<code>{escaped(line.retried.call)}</code>{again}</div>"
    )


_LEARNING_HEADS = ["id", "action", "anti-pattern", "confidence", "line", "caught", "followed", "retried",
                   "warned", "last match", "status, command"]  # fmt: skip


def learnings(report: values.Report, drawn: Drawn | None) -> str:
    active = report.learning_counts["active"]
    parts = [
        "<h2>Learnings</h2>",
        f'<p class="lead">The {len(report.learnings):,} of {active:,} active learnings matched most in '
        f"the last {report.days} days, then the newest. Caught (denied, asked about or rewritten), "
        "followed, retried and warned count that window: after a catch, the agent followed the "
        "correct way, or retried the anti-pattern.</p>",
    ]
    if not report.learnings:
        return "".join([*parts, '<p class="empty">No active learning.</p>'])
    rows = [_learning_row(report, line, drawn) for line in report.learnings]
    parts.append(_table("Learnings, most matched first", _LEARNING_HEADS, rows, {3, 5, 6, 7, 8}))
    parts.append(_more(len(report.learnings), active, "active learnings", report.run("list")))
    if report.unproved:  # what the judge found of their own examples (docs/internals/judge.md)
        items = "".join(f"<li>{escaped(line, 300)}</li>" for line in report.unproved)
        parts.append(
            '<p class="lead">Rules the judge does not bear out on their own examples '
            f"({_cmd(report.run('doctor'))} says how to mend them):</p><ul>{items}</ul>"
        )
    return "".join(parts)


def review(report: values.Report, drawn: Drawn | None) -> str:
    total = report.learning_counts["awaiting"]
    parts = [
        "<h2>Awaiting review</h2>",
        '<p class="lead">Confidence sank to the review threshold: keep (back to the start value) or '
        "archive (hidden, never deleted).</p>",
    ]
    if not report.review:
        return "".join([*parts, '<p class="empty">No learning awaits review.</p>'])
    rows = [_learning_row(report, line, drawn) for line in report.review]
    parts.append(
        _table("Learnings awaiting review, lowest confidence first", _LEARNING_HEADS, rows, {3, 5, 6, 7, 8})
    )
    parts.append(_more(len(report.review), total, "awaiting review", report.run("list --review")))
    return "".join(parts)


def _rule(call: values.Call) -> str:
    """What denied or warned a call: the built-in protection, or a learning (linked)."""
    if call.learning_id == history.BUILT_IN:
        return "the built-in protection"
    anti_pattern = call.anti_pattern if call.anti_pattern is not None else "(deleted)"
    return f'<a href="#learning-{call.learning_id}">#{call.learning_id}</a> {escaped(anti_pattern, 120)}'


def calls(report: values.Report) -> str:
    parts = [
        "<h2>Denied and warned calls</h2>",
        f'<p class="lead">Since {instant(report.week_since)} UTC: the calls the guard denied or warned, '
        "the latest first (each learning keeps its last few, redacted when they were made).</p>",
    ]
    if not report.calls:
        return "".join([*parts, '<p class="empty">No call was denied or warned in this window.</p>'])
    rows = [
        f'<tr><td class="when">{instant(call.at)}</td>'
        f'<td><span class="badge {e(call.verdict)}">{e(call.verdict)}</span></td>'
        f'<td>{escaped(call.tool, 60)}</td><td class="what"><code>{escaped(call.call, 300)}</code></td>'
        f"<td>{_rule(call)}</td></tr>"
        for call in report.calls
    ]
    parts.append(
        _table("Denied and warned calls, latest first", ["when", "verdict", "tool", "call", "learning"], rows)
    )
    if report.calls_total > len(report.calls):
        parts.append(
            f'<p class="more">{report.calls_total - len(report.calls):,} earlier calls not shown.</p>'
        )
    return "".join(parts)


def proposals(report: values.Report) -> str:
    parts = ["<h2>Proposals</h2>"]
    if report.proposals is None:
        return "".join([*parts, '<p class="empty">Proposals live in the project\'s database: run the '
                        "report without --global to see them.</p>"])  # fmt: skip
    parts.append(
        '<p class="lead">What capture proposes from the session transcripts: nothing is matched or '
        "recalled until you accept it.</p>"
    )
    if not report.proposals:
        return "".join([*parts, '<p class="empty">No proposal awaits an answer.</p>'])
    rows = []
    for item in report.proposals:
        what = escaped(item.content) if item.kind == "memory" else escaped(item.anti_pattern)
        do = (
            ""
            if item.kind == "memory"
            else f'<div class="do"><b>do</b> {escaped(item.correct_pattern)}</div>'
        )
        regex = f"<code>{escaped(item.regex, 160)}</code>" if item.regex else "—"
        evidence = "".join(
            f"<li><code>{escaped(ev.failed, DETAIL // 2)}</code>"
            + (f" → <code>{escaped(ev.fixed, DETAIL // 2)}</code>" if ev.fixed else "")
            + f' <span class="trend">session {escaped(ev.session, 40)}</span></li>'
            for ev in item.evidence
        )
        rows.append(
            f'<tr><td class="id">#{item.id}</td><td class="what">{what}{do}</td><td>{e(item.signal)}</td>'
            f"<td>{regex}</td><td><details><summary>{item.occurrences:,} seen</summary><ul>{evidence}</ul>"
            f'</details></td><td><div class="cmds">{_cmd(report.run("accept", item.id))}'
            f"{_cmd(report.run('reject', item.id))}</div></td></tr>"
        )
    heads = ["id", "proposal", "signal", "regex", "evidence", "act"]
    parts.append(_table("Pending proposals, most recurrent first", heads, rows))
    return "".join(parts)


def memory(report: values.Report, drawn: Drawn | None) -> str:
    statuses = ", ".join(f"{n:,} {status}" for status, n in sorted(report.memory_statuses.items()))
    parts = [
        "<h2>Memory</h2>",
        f'<p class="lead">By type and age (from when each was stored): {e(statuses or "none yet")}.</p>',
    ]
    if drawn is not None and drawn.ages:
        parts.append(f'<div class="panel">{_img(drawn.ages, "active memories by type and age")}</div>')
    if not report.memory_ages:
        return "".join([*parts, '<p class="empty">No active memory.</p>'])
    grid: dict[str, list[int]] = {}
    for memory_type, age, n in report.memory_ages:
        grid.setdefault(memory_type, [0] * len(report.age_labels))[age] = n
    rows = [
        f"<tr><td>{e(memory_type)}</td>" + "".join(f'<td class="num">{n:,}</td>' for n in counts)
        + f'<td class="num"><b>{sum(counts):,}</b></td></tr>'
        for memory_type, counts in sorted(grid.items(), key=lambda item: -sum(item[1]))
    ]  # fmt: skip
    heads = ["type", *report.age_labels, "all"]
    parts.append(_table("Active memories by type and age", heads, rows, set(range(1, len(heads)))))
    return "".join(parts)


def graph(report: values.Report, drawn: Drawn | None) -> str:
    parts = [
        "<h2>Graph</h2>",
        f'<p class="lead">The {len(report.nodes):,} most connected memories and the {len(report.links):,} '
        "edges between them (supersedes left out); a circle per memory, sized by how many point to it.</p>",
    ]
    if drawn is not None and drawn.graph:
        parts.append(f'<div class="panel">{_img(drawn.graph, "the graph of memories")}</div>')
    if not report.nodes:
        return "".join([*parts, '<p class="empty">No memory is linked to another yet.</p>'])
    rows = [
        f'<tr><td class="id">#{node.id}</td><td>{e(node.type)}</td>'
        f'<td class="what">{escaped(node.summary)}</td>'
        f'<td class="num">{node.in_degree:,}</td><td class="num">{node.out_degree:,}</td>'
        f'<td class="num">{node.access_count:,}</td>'
        f"<td>{_cmd(report.run('memories show', node.id))}</td></tr>"
        for node in report.nodes[:40]
    ]
    heads = ["id", "type", "summary", "in", "out", "accesses", "act"]
    parts.append(_table("The most connected memories", heads, rows, {3, 4, 5}))
    return "".join(parts)
