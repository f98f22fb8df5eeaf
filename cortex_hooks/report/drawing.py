"""Drawing the charts: vl-convert (the Vega project's own renderer, the optional `report` extra)
turns each specification into SVG when the report is written, and the page shows it as an image.

An SVG shown as an <img> runs no script and loads nothing, and the page itself carries no
JavaScript: a chart is drawn once, here, never by the browser.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from cortex_hooks.report import charts, values

Done = TypeVar("Done")


@dataclass
class Drawn:
    """Each chart of a report as a `data:` URI (None: nothing to draw)."""

    sparks: dict[int, str] = field(default_factory=dict)
    verdicts: str | None = None
    outcomes: str | None = None
    memory: str | None = None
    ages: str | None = None
    graph: str | None = None


def draw(report: values.Report) -> Drawn | None:
    """Every chart of the report; None without the `report` extra (the page is then tables only)."""
    renderer = _renderer()
    if renderer is None:
        return None
    today = report.generated[:10]
    drawn = Drawn()
    # A line that never moved says it in words (sections.py); learnings with the same line
    # (made the same day, never matched) share one drawing.
    moved = [
        line for line in (*report.learnings, *report.review) if len({p.confidence for p in line.series}) > 1
    ]
    distinct = list(dict.fromkeys(line.series for line in moved))
    spec = charts.sparkline(report.since, today, report.policy.review_threshold / 100)
    data = [charts.spark_data(series, report.since, today) for series in distinct]
    images = _safely(report, "confidence lines", lambda: renderer.sparklines(spec, data)) or []
    by_series = dict(zip(distinct, images, strict=False))
    drawn.sparks = {line.id: by_series[line.series] for line in moved if line.series in by_series}
    specs: dict[str, tuple[Callable[[dict[str, Any]], str], dict[str, Any] | None]] = {
        "verdicts": (renderer.vega_lite, charts.verdicts(report.daily, report.since, today)),
        "outcomes": (renderer.vega_lite, charts.outcomes(report.daily, report.since, today)),
        "memory": (renderer.vega_lite, charts.memory_activity(report.daily, report.since, today)),
        "ages": (renderer.vega_lite, charts.memory_ages(report)),
        "graph": (renderer.vega, charts.graph(report)),
    }
    for name, (render, chart) in specs.items():
        if chart is not None:
            setattr(drawn, name, _safely(report, f"the {name} chart", partial(render, chart)))
    return drawn


def _safely(report: values.Report, what: str, work: Callable[[], Done]) -> Done | None:
    """A chart, or None and a note on the page: a renderer's failure never costs the report."""
    try:
        return work()
    except Exception as error:  # vl-convert raises ValueError; a chart is never worth the report
        report.notes.append(f"{what} not drawn: {str(error).splitlines()[0] if str(error) else error!r}")
        return None


class Renderer:
    """Specs drawn to SVG by vl-convert, as `data:` URIs for an <img>."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._template: dict[str, Any] | None = None

    def vega_lite(self, spec: dict[str, Any]) -> str:
        return _uri(self.engine.vegalite_to_svg(spec))

    def vega(self, spec: dict[str, Any]) -> str:
        return _uri(self.engine.vega_to_svg(spec))

    def sparklines(self, spec: dict[str, Any], lines: list[list[dict[str, Any]]]) -> list[str]:
        """One sparkline per data set: the Vega-Lite spec compiled to Vega once, then drawn with
        each learning's points (compiling is most of a small chart's cost)."""
        compiled = self.engine.vegalite_to_vega(spec)
        source = next(data for data in compiled["data"] if "values" in data)
        drawn = []
        for line in lines:
            source["values"] = line
            drawn.append(_uri(self.engine.vega_to_svg(compiled)))
        return drawn


def _renderer() -> Renderer | None:
    """The renderer when the `report` extra is installed; None without it (tables only)."""
    try:
        import vl_convert  # noqa: PLC0415 (the report extra, absent without it)
    except ImportError:
        return None
    return Renderer(vl_convert)


def _uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
