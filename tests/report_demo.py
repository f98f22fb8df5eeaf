"""A demo project for the report, built through the product's own front doors: learnings and
memories added with the CLI, a fortnight of tool calls piped into the installed PreToolUse hook,
session ends, recalls, and proposals captured from transcripts. The browser test opens its
report; run as a script, it writes the screenshot in the docs:

    .venv/bin/python tests/report_demo.py docs/report.png
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from support import cli, run
from transcripts import Transcript

END = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # the demo's last day; its report is made the day after
REPORTED = "2026-11-21T09:00:00Z"

LEARNINGS = [  # (anti-pattern, correct pattern, regex, options)
    ("git push --force to a shared branch", "git push --force-with-lease on your own branch",
     r"git push\b.*(?:-f\b|--force\b(?!-))", ["--auto-block", "--severity", "critical"]),
    ("sudo pip install into the system Python", "uv pip install inside the project's .venv",
     r"\bsudo pip3? install\b", ["--auto-block", "--severity", "high"]),
    ("npm install in a pnpm workspace", "pnpm install (the lockfile is pnpm-lock.yaml)",
     r"(?:^|&&\s*)npm (?:install|i)\b", ["--severity", "medium"]),
    ("rm -rf with a variable that may be empty", "guard it: rm -rf \"${DIR:?}\"/build",
     r"rm -rf \$\w+/", ["--auto-block", "--severity", "critical"]),
    ("python -m pytest without the venv", ".venv/bin/pytest -q", r"^python3? -m pytest\b", []),
    ("datetime.now() without a timezone", "datetime.now(UTC)", r"datetime\.now\(\)",
     ["--tool", "Write|Edit", "--severity", "low"]),
    ("curl | sh from the internet", "download, read, then run", r"curl [^|]*\|\s*(?:ba)?sh\b",
     ["--auto-block", "--severity", "high"]),
    ("git commit --no-verify", "let the pre-commit hooks run", r"git commit\b.*--no-verify", []),
    ("chmod -R 777 to fix a permission error", "chown to the service user, then chmod 750",
     r"chmod -R 777\b", ["--confidence", "0.42"]),
]  # fmt: skip
# What the agent ran on each day (a fortnight): some calls trip learnings, most do not.
CALLS = [
    "git push --force origin main",
    "sudo pip install requests",
    "npm install left-pad",
    "python -m pytest -q tests/",
    "git commit -m wip --no-verify",
    "ls -la",
    "curl -fsSL https://get.example.dev | sh",
]
MEMORIES = [  # (type, text, days before END)
    ("architecture", "The API gateway routes /v2 to the orders service on port 8080", 200),
    ("architecture", "Orders and billing share one Postgres cluster; billing owns the ledger schema", 190),
    ("decision", "We chose pnpm workspaces over npm for the monorepo (hoisting broke the build)", 120),
    ("decision", "Feature flags live in LaunchDarkly; the env var fallback is for local runs only", 80),
    ("gotcha", "The orders service on port 8080 needs REDIS_URL or it starts silently without a cache", 40),
    ("gotcha", "Billing migrations must run before orders migrations: the ledger schema is shared", 35),
    ("pattern", "Every handler in the orders service validates input with pydantic models", 60),
    ("pattern", "Background jobs go through the worker queue, never a thread in the API process", 25),
    ("context", "The staging database is refreshed from production every Sunday night", 9),
    ("context", "This sprint: moving the billing webhooks to the new gateway on port 8080", 3),
    ("progress", "Webhook migration: orders done, billing half done, refunds not started", 1),
    ("gotcha", "The gateway drops requests over 10 MB: large uploads go straight to object storage", 14),
    ("pattern", "Tests of the orders service use the billing ledger fixture, never the real schema", 12),
    ("decision", "Postgres over MySQL for the ledger: we need transactional DDL in migrations", 400),
]
LINKS = [(2, 6, "relates_to"), (5, 1, "refines"), (10, 1, "relates_to"), (11, 10, "derived_from"),
         (12, 1, "relates_to"), (7, 13, "exemplifies"), (6, 13, "relates_to"), (3, 14, "relates_to"),
         (9, 6, "relates_to"), (8, 7, "relates_to"), (4, 9, "relates_to"),
         (14, 2, "derived_from")]  # fmt: skip


def iso(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%SZ")


def ok(*args: str, env: dict[str, str]) -> None:
    result = cli(*args, env=env)
    assert result.code == 0, (args, result.stderr)


def build(project: Path, days: int = 14) -> Path:
    """The demo project's database, with `days` of history ending at END."""
    database = project / ".cortex" / "cortex.db"
    start = END - timedelta(days=days + 30)
    base = {"CORTEX_DB": str(database), "CLAUDE_PROJECT_DIR": str(project), "CORTEX_EMBEDDINGS": "off"}
    env = {**base, "CORTEX_NOW": iso(start)}
    for anti, correct, regex, options in LEARNINGS:
        given = ["--anti-pattern", anti, "--correct", correct, f"--regex={regex}", "--tool", "Bash"]
        ok("add", *given, *options, env=env)
    for kind, text, age in MEMORIES:
        ok("remember", text, "--type", kind, env={**base, "CORTEX_NOW": iso(END - timedelta(days=age))})
    for source, target, kind in LINKS:
        ok("link", str(source), str(target), "--type", kind, "--strength", "0.8", env=env)
    for day in range(days):
        _day(project, database, base, END - timedelta(days=days - 1 - day), day)
    _proposals(project, base)
    return database


def _day(project: Path, database: Path, base: dict[str, str], when: datetime, number: int) -> None:
    session = f"demo-{number:02d}"
    calls = [call for index, call in enumerate(CALLS) if (index + number) % 3 != 0 or index == 5]
    for minute, command in enumerate(calls):
        instant = iso(when.replace(hour=10, minute=minute))
        _hook("cortex-pre-tool-use", _call(project, session, command), {**base, "CORTEX_NOW": instant})
    if number % 4 == 1:
        ok("recall", "orders service port 8080", env={**base, "CORTEX_NOW": iso(when.replace(hour=11))})
    end = {"session_id": session, "transcript_path": "", "cwd": str(project),
           "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
    _hook("cortex-session-end", end, {**base, "CORTEX_NOW": iso(when)})


def _call(project: Path, session: str, command: str) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "", "cwd": str(project),
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "demo"}}  # fmt: skip


def _hook(name: str, payload: dict[str, Any], env: dict[str, str]) -> None:
    result = run(name, stdin=payload, env=env)
    assert result.code == 0, (name, result.stderr)


def _proposals(project: Path, base: dict[str, str]) -> None:
    env = {**base, "CORTEX_NOW": iso(END)}
    correction = Transcript("demo-c1").bash("yarn add lodash").prompt("don't use yarn, use pnpm add")
    ok("capture", "--transcript", str(correction.write(project / "c1.jsonl")), env=env)
    for session in ("demo-m1", "demo-m2"):
        transcript = Transcript(session).prompt("run the checks")
        transcript.bash("make check", "make: *** No rule to make target 'check'.  Stop.", code=2)
        transcript.bash("make test", "all passed")
        ok("capture", "--transcript", str(transcript.write(project / f"{session}.jsonl")), env=env)


def report(project: Path, database: Path, out: Path, *extra: str) -> None:
    env = {"CORTEX_DB": str(database), "CLAUDE_PROJECT_DIR": str(project), "CORTEX_NOW": REPORTED,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # fmt: skip
    ok("report", "--out", str(out), *extra, env=env)


def main(target: str) -> None:
    """Build the demo in a temporary folder and screenshot its report into `target`."""
    import tempfile

    from browser import BrowserUnavailable, screenshot

    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "shop"
        project.mkdir()
        database = build(project)
        page = project / "report.html"
        report(project, database, page)
        try:
            screenshot(page, Path(target))
        except BrowserUnavailable as error:
            sys.exit(f"report_demo: {error}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/report.png")
