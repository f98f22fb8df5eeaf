"""Speed of semantic recall with the local model (docs/guide/embeddings.md), beside bench.py.

    .venv/bin/python benchmarks/bench_embeddings.py [--runs N]

Needs the `embeddings` extra in the running interpreter's environment (its console script
`cortex-hooks` is the one timed). Databases of 10,000 and 100,000 memories are written as
bench.py writes them (bench.add_memories), each with one vector per memory; the vectors are
random unit vectors written straight into the table (the time of a search does not depend on
what the vectors mean, and embedding 100,000 notes would take minutes). Cases and goals:

- cold processes, paired with this interpreter's `python -c pass`: `cortex-hooks recall` at
  10,000 memories ≤ 0.3 s; `cortex-hooks remember` (embedded on write, cosine
  auto-link) ≤ 0.5 s;
- `cortex-hooks embed` of EMBEDDED notes of 40 words, start-up included: ≥ 60 items/s;
- warm, in this process (as the MCP server runs it): a query's embedding ≤ 10 ms; recall
  (query embedding + candidates + ranking, accesses not written) ≤ 50 ms at 10,000 memories and
  ≤ 150 ms at 100,000.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench

SCRIPTS = Path(sys.executable).parent


def build(path: Path, count: int, seed: int) -> None:
    from cortex_hooks.embeddings.vector_math import MINILM
    from cortex_hooks.store.connection import open_database

    path.parent.mkdir(parents=True, exist_ok=True)
    open_database(str(path), create=True).close()
    bench.add_memories(str(path), count, seed)
    import numpy

    matrix = numpy.random.default_rng(seed).standard_normal((count, 384)).astype("<f4")
    matrix /= numpy.linalg.norm(matrix, axis=1, keepdims=True)
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executemany(
            "INSERT INTO vector (kind, item_id, model, data) VALUES (1, :id, :model, :data)",
            ({"id": row + 1, "model": MINILM, "data": matrix[row].tobytes()} for row in range(count)),
        )


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr.decode()
    return elapsed


def cold(name: str, argv: list[str], env: dict[str, str], runs: int, goal: float) -> str:
    baseline = [sys.executable, "-c", "pass"]
    timed(argv, env)  # warm-up: the page cache, not the process
    pairs = [(timed(argv, env), timed(baseline, env)) for _ in range(runs)]
    median = statistics.median(first for first, _ in pairs)
    base = statistics.median(second for _, second in pairs)
    ratio = statistics.median(first / second for first, second in pairs)
    verdict = "PASS" if median <= goal else "FAIL"
    cells = [
        name,
        f"{median * 1000:.0f}",
        f"{base * 1000:.0f}",
        f"{ratio:.1f}",
        f"≤ {goal * 1000:.0f}",
        verdict,
    ]
    return "| " + " | ".join(cells) + " |"


EMBEDDED = 600


def forty_words(count: int, seed: int) -> list[str]:
    """Notes of 40 words drawn from bench.WORDS and the commonest English words."""
    import random

    rng = random.Random(seed)
    common = ["the", "a", "of", "to", "and", "in", "is", "for", "on", "with", "as", "by", "at", "we"]
    words = [*bench.WORDS, *common]
    return [" ".join(rng.choice(words) for _ in range(40)) for _ in range(count)]


def embed_rate(path: Path, env: dict[str, str], runs: int, goal: float) -> str:
    """`cortex-hooks embed --all` of EMBEDDED 40-word notes, timed as a whole (start-up included)."""
    from cortex_hooks.store.connection import open_database

    path.parent.mkdir(parents=True, exist_ok=True)
    open_database(str(path), create=True).close()
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executemany(
            """INSERT INTO memory (type, content, summary, priority, confidence, pinned, tags, source,
                   access_count, created_at, updated_at, confirmed_at)
               VALUES ('context', :text, :text, 5, 70, 0, '[]', 'explicit', 0, :at, :at, :at)""",
            ({"text": text, "at": "2026-01-01T00:00:00Z"} for text in forty_words(EMBEDDED, 11)),
        )
    argv = [str(SCRIPTS / "cortex-hooks"), "embed", "--all"]
    rates = [EMBEDDED / timed(argv, {**env, "CORTEX_DB": str(path)}) for _ in range(max(1, runs // 4))]
    median = statistics.median(rates)
    verdict = "PASS" if median >= goal else "FAIL"
    name = f"`cortex-hooks embed --all`, {EMBEDDED} notes of 40 words"
    return f"| {name} | {median:.0f} items/s | — | — | ≥ {goal:.0f} items/s | {verdict} |"


def warm(name: str, action: object, runs: int, goal: float) -> str:
    assert callable(action)
    action()  # warm-up: the model and the vectors load once per process
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    verdict = "PASS" if median <= goal else "FAIL"
    return f"| {name} | {median * 1000:.1f} | — | — | ≤ {goal * 1000:.0f} | {verdict} |"


def warm_recall(path: Path, query: str) -> object:
    from cortex_hooks.api.recall import gather
    from cortex_hooks.embeddings.hybrid import query_vector
    from cortex_hooks.memory.query import KINDS, query_words, ranked
    from cortex_hooks.notes import Notes
    from cortex_hooks.store.scopes import open_scopes

    scopes, _ = open_scopes(str(path), names=("project",))

    def recall() -> None:
        vector = query_vector("local", query, Notes(printed=True))
        assert vector is not None
        ranked(gather(scopes, query_words(query), set(KINDS), None, vector), 10)

    return recall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    from cortex_hooks.embeddings import backend

    if not backend.local_available():
        print("the embeddings extra is not installed: pip install '.[embeddings]'", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="cortex-bench-embed-"))
    try:
        small, large = work / "10k" / "cortex.db", work / "100k" / "cortex.db"
        print("bench: 10,000 and 100,000 memories with vectors ...", file=sys.stderr)
        build(small, 10_000, 7)
        build(large, 100_000, 7)
        env = {
            "PATH": f"{SCRIPTS}{os.pathsep}{os.defpath}",
            "HOME": str(work),
            "LANG": "C.UTF-8",
            "CORTEX_DB": str(small),
            "CORTEX_GLOBAL_DB": str(work / "none" / "global.db"),
            "CORTEX_EMBEDDINGS": "local",
        }
        cli = str(SCRIPTS / "cortex-hooks")
        rows = [
            cold(
                "cold `cortex-hooks recall`, 10,000 memories",
                [cli, "recall", bench.RECALL_QUERY],
                env,
                args.runs,
                0.3,
            ),
            cold(
                "cold `cortex-hooks remember`, 10,000 memories",
                [cli, "remember", bench.REMEMBERED],
                env,
                args.runs,
                0.5,
            ),
            embed_rate(work / "embed" / "cortex.db", env, args.runs, 60),
        ]
        os.environ["CORTEX_EMBEDDINGS"] = "local"
        model = backend.required("local")
        rows += [
            warm("warm query embedding", lambda: model.embed([bench.RECALL_QUERY], query=True), 50, 0.010),
            warm("warm recall, 10,000 memories", warm_recall(small, bench.RECALL_QUERY), 30, 0.050),
            warm("warm recall, 100,000 memories", warm_recall(large, bench.RECALL_QUERY), 30, 0.150),
        ]
        load = os.getloadavg()[0]
        print(
            f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load:.1f}; {args.runs} cold runs"
        )
        print("| case | median ms | `python -c pass` ms | paired ratio (times) | goal ms | result |")
        print("|---|---|---|---|---|---|")
        print("\n".join(rows))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
