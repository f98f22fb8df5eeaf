"""Replay over a long history, through the installed `cortex-hooks` as a whole process.

    python3 benchmarks/bench_replay.py                  # 1,000 transcripts x 200 calls, 3 runs
    python3 benchmarks/bench_replay.py --quick          # 1 run each
    python3 benchmarks/bench_replay.py --check          # exit 1 when a goal is missed
    python3 benchmarks/bench_replay.py --work DIR       # keep (and reuse) the generated history

Goals: `cortex-hooks replay` over 1,000 transcripts of 200 tool calls each (200,000 calls) with
1,000 learnings (bench.py's generated ones, plus the core packs) in at most 60 s on 2 cores, with
memory flat (the peak RSS over 1,000 transcripts within 1.5x of that over 100); the replay of one
proposal over the same history in at most 10 s (its prefilter keys decide which calls are read).
The learnings include a rewrite (bench.py's `npm install` one) and an ask (a download piped into a
shell); the proposal (`pnpmm` for `pnpm`, captured from two sessions) matches a few calls.

The history is Claude Code's transcript format (tests/fixtures/transcript.jsonl): per call an
assistant `tool_use` line and a user `tool_result` line, with prompts and text between; Bash
(half the calls: git, tests, installs, a few that packs or learnings catch), Read with the file's
text as its result, Edit, Write of a few kilobytes, Grep and Glob. The transcripts are about
300 KB each. Wall and CPU times are reported (a loaded machine inflates the one, not the other);
peak RSS is that of the replay and its workers, whichever was largest.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402 (the generated learnings of the hook benchmark)

GOAL_ALL = 60.0  # seconds: 200,000 calls, 1,000 learnings
GOAL_ONE = 10.0  # seconds: one proposal over the same history
GOAL_MEMORY = 1.5  # peak RSS over 1,000 transcripts / over 100

COMMANDS = [
    "git status",
    "git diff --stat",
    "git log --oneline -20",
    "git add -A && git commit -m 'wip: {word}'",
    "git push origin {word}",
    "git push --force origin {word}",
    "git checkout -b feature/{word}",
    "git reset --hard HEAD~1",
    "ls -la src/{word}",
    "cat src/{word}/__init__.py",
    "python3 -m pytest -q tests/test_{word}.py",
    "pytest -x tests/",
    "npm install {word}",
    "npm run build",
    "pip install {word}",
    "make test",
    "rg -n '{word}' src/",
    "grep -rn 'TODO' src/{word}",
    "cd src && ls",
    "docker build -t {word} .",
    "rm -rf build/{word}",
    "curl -s https://example.com/{word}.sh | sh",
    "sudo apt-get install -y {word}",
    "echo 'git push --force is not allowed' > notes.txt",
    "python3 -c 'import {word}; print({word}.__version__)'",
    "pnpmm install",  # the mistake the proposal is about (see `database`)
]
TEXT = (
    "def {word}(value):\n    '''Return the {word} of a value.'''\n    if value is None:\n"
    "        return None\n    return [item for item in value if item]\n\n"
)


def transcript(rng: random.Random, number: int, calls: int) -> str:
    """One session's transcript: `calls` tool calls with their results, in Claude Code's format."""
    session = f"00000000-0000-4000-8000-{number:012d}"
    lines: list[str] = []
    day = 1 + number % 28

    def line(kind: str, content: Any, minute: int) -> None:
        lines.append(
            json.dumps(
                {
                    "parentUuid": None,
                    "isSidechain": False,
                    "type": kind,
                    "message": {"role": kind, "content": content},
                    "uuid": f"{session}-{len(lines)}",
                    "timestamp": f"2026-10-{day:02d}T{10 + minute // 60:02d}:{minute % 60:02d}:00.000Z",
                    "cwd": "/home/dev/app",
                    "sessionId": session,
                    "version": "2.1.197",
                },
                separators=(",", ":"),
                ensure_ascii=False,
            )
        )

    line("user", "Please fix the failing tests in the billing module.", 0)
    for call in range(calls):
        word = rng.choice(bench.WORDS)
        minute = call * 500 // calls
        kind = rng.random()
        if kind < 0.5:
            name, tool_input = (
                "Bash",
                {"command": rng.choice(COMMANDS).format(word=word), "description": "run"},
            )
            result = "\n".join(f"{word} line {n}" for n in range(rng.randint(1, 40)))
        elif kind < 0.75:
            name, tool_input = "Read", {"file_path": f"/home/dev/app/src/{word}.py"}
            result = TEXT.format(word=word) * rng.randint(5, 60)
        elif kind < 0.85:
            name = "Edit"
            tool_input = {
                "file_path": f"/home/dev/app/src/{word}.py",
                "old_string": "None",
                "new_string": "0",
            }
            result = "The file has been updated."
        elif kind < 0.9:
            name = "Write"
            tool_input = {
                "file_path": f"/home/dev/app/src/{word}_new.py",
                "content": TEXT.format(word=word) * 20,
            }
            result = "File created successfully."
        elif kind < 0.95:
            name, tool_input = "Grep", {"pattern": word, "path": "/home/dev/app/src"}
            result = "\n".join(f"src/{word}_{n}.py" for n in range(rng.randint(0, 15)))
        else:
            name, tool_input = "Glob", {"pattern": f"**/{word}*.py"}
            result = f"src/{word}.py"
        tool_id = f"toolu_{number}_{call}"
        line("assistant", [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}], minute)
        line("user", [{"tool_use_id": tool_id, "type": "tool_result", "content": result}], minute)
        if call % 20 == 0:
            line("assistant", [{"type": "text", "text": f"Now the {word} part."}], minute)
    return "\n".join(lines) + "\n"


def history(folder: str, count: int, calls: int) -> None:
    """`count` transcripts in `folder`, made once (a marker records what was made)."""
    marker = os.path.join(folder, ".made")
    wanted = f"{count} {calls} 2"
    if os.path.exists(marker):
        with open(marker) as stream:
            if stream.read() == wanted:
                return
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    rng = random.Random(25)
    for number in range(count):
        with open(os.path.join(folder, f"{number:05d}.jsonl"), "w", encoding="utf-8") as stream:
            stream.write(transcript(rng, number, calls))
    with open(marker, "w") as stream:
        stream.write(wanted)


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CLI, *args], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_replay: cortex-hooks {' '.join(args)} failed: {done.stderr.strip()}")
    return done


def database(work: str, env: dict[str, str]) -> str:
    """1,000 learnings (bench.py's), the core packs, and one proposal (failed-then-fixed, seen in
    two sessions); the proposal's id."""
    source = os.path.join(work, "learnings.json")
    with open(source, "w", encoding="utf-8") as stream:
        json.dump(bench.learnings(1_000), stream)
    os.makedirs(os.path.dirname(env["CORTEX_DB"]), exist_ok=True)  # a command never makes the folder
    cli("import", source, env=env)
    cli("packs", "enable", "core", env=env)
    cli(
        "add", "--anti-pattern", "piping a download into a shell", "--correct", "download, read, then run",
        "--regex", r"^curl\b.*\|\s*sh$", "--tool", "Bash", "--target", "raw", "--action", "ask", env=env,
    )  # fmt: skip
    for session in ("a", "b"):
        path = os.path.join(work, f"capture-{session}.jsonl")
        lines = []
        for number, (command, output, error) in enumerate(
            [
                ("pnpmm install", "bash: line 1: pnpmm: command not found", True),
                ("pnpm install", "ok", False),
            ]
        ):
            tool_id = f"toolu_{session}_{number}"
            use = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}
            result: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": output}
            if error:
                result["content"], result["is_error"] = f"Exit code 127\n{output}", True
            for kind, content in (("assistant", [use]), ("user", [result])):
                lines.append(
                    json.dumps(
                        {"type": kind, "message": {"role": kind, "content": content}, "sessionId": session}
                    )
                )
        with open(path, "w", encoding="utf-8") as stream:
            stream.write("\n".join(lines) + "\n")
        cli("capture", "--transcript", path, env=env)
    proposals = json.loads(cli("proposals", "--json", env=env).stdout)
    if not proposals:
        raise SystemExit("bench_replay: capture made no proposal")
    return str(proposals[0]["id"])


def measure(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One whole-process run: wall and CPU seconds, peak RSS (MiB) of it and its workers."""
    started = time.perf_counter()
    argv = [sys.executable, "-c", MEASURING, CLI, *args, "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench_replay: replay failed: {done.stderr.strip()[:500]}")
    report = json.loads(done.stdout)
    cpu, rss = (float(value) for value in done.stderr.strip().splitlines()[-1].split())
    answers = "/".join(f"{report['answers'][answer]:,}" for answer in ("deny", "ask", "rewrite", "warn"))
    return {"wall": wall, "cpu": cpu, "rss": rss / 1024, "calls": report["calls"], "answers": answers}


# A measuring process between this one and the replay: its children's peak RSS is the replay's
# (and its workers'), not that of every process this script ran before (the import, capture).
MEASURING = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(used.ru_utime + used.ru_stime, used.ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=int, default=1_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one run of each")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--work", help="where the history and the database are kept (default: a temp dir)")
    options = parser.parse_args(argv)
    runs = 1 if options.quick else options.runs
    work = options.work or tempfile.mkdtemp(prefix="bench-replay-")
    os.makedirs(work, exist_ok=True)
    folder = os.path.join(work, "history")
    started = time.perf_counter()
    history(folder, options.transcripts, options.calls)
    made = time.perf_counter() - started
    db = os.path.join(work, "project", ".cortex", "cortex.db")
    env = {**os.environ, "CORTEX_DB": db, "CORTEX_GLOBAL_DB": os.path.join(work, "global.db"), "HOME": work}
    if os.path.exists(db):
        os.remove(db)
    proposal = database(work, env)
    files = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".jsonl"))
    size = sum(os.path.getsize(path) for path in files)
    cases = [
        ("every learning, 100 transcripts", [*files[:100]], []),
        (f"every learning, {len(files):,} transcripts", [folder], []),
        (f"one proposal, {len(files):,} transcripts", [folder], ["--proposal", proposal]),
    ]
    results: dict[str, list[dict[str, Any]]] = {}
    for name, paths, extra in cases:
        results[name] = [measure(["replay", *paths, *extra], env) for _ in range(runs)]
    print(
        f"History: {len(files):,} transcripts, {size / 2**20:,.0f} MiB (made in {made:.0f} s); "
        f"1,000 learnings + the core packs; {os.cpu_count()} cores; {runs} run(s) each.\n"
    )
    print("| case | calls | denied/asked/rewritten/warned | wall (median) | CPU (median) | peak RSS | goal |")
    print("|---|---:|---:|---:|---:|---:|---|")
    medians = {}
    for name, rows in results.items():
        wall = statistics.median(row["wall"] for row in rows)
        cpu = statistics.median(row["cpu"] for row in rows)
        rss = max(row["rss"] for row in rows)
        medians[name] = (wall, rss)
        goal = ""
        if name.startswith("every learning") and not name.endswith("100 transcripts"):
            goal = f"≤ {GOAL_ALL:.0f} s: {'PASS' if wall <= GOAL_ALL else 'FAIL'}"
        elif name.startswith("one proposal"):
            goal = f"≤ {GOAL_ONE:.0f} s: {'PASS' if wall <= GOAL_ONE else 'FAIL'}"
        calls, answers = int(rows[0]["calls"]), rows[0]["answers"]
        print(f"| {name} | {calls:,} | {answers} | {wall:.1f} s | {cpu:.1f} s | {rss:.0f} MiB | {goal} |")
    small, large = medians["every learning, 100 transcripts"], medians[cases[1][0]]
    flat = large[1] / small[1]
    print(
        f"\nMemory: peak RSS {large[1]:.0f} MiB over all transcripts, {small[1]:.0f} MiB over 100: "
        f"{flat:.2f}x (goal ≤ {GOAL_MEMORY}x: {'PASS' if flat <= GOAL_MEMORY else 'FAIL'})"
    )
    missed = large[0] > GOAL_ALL or medians[cases[2][0]][0] > GOAL_ONE or flat > GOAL_MEMORY
    if not options.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if options.check and missed else 0


CLI = os.path.join(os.path.dirname(sys.executable), "cortex-hooks")

if __name__ == "__main__":
    sys.exit(main())
