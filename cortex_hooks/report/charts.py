"""The report's charts as Vega-Lite and Vega specifications, made from the report's values (pure;
report.drawing draws them). Charts show numbers, days, ids and memory types: no stored text."""

from __future__ import annotations

from datetime import date
from typing import Any

from cortex_hooks.report import values

EXTRA = "pip install 'cortex-hooks[report]'"
_FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
_CONFIG: dict[str, Any] = {
    "background": None,
    "font": _FONT,
    "view": {"stroke": None},
    "axis": {"labelColor": "#888", "titleColor": "#888", "domainColor": "#8884", "gridColor": "#8883",
             "tickColor": "#8884", "labelFontSize": 11, "titleFontWeight": "normal"},
    "legend": {"labelColor": "#888", "titleColor": "#888", "labelFontSize": 11, "orient": "top"},
}  # fmt: skip
VERDICT_COLORS = {"denies": "#d64545", "asks": "#8e6bd1", "warnings": "#e0a030", "rewrites": "#2f9e8f"}
MEMORY_COLORS = {"added": "#3b82c4", "recalled": "#2f9e8f", "archived": "#e0a030", "pruned": "#d64545"}
# what the agent did after a deny, ask or rewrite: followed, retried, the person answered
OUTCOME_COLORS = {"followed": "#2f9e8f", "retried": "#d64545", "asked": "#8e6bd1"}
LINE = "#3b82c4"
SPARK_WIDTH, SPARK_HEIGHT = 132, 28
WIDE = 1030  # a chart across the page
GRAPH_WIDTH = WIDE


def sparkline(since: str, today: str, review: float) -> dict[str, Any]:
    """The confidence line of one learning over the window (its data: `spark_data`): held at each
    day's end value, the dashed review threshold below, today's value as a dot."""
    x = {"field": "day", "type": "temporal", "axis": None, "scale": {"domain": [since, today]}}
    y = {"field": "c", "type": "quantitative", "axis": None, "scale": {"domain": [0.2, 1.0]}}
    last = [
        {"window": [{"op": "row_number", "as": "n"}], "sort": [{"field": "day", "order": "descending"}]},
        {"filter": "datum.n == 1"},
    ]
    return {
        "width": SPARK_WIDTH,
        "height": SPARK_HEIGHT,
        "padding": 3,
        "data": {"values": []},
        "encoding": {"x": x, "y": y},
        "layer": [
            {"mark": {"type": "rule", "strokeDash": [2, 2], "color": "#d64545", "opacity": 0.55},
             "encoding": {"x": None, "y": {"datum": review, "type": "quantitative"}}},
            {"mark": {"type": "line", "interpolate": "step-after", "color": LINE, "strokeWidth": 1.6}},
            {"mark": {"type": "point", "filled": True, "color": LINE, "size": 22, "opacity": 1},
             "transform": last},
        ],
        "config": _CONFIG,
    }  # fmt: skip


def spark_data(line: tuple[values.Point, ...], since: str, today: str) -> list[dict[str, Any]]:
    """A line's points, at most one per two pixels of the sparkline: the last value of each
    stretch of days (a day's end, held), so a year stays a small drawing."""
    first, days = (
        date.fromisoformat(since),
        max((date.fromisoformat(today) - date.fromisoformat(since)).days, 1),
    )
    buckets = SPARK_WIDTH // 2
    kept: dict[int, values.Point] = {}
    for point in line:
        offset = max((date.fromisoformat(point.day) - first).days, 0)
        kept[offset * buckets // days] = point  # a later point of the same stretch replaces it
    points = list(kept.values())
    if line and points[0] is not line[0]:  # where the line starts stays where it starts
        points.insert(0, line[0])
    return [{"day": point.day, "c": point.confidence / 100} for point in points]


WEEKLY_AFTER = 92  # days: a longer window is drawn a bar per week


def weeks(since: str, today: str) -> bool:
    """Whether a window is drawn a bar per week."""
    return (date.fromisoformat(today) - date.fromisoformat(since)).days >= WEEKLY_AFTER


def verdicts(daily: tuple[values.Day, ...], since: str, today: str) -> dict[str, Any] | None:
    """Denies and warnings (asks and rewrites once there are any) per day (per week over a long
    window), stacked."""
    kinds = [kind for kind in VERDICT_COLORS if any(day.counts[kind] for day in daily)]
    rows = [{"day": day.day, "kind": kind, "n": day.counts[kind]} for day in daily for kind in kinds]
    if not rows:
        return None
    return _bars(rows, kinds, colors=VERDICT_COLORS, since=since, today=today, counted="calls")


def outcomes(daily: tuple[values.Day, ...], since: str, today: str) -> dict[str, Any] | None:
    """What the agent did after the catches of each day (per week over a long window): followed
    beside retried (and the person's answers once there are any), side by side."""
    kinds = [kind for kind in OUTCOME_COLORS if any(day.counts[kind] for day in daily)]
    rows = [{"day": day.day, "kind": kind, "n": day.counts[kind]} for day in daily for kind in kinds]
    if not rows:
        return None
    return _bars(
        rows, kinds, colors=OUTCOME_COLORS, since=since, today=today, counted="catches", stacked=False
    )


def memory_activity(daily: tuple[values.Day, ...], since: str, today: str) -> dict[str, Any] | None:
    """Memories added, recalled, archived and pruned per day (per week over a long window)."""
    kinds = [kind for kind in MEMORY_COLORS if any(day.counts[kind] for day in daily)]
    rows = [{"day": day.day, "kind": kind, "n": day.counts[kind]} for day in daily for kind in kinds]
    if not rows:
        return None
    return _bars(
        rows, kinds, colors=MEMORY_COLORS, since=since, today=today, counted="memories", stacked=False
    )


def _bars(
    rows: list[dict[str, Any]],
    kinds: list[str],
    *,
    colors: dict[str, str],
    since: str,
    today: str,
    counted: str,
    stacked: bool = True,
) -> dict[str, Any]:
    color = {
        "field": "kind",
        "type": "nominal",
        "title": None,
        "scale": {"domain": kinds, "range": [colors[kind] for kind in kinds]},
        "sort": kinds,
    }
    x = {
        "field": "day",
        "type": "temporal",
        "title": None,
        "timeUnit": "utcyearweek" if weeks(since, today) else "utcyearmonthdate",
        "scale": {"domain": [since, today]},
        "axis": {"format": "%b %d", "labelOverlap": "greedy", "grid": False, "tickCount": 10},
    }
    y = {
        "field": "n",
        "type": "quantitative",
        "title": counted,
        "stack": True if stacked else None,
        "aggregate": "sum",
        "axis": {"tickMinStep": 1, "format": "d"},
    }
    encoding: dict[str, Any] = {"x": x, "y": y, "color": color}
    if not stacked:
        encoding["xOffset"] = {"field": "kind", "sort": kinds}
    return {"width": WIDE, "height": 150, "padding": 12, "data": {"values": rows}, "mark": {"type": "bar"},
            "encoding": encoding, "config": _CONFIG}  # fmt: skip


def memory_ages(report: values.Report) -> dict[str, Any] | None:
    """Active memories by type (a bar each), split by age."""
    rows = [
        {"type": memory_type, "age": report.age_labels[age], "order": age, "n": n}
        for memory_type, age, n in report.memory_ages
    ]
    if not rows:
        return None
    labels = list(report.age_labels)
    return {
        "width": WIDE,
        "height": {"step": 22},
        "padding": 12,
        "data": {"values": rows},
        "mark": {"type": "bar"},
        "encoding": {
            "y": {"field": "type", "type": "nominal", "title": None, "sort": "-x"},
            "x": {"field": "n", "type": "quantitative", "title": "active memories", "stack": True,
                  "axis": {"tickMinStep": 1, "format": "d"}},
            "color": {"field": "age", "type": "ordinal", "title": "age", "sort": labels,
                      "scale": {"domain": labels, "scheme": "tealblues", "reverse": True}},
            "order": {"field": "order"},
        },
        "config": _CONFIG,
    }  # fmt: skip


def graph(report: values.Report) -> dict[str, Any] | None:
    """The most connected memories, laid out by force (Vega's force transform): a circle per
    memory coloured by type and sized by in-degree, a line per edge, the best connected named by id."""
    if not report.links:
        return None
    index = {node.id: number for number, node in enumerate(report.nodes)}
    height = max(260, min(520, 120 + 10 * len(report.nodes)))  # a few memories are not lost in a square
    spread = max(34, 240 / len(report.nodes) ** 0.5)  # a few memories spread out, many pack closer
    charge = -max(25, 900 / len(report.nodes))
    named = {node.id for node in sorted(report.nodes, key=lambda n: -n.in_degree)[:25]}
    nodes = [
        {"type": node.type, "degree": node.in_degree, "label": f"#{node.id}" if node.id in named else "",
         "tx": GRAPH_WIDTH / 2, "ty": height / 2}
        for node in report.nodes
    ]  # fmt: skip
    links = [{"source": index[link.source], "target": index[link.target]} for link in report.links]
    force = [
        {"force": "center", "x": {"signal": "cx"}, "y": {"signal": "cy"}},
        {"force": "collide", "radius": 10},
        {"force": "nbody", "strength": charge},
        {"force": "link", "links": "links", "distance": spread},
        {"force": "x", "x": "datum.tx", "strength": 0.05},  # the point each node is pulled to
        {"force": "y", "y": "datum.ty", "strength": 0.08},
    ]
    return {
        "$schema": "https://vega.github.io/schema/vega/v5.json",
        "width": GRAPH_WIDTH, "height": height, "padding": 8, "autosize": "none", "background": None,
        "signals": [{"name": "cx", "update": "width / 2"}, {"name": "cy", "update": "height / 2"}],
        "data": [{"name": "nodes", "values": nodes}, {"name": "links", "values": links}],
        "scales": [
            {"name": "color", "type": "ordinal", "domain": {"data": "nodes", "field": "type", "sort": True},
             "range": {"scheme": "tableau10"}},
            {"name": "size", "type": "sqrt", "domain": {"data": "nodes", "field": "degree"},
             "range": [70, 600]},
        ],
        "legends": [{"fill": "color", "orient": "top-left", "title": "type", "labelColor": "#888",
                     "titleColor": "#888", "symbolType": "circle"}],
        "marks": [
            {"name": "node", "type": "symbol", "zindex": 1, "from": {"data": "nodes"},
             "encode": {"enter": {"fill": {"scale": "color", "field": "type"}, "stroke": {"value": "#fff"},
                                  "strokeWidth": {"value": 1}, "size": {"scale": "size", "field": "degree"}}},
             "transform": [{"type": "force", "iterations": 300, "static": True, "signal": "force",
                            "forces": force}]},
            {"type": "path", "from": {"data": "links"}, "interactive": False,
             "encode": {"update": {"stroke": {"value": "#8888"}, "strokeWidth": {"value": 1}}},
             "transform": [{"type": "linkpath", "require": {"signal": "force"}, "shape": "line",
                            "sourceX": "datum.source.x", "sourceY": "datum.source.y",
                            "targetX": "datum.target.x", "targetY": "datum.target.y"}]},
            {"type": "text", "from": {"data": "node"}, "interactive": False, "zindex": 2,
             "encode": {"update": {"x": {"field": "x"}, "y": {"field": "y", "offset": -9},
                                   "text": {"field": "datum.label"}, "align": {"value": "center"},
                                   "fontSize": {"value": 10}, "fill": {"value": "#888"},
                                   "font": {"value": _FONT}}}},
        ],
    }  # fmt: skip
