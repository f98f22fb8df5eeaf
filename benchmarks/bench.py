"""Whole-process benchmark of the three hooks against a clean venv's `python -c pass`.

Run it from a checkout (any Python >= 3.11; it needs only the standard library):

    python3 benchmarks/bench.py                 # 15 runs per case, prints a markdown table
    python3 benchmarks/bench.py --quick         # 5 runs per case
    python3 benchmarks/bench.py --check         # exit 1 when a goal is missed (else always 0)
    python3 benchmarks/bench.py --venv DIR      # use (or create) this venv, not a temp one
    python3 benchmarks/bench.py --only lifecycle --only reflect   # only these cases

What it does:
1. Creates a clean virtual environment and installs the checkout into it NON-editable
   (`pip install REPO`): an editable install adds import-time overhead, and the base interpreter
   loads site-wide start-up files, so the baseline is that venv's `python -c pass`.
2. Builds databases of 10, 1,000 and 10,000 learnings through the package's own code path
   (`cortex-hooks import FILE`): literals, alternations, `(?i)`, anchors, character classes, a few
   patterns with no literal at all on narrow tool matchers, every target and tool-matcher form,
   a share of auto-block learnings; then 1,000 past sessions written with sqlite3 straight into
   the `session` table, and a 100 MB transcript in Claude Code's JSONL format.
3. Runs each hook as a whole process (payload on stdin, CORTEX_DB set) in alternation with the
   baseline, one warm-up pair plus N timed pairs, and prints per case: median and min-max
   wall time, the median of the paired ratios hook/baseline, the goal, PASS/FAIL and the peak
   RSS of the hook process.

The timed runs are spawned by a small measuring process (this script with `--measure`, run by the
venv's interpreter): Linux counts a spawned child's peak RSS from its parent's, so spawning from
the large preparing process would overstate every figure. The baseline row shows that floor.
"""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import random
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SIZES = (10, 1_000, 10_000)
NO_MATCH_COMMAND = "cd /home/dev/proj && python3 -m pytest -q tests/test_smoke.py 2>&1 | tail -n 20"
DENY_COMMAND = "git push --force origin main"
# plugin/bin/cortex-launch's PreToolUse before its environment exists (hooks/packs_only)
PACKS_ONLY = (
    "import sys; sys.path.insert(0, sys.argv[1]); from cortex_hooks.hooks.packs_only import main; "
    "sys.exit(main())"
)
REWRITE_COMMAND = "cd web && npm install left-pad"
# commands the reader must read whole before the denied segment at their end.
HEREDOC_COMMAND = (
    "cat > docs/notes.md <<'EOF'\n"
    + "A line of the notes: `git push --force` and rm -rf / are quoted here, never run.\n" * 12_800
    + "EOF\n"
    + DENY_COMMAND
)
CHAIN_COMMAND = " && ".join([*(f"test -f build/step_{number}.done" for number in range(4_999)), DENY_COMMAND])
# Issue 37, with every pack enabled: a deny of each new pack's kind, and the bad input of the issue.
PACKS_DENY_COMMAND = "kubectl delete namespace staging"
SQL_HEREDOC_COMMAND = (
    "psql -d app <<'SQL'\n"
    + "INSERT INTO audit (id, note) VALUES (1, 'a note that says drop table, only as text');\n" * 13_000
    + "DROP TABLE users;\nSQL\n"
)
PIPELINE_COMMAND = " | ".join([*(["grep -v -e skip"] * 9_999), "xargs rm -rf"])
MEMORY_GOAL_MIB = 50.0
TIMES, DASH = "\u00d7", "\u2013"


# ---------------------------------------------------------------------------------------------
# Measuring (runs in the small `--measure` process: imports nothing beyond os, sys, time, json)


def _spawn(argv: list[str], env: dict[str, str], stdin: str, out: str, err: str) -> list[Any]:
    """One process to completion: [seconds, peak RSS KiB, exit code]."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _pid, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    return [elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status)]


def _read(path: str, limit: int = 4000) -> str:
    with open(path, "rb") as stream:
        return stream.read(limit).decode("utf-8", "replace")


def _restore(source: str, target: str) -> None:
    """A database as it was prepared: its file copied back, any WAL beside it removed."""
    for suffix in ("-wal", "-shm"):
        if os.path.exists(target + suffix):
            os.remove(target + suffix)
    with open(source, "rb") as reading, open(target, "wb") as writing:
        while chunk := reading.read(1 << 20):
            writing.write(chunk)


def _settled(database: str) -> None:
    """Wait for the capture worker a SessionEnd of the run before left at work on this database (it
    holds the database's capture lock, cortex_hooks.capture.worker): the next run is neither timed
    beside it nor given a database it is still writing."""
    import fcntl

    with open(database + ".capture.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)


def measure(plan_path: str, result_path: str) -> int:
    """Run every case of a plan in alternation with the baseline; write the raw results."""
    import shutil

    with open(plan_path, encoding="utf-8") as stream:
        plan = json.load(stream)
    work, runs, baseline = plan["work"], plan["runs"], plan["baseline"]
    out, err, empty = (os.path.join(work, name) for name in ("out", "err", "empty"))
    results = []
    for case in plan["cases"]:
        stdin = os.path.join(work, "stdin")
        hook: list[list[Any]] = []
        base: list[list[Any]] = []
        outputs: list[dict[str, Any]] = []
        for number in range(runs + 1):  # run 0 is the warm-up: checked, not timed
            if case.get("fresh"):  # every run starts from the same database (outside the timing)
                _settled(case["database"])
                _restore(case["fresh"], case["database"])
                shutil.rmtree(case["kept"], ignore_errors=True)  # and the keeper's state of it: else
                # each run would find it changed by another
                shutil.copytree(case["fresh"] + ".kept", case["kept"], dirs_exist_ok=True)
            payload = case["payload"].replace("@SESSION@", f"bench-{os.getpid()}-{number:04d}")
            with open(stdin, "w", encoding="utf-8") as stream:
                stream.write(payload)
            pair = []
            for which in ("base", "hook") if number % 2 else ("hook", "base"):
                if which == "base":
                    pair.append(("base", _spawn(baseline, case["env"], empty, out, err)))
                else:
                    pair.append(("hook", _spawn(case["argv"], case["env"], stdin, out, err)))
                    run = pair[-1][1]
                    if number == 0 or run[2] != 0:
                        outputs.append({"code": run[2], "stdout": _read(out), "stderr": _read(err)})
            if number:
                for which, run in pair:
                    (base if which == "base" else hook).append(run)
        results.append({"name": case["name"], "hook": hook, "base": base, "outputs": outputs})
    with open(result_path, "w", encoding="utf-8") as stream:
        json.dump(results, stream)
    return 0


# ---------------------------------------------------------------------------------------------
# Preparing: the venv, the data


def make_venv(path: str | None, work: str) -> str:
    """A clean venv with the checkout installed non-editable; its directory."""
    import subprocess

    venv = path or os.path.join(work, "venv")
    python = os.path.join(venv, "bin", "python")
    reused = os.path.exists(python)
    if not reused:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, REPO], check=True, **_quiet())
    if reused:  # the same version number: make sure this checkout's code is what runs
        subprocess.run([*pip, "--force-reinstall", "--no-deps", REPO], check=True, **_quiet())
    return venv


def _quiet() -> dict[str, Any]:
    import subprocess

    return {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


WORDS = [
    "billing",
    "invoice",
    "ledger",
    "payments",
    "staging",
    "orders",
    "accounts",
    "tenants",
    "oauth",
    "cache",
    "redis",
    "kafka",
    "queue",
    "worker",
    "scheduler",
    "cron",
    "backup",
    "reports",
    "analytics",
    "metrics",
    "grafana",
    "nginx",
    "gateway",
    "catalog",
    "inventory",
    "shipping",
    "warehouse",
    "pricing",
    "coupons",
    "checkout",
    "cart",
    "avatar",
    "upload",
    "media",
    "thumbnails",
    "mailer",
    "webhook",
    "stripe",
    "paypal",
    "audit",
    "compliance",
    "gdpr",
    "schema",
    "org",
    "team",
    "sandbox",
    "feature",
    "flags",
    "rollout",
    "canary",
    "replica",
    "shard",
    "vault",
    "secrets",
    "ingest",
    "etl",
    "pipeline",
    "dashboard",
    "alerts",
    "pager",
    "fulfilment",
    "refunds",
    "ledgerd",
    "geo",
    "locale",
    "i18n",
    "search_v2",
    "notifier",
    "uploader",
    "exporter",
]
PACKAGES = [
    "requests",
    "django",
    "flask",
    "numpy",
    "pandas",
    "boto3",
    "lodash",
    "react",
    "axios",
    "express",
    "webpack",
]
FUNCS = ["legacy_call", "old_fetch", "raw_query", "unsafe_load", "sync_get", "deprecated_init"]
EXCEPTIONS = ["Key", "Value", "Attribute", "Index", "Lookup", "Runtime", "Import", "OS"]

Spec = tuple[str | None, str, str, str]  # regex, tool, target, short anti-pattern


def _pattern(rng: random.Random) -> Spec:
    """One realistic learning's regex, tool matcher, target and anti-pattern text."""
    w, n = rng.choice(WORDS), rng.randrange(1, 999)
    kind = rng.choices(range(32), weights=[4] * 27 + [1, 1, 1, 1, 2])[0]
    specs: list[Spec] = [
        (rf"git push (-f|--force)\s+\S+\s+{w}-{n}", "Bash", "content", f"force-push to {w}"),
        (rf"rm\s+-(rf|fr)\s+/(srv|var|opt)/{w}\b", "Bash", "content", f"rm -rf of {w} data"),
        (rf"(?i)drop\s+(table|database)\s+{w}_{n}", "*", "content", f"dropping {w}_{n}"),
        (rf"^sudo\s+systemctl\s+(stop|disable)\s+{w}", "Bash", "content", f"stopping {w}"),
        (rf"pip install {rng.choice(PACKAGES)}=={n % 9}\.\d+", "Bash", "content", "old pin"),
        (rf"npm (i|install|add) {rng.choice(PACKAGES)}@{n}", "Bash|PowerShell", "content", "pin"),
        (rf"curl [^|]*{w}[^|]*\|\s*(ba|z)?sh", "Bash", "content", f"curl {w} | sh"),
        (rf"chmod\s+(777|a\+rwx)\s+\S*{w}", "Bash", "content", f"chmod 777 on {w}"),
        (rf"docker (run|exec) .*--privileged.*{w}", "Bash", "content", f"privileged {w}"),
        (rf"kubectl delete (ns|namespace) {w}-{n}", "Bash", "content", f"deleting ns {w}"),
        (rf"\b{w}_{rng.choice(FUNCS)}\(", "Edit|Write", "content", f"{w} legacy API"),
        (rf"from {w}\.v{n} import \*", "Edit|Write|MultiEdit", "content", "star import"),
        (rf"(?i){w}_(password|secret|token)\s*=\s*[\"'][^\"']+[\"']", "*", "content", "secret"),
        (rf"console\.log\([\"']{w}", "Edit|Write", "content", f"debug log in {w}"),
        (rf"[A-Z_]{{3,}}_{w.upper()}_KEY\s*=", "Write", "content", f"hard-coded {w} key"),
        (rf"(?m)^\s*#\s*TODO\({w}\)", "Edit", "content", f"TODO({w}) left in"),
        (rf"except\s+{rng.choice(EXCEPTIONS)}Error:\s*pass\b.*{w}", "Edit", "content", "pass"),
        (rf"\.{w}_{n}\s*\[\s*0\s*\]", "Edit|Write", "content", f"indexing {w}_{n}"),
        (rf"(^|/)\.env\.{w}$", "Edit|Write", "path", f".env.{w} edited"),
        (rf"(?i)/secrets?/{w}[^/]*\.(pem|key|json)$", "*", "path", f"{w} secret file"),
        (rf"^/etc/{w}/", "Edit|Write|MultiEdit", "path", f"/etc/{w} edited"),
        (rf"/migrations/\d{{4}}_{w}\.py$", "Edit", "path", f"editing a {w} migration"),
        (rf"/dist/{w}(\.min)?\.js$", "Write", "path", f"writing built {w}.js"),
        (rf"\"run_in_background\":true.*{w}", "Bash", "input", f"{w} in background"),
        (rf"\"replace_all\":true.*\"{w}", "Edit", "input", f"replace_all on {w}"),
        (rf"(?i)select \* from {w}_{n}", "mcp__.*", "input", f"select * from {w}_{n}"),
        (rf"\"repo\":\"{w}-{n}\"", "mcp__github__.*", "input", f"{w}-{n} repo"),
        (r"\w+\s+\w+", rng.choice(["mcp__slack__.*", "NotebookEdit"]), "content", "chatter"),
        (r"^\s*$", "NotebookEdit", "content", "empty cell"),
        (r"[A-Z]{2,}-\d+", "mcp__jira__.*", "input", "ticket ids"),
        (r"(\d{1,3}\.){3}\d{1,3}", "WebFetch", "input", "raw IP address"),
        (None, rng.choice(["*", ""]), "content", f"think about {w} first"),
    ]
    return specs[kind]


CLASSICS: list[dict[str, Any]] = [
    {
        "regex": r"git push (-f|--force)( |$)",
        "tool": "Bash",
        "auto_block": True,
        "anti_pattern": "force-pushing",
        "correct_pattern": "git push --force-with-lease",
    },
    {
        "regex": r"rm\s+-rf\s+/(\s|$)",
        "tool": "Bash",
        "auto_block": True,
        "anti_pattern": "rm -rf /",
        "correct_pattern": "remove the exact directory",
    },
    {
        "regex": r"--no-verify\b",
        "tool": "Bash",
        "auto_block": True,
        "anti_pattern": "skipping hooks",
        "correct_pattern": "fix what the hook reports",
    },
    {
        "regex": r"(?i)\bDROP\s+TABLE\b",
        "tool": "*",
        "severity": "critical",
        "anti_pattern": "DROP TABLE",
        "correct_pattern": "write a migration",
    },
    {
        "regex": r"\beval\(",
        "tool": "Edit|Write",
        "anti_pattern": "eval()",
        "correct_pattern": "ast.literal_eval or a parser",
    },
    {  # a rewrite (the corrected command is checked again against every learning)
        "regex": r"^npm (?:install|i) ",
        "tool": "Bash",
        "rewrite": "pnpm add ",
        "anti_pattern": "npm in a pnpm workspace",
        "correct_pattern": "pnpm add PACKAGE",
    },
]


def learnings(count: int, seed: int = 4) -> list[dict[str, Any]]:
    """`count` learnings in the import format: the classics, then generated ones."""
    import random
    from datetime import UTC, datetime, timedelta

    rng = random.Random(seed)
    now = datetime.now(UTC)
    records: list[dict[str, Any]] = []
    for number in range(count):
        if number < len(CLASSICS):
            record = {"confidence": 0.8, **CLASSICS[number]}
        else:
            regex, tool, target, anti = _pattern(rng)
            record = {
                "regex": regex,
                "tool": tool,
                "target": target,
                "anti_pattern": anti,
                "correct_pattern": f"the project's way: see docs/{rng.choice(WORDS)}.md",
                "severity": rng.choice(["low", "medium", "medium", "high", "critical"]),
                "auto_block": regex is not None and rng.random() < 0.03,
                "pinned": rng.random() < 0.03,
                "confidence": rng.choice(range(30, 91)) / 100,
                "context": rng.choice([None, f"seen in the {rng.choice(WORDS)} service"]),
            }
            if record["auto_block"]:
                record["confidence"] = max(record["confidence"], 0.5)
        age, accesses = rng.choice([(5, 0), (30, 0), (60, 1), (200, 2), (500, 5), (120, 0)])
        if rng.random() > 0.02:  # all but ~2% (old and never used) survive pruning
            accesses = max(accesses, 1 if age < 365 else 3)
        created = now - timedelta(days=rng.uniform(0, age))
        record.update(
            access_count=accesses,
            created_at=created.isoformat(timespec="seconds").replace("+00:00", "Z"),
            updated_at=created.isoformat(timespec="seconds").replace("+00:00", "Z"),
            last_accessed=now.isoformat(timespec="seconds").replace("+00:00", "Z") if accesses else None,
            archived_at=None,
        )
        if record.get("tool") == "*":  # the default; an explicit "*" is refused at this commit
            del record["tool"]
        records.append(record)
    return records


TEAM_LINES = 1_000


def team_lines(count: int, seed: int = 11) -> list[str]:
    """A team file of `count` learnings: realistic regexes, a share blocking, canonical."""
    import random

    rng = random.Random(seed)
    lines: list[str] = []
    while len(lines) < count:
        regex, tool, target, anti = _pattern(rng)
        if regex is None:
            continue
        number = len(lines)
        entry = {
            "action": "block" if rng.random() < 0.2 else "warn",
            "anti_pattern": f"{anti} (team rule {number})",
            "correct_pattern": "the team's way: see CONTRIBUTING.md",
            "id": f"acme:rule-{number:04d}",
            "regex": regex,
            "target": target,
            "tool": tool or "*",
        }
        lines.append(json.dumps(entry, sort_keys=True) + "\n")
    return lines


def team_project(venv: str, case: dict[str, Any], work: str) -> None:
    """The case's project folder with a 1,000-line team file: trusted (`trusted`), trusted and then
    changed on disk (`changed`: one line edited, so every run is the first call after a change), or
    never read into the database (`new`: a clone's first read)."""
    import subprocess

    project = os.path.join(os.path.dirname(os.path.dirname(case["database"])), "proj")
    os.makedirs(os.path.join(project, ".claude"), exist_ok=True)
    path = os.path.join(project, ".claude", "cortex-team.jsonl")
    lines = team_lines(TEAM_LINES)
    with open(path, "w", encoding="utf-8") as stream:
        stream.writelines(lines)
    case["env"]["CLAUDE_PROJECT_DIR"] = project
    if case["team"] != "new":
        done = subprocess.run(
            [os.path.join(venv, "bin", "cortex-hooks"), "team", "trust"],
            capture_output=True,
            text=True,
            env=case["env"],
            cwd=project,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"bench: team trust failed: {done.stderr.strip()}")
    if case["team"] == "changed":  # a teammate edited one line; the database read the file before
        lines[TEAM_LINES // 2] = lines[TEAM_LINES // 2].replace("the team's way", "the team's new way")
        with open(path, "w", encoding="utf-8") as stream:
            stream.writelines(lines)


EXAMPLED = 1_000  # learnings whose examples doctor proves (within 3 s)


def exampled(count: int) -> list[dict[str, Any]]:
    """`count` Bash learnings, each with a deny and an allow example, as a person writes
    them: a program and its dangerous option."""
    return [
        {
            "regex": rf"^tool{number}\s+--danger\b",
            "tool": "Bash",
            "anti_pattern": f"tool{number} --danger",
            "correct_pattern": f"tool{number} --safe",
            "action": "block",
            "examples": {"deny": [f"tool{number} --danger now"], "allow": [f"tool{number} --safe now"]},
        }
        for number in range(count)
    ]


def build_database(venv: str, path: str, count: int, work: str, examples: int = 0) -> None:
    """A database of `count` learnings (or of `examples` learnings with examples), written by
    `cortex-hooks import`."""
    import subprocess

    source = os.path.join(work, f"learnings-{count}-{examples}.json")
    with open(source, "w", encoding="utf-8") as stream:
        json.dump(learnings(count) + exampled(examples), stream)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    done = subprocess.run(
        [os.path.join(venv, "bin", "cortex-hooks"), "import", source, "--db", path],
        capture_output=True,
        text=True,
        env=_env(venv, path, work),
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: import of {count} learnings failed: {done.stderr.strip()}")


def enable_packs(venv: str, path: str, work: str) -> None:
    """Every shipped pack enabled in the database at `path` (created when there is none)."""
    import subprocess

    os.makedirs(os.path.dirname(path), exist_ok=True)
    cli = os.path.join(venv, "bin", "cortex-hooks")
    listed = subprocess.run(
        [cli, "packs", "--json", "--db", path], capture_output=True, text=True, check=True
    )
    for item in json.loads(listed.stdout):
        done = subprocess.run(
            [cli, "packs", "enable", item["name"], "--db", path],
            capture_output=True,
            text=True,
            env=_env(venv, path, work),
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"bench: packs enable {item['name']} failed: {done.stderr.strip()}")


def add_sessions(path: str, count: int) -> None:
    """`count` past sessions, written with sqlite3 into the `session` table directly."""
    import random
    import sqlite3
    from contextlib import closing
    from datetime import UTC, datetime, timedelta

    rng = random.Random(5)
    now = datetime.now(UTC)
    with closing(sqlite3.connect(path)) as connection:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(session)")}
        rows = []
        for number in range(count):
            start = now - timedelta(days=count - number, minutes=rng.randrange(600))
            end = start + timedelta(minutes=rng.randrange(5, 300))
            files = [
                {
                    "file": f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py",
                    "action": rng.choice(["Write", "Edit", "MultiEdit"]),
                }
                for _ in range(rng.randrange(0, 8))
            ]
            rows.append(
                {
                    "id": f"{number:08x}-0000-4000-8000-{rng.getrandbits(48):012x}",
                    "source": rng.choice(["startup", "resume", "clear", "compact"]),
                    "started_at": start.isoformat(timespec="seconds").replace("+00:00", "Z"),
                    "ended_at": end.isoformat(timespec="seconds").replace("+00:00", "Z"),
                    "reason": rng.choice(["clear", "logout", "prompt_input_exit", "other"]),
                    "summary": f"Fix the {rng.choice(WORDS)} {rng.choice(WORDS)} handling "
                    * rng.randrange(1, 6),
                    "key_changes": json.dumps(files),
                }
            )
        names = [name for name in rows[0] if name in columns]
        with connection:
            connection.executemany(
                f"INSERT INTO session ({', '.join(names)}) "
                f"VALUES ({', '.join(':' + name for name in names)})",
                rows,
            )
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


MEMORY_TYPES = ("architecture", "decision", "pattern", "gotcha", "progress", "context")
RECALL_QUERY = "which queue do the billing retries go through"
REMEMBERED = (
    "The billing retries go through the kafka orders queue with three attempts and a dead letter topic"
)


def add_memories(path: str, count: int, seed: int) -> None:
    """`count` memories written with sqlite3 into the `memory` table of a migrated database (the
    schema's triggers index them, as the CLI's writes are). Developer notes: a few of WORDS, then
    words of a 5,000-word vocabulary drawn with Zipf's law (a real project's notes name files,
    services and flags; a handful of words in every note would be no project's memory)."""
    import random
    import sqlite3
    from contextlib import closing

    rng = random.Random(seed)
    vocabulary = [*WORDS, *(f"{rng.choice(WORDS)}{n}" for n in range(5_000))]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    verbs = ("goes through", "is configured in", "must never touch", "depends on", "replaced", "caches")
    rows = []
    for _ in range(count):
        words = rng.choices(vocabulary, weights, k=rng.randrange(6, 18))
        content = f"The {words[0]} {rng.choice(verbs)} the {words[1]} {words[2]}: " + " ".join(words[3:])
        stamp = f"2026-{rng.randrange(1, 12):02d}-{rng.randrange(1, 28):02d}T10:00:00Z"
        rows.append(
            {
                "type": rng.choice(MEMORY_TYPES),
                "content": content,
                "summary": content[:200],
                "priority": rng.randrange(1, 11),
                "confidence": rng.randrange(30, 91),
                "pinned": int(rng.random() < 0.001),
                "tags": json.dumps(rng.sample(WORDS, 2)),
                "access_count": rng.randrange(0, 20),
                "stamp": stamp,
            }
        )
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executemany(
            """INSERT INTO memory (type, content, summary, priority, confidence, pinned, tags, source,
                   access_count, created_at, updated_at, confirmed_at)
               VALUES (:type, :content, :summary, :priority, :confidence, :pinned, :tags, 'explicit',
                   :access_count, :stamp, :stamp, :stamp)""",
            rows,
        )
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


AUTO_MEMORY_FILES = 500  # recall with Claude Code's auto memory indexed beside 100,000 memories


def write_auto_memory(venv: str, work: str, count: int, seed: int = 11) -> str:
    """A project folder whose Claude Code auto memory (under HOME = work) holds `count` topic
    files as Claude Code writes them, their MEMORY.md index and a CLAUDE.md; the folder's path.
    The memory folder is named by the installed package (install.claude_paths), as recall finds it."""
    import random
    import subprocess

    project = os.path.join(work, "claude-project")
    os.makedirs(os.path.join(project, ".git"), exist_ok=True)
    named = subprocess.run(
        [
            os.path.join(venv, "bin", "python"),
            "-c",
            "import sys; from cortex_hooks.install import claude_paths; "
            "print(claude_paths.auto_memory(sys.argv[1]))",
            project,
        ],
        env={"HOME": work, "PATH": os.defpath},
        capture_output=True,
        text=True,
        check=True,
    )
    folder = named.stdout.strip()
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(seed)
    vocabulary = [*WORDS, *(f"{rng.choice(WORDS)}{n}" for n in range(2_000))]
    kinds = ("user", "feedback", "project", "reference")
    index = []
    for number in range(count):
        words = rng.choices(vocabulary, k=rng.randrange(30, 120))
        name = f"{rng.choice(kinds)}_{words[0]}_{number}"
        description = " ".join(words[:8])
        body = " ".join(words[8:]) + f"\n**Why:** {' '.join(rng.choices(vocabulary, k=12))}\n"
        if number % 10 == 0:  # one in ten a rule capture reads (SessionEnd's case)
            body += f"Never run `{words[1]} deploy --force`; use `make deploy`.\n"
        with open(os.path.join(folder, f"{name}.md"), "w", encoding="utf-8") as stream:
            stream.write(
                f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: feedback\n---\n\n{body}"
            )
        index.append(f"- [{description}]({name}.md) — {words[1]}")
    with open(os.path.join(folder, "MEMORY.md"), "w", encoding="utf-8") as stream:
        stream.write("\n".join(index) + "\n")
    with open(os.path.join(project, "CLAUDE.md"), "w", encoding="utf-8") as stream:
        stream.write("# Project\n\n## Commands\n- make check\n\n## Style\nSmall modules.\n")
    return project


CONSOLIDATED = (1_000, 10_000, 100_000)  # sizes of the consolidate cases
FLAGGED_PAIRS = 100


def add_flagged_pairs(path: str, pairs: int) -> None:
    """A copy of each of the first `pairs` memories, each flagged with its original for
    consolidation, as `remember` flags a memory stored twice."""
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as connection, connection:
        for (memory_id,) in connection.execute(
            "SELECT id FROM memory ORDER BY id LIMIT ?", (pairs,)
        ).fetchall():
            copy = connection.execute(
                """INSERT INTO memory (type, content, summary, priority, confidence, tags, source,
                       created_at, updated_at, confirmed_at)
                   SELECT type, content, summary, priority, confidence, tags, source, created_at,
                       updated_at, confirmed_at FROM memory WHERE id = ?""",
                (memory_id,),
            ).lastrowid
            connection.execute(
                "INSERT INTO consolidation_flag VALUES (?, ?, 1.0, '2026-11-01T00:00:00Z')", (memory_id, copy)
            )
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


KEEP = """import sys
from contextlib import closing
from cortex_hooks import location
from cortex_hooks.keeper import check
from cortex_hooks.store.connection import open_database
for path in sys.argv[1:]:
    with closing(open_database(path)) as connection:
        check.adopt(connection, path, check.watched(path, None))
    print(location.keeper_folder(path))
"""


def keep(venv: str, env: dict[str, str], databases: list[str]) -> list[str]:
    """Each database kept by the keeper, as install keeps a project's: every PreToolUse
    case then pays the keeper's check, as a user's hook does. The keeper's folders."""
    import subprocess

    done = subprocess.run(
        [os.path.join(venv, "bin", "python"), "-c", KEEP, *databases],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: keeping {databases} failed: {done.stderr.strip()}")
    return done.stdout.splitlines()


OUTCOMES_SESSION = "bench-outcomes"


def add_catches(venv: str, database: str, transcript: str, work: str) -> None:
    """A learning that denied the transcript's first 20 calls in session OUTCOMES_SESSION, as
    PreToolUse records them (store.outcomes), their outcomes still open: no later call does the
    job or the correct way, so SessionEnd reads the whole transcript for them."""
    import sqlite3
    import subprocess

    added = subprocess.run(
        [os.path.join(venv, "bin", "cortex-hooks"), "add", "--db", database, "--anti-pattern", "force push",
         "--correct", "`git push --force-with-lease`", "--regex=^git push\\b.*--force(?![\\w-])",
         "--tool", "Bash", "--action", "block", "--json"],
        capture_output=True, text=True, check=True, env=_env(venv, database, work),
    )  # fmt: skip
    learning = json.loads(added.stdout)["id"]
    from contextlib import closing

    # closed, and its WAL written back: a fresh case's runs restore the main file alone (_restore)
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.executemany(
            """INSERT INTO outcome (learning_id, session_id, call_id, answer, at, tool, call, jobs,
                   transcript, offset) VALUES (?, ?, ?, 'deny', '2026-11-21T23:06:19Z', 'Bash',
                   'git push --force', '["git push"]', ?, 0)""",
            [(learning, OUTCOMES_SESSION, f"toolu_{turn:08d}", transcript) for turn in range(1, 21)],
        )
    with closing(sqlite3.connect(database)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def copy_database(source: str, target: str) -> None:
    """A private copy of a database (main file and any WAL) for one case."""
    import shutil

    os.makedirs(os.path.dirname(target), exist_ok=True)
    for suffix in ("", "-wal"):
        if os.path.exists(source + suffix):
            shutil.copy2(source + suffix, target + suffix)


def write_transcript(path: str, megabytes: int) -> int:
    """A Claude Code transcript of about `megabytes` MB, streamed to disk; files it changes."""
    import random
    import uuid

    rng = random.Random(6)
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    common = {
        "userType": "external",
        "entrypoint": "cli",
        "cwd": "/home/dev/proj",
        "sessionId": session,
        "version": "2.1.197",
        "gitBranch": "main",
    }
    files: set[str] = set()
    parent: str | None = None
    size, target, turn = 0, megabytes * 1_000_000, 0
    code_line = "    result = {w}_handler(request, retries=3)  # retries as the SLA says\n"

    def line(record: dict[str, Any]) -> str:
        nonlocal parent
        record_id = str(uuid.UUID(int=rng.getrandbits(128)))
        record.update(
            parentUuid=parent,
            isSidechain=False,
            uuid=record_id,
            timestamp="2026-11-21T23:06:19.345Z",
            **common,
        )
        parent = record_id
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"

    def assistant(content: list[dict[str, Any]]) -> str:
        message = {
            "id": f"msg_{turn:06d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-8",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 19085, "output_tokens": 120},
        }
        return line({"message": message, "requestId": f"req_{turn}", "type": "assistant"})

    def result(tool_id: str, text: str, error: bool = False) -> str:
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": text}
        if error:
            block["is_error"] = True
        return line({"type": "user", "message": {"role": "user", "content": [block]}, "toolUseResult": text})

    with open(path, "w", encoding="utf-8") as stream:
        prompt = {"role": "user", "content": "Add retries to the billing client — and a test"}
        size += stream.write(line({"type": "user", "message": prompt}))
        while size < target:
            turn += 1
            w = rng.choice(WORDS)
            file = f"/home/dev/proj/src/{w}/{rng.choice(WORDS)}_{turn % 400}.py"
            long_write = turn % 9000 == 4500  # a few Writes of several MB
            body = code_line.replace("{w}", w) * (40000 if long_write else rng.randrange(5, 60))
            kind = ("Write", "Edit", "Bash")[turn % 3]
            tool_input: dict[str, Any] = {
                "Write": {"file_path": file, "content": body},
                "Edit": {"file_path": file, "old_string": body[:80], "new_string": body[:160]},
                "Bash": {"command": f"python3 -m pytest -q tests/test_{w}.py", "description": "t"},
            }[kind]
            if kind != "Bash":
                files.add(file)
            tool_id = f"toolu_{turn:08d}"
            chunks = [
                assistant([{"type": "text", "text": f"Now {w}: I will {kind.lower()} it."}]),
                assistant([{"type": "tool_use", "id": tool_id, "name": kind, "input": tool_input}]),
                result(
                    tool_id,
                    f"The file {file} has been updated successfully."
                    if kind != "Bash"
                    else "Exit code 1\nFAILED tests",
                    kind == "Bash",
                ),
            ]
            for chunk in chunks:
                size += stream.write(chunk)
    return len(files)


def _env(venv: str, database: str, work: str, user: str | None = None) -> dict[str, str]:
    return {
        "PATH": os.path.join(venv, "bin") + os.pathsep + os.defpath,
        "HOME": work,
        "LANG": "C.UTF-8",
        "CORTEX_DB": database,
        "CORTEX_GLOBAL_DB": user or os.path.join(work, "no-global", "cortex-global.db"),
    }


# ---------------------------------------------------------------------------------------------
# The cases


def _payload(event: str, **fields: Any) -> str:
    return json.dumps(
        {
            "session_id": "@SESSION@",
            "transcript_path": "/home/dev/.claude/projects/-home-dev-proj/none.jsonl",
            "cwd": "/home/dev/proj",
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
    )


def _bash(command: str) -> str:
    return _payload(
        "PreToolUse",
        tool_name="Bash",
        tool_use_id="toolu_bench",
        tool_input={"command": command, "description": "Run the smoke tests"},
    )


# Each agent's PreToolUse payload of a shell command (tests/fixtures/agents/: captured from the
# clients; Cursor's from its documentation).
AGENT_PAYLOADS: dict[str, dict[str, Any]] = {
    "codex": {
        "session_id": "@SESSION@",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": "/home/dev/proj",
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_use_id": "call_bench",
    },
    "gemini": {
        "session_id": "@SESSION@",
        "transcript_path": None,
        "cwd": "/home/dev/proj",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-28T00:48:55.106Z",
        "tool_name": "run_shell_command",
    },
    "copilot": {
        "sessionId": "@SESSION@",
        "timestamp": 1795826950496,
        "cwd": "/home/dev/proj",
        "toolName": "bash",
    },
    "cursor": {
        "conversation_id": "@SESSION@",
        "generation_id": "g",
        "hook_event_name": "preToolUse",
        "workspace_roots": ["/home/dev/proj"],
        "cwd": "/home/dev/proj",
        "tool_name": "Shell",
        "tool_use_id": "t",
    },
}


def _agent_payload(agent: str, command: str) -> str:
    arguments = {"command": command, "description": "Run the smoke tests"}
    key = "toolArgs" if agent == "copilot" else "tool_input"
    return json.dumps({**AGENT_PAYLOADS[agent], key: arguments})


def _rpc(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


# What Claude Code sends a server it has just spawned (then end of input: the server exits).
MCP_LIST = (
    _rpc(0, "initialize", {"protocolVersion": "2025-11-25", "clientInfo": {"name": "bench"}})
    + _rpc(None, "notifications/initialized")
    + _rpc(1, "tools/list")
)


def cases(venv: str, work: str, transcript: str, small_transcript: str) -> list[dict[str, Any]]:
    """Every case: name, learnings, command, payload, goal, what a correct run looks like."""
    import shutil

    scripts = os.path.join(venv, "bin")
    python = os.path.join(scripts, "python")
    floor = "import json, sqlite3, sys; json.loads(sys.stdin.buffer.read())"
    found: list[dict[str, Any]] = [
        {
            "name": "floor: `import json, sqlite3` + parse payload",
            "size": None,
            "argv": [python, "-c", floor],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000",
            "goal": None,
            "expect": "silent",
        },
    ]
    for size in SIZES:
        found.append(
            {
                "name": "PreToolUse, no match",
                "size": size,
                "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
                "payload": _bash(NO_MATCH_COMMAND),
                "db": str(size),
                "goal": ("ratio", 2.5),  # the no-match path never reads the command
                "expect": "silent",
            }
        )
    for agent in AGENT_PAYLOADS:  # every agent's hook, through its adapter
        found.append(
            {
                "name": f"PreToolUse, no match, --agent {agent}",
                "size": 10_000,
                "argv": [os.path.join(scripts, "cortex-pre-tool-use"), "--agent", agent],
                "payload": _agent_payload(agent, NO_MATCH_COMMAND),
                "db": "10000",
                "goal": ("ratio", 2.5),
                "expect": "{}" if agent == "cursor" else "silent",
            }
        )
    hook_end = os.path.join(scripts, "cortex-session-end")
    cli = os.path.join(scripts, "cortex-hooks")
    found += [
        {
            "name": "PreToolUse, no match, both scopes",
            "size": "10,000 + 10,000 global",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000",
            "global": "10000",
            "goal": ("ratio", 2.5),
            "expect": "silent",
        },
        {
            "name": "PreToolUse, no match, a trusted 1,000-line team file",
            "size": "10,000 + 10,000 global",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000",
            "global": "10000",
            "team": "trusted",
            "goal": ("ratio", 2.5),  # the file is not parsed on each call
            "expect": "silent",
        },
        {
            "name": "PreToolUse, first call after the team file changed (1,000 lines, one edited)",
            "size": "10,000 + 10,000 global",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000",
            "global": "10000",
            "team": "changed",
            "fresh": True,
            "goal": ("ratio", 8.0),  # issue 26
            "expect": "silent",
        },
        {
            "name": "PreToolUse, first read of a 1,000-line team file (a clone's first call)",
            "size": "10,000 + 10,000 global",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000",
            "global": "10000",
            "team": "new",
            "fresh": True,
            "goal": None,  # said, not a goal: `team trust` does this read in a clone
            "expect": "silent",
        },
        {
            "name": "`cortex-hooks recall`",
            "size": "100,000 + 10,000 global memories",
            "argv": [cli, "recall", RECALL_QUERY],
            "payload": "",
            "db": "memories",
            "global": "memories-global",
            "goal": ("ratio", 15.0),
            "expect": "ok",
        },
        {
            "name": f"`cortex-hooks recall`, {AUTO_MEMORY_FILES} auto-memory files indexed",
            "size": "100,000 + 10,000 global memories",
            "argv": [cli, "recall", RECALL_QUERY],
            "payload": "",
            "db": "memories",
            "global": "memories-global",
            "claude_project": True,  # the warm-up run indexes the files; the timed runs find them in step
            "goal": ("ratio", 15.0),
            "expect": "ok",
        },
        {
            "name": f"`cortex-hooks recall`, {AUTO_MEMORY_FILES} auto-memory files to index (first recall)",
            "size": "100,000 + 10,000 global memories",
            "argv": [cli, "recall", RECALL_QUERY],
            "payload": "",
            "db": "memories",
            "global": "memories-global",
            "claude_project": True,
            "fresh": True,  # every run starts from a database that has indexed none of them
            "goal": None,
            "expect": "ok",
        },
        {
            "name": "`cortex-hooks remember` (auto-link)",
            "size": "100,000 memories",
            "argv": [cli, "remember", REMEMBERED],
            "payload": "",
            "db": "memories",
            "goal": ("ratio", 15.0),
            "expect": "ok",
        },
        {
            "name": "SessionEnd (decay + surface)",
            "size": "100,000 memories",
            "argv": [hook_end],
            "payload": _payload("SessionEnd", reason="other", transcript_path=small_transcript),
            "db": "memories",
            "goal": ("ratio", 20.0),
            "expect": "ok",
        },
        *(
            {
                # Goal: 100 flagged pairs merged in 100,000 memories, checkpoint included, at most 40 times.
                "name": f"`cortex-hooks consolidate` ({FLAGGED_PAIRS} flagged pairs, checkpoint)",
                "size": f"{size:,} memories",
                "argv": [cli, "consolidate"],
                "payload": "",
                "db": f"consolidate{size}",
                "goal": ("ratio", 40.0),
                "expect": "ok",
                "fresh": True,
            }
            for size in CONSOLIDATED
        ),
        {
            "name": "MCP server: spawn, `initialize`, `tools/list`",
            "size": "—",
            "argv": [cli, "mcp"],
            "payload": MCP_LIST,
            "db": "10000",
            "goal": ("seconds", 0.3),  # once per server: the schemas built from the models at tools/list
            "expect": "tools",
        },
        {
            "name": "PreToolUse, a match that denies",
            "size": 10_000,
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(DENY_COMMAND),
            "db": "10000",
            "goal": (
                "ratio",
                5.0,
            ),  # the command reader's import and reading, and the history, included
            "expect": "deny",
        },
        *(
            {  # the plugin's launcher runs it while its environment is made: the person's python3
                "name": f"Plugin not set up yet: PreToolUse by the core packs alone, {said}",
                "size": None,
                "argv": [python, "-I", "-c", PACKS_ONLY, os.path.join(REPO, "plugin")],
                "payload": _bash(command),
                "db": "10",
                "goal": None,  # only until the environment is made: measured, not held to a goal
                "expect": expect,
            }
            for said, command, expect in (
                ("no match", NO_MATCH_COMMAND, "silent"),
                ("a deny", DENY_COMMAND, "deny"),
            )
        ),
        {
            "name": "PreToolUse, no match, every pack enabled",
            "size": "10,000 + every pack",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(NO_MATCH_COMMAND),
            "db": "10000packs",
            "goal": ("ratio", 2.5),  # issue 37
            "expect": "silent",
        },
        {
            "name": "PreToolUse, a pack's deny, every pack enabled",
            "size": "every pack",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(PACKS_DENY_COMMAND),
            "db": "packs",
            "goal": ("ratio", 3.5),  # issue 37
            "expect": "deny",
        },
        {
            "name": "PreToolUse, a 1 MB SQL heredoc to psql, every pack enabled",
            "size": "every pack",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(SQL_HEREDOC_COMMAND),
            "db": "packs",
            "goal": ("seconds", 0.15),  # issue 37's bad input
            "expect": "deny",
        },
        {
            "name": "PreToolUse, 10,000 pipeline stages ending in xargs rm -rf, every pack enabled",
            "size": "every pack",
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(PIPELINE_COMMAND),
            "db": "packs",
            "goal": ("seconds", 0.15),  # issue 37's bad input
            "expect": "deny",
        },
        {
            "name": "PreToolUse, a match that rewrites (checked again)",
            "size": 10_000,
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(REWRITE_COMMAND),
            "db": "10000",
            "goal": ("ratio", 6.0),  # issue 25
            "expect": "rewrite",
        },
        {
            "name": "PreToolUse, a 1 MB heredoc command, then a denied one",
            "size": 10,
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(HEREDOC_COMMAND),
            "db": "10",
            "goal": ("seconds", 0.15),
            "expect": "deny",
        },
        {
            "name": "PreToolUse, a 5,000-segment chain ending in a denied one",
            "size": 10,
            "argv": [os.path.join(scripts, "cortex-pre-tool-use")],
            "payload": _bash(CHAIN_COMMAND),
            "db": "10",
            "goal": ("seconds", 0.15),
            "expect": "deny",
        },
        {
            "name": "SessionStart (1,000 past sessions)",
            "size": 10_000,
            "argv": [os.path.join(scripts, "cortex-session-start")],
            "payload": _payload("SessionStart", source="startup"),
            "db": "10000",
            "goal": ("ratio", 15.0),
            "expect": "context",
        },
        {
            "name": "SessionEnd (decay, small transcript)",
            "size": 10_000,
            "argv": [hook_end],
            "payload": _payload("SessionEnd", reason="other", transcript_path=small_transcript),
            "db": "10000",
            "goal": ("ratio", 15.0),
            "expect": "ok",
        },
        {
            # the session wrote 500 memory files; the index reads them, capture their rules
            "name": f"SessionEnd, {AUTO_MEMORY_FILES} auto-memory files new since the last session",
            "size": 10_000,
            "argv": [hook_end],
            "payload": _payload("SessionEnd", reason="other", transcript_path=small_transcript),
            "db": "10000",
            "claude_project": True,
            "fresh": True,
            "goal": ("seconds", 1.0),
            "expect": "ok",
        },
        {
            "name": "SessionEnd with capture (100 MB transcript)",  # the worker scans the rest
            "size": 10_000,
            "argv": [hook_end],
            "payload": _payload("SessionEnd", reason="other", transcript_path=transcript),
            "db": "10000",
            "goal": ("seconds", 1.0),
            "expect": "ok",
        },
        {
            # 20 denies at the transcript's start, none decided by what follows: every
            # catch is read to the end (the worst case), with capture's scan and the summary
            "name": "SessionEnd, the outcomes of 20 denies over a 100 MB transcript",
            "size": 10_000,
            "argv": [hook_end],
            "payload": _payload("SessionEnd", reason="other", transcript_path=transcript).replace(
                "@SESSION@", OUTCOMES_SESSION
            ),
            "db": "10000",
            "catches": transcript,
            "fresh": True,
            "goal": ("seconds", 1.5),
            "expect": "ok",
        },
    ]
    found.append(
        {
            "name": "`cortex-hooks doctor`, proving every learning's examples through the judge",
            "size": f"{EXAMPLED:,} learnings",
            "argv": [cli, "doctor"],
            "payload": "",
            "db": "examples",
            "goal": ("seconds", 3.0),  # issue 33
            "expect": "proved",
        }
    )
    found += memory_cases(cli)
    for number, case in enumerate(found):
        database = os.path.join(work, f"case{number}", ".cortex", "cortex.db")
        copy_database(os.path.join(work, f"db{case['db']}", ".cortex", "cortex.db"), database)
        user = None
        if case.get("global"):
            user = os.path.join(work, f"case{number}", "global", "cortex-global.db")
            copy_database(os.path.join(work, f"db{case['global']}", ".cortex", "cortex.db"), user)
        case.update(database=database, env=_env(venv, database, work, user))
        kept = keep(venv, case["env"], [path for path in (database, user) if path])  # as install leaves them
        if case.get("team"):
            team_project(venv, case, work)
        if case.get("catches"):
            add_catches(venv, database, case["catches"], work)
        if case.get("claude_project"):
            case["env"]["CLAUDE_PROJECT_DIR"] = os.path.join(work, "claude-project")
        if case.get("now"):
            case["env"]["CORTEX_NOW"] = case["now"]
        if case.get("fresh"):
            case["fresh"] = os.path.join(work, f"case{number}", "prepared.db")
            copy_database(database, case["fresh"])
            case["kept"] = kept[0]  # the project's keeper folder: restored with its database
            shutil.copytree(kept[0], case["fresh"] + ".kept")
    return found


MEMORY_SIZES = {1_000: "memories-1000", 10_000: "memories-global", 100_000: "memories"}
LAST_PASS = "2026-11-23T00:00:00Z"  # the lifecycle's pass before the measured one (the data's dates: 2026)
NEXT_DAY = "2026-11-24T00:00:00Z"


def memory_cases(cli: str) -> list[dict[str, Any]]:
    """The lifecycle and reflect similar at 1,000, 10,000 and 100,000 memories: growth shows."""
    found: list[dict[str, Any]] = []
    for size in MEMORY_SIZES:
        found.append(
            {
                "name": "`cortex-hooks lifecycle`, a day after the last pass",
                "size": f"{size:,} memories",
                "argv": [cli, "lifecycle"],
                "payload": "",
                "db": f"lifecycle-{size}",
                "now": NEXT_DAY,
                "fresh": True,
                "goal": ("ratio", 20.0),
                "expect": "ok",
            }
        )
    for size, name in MEMORY_SIZES.items():
        found.append(
            {
                "name": "`cortex-hooks reflect similar`",
                "size": f"{size:,} memories",
                "argv": [cli, "reflect", "similar"],
                "payload": "",
                "db": name,
                "goal": ("ratio", 30.0) if size <= 10_000 else None,
                "expect": "ok",
            }
        )
    return found


def last_pass(venv: str, work: str) -> None:
    """Each memory database as a day-old lifecycle pass left it (`lifecycle-N`)."""
    import subprocess

    for size, name in MEMORY_SIZES.items():
        database = os.path.join(work, f"dblifecycle-{size}", ".cortex", "cortex.db")
        copy_database(os.path.join(work, f"db{name}", ".cortex", "cortex.db"), database)
        env = {**_env(venv, database, work), "CORTEX_NOW": LAST_PASS}
        done = subprocess.run(
            [os.path.join(venv, "bin", "cortex-hooks"), "lifecycle", "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"bench: the lifecycle's first pass over {size} memories failed: {done.stderr}")


def problem(expect: str, output: dict[str, Any]) -> str | None:
    """What is wrong with a hook run, or None when it did what the case expects."""
    code, stdout, stderr = output["code"], output["stdout"], output["stderr"]
    if expect == "proved":  # doctor: exit 1 for the wiring a bench folder lacks, never for an example
        proved = "each fires on its deny examples only" in stdout
        return None if proved else f"expected every example proved, got {stdout[-600:]!r}"
    if code != 0:
        return f"exit {code}: {stderr.strip() or '(no stderr)'}"
    if expect == "silent" and (stdout.strip() or stderr.strip()):
        return f"expected no output, got stdout {stdout[:300]!r} stderr {stderr[:300]!r}"
    if expect == "{}" and (stdout.strip() != "{}" or stderr.strip()):  # Cursor: an answer on every path
        return f"expected {{}}, got stdout {stdout[:300]!r} stderr {stderr[:300]!r}"
    if expect == "deny" and '"permissionDecision": "deny"' not in stdout.replace('":"', '": "'):
        return f"expected a deny, got stdout {stdout[:300]!r} stderr {stderr[:300]!r}"
    if expect == "rewrite" and '"updatedInput"' not in stdout:
        return f"expected a rewrite, got stdout {stdout[:300]!r} stderr {stderr[:300]!r}"
    if expect == "tools" and not ('"id": 0' in stdout and '"id": 1, "result": {"tools": [' in stdout):
        return f"expected the replies to initialize and tools/list, got stdout {stdout[:300]!r}"
    if expect == "context" and "additionalContext" not in stdout:
        return f"expected additionalContext, got stdout {stdout[:300]!r}"
    return None


# ---------------------------------------------------------------------------------------------
# The MCP server, running: latency of tools/call and resident memory over many calls

MCP_CALLS = 1_000
MCP_WARM = 200  # calls before the latency sample and the first memory reading
MCP_LATENCY_GOAL = (10.0, 25.0)  # ms: p50, p95
MCP_MEMORY_GOAL_MIB, MCP_GROWTH_MIB = 60.0, 2.0


def _resident_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as stream:
        kib = next(int(line.split()[1]) for line in stream if line.startswith("VmRSS:"))
    return kib / 1024


def mcp_server(venv: str, work: str) -> dict[str, Any]:
    """One `cortex-hooks mcp` on the 100,000 + 10,000 memories: MCP_CALLS recalls, each timed from
    the request written to the reply read; resident memory after MCP_WARM calls and at the end."""
    import statistics
    import subprocess

    database = os.path.join(work, "mcp", ".cortex", "cortex.db")
    user = os.path.join(work, "mcp", "global", "cortex-global.db")
    copy_database(os.path.join(work, "dbmemories", ".cortex", "cortex.db"), database)
    copy_database(os.path.join(work, "dbmemories-global", ".cortex", "cortex.db"), user)
    env = _env(venv, database, work, user)
    server = subprocess.Popen(
        [os.path.join(venv, "bin", "cortex-hooks"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=os.path.dirname(os.path.dirname(database)),
    )
    assert server.stdin is not None
    assert server.stdout is not None
    call = {"name": "cortex_recall", "arguments": {"query": RECALL_QUERY}}
    timings, resident, problem_text = [], [], None
    try:
        server.stdin.write(MCP_LIST.encode())
        server.stdin.flush()
        server.stdout.readline(), server.stdout.readline()
        for number in range(2, MCP_CALLS + 2):
            start = time.perf_counter()
            server.stdin.write(_rpc(number, "tools/call", call).encode())
            server.stdin.flush()
            reply = json.loads(server.stdout.readline())
            elapsed = time.perf_counter() - start
            if reply.get("result", {}).get("isError") is not False and problem_text is None:
                problem_text = f"a recall failed: {json.dumps(reply)[:300]}"
            if number - 2 >= MCP_WARM:
                timings.append(elapsed * 1000)
            if number - 2 + 1 in (MCP_WARM, MCP_CALLS):
                resident.append(_resident_mib(server.pid))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    cuts = statistics.quantiles(timings, n=100)
    p50, p95 = statistics.median(timings), cuts[94]
    growth = resident[-1] - resident[0]
    return {
        "p50": p50,
        "p95": p95,
        "resident": resident,
        "latency_ok": p50 <= MCP_LATENCY_GOAL[0] and p95 <= MCP_LATENCY_GOAL[1],
        "memory_ok": resident[-1] <= MCP_MEMORY_GOAL_MIB and growth <= MCP_GROWTH_MIB,
        "problem": problem_text,
    }


def mcp_table(row: dict[str, Any]) -> str:
    def verdict(ok: bool) -> str:
        return "**ERROR**" if row["problem"] else "PASS" if ok else "**FAIL**"

    first, last = row["resident"]
    return "\n".join(
        [
            f"A running `cortex-hooks mcp`, {MCP_CALLS:,} `tools/call cortex_recall` in a row (the query of "
            "`cortex-hooks recall` above), each timed from request written to reply read; latency "
            f"over the calls after the first {MCP_WARM}.",
            "",
            "| case | data | result | goal | verdict |",
            "|---|---|---|---|---|",
            f"| `tools/call cortex_recall` latency | 100,000 + 10,000 global memories | p50 "
            f"{row['p50']:.1f} ms, p95 {row['p95']:.1f} ms | p50 ≤ {MCP_LATENCY_GOAL[0]:g} ms, p95 ≤ "
            f"{MCP_LATENCY_GOAL[1]:g} ms | {verdict(row['latency_ok'])} |",
            f"| server resident memory | after {MCP_WARM} / {MCP_CALLS:,} calls | {first:.1f} / "
            f"{last:.1f} MiB | ≤ {MCP_MEMORY_GOAL_MIB:g} MiB, growth ≤ {MCP_GROWTH_MIB:g} MiB | "
            f"{verdict(row['memory_ok'])} |",
        ]
    )


def report_mcp_server(venv: str, work: str) -> bool:
    """Measure and print the running server's figures; whether every goal was met."""
    print(f"bench: a running MCP server, {MCP_CALLS:,} calls ...", file=sys.stderr)
    server = mcp_server(venv, work)
    print()
    print(mcp_table(server))
    if server["problem"]:
        print(f"- MCP server: {server['problem']}")
    return bool(server["latency_ok"] and server["memory_ok"] and not server["problem"])


# ---------------------------------------------------------------------------------------------
# Reporting


def summarize(case: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    import statistics

    hook = [run[0] for run in result["hook"]]
    base = [run[0] for run in result["base"]]
    ratio = statistics.median(h / b for h, b in zip(hook, base, strict=True))
    peak = max(run[1] for run in result["hook"]) / 1024
    median = statistics.median(hook)
    problems = [problem(case["expect"], output) for output in result["outputs"]]
    broken = next((text for text in problems if text), None)
    goal = case["goal"]
    if goal is None:
        goal_text, passed = "—", True
    elif goal[0] == "ratio":
        goal_text, passed = f"≤ {goal[1]:g}{TIMES}", ratio <= goal[1]
    else:
        goal_text, passed = f"< {goal[1]:g} s", median < goal[1]
    memory_ok = peak <= MEMORY_GOAL_MIB or goal is None
    return {
        "median": median,
        "low": min(hook),
        "high": max(hook),
        "ratio": ratio,
        "peak": peak,
        "goal": goal_text,
        "pass": passed and memory_ok and broken is None,
        "problem": broken,
        "time_ok": passed,
        "memory_ok": memory_ok,
        "base_median": statistics.median(base),
        "base_peak": max(run[1] for run in result["base"]) / 1024,
    }


def table(rows: list[tuple[dict[str, Any], dict[str, Any]]], runs: int) -> str:
    lines = [
        f"Whole process, {runs} timed runs per case, each paired with the venv's `python -c pass`; "
        "ratio = median of the paired ratios hook/baseline. Memory goal: peak RSS ≤ 50 MiB.",
        "",
        f"| case | data | median ms | min{DASH}max ms | ratio | goal | result | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    first = rows[0][1]
    lines.append(
        f"| baseline: venv `python -c pass` | — | {first['base_median'] * 1000:.1f} | — "
        f"| 1.0{TIMES} | — | — | {first['base_peak']:.1f} |"
    )
    for case, row in rows:
        size = case["size"] if isinstance(case["size"], str) else f"{case['size']:,}" if case["size"] else "—"
        if case["goal"] is None:
            verdict = "—"
        elif row["problem"]:
            verdict = "**ERROR**"
        else:
            why = [] if row["time_ok"] else ["time"]
            why += [] if row["memory_ok"] else ["memory"]
            verdict = "PASS" if row["pass"] else f"**FAIL** ({', '.join(why)})"
        lines.append(
            f"| {case['name']} | {size} | {row['median'] * 1000:.1f} | "
            f"{row['low'] * 1000:.1f}{DASH}{row['high'] * 1000:.1f} | {row['ratio']:.2f}{TIMES} | "
            f"{row['goal']} | {verdict} | {row['peak']:.1f} |"
        )
    return "\n".join(lines)


def machine() -> str:
    import platform

    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            model = next(
                (line.split(":", 1)[1].strip() for line in stream if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    return (
        f"Machine: {model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def transcript_note(case: dict[str, Any], written: int) -> str:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(case["database"])) as connection:
        row = connection.execute(
            "SELECT summary, key_changes FROM session WHERE id LIKE 'bench-%' ORDER BY ended_at DESC LIMIT 1"
        ).fetchone()
        scanned: tuple[int | None, int | None] = connection.execute(
            "SELECT sum(offset), sum(size) FROM capture_scan"
        ).fetchone()
    if row is None:
        return "100 MB transcript: no session row was stored."
    changes = len(json.loads(row[1] or "[]"))
    capture = (
        f" Capture: {(scanned[0] or 0) / 1e6:.0f} of {scanned[1] / 1e6:.0f} MB scanned when the runs ended "
        "(SessionEnd scans until 0.6 s into the hook, the background worker the rest)."
        if scanned[1]
        else " Capture: nothing scanned."
    )
    return (
        f"100 MB transcript: summary {'stored' if row[0] else 'MISSING'}; {changes} key changes "
        f"stored ({written} distinct files written in the transcript).{capture}"
    )


# ---------------------------------------------------------------------------------------------


def arguments(argv: list[str] | None) -> argparse.Namespace:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="timed runs per case (default 15)")
    parser.add_argument("--quick", action="store_true", help="5 runs per case")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--venv", metavar="DIR", help="venv to use or create (default: a temp one)")
    parser.add_argument("--transcript-mb", type=int, default=100, metavar="MB")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--only", action="append", metavar="TEXT", help="only the cases whose name holds TEXT (repeatable)"
    )
    parser.add_argument("--measure", nargs=2, metavar=("PLAN", "RESULT"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def prepare(venv: str, work: str) -> None:
    """The databases every case copies: learnings, sessions, memories, a lifecycle's last pass."""
    print("bench: databases, sessions and transcript ...", file=sys.stderr)
    for size in SIZES:
        database = os.path.join(work, f"db{size}", ".cortex", "cortex.db")
        build_database(venv, database, size, work)
    build_database(venv, os.path.join(work, "dbexamples", ".cortex", "cortex.db"), 0, work, EXAMPLED)
    add_sessions(os.path.join(work, "db10000", ".cortex", "cortex.db"), 1_000)
    print("bench: every pack enabled, alone and beside 10,000 learnings ...", file=sys.stderr)
    copy_database(
        os.path.join(work, "db10000", ".cortex", "cortex.db"),
        os.path.join(work, "db10000packs", ".cortex", "cortex.db"),
    )
    for name in ("10000packs", "packs"):
        enable_packs(venv, os.path.join(work, f"db{name}", ".cortex", "cortex.db"), work)
    print("bench: 100,000 + 10,000 + 1,000 memories ...", file=sys.stderr)
    for name, count, seed in (
        ("memories", 100_000, 7),
        ("memories-global", 10_000, 8),
        ("memories-1000", 1_000, 9),
    ):
        database = os.path.join(work, f"db{name}", ".cortex", "cortex.db")
        build_database(venv, database, 10, work)
        add_memories(database, count, seed)
    last_pass(venv, work)
    print(f"bench: {AUTO_MEMORY_FILES} auto-memory files ...", file=sys.stderr)
    write_auto_memory(venv, work, AUTO_MEMORY_FILES)
    print("bench: memories with flagged pairs ...", file=sys.stderr)
    for size in CONSOLIDATED:
        database = os.path.join(work, f"dbconsolidate{size}", ".cortex", "cortex.db")
        build_database(venv, database, 10, work)
        add_memories(database, size - FLAGGED_PAIRS, 9)
        add_flagged_pairs(database, FLAGGED_PAIRS)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--measure"]:  # before argparse: the measuring process stays small
        return measure(argv[1], argv[2])
    args = arguments(argv)
    import shutil
    import subprocess
    import tempfile

    runs = 5 if args.quick else args.runs
    work = tempfile.mkdtemp(prefix="cortex-bench-")
    try:
        print(f"bench: venv and install of {REPO} ...", file=sys.stderr)
        venv = make_venv(args.venv, work)
        prepare(venv, work)
        transcript = os.path.join(work, "transcript.jsonl")
        written = write_transcript(transcript, args.transcript_mb)
        small = os.path.join(work, "small.jsonl")
        shutil.copyfile(os.path.join(REPO, "tests", "fixtures", "transcript.jsonl"), small)
        plan = cases(venv, work, transcript, small)
        if args.only:
            plan = [plan[0], *(case for case in plan[1:] if any(text in case["name"] for text in args.only))]
        with open(os.path.join(work, "empty"), "w", encoding="utf-8"):
            pass
        plan_path, result_path = os.path.join(work, "plan.json"), os.path.join(work, "result.json")
        baseline = [os.path.join(venv, "bin", "python"), "-c", "pass"]
        with open(plan_path, "w", encoding="utf-8") as stream:
            json.dump({"work": work, "runs": runs, "baseline": baseline, "cases": plan}, stream)
        print(f"bench: measuring {len(plan)} cases x {runs} runs ...", file=sys.stderr)
        subprocess.run(
            [baseline[0], os.path.abspath(__file__), "--measure", plan_path, result_path],
            check=True,
        )
        with open(result_path, encoding="utf-8") as stream:
            results = json.load(stream)
        rows = [(case, summarize(case, result)) for case, result in zip(plan, results, strict=True)]
        print(machine())
        print()
        print(table(rows, runs))
        print()
        transcript_case = next((case for case in plan if "100 MB" in case["name"]), None)
        if transcript_case is not None:
            print(transcript_note(transcript_case, written))
        for case, row in rows:
            if row["problem"]:
                print(f"- {case['name']} ({case['size']}): {row['problem']}")
        failed = any(not row["pass"] for case, row in rows if case["goal"] is not None)
        if not args.only or any("MCP" in text for text in args.only):
            failed = not report_mcp_server(venv, work) or failed
    finally:
        if args.keep:
            print(f"bench: work directory kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    started = time.monotonic()
    status = main()
    print(f"bench: done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    sys.exit(status)
