"""Where a cold `cortex-hooks recall` with the local model spends its time: the floor of
each step, each measured as a fresh process doing that much and no more, beside bench_embeddings;
and the agent's first recall through the MCP server, which loads the model and the vectors once
it has answered `initialize` (api.recall.warm).

    .venv/bin/python benchmarks/bench_cold_recall.py [--runs N] [--mcp-only] [--code FOLDER]

--code runs the measured processes on another copy of the package (PYTHONPATH=FOLDER, e.g. an
older commit's `git archive COMMIT cortex_hooks | tar -x -C FOLDER`): the figures before a change.

Needs the `embeddings` extra in the running interpreter's environment. A database of 10,000
memories with one vector each is written as bench_embeddings writes it. Each step is a fresh
process whose work includes the steps above it, timed from start to exit; the table shows each
one's median wall time and CPU time (user + system, all its threads), what it adds to the step
before, and the paired medians of `python -c pass`. On a loaded machine the wall times stretch
with the load; the CPU times much less, and they are what a step costs on an idle core.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench
from bench_embeddings import SCRIPTS, build

QUERY = bench.RECALL_QUERY
COLD = {"CORTEX_RESIDENT": "off"}  # no resident process asked: the recall runs in the command
NUMPY = "from cortex_hooks.embeddings.vector_math import numpy; numpy()"
STACK = "from cortex_hooks.embeddings.local import import_stack; import_stack()"
MODEL = "from cortex_hooks.embeddings.local import LocalModel; model = LocalModel()"
EMBED = f"{MODEL}; model.embed([{QUERY!r}], query=True)"
VECTORS = (
    f"{NUMPY}; import os, sqlite3; from cortex_hooks.embeddings import index, vector_math; "
    "c = sqlite3.connect(os.environ['CORTEX_DB']); index.of(c, os.environ['CORTEX_DB'], vector_math.MINILM)"
)


def steps(cli: str) -> list[tuple[str, list[str], dict[str, str]]]:
    """(what, argv, environment changes): each a fresh process."""
    python = [sys.executable, "-c"]
    return [
        ("the interpreter (`python -c pass`)", [*python, "pass"], {}),
        ("+ the CLI's modules (`import cortex_hooks.cli`)", [*python, "import cortex_hooks.cli"], {}),
        (
            "keyword recall, cold (`cortex-hooks recall`, semantic off)",
            [cli, "recall", QUERY, "--peek"],
            {"CORTEX_EMBEDDINGS": "off"},
        ),
        ("numpy imported (one OpenBLAS thread)", [*python, NUMPY], {}),
        ("+ onnxruntime and tokenizers imported", [*python, f"{NUMPY}; {STACK}"], {}),
        ("+ the model opened (session, tokenizer, sha256)", [*python, MODEL], {}),
        ("+ the query embedded", [*python, EMBED], {}),
        ("numpy + 10,000 vectors read from SQLite", [*python, VECTORS], {}),
        (
            "semantic recall, cold (`cortex-hooks recall`)",
            [cli, "recall", QUERY, "--peek"],
            {"CORTEX_RESIDENT": "off"},
        ),
    ]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of a fresh process, start to exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{argv}: {result.stderr.decode()}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def first_mcp_recall(env: dict[str, str], wait: float) -> tuple[float, float]:
    """A fresh `cortex-hooks mcp`: (seconds to answer `initialize`, seconds to answer the first
    `tools/call cortex_recall` sent `wait` seconds after that answer)."""
    server = subprocess.Popen(
        [str(SCRIPTS / "cortex-hooks"), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None
    assert stdout is not None

    def ask(number: int, method: str, params: dict[str, object]) -> float:
        started = time.perf_counter()
        message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()
        reply = json.loads(stdout.readline())
        if "result" not in reply or reply["result"].get("isError"):
            raise SystemExit(f"the MCP server answered {reply}")
        return time.perf_counter() - started

    try:
        hello = ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        stdin.flush()
        time.sleep(wait)
        first = ask(2, "tools/call", {"name": "cortex_recall", "arguments": {"query": QUERY}})
    finally:
        stdin.close()
        code = server.wait(timeout=30)
    if code != 0:
        raise SystemExit(f"the MCP server exited with {code}")
    return hello, first


def mcp_rows(env: dict[str, str], runs: int) -> list[str]:
    rows = []
    for wait in (0.0, 1.0, 3.0):
        pairs = [first_mcp_recall(env, wait) for _ in range(runs)]
        hello = statistics.median(pair[0] for pair in pairs)
        first = statistics.median(pair[1] for pair in pairs)
        rows.append(f"| {wait:.0f} s | {hello * 1000:.0f} | {first * 1000:.0f} |")
    return rows


def resident_row(env: dict[str, str], db: Path, runs: int) -> str:
    """`cortex-hooks recall` answered by the resident process SessionStart starts."""
    runtime = Path(tempfile.mkdtemp(prefix="cr", dir="/tmp"))
    runtime.chmod(0o700)
    env = {**env, "XDG_RUNTIME_DIR": str(runtime)}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cortex_hooks.resident.process",
            str(db),
            env["CORTEX_GLOBAL_DB"],
            str(db.parent),
        ],
        env=env,
    )
    try:
        argv = [str(SCRIPTS / "cortex-hooks"), "recall", QUERY, "--peek"]
        deadline = time.monotonic() + 60
        while not list(runtime.glob("cortex-hooks/*.sock")) and time.monotonic() < deadline:
            time.sleep(0.1)
        env["CLAUDE_PROJECT_DIR"] = str(db.parent)
        timed(argv, env)
        bare = [sys.executable, "-c", "pass"]
        pairs = [(timed(argv, env), timed(bare, env)) for _ in range(runs)]
        wall, cpu = (statistics.median(step[index] for step, _ in pairs) for index in (0, 1))
        base_wall, base_cpu = (statistics.median(base[index] for _, base in pairs) for index in (0, 1))
        name = "semantic recall answered by the resident process (`cortex-hooks recall`)"
        base = f"{base_wall * 1000:.0f} / {base_cpu * 1000:.0f}"
        return f"| {name} | {wall * 1000:.0f} | {cpu * 1000:.0f} | | {base} |"
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(runtime, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--mcp-only", action="store_true", help="only the MCP server's first recall")
    parser.add_argument("--code", type=Path, help="measure the package in this folder (PYTHONPATH)")
    args = parser.parse_args()
    from cortex_hooks.embeddings import backend

    if not backend.local_available():
        print("the embeddings extra is not installed: pip install '.[embeddings]'", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="cortex-bench-cold-"))
    try:
        db = work / "10k" / "cortex.db"
        print("bench: 10,000 memories with vectors ...", file=sys.stderr)
        build(db, 10_000, 7)
        env = {
            "PATH": f"{SCRIPTS}{os.pathsep}{os.defpath}",
            "HOME": str(work),
            "LANG": "C.UTF-8",
            "CORTEX_DB": str(db),
            "CORTEX_GLOBAL_DB": str(work / "none" / "global.db"),
            "CORTEX_EMBEDDINGS": "local",
            **({"PYTHONPATH": str(args.code.resolve())} if args.code else {}),
        }
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
        print("\nThe first `cortex_recall` of a fresh `cortex-hooks mcp`, sent a while after `initialize`:")
        print("| sent after `initialize` | `initialize` answered, ms | first recall answered, ms |")
        print("|---|---|---|")
        print("\n".join(mcp_rows(env, max(3, args.runs // 3))), flush=True)
        if args.mcp_only:
            return 0
        print(f"\n{args.runs} runs a step, each paired with `python -c pass`")
        print("| step (a fresh process each) | wall ms | CPU ms | adds (CPU ms) | `pass` wall / CPU ms |")
        print("|---|---|---|---|---|")
        previous = None
        for name, argv, changes in steps(str(SCRIPTS / "cortex-hooks")):
            step_env = {**env, **changes}
            timed(argv, step_env)  # warm-up: the page cache, not the process
            bare = [sys.executable, "-c", "pass"]
            pairs = [(timed(argv, step_env), timed(bare, env)) for _ in range(args.runs)]
            wall, cpu = (statistics.median(step[index] for step, _ in pairs) for index in (0, 1))
            base_wall, base_cpu = (statistics.median(base[index] for _, base in pairs) for index in (0, 1))
            adds = f"{(cpu - previous) * 1000:.0f}" if previous is not None and name.startswith("+") else ""
            print(
                f"| {name} | {wall * 1000:.0f} | {cpu * 1000:.0f} | {adds} | "
                f"{base_wall * 1000:.0f} / {base_cpu * 1000:.0f} |",
                flush=True,
            )
            previous = cpu
        if not args.code:
            print(resident_row(env, db, args.runs), flush=True)
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
