"""Recall quality on a labelled set (SPEC §12): recall@1 and recall@5 for keyword recall (FTS5
bm25), the local model's cosine alone, and the blend `cortex-hooks recall` uses.

    .venv/bin/python benchmarks/quality/recall_quality.py

notes.json holds developer notes (stored with `cortex-hooks remember`, embedded with `cortex-hooks
embed`) and questions labelled with the note that answers them: `reworded` questions share few
or no words with their note; `keyword` and `identifier` questions are the controls that must stay
found first. Recall here reads without counting accesses, so the questions do not disturb each
other. Needs the embeddings extra.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import defaultdict
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

from cortex_hooks.api.recall import gather
from cortex_hooks.cli import main
from cortex_hooks.embeddings import index
from cortex_hooks.embeddings.recall import query_vector
from cortex_hooks.memory.recall import KINDS, query_words, ranked
from cortex_hooks.notes import Notes
from cortex_hooks.scopes import close, open_scopes

HERE = Path(__file__).parent
GOALS = {"reworded": (0.60, 0.85), "keyword": (0.95, 1.00), "identifier": (0.95, 1.00)}


def build(db: str, notes: dict[str, str]) -> dict[int, str]:
    """The notes stored and embedded as a user would: the memory id of each note's key."""
    ids = {}
    os.environ["CORTEX_EMBEDDINGS"] = "off"
    for number, (key, text) in enumerate(notes.items(), start=1):
        with redirect_stdout(StringIO()):
            assert main(["--db", db, "remember", text]) == 0
        ids[number] = key
    os.environ["CORTEX_EMBEDDINGS"] = "local"
    with redirect_stdout(StringIO()):
        assert main(["--db", db, "embed"]) == 0
    return ids


def main_quality() -> int:
    data = json.loads((HERE / "notes.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "quality.db")
        os.environ["CORTEX_GLOBAL_DB"] = str(Path(folder) / "none.db")
        keys = build(db, data["notes"])
        scopes, _ = open_scopes(db, names=("project",))
        hits: dict[tuple[str, str], list[int]] = defaultdict(list)  # (method, kind) → rank of the answer
        misses: list[str] = []
        try:
            for question in data["queries"]:
                words = query_words(question["query"])
                vector = query_vector("local", question["query"], Notes(printed=True))
                assert vector is not None
                model, blob = vector
                methods: dict[str, list[object]] = {
                    "fts5": [r["id"] for r in ranked(gather(scopes, words, set(KINDS)), 10)],
                    "local model": [
                        item_id
                        for _, item_id in index.nearest(
                            index.of(scopes[0].connection, db, model), blob, {"memory"}, -1.0, 10
                        )[1]
                    ],
                    "blend": [r["id"] for r in ranked(gather(scopes, words, set(KINDS), None, vector), 10)],
                }
                for method, found in methods.items():
                    names = [keys[int(str(item))] for item in found]
                    place = names.index(question["expected"]) + 1 if question["expected"] in names else 99
                    hits[(method, question["kind"])].append(place)
                    if method == "blend" and place != 1:
                        misses.append(
                            f"  {question['kind']}: {question['query']!r} -> {names[:3]} (answer at {place})"
                        )
        finally:
            close(scopes)
    print(f"{len(data['notes'])} notes; recall@1 / recall@5")
    print(f"{'questions':<12} {'n':>3}  " + "  ".join(f"{m:>13}" for m in ("fts5", "local model", "blend")))
    met = True
    for kind, (goal_1, goal_5) in GOALS.items():
        cells = []
        for method in ("fts5", "local model", "blend"):
            places = hits[(method, kind)]
            at_1 = sum(place == 1 for place in places) / len(places)
            at_5 = sum(place <= 5 for place in places) / len(places)
            cells.append(f"{at_1:.2f} / {at_5:.2f}")
            if method == "blend":
                met &= at_1 >= goal_1 and at_5 >= goal_5
        print(f"{kind:<12} {len(hits[('fts5', kind)]):>3}  " + "  ".join(f"{c:>13}" for c in cells))
    print(
        "goals (blend): reworded >= 0.60 / 0.85, keyword and identifier >= 0.95 / 1.00:",
        "met" if met else "NOT met",
    )
    if misses and "-v" in sys.argv:
        print("blend, not first:\n" + "\n".join(misses))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main_quality())
