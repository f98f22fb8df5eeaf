"""What the history costs the hooks: this checkout against another one (the code
before the history), paired run by run under the same load.

    python3 benchmarks/bench_history.py --before ../main [--runs 21]

Each checkout is installed non-editable in a venv of its own, with a database of bench.py's
10,000 learnings written by its own `cortex-hooks import`. Then, for each case, every round runs
the baseline (`python -c pass`), the hook before and the hook after, in a rotating order, each
from a copy of its prepared database for the cases that write (outside the timing). Printed per
case: the medians, each hook's median ratio to the baseline, and the median of the paired
after/before ratios. Goals: PreToolUse no match unchanged (after/before <= 1.05), a deny <= 5x
the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench

REPO = Path(__file__).resolve().parent.parent
COUNT = 10_000
NO_MATCH, DENY = bench._bash(bench.NO_MATCH_COMMAND), bench._bash(bench.DENY_COMMAND)
END = bench._payload("SessionEnd", reason="other", transcript_path="")
CASES = (  # name, hook, payload, writes, goal: (what, at most)
    ("PreToolUse, no match", "cortex-pre-tool-use", NO_MATCH, False, ("after/before", 1.05)),
    ("PreToolUse, a match that denies", "cortex-pre-tool-use", DENY, True, ("ratio", 5.0)),
    ("SessionEnd (decay)", "cortex-session-end", END, True, ("ratio", 15.0)),
)


def venv(checkout: Path, folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(checkout)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return folder


def database(environment: Path, work: Path, name: str) -> Path:
    path = work / name / ".cortex" / "cortex.db"
    path.parent.mkdir(parents=True)
    source = work / "learnings.json"
    if not source.exists():
        source.write_text(json.dumps(bench.learnings(COUNT)), encoding="utf-8")
    done = subprocess.run(
        [str(environment / "bin" / "cortex-hooks"), "import", str(source), "--db", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_history: import failed: {done.stderr.strip()}")
    return path


def timed(argv: list[str], stdin: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--before", required=True, type=Path, help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cortex-bench-history-"))
    try:
        print("bench_history: venvs and databases ...", file=sys.stderr)
        sides = {}
        for side, checkout in (("before", args.before.resolve()), ("after", REPO)):
            environment = venv(checkout, work / f"venv-{side}")
            prepared = database(environment, work, side)
            sides[side] = (environment, prepared, prepared.with_name("run.db"))
        baseline = [str(sides["after"][0] / "bin" / "python"), "-c", "pass"]
        # no global database, no user configuration: the hooks read this database alone
        quiet = {**os.environ, "HOME": str(work), "CORTEX_GLOBAL_DB": str(work / "none" / "global.db"),
                 "CORTEX_EMBEDDINGS": "off"}  # fmt: skip
        heads = (
            "case",
            "baseline ms",
            "before ms",
            "after ms",
            "before ratio",
            "after ratio",
            "after/before",
        )
        print("| " + " | ".join((*heads, "goal", "result")) + " |")
        print("|---" * (len(heads) + 2) + "|")
        met = True
        for name, hook, payload, writes, (measure, goal) in CASES:
            times: dict[str, list[float]] = {"base": [], "before": [], "after": []}
            for number in range(args.runs + 1):
                order = ["base", "before", "after"]
                order = order[number % 3 :] + order[: number % 3]
                for which in order:
                    if which == "base":
                        elapsed = timed(baseline, "", quiet)
                    else:
                        environment, prepared, running = sides[which]
                        if writes or number == 0:
                            bench._restore(str(prepared), str(running))
                        env = {**quiet, "CORTEX_DB": str(running)}
                        text = payload.replace("@SESSION@", f"s{number}")
                        elapsed = timed([str(environment / "bin" / hook)], text, env)
                    if number:  # the first round warms the caches
                        times[which].append(elapsed)
            base = statistics.median(times["base"])
            ratio = {side: statistics.median(t / b for t, b in zip(times[side], times["base"], strict=True))
                     for side in ("before", "after")}  # fmt: skip
            paired = statistics.median(a / b for a, b in zip(times["after"], times["before"], strict=True))
            value = paired if measure == "after/before" else ratio["after"]
            ok = value <= goal
            met = met and ok
            print(
                f"| {name} | {base * 1000:.1f} | {statistics.median(times['before']) * 1000:.1f} | "
                f"{statistics.median(times['after']) * 1000:.1f} | {ratio['before']:.2f}{bench.TIMES} | "
                f"{ratio['after']:.2f}{bench.TIMES} | "
                f"{paired:.3f} | {measure} ≤ {goal} | {'PASS' if ok else 'FAIL'} |"
            )
        print(f"\n{args.runs} rounds; {COUNT:,} learnings; {bench.machine()}")
        return 0 if met else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
