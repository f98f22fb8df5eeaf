"""`cortex-hooks report`: one self-contained HTML file, every stored text inert and
redacted, the top of each list shown and the rest counted, charts only with the extra."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run

from cortex_hooks.report import gather, shown, values

NOW = "2026-11-21T09:00:00Z"
SECRET = "sk-ant-" + "Xy7" * 12
HOSTILE = (
    "<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) "
    f"\u202egnp.exe\u202c zero\u200bwidth \x1b[31mred {SECRET}"
)


@pytest.fixture(autouse=True)
def now(monkeypatch: pytest.MonkeyPatch) -> None:
    """One clock for every command and hook of a test (a test names another day where it needs one)."""
    monkeypatch.setenv("CORTEX_NOW", NOW)


class Page(HTMLParser):
    """What a browser would load or run from the file, and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def all(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def report(*args: str, env: dict[str, str] | None = None) -> tuple[str, Any]:
    result = cli("report", *args, env=env)
    assert result.code == 0, result.stderr
    return result.stdout, result


def assert_inert(text: str) -> Page:
    """Nothing in the page can run or load: no script, no handler, no outside address."""
    page = Page(text)
    names = {name for name, _ in page.tags}
    assert not names & {"script", "iframe", "object", "embed", "link", "base", "form", "svg"}, names
    for _, attrs in page.tags:
        assert not [key for key in attrs if key.startswith("on")], attrs
        assert not (attrs.get("style")), attrs
    assert all((attrs["src"] or "").startswith("data:image/svg+xml;base64,") for attrs in page.all("img"))
    assert all((attrs["href"] or "").startswith("#") for attrs in page.all("a"))
    [csp] = [attrs for attrs in page.all("meta") if attrs.get("http-equiv") == "Content-Security-Policy"]
    assert (csp["content"] or "").startswith("default-src 'none';")
    assert "script-src" not in (csp["content"] or "")
    return page


def test_the_report_is_written_beside_the_database_private_and_inert(db: Path) -> None:
    cli_json("add", "--anti-pattern", "force push", "--correct", "lease", "--regex", "git push --force")
    out, _ = report()
    path = db.parent / "report.html"
    assert out.strip() == f"Wrote {path}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    page = assert_inert(path.read_text(encoding="utf-8"))
    assert "force push" in "".join(page.text)
    assert "cortex-hooks archive 1" in "".join(page.text)


def test_the_project_default_is_in_the_cortex_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    monkeypatch.chdir(project)
    cli_json("remember", "The API listens on port 8080")
    report()
    assert (project / ".cortex" / "report.html").is_file()


@pytest.mark.parametrize(
    "target",
    [
        "CLAUDE.md",
        "docs/CLAUDE.local.md",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude/commands/deploy.md",
        ".claude/skills/x/SKILL.md",
        ".mcp.json",
        "home/.claude/CLAUDE.md",
        "home/.claude.json",
    ],
)
def test_the_report_never_writes_a_file_claude_code_loads(db: Path, tmp_path: Path, target: str) -> None:
    """Issue 34 item 8: the report holds stored text and commands; written as CLAUDE.md or a
    settings file it would be put before the model, or change what Claude Code runs."""
    cli_json("add", "--anti-pattern", "force push", "--correct", "lease", "--regex", "git push --force")
    path = tmp_path / target
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".json"):
        path.write_text("{}")
    result = cli("report", "--out", str(path), env={"HOME": str(tmp_path / "home")})
    assert result.code == 2, result.stderr
    assert "refused" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not path.exists() or path.read_text() == "{}"
    ok = tmp_path / "home" / ".claude" / "memory" / "report.html"  # beside the global database
    ok.parent.mkdir(parents=True, exist_ok=True)
    assert cli("report", "--out", str(ok), env={"HOME": str(tmp_path / "home")}).code == 0


def test_without_a_database_nothing_is_written(db: Path, tmp_path: Path) -> None:
    result = cli("report", "--out", str(tmp_path / "r.html"))
    assert result.code == 1
    assert result.stderr == f"cortex-hooks: no database at {db}: nothing to report yet\n"
    assert not db.exists()
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("days", ["0", "-3", "abc", "3651"])
def test_a_bad_window_is_refused(db: Path, days: str) -> None:
    cli_json("remember", "x")
    result = cli("report", f"--days={days}")
    assert result.code == 2
    assert result.stderr.startswith("cortex-hooks: --days: ")


def test_hostile_stored_text_is_shown_as_text_and_redacted(db: Path, tmp_path: Path) -> None:
    cli_json("add", "--anti-pattern", HOSTILE, "--correct", HOSTILE, "--regex", "rm -rf /tmp/x")
    run("cortex-pre-tool-use", stdin=_bash(f"rm -rf /tmp/x; echo {SECRET} '<script>x</script>'"))
    cli_json("remember", HOSTILE, "--type", "gotcha")
    cli_json("remember", "A" * 1_000_000)
    cli_json("link", "1", "2", "--type", "relates_to")
    out = tmp_path / "hostile.html"
    report("--out", str(out))
    text = out.read_text(encoding="utf-8")
    page = assert_inert(text)
    body = "".join(page.text)
    assert "<script>alert(1)</script>" in body  # as text, to be read
    assert "javascript:alert(3)" in body
    for hidden in ("\u202e", "\u202c", "\u200b", "\x1b", SECRET):
        assert hidden not in text
    assert "[REDACTED]" in body
    assert len(text) < 400_000  # the 1 MB memory is cut where it is shown


def _bash(command: str) -> dict[str, Any]:
    return payload("pre_tool_use.bash", tool_input={"command": command})


def test_commands_name_the_database_and_scope_they_act_on(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "x.db"
    other.parent.mkdir()  # a folder named for a database must be there
    cli("add", "--anti-pattern", "a", "--correct", "b", "--regex", "zzz", "--db", str(other))
    out = tmp_path / "r.html"
    report("--db", str(other), "--out", str(out))
    assert f"archive 1 --db {other}" in out.read_text(encoding="utf-8")
    user = tmp_path / "user.db"
    cli(
        "add", "--anti-pattern", "g", "--correct", "b", "--regex", "zzz", "--global", "--global-db", str(user)
    )
    report("--global", "--global-db", str(user), "--out", str(out))
    text = "".join(Page(out.read_text(encoding="utf-8")).text)
    assert f"archive 1 --global-db {user} --global" in text
    assert "Proposals live in the project's database" in text


def test_the_top_is_shown_and_the_rest_counted(db: Path, tmp_path: Path) -> None:
    learnings = [
        {"anti_pattern": f"pattern {n}", "correct_pattern": "ok", "regex": f"zzz{n}", "confidence": 0.35}
        for n in range(gather.TOP_LEARNINGS + 30)
    ]
    source = tmp_path / "many.json"
    source.write_text(json.dumps(learnings), encoding="utf-8")
    assert cli("import", str(source)).code == 0
    out = tmp_path / "r.html"
    report("--out", str(out))
    text = "".join(Page(out.read_text(encoding="utf-8")).text)
    assert "30 more active learnings not shown" in text
    assert f"{gather.TOP_LEARNINGS + 30 - gather.TOP_REVIEW} more awaiting review not shown" in text


HIDDEN_EXTRA = """
import sys
sys.modules["vl_convert"] = None  # the report extra is not installed, as far as Python can tell
from cortex_hooks.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_the_extra_the_report_is_tables_and_says_how_to_get_charts(db: Path, tmp_path: Path) -> None:
    cli_json("add", "--anti-pattern", "force push", "--correct", "lease", "--regex", "git push --force")
    run("cortex-pre-tool-use", stdin=_bash("git push --force"))
    out = tmp_path / "plain.html"
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN_EXTRA, "report", "--out", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "CORTEX_NOW": NOW},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "tables only: pip install 'cortex-hooks[report]'" in done.stdout
    page = assert_inert(out.read_text(encoding="utf-8"))
    assert page.all("img") == []
    assert "pip install 'cortex-hooks[report]'" in "".join(page.text)
    assert "force push" in "".join(page.text)


def test_with_the_extra_every_chart_is_an_svg_image(db: Path, tmp_path: Path) -> None:
    pytest.importorskip("vl_convert", reason="the report extra is not installed here")
    earlier = {"CORTEX_NOW": "2026-11-01T00:00:00Z"}
    cli_json(
        "add",
        "--anti-pattern",
        "force push",
        "--correct",
        "lease",
        "--regex",
        "git push --force",
        env=earlier,
    )
    for day in ("2026-11-18", "2026-11-19", "2026-11-20"):
        run("cortex-pre-tool-use", stdin=_bash("git push --force"), env={"CORTEX_NOW": f"{day}T10:00:00Z"})
    cli_json("remember", "The API listens on port 8080")
    cli_json("remember", "The API port 8080 is configured in gateway.yaml")
    cli_json("link", "2", "1", "--type", "refines")
    out = tmp_path / "r.html"
    report("--out", str(out))
    page = assert_inert(out.read_text(encoding="utf-8"))
    classes = sorted(attrs.get("class") or "" for attrs in page.all("img"))
    assert classes == ["chart", "chart", "chart", "chart", "spark"]  # verdicts, memories, ages, graph


def test_open_hands_the_file_to_the_web_browser(db: Path, tmp_path: Path) -> None:
    cli_json("remember", "x")
    seen = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {seen}\n', encoding="utf-8")
    browser.chmod(0o755)
    out = tmp_path / "r.html"
    result = cli("report", "--out", str(out), "--open", process=True, env={"BROWSER": str(browser)})
    assert result.code == 0, result.stderr
    assert seen.read_text(encoding="utf-8") == out.resolve().as_uri()


def test_the_stats_carry_the_history(db: Path) -> None:
    cli_json(
        "add",
        "--anti-pattern",
        "force push",
        "--correct",
        "lease",
        "--regex",
        "git push --force",
        "--auto-block",
    )
    run("cortex-pre-tool-use", stdin=_bash("git push --force"), env={"CORTEX_NOW": "2026-11-20T10:00:00Z"})
    stats = cli_json("stats", "--days", "3", env={"CORTEX_NOW": NOW})
    assert set(stats) == {"learnings", "decisions", "errors", "history"}  # the output of before, and more
    window = stats["history"]
    assert window["days"] == 3
    assert window["since"] == "2026-11-19"
    assert window["learnings"] == {
        "matches": 1,
        "denies": 1,
        "asks": 0,
        "warnings": 0,
        "rewrites": 0,
        "followed": 0,  # what the agent did after the deny: not known (no session end read it)
        "retried": 0,
        "asked": 0,
    }
    assert window["memories"] == {"added": 0, "recalled": 0, "archived": 0, "pruned": 0}
    assert window["most_matched"][0]["id"] == 1
    assert window["most_matched"][0]["confidence"] == 0.8
    human = cli("stats", env={"CORTEX_NOW": NOW}).stdout
    assert "Last 7 days (since 2026-11-15): 1 matches, 1 denied, 0 warned" in human
    from cortex_hooks.mcp import tools

    said, failed = tools.call("cortex_get_access_stats", {})  # the agent reads the same
    assert not failed
    assert "Last 7 days (since 2026-11-15): 1 matches, 1 denied, 0 warned" in said


@pytest.mark.parametrize(
    ("points", "start", "now", "expected"),
    [
        ([], "2026-10-01T00:00:00Z", 70, [("2026-11-01", 70), ("2026-11-21", 70)]),  # no history: flat
        ([], "2026-11-10T00:00:00Z", 70, [("2026-11-10", 70), ("2026-11-21", 70)]),  # from its birth
        ([("2026-10-20", 60)], "2026-01-01T00:00:00Z", 60, [("2026-11-01", 60), ("2026-11-21", 60)]),
        (
            [("2026-10-20", 60), ("2026-11-05", 70), ("2026-11-06", 70), ("2026-11-07", 69)],
            "2026-01-01T00:00:00Z",
            69,
            [("2026-11-01", 60), ("2026-11-05", 70), ("2026-11-07", 69), ("2026-11-21", 69)],
        ),
        ([("2026-11-21", 80)], "2026-01-01T00:00:00Z", 90, [("2026-11-01", 80), ("2026-11-21", 90)]),
    ],
)
def test_a_line_is_carried_in_held_and_ends_today(
    points: list[tuple[str, int]], start: str, now: int, expected: list[tuple[str, int]]
) -> None:
    line = gather.series([values.Point(d, c) for d, c in points], "2026-11-01", "2026-11-21", start, now)
    assert [(point.day, point.confidence) for point in line] == expected


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("plain", "plain"),
        ("two\nlines\tand\u2028more", "two lines and more"),
        ("\u202eevil\u202c", "evil"),
        (f"token={SECRET}", "token=[REDACTED]"),
        (None, ""),
        ("x" * 500, "x" * 200 + "…"),
    ],
)
def test_shown_text_is_redacted_clean_and_cut(stored: str | None, expected: str) -> None:
    assert shown.text(stored) == expected


def test_an_instant_reads_as_a_person_reads_it() -> None:
    assert shown.instant("2026-11-20T10:01:00Z") == "2026-11-20 10:01"
    assert shown.instant("<b>2026</b>") == "&lt;b&gt;2026&lt;/b&gt;"
    assert shown.instant(datetime(2026, 1, 1, tzinfo=UTC).date()) == "2026-01-01"
