"""The report in a real browser: the system's headless Chromium opens the file with no
console error, no failed request and no request at all beyond the file, and the page shows the
learnings and charts that are really drawn. Skipped with a reason where no browser can be had;
in CI (CI=true, where .ci/run installs Chromium) a missing browser is a failure, never a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import BrowserUnavailable, executable, visit
from report_demo import LEARNINGS, build, report
from support import built_once, cli_json, payload, run
from test_report import HOSTILE, SECRET

# Pixels of an image that are not transparent (what a chart drew), counted in the page itself.
DRAWN = """image => {
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth; canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let drawn = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) drawn++;
    return drawn;
}"""


@pytest.fixture
def browse() -> None:
    """A browser can be had here: else a skip with the reason, or in CI a failure."""
    try:
        import playwright  # noqa: F401

        executable()
    except (ImportError, BrowserUnavailable) as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {error}")
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, built once for the run (six days of history)."""

    def make(project: Path) -> None:
        project.mkdir()
        build(project, days=6)

    return built_once(tmp_path_factory, "report-demo", make)


def test_the_report_opens_clean_and_shows_learnings_and_drawn_charts(
    browse: None, demo: Path, tmp_path: Path
) -> None:
    pytest.importorskip("vl_convert", reason="the report extra is not installed here")
    page_file = tmp_path / "report.html"
    report(demo, demo / ".cortex" / "cortex.db", page_file)
    with visit(page_file) as seen:
        page = seen.page
        text = page.inner_text("body")
        for anti, *_ in LEARNINGS:
            assert anti in text, anti
        assert page.evaluate("document.scripts.length") == 0
        charts = page.query_selector_all("img.chart")
        assert len(charts) == 4  # calls and memories per day, memory by type and age, the graph
        for chart in charts:
            assert chart.evaluate("image => image.complete && image.naturalWidth > 0")
            assert chart.evaluate(DRAWN) > 500, chart.get_attribute("alt")
        sparks = page.query_selector_all("img.spark")
        assert sparks
        assert all(spark.evaluate(DRAWN) > 20 for spark in sparks)
        assert page.query_selector_all("#learnings tbody tr")
        assert seen.problems == []


def test_hostile_text_stays_text_and_the_page_still_loads(browse: None, db: Path, tmp_path: Path) -> None:
    cli_json(
        "add", "--anti-pattern", HOSTILE, "--correct", HOSTILE, "--regex", "rm -rf /tmp/x", "--auto-block"
    )
    run(
        "cortex-pre-tool-use",
        stdin=payload("pre_tool_use.bash", tool_input={"command": f"rm -rf /tmp/x {HOSTILE}"}),
    )
    cli_json("remember", HOSTILE, "--type", "gotcha")
    cli_json("remember", "B" * 1_000_000)
    cli_json("link", "1", "2", "--type", "relates_to")
    page_file = tmp_path / "hostile.html"
    assert run("cortex-hooks", "report", "--out", str(page_file)).code == 0
    with visit(page_file) as seen:
        page = seen.page
        text = page.inner_text("body")
        assert "<script>alert(1)</script>" in text
        assert "javascript:alert(3)" in text
        assert SECRET not in text
        assert page.evaluate("document.scripts.length") == 0
        assert page.evaluate("document.querySelectorAll('[onerror], [onclick]').length") == 0
        assert page.evaluate("[...document.links].every(a => a.getAttribute('href').startsWith('#'))")
        assert seen.problems == []


def test_the_page_reads_in_the_dark_too(browse: None, demo: Path, tmp_path: Path) -> None:
    page_file = tmp_path / "report.html"
    report(demo, demo / ".cortex" / "cortex.db", page_file)
    with visit(page_file, dark=True) as seen:
        background = seen.page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(20, 23, 29)"
        assert seen.problems == []
