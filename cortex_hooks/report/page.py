"""The report as one HTML document, rendered from values (pure): no script, no outside load.

The Content-Security-Policy allows the one style block (by its hash) and `data:` images, and
nothing else: were stored text ever to slip past the escaping, the browser would still refuse
to run or fetch anything it says.
"""

from __future__ import annotations

import base64
import hashlib
import html
from importlib import resources

from cortex_hooks import __version__, confidence
from cortex_hooks.report import sections, values
from cortex_hooks.report.charts import EXTRA
from cortex_hooks.report.drawing import Drawn
from cortex_hooks.report.shown import escaped, instant

SECTIONS = (
    ("activity", "Activity"),
    ("learnings", "Learnings"),
    ("review", "Awaiting review"),
    ("calls", "Denied and warned"),
    ("proposals", "Proposals"),
    ("memory", "Memory"),
    ("graph", "Graph"),
)


def style() -> str:
    return resources.files("cortex_hooks.report").joinpath("style.css").read_text(encoding="utf-8")


def policy(css: str) -> str:
    """The page's Content-Security-Policy: its own style block and `data:` images, nothing more."""
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; base-uri 'none'; form-action 'none'"
    )


def render(report: values.Report, drawn: Drawn | None) -> str:
    """The whole document."""
    css = style()
    title = f"cortex-hooks report · {report.scope}"
    body = "\n".join(
        (
            _header(report),
            "<main>",
            _cards(report),
            "" if drawn is not None else _charts_off(),
            *(f'<section id="{key}">{text}</section>' for key, text in _sections(report, drawn)),
            "</main>",
            _footer(report, drawn is not None),
        )
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(policy(css))}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{html.escape(title)}</title>
<style>{css}</style>
</head>
<body>
{body}
</body>
</html>
"""


def _sections(report: values.Report, drawn: Drawn | None) -> list[tuple[str, str]]:
    return [
        ("activity", sections.activity(report, drawn)),
        ("learnings", sections.learnings(report, drawn)),
        ("review", sections.review(report, drawn)),
        ("calls", sections.calls(report)),
        ("proposals", sections.proposals(report)),
        ("memory", sections.memory(report, drawn)),
        ("graph", sections.graph(report, drawn)),
    ]


def _header(report: values.Report) -> str:
    links = " ".join(f'<a href="#{key}">{label}</a>' for key, label in SECTIONS)
    return f"""<header><div class="inner">
<h1>cortex-hooks report<span class="scope">{html.escape(report.scope)} scope</span></h1>
<div class="meta">{escaped(report.database, 400)} · generated {instant(report.generated)} UTC · the last \
{report.days} days (UTC, since {escaped(report.since)})</div>
<nav>{links}</nav>
</div></header>"""


def _cards(report: values.Report) -> str:
    counts, totals = report.learning_counts, report.totals
    pending = "—" if report.proposals is None else f"{len(report.proposals):,}"
    active = sum(n for status, n in report.memory_statuses.items() if status == "active")
    cards = (
        ("", f"{counts['active']:,}", f"active learnings · {counts['auto_block']:,} auto-block"),
        ("deny" if counts["awaiting"] else "", f"{counts['awaiting']:,}", "awaiting review"),
        ("deny", f"{totals['denies']:,}", f"denied calls · {report.days} days"),
        ("warn", f"{totals['warnings']:,}", f"warned calls · {report.days} days"),
        ("", pending, "pending proposals"),
        ("", f"{active:,}", f"active memories · {report.totals['recalled']:,} recalled"),
    )
    return '<div class="cards">' + "".join(
        f'<div class="card {kind}"><div class="n">{number}</div><div class="label">{label}</div></div>'
        for kind, number, label in cards
    ) + "</div>"  # fmt: skip


def _charts_off() -> str:
    return (
        '<p class="charts-off">Charts are drawn when the report extra is installed: '
        f"<code>{html.escape(EXTRA)}</code>. Everything else is here as tables.</p>"
    )


def _footer(report: values.Report, charted: bool) -> str:
    drawn_by = (
        "Vega-Lite, drawn when the report was written (vl-convert)" if charted else "none (tables only)"
    )
    notes = "".join(f"<li>{escaped(note, 300)}</li>" for note in report.notes)
    return f"""<footer>
{f"<ul>{notes}</ul>" if notes else ""}
<dl>
<dt>Confidence</dt><dd>{_model(report.policy)}</dd>
<dt>Lines</dt><dd>each learning's confidence at the end of each day (UTC) of the window, today's \
as a dot; the dashed line is the review threshold.</dd>
<dt>History</dt><dd>kept per learning and day for a year, then per month; the last \
calls each learning denied or warned, redacted.</dd>
<dt>Text</dt><dd>every stored text is shown redacted, one line and cut; no script runs in this page.</dd>
<dt>Charts</dt><dd>{drawn_by}.</dd>
<dt>Made by</dt><dd>cortex-hooks {html.escape(__version__)} · <code class="cmd">\
{html.escape(report.run("report"))}</code></dd>
</dl>
</footer>"""


def _model(policy: confidence.Policy) -> str:
    show = confidence.show
    return (
        f"{show(policy.floor)}\u2013{show(policy.ceiling)}; +{show(policy.boost)} per match, "
        f"\u2212{show(policy.decay)} per session end. An auto-block learning denies above "
        f"{show(policy.block_gate)}; at {show(policy.review_threshold)} or below a learning awaits review."
    )
