"""Recall quality on labelled sets (SPEC §9.3, §12, issue 29): R@1, R@5, R@10 and MRR of
`cortex-hooks recall --peek --json` per set and per mode, keyword recall (FTS5 only) and semantic
recall (the local model).

    .venv/bin/python benchmarks/quality/recall_quality.py [--conversations PATH] [--set NAME] [-v]

Sets (each in fresh databases, its notes stored with `remember` and embedded with `embed`):
- notes: 48 developer notes (notes.json); questions `reworded` (few or no words of their note),
  `keyword` and `identifier` (the controls that must stay found first);
- project: 118 notes of one project, short notes and long runbooks, ADRs and postmortems
  (project.json); questions `reworded`, `keyword`, `identifier`, `multihop` (answered by either of
  two notes) and `long` (a detail inside a long note);
- conversations, only with --conversations: a public conversational-memory set in the LoCoMo
  format (its JSON file, or a folder of one file per conversation; not part of this repository),
  one memory per dialogue turn ("Speaker: text"), one database per conversation, the questions of
  categories 1-4 with their evidence turns (found when any of them is).

A question's rank is the place of its first answer among the 10 results (MRR counts 0 past 10).
Recall is read-only here (--peek), so the questions do not disturb each other, and one database
serves both modes. The semantic mode needs the embeddings extra; without it only keyword recall is
measured. Exit 1 when a goal of the issue is missed (see GOALS).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

from cortex_hooks.cli import main
from cortex_hooks.embeddings.backend import local_available

HERE = Path(__file__).parent
MODES = ("keyword", "semantic")
# (set, questions or None for all, measure) → least value in semantic mode.
GOALS = {
    ("notes", "reworded", "R@1"): 0.80,
    ("notes", "identifier", "R@1"): 1.00,
    ("notes", "keyword", "R@1"): 1.00,
    ("conversations", None, "R@10"): 0.70,
    ("conversations", None, "MRR"): 0.46,
}
Question = tuple[str, set[str], str]  # the query, the keys of the notes answering it, its kind


def labelled(name: str) -> tuple[dict[str, str], list[Question]]:
    data = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    questions = [
        (q["query"], set(q["expected"]) if isinstance(q["expected"], list) else {q["expected"]}, q["kind"])
        for q in data["queries"]
    ]
    return data["notes"], questions


def conversations(path: Path) -> Iterator[tuple[dict[str, str], list[Question]]]:
    """Each conversation of a LoCoMo-format file (or folder of files): its turns by dialogue id,
    and its questions of categories 1-4 whose evidence names turns."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    for file in files:
        loaded = json.loads(file.read_text(encoding="utf-8"))
        for sample in loaded if isinstance(loaded, list) else [loaded]:
            dialogue = sample.get("conversation", sample)
            turns: dict[str, str] = {}
            session = 1
            while f"session_{session}" in dialogue:
                for turn in dialogue[f"session_{session}"]:
                    turns[turn["dia_id"]] = f"{turn['speaker']}: {turn['text']}"
                session += 1
            questions = []
            for item in sample["qa"]:
                if item.get("category") not in (1, 2, 3, 4):
                    continue
                evidence = set()
                for given in item.get("evidence", []):  # a few are written "D8:6; D9:17" or "D:11:26"
                    for part in re.split(r"[;\s]+", given.replace("D:", "D")):
                        found = re.fullmatch(r"D(\d+):0*(\d+)", part)
                        if found and f"D{found[1]}:{found[2]}" in turns:
                            evidence.add(f"D{found[1]}:{found[2]}")
                if evidence:
                    questions.append((item["question"], evidence, f"category {item['category']}"))
            yield turns, questions


def quiet(argv: list[str]) -> str:
    out = StringIO()
    with redirect_stdout(out):
        code = main(argv)
    assert code == 0, argv
    return out.getvalue()


def build(db: str, notes: dict[str, str], embed: bool) -> dict[int, str]:
    """The notes stored as a user would (then embedded): the key of each memory id."""
    os.environ["CORTEX_EMBEDDINGS"] = "off"
    keys = {}
    for key, text in notes.items():
        keys[json.loads(quiet(["--db", db, "remember", text, "--json"]))["id"]] = key
    if embed:
        os.environ["CORTEX_EMBEDDINGS"] = "local"
        quiet(["--db", db, "embed"])
    return keys


def places(db: str, keys: dict[int, str], questions: list[Question], mode: str) -> list[int]:
    """The place of each question's first answer among recall's 10 results (0: not among them)."""
    os.environ["CORTEX_EMBEDDINGS"] = "local" if mode == "semantic" else "off"
    found = []
    for query, answers, _ in questions:
        results = json.loads(quiet(["--db", db, "recall", query, "--peek", "--json", "--limit", "10"]))
        names = [keys[result["id"]] for result in results]
        found.append(next((place for place, name in enumerate(names, 1) if name in answers), 0))
    return found


def measures(found: list[int]) -> dict[str, float]:
    count = len(found) or 1
    return {
        "R@1": sum(place == 1 for place in found) / count,
        "R@5": sum(0 < place <= 5 for place in found) / count,
        "R@10": sum(0 < place <= 10 for place in found) / count,
        "MRR": sum(1 / place for place in found if place) / count,
    }


Results = dict[tuple[str, str | None, str], list[int]]  # (set, kind or None, mode) → places


def measure(
    corpora: dict[str, list[tuple[dict[str, str], list[Question]]]], modes: tuple[str, ...], verbose: bool
) -> Results:
    results: Results = defaultdict(list)
    misses: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["CORTEX_GLOBAL_DB"] = str(Path(folder) / "none.db")
        for name, parts in corpora.items():
            for number, (notes, questions) in enumerate(parts):
                db = str(Path(folder) / f"{name}-{number}.db")
                keys = build(db, notes, "semantic" in modes)
                for mode in modes:
                    found = places(db, keys, questions, mode)
                    for place, (query, answers, kind) in zip(found, questions, strict=True):
                        results[(name, None, mode)].append(place)
                        results[(name, kind, mode)].append(place)
                        if mode == modes[-1] and place != 1:
                            misses.append(
                                f"  {name} {kind}: {query!r} -> {sorted(answers)} at {place or '>10'}"
                            )
                print(
                    f"{name} {number + 1}/{len(parts)}: {len(notes)} notes, {len(questions)} questions",
                    file=sys.stderr,
                )
    if verbose and misses:
        print(f"{modes[-1]}, not first:\n" + "\n".join(misses))
    return results


def report(names: list[str], results: Results, modes: tuple[str, ...]) -> bool:
    """Print the table and the goals; whether every goal is met."""
    print("| set | questions | n | mode | R@1 | R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        kinds = sorted({kind for (set_name, kind, _) in results if set_name == name and kind is not None})
        for kind in [None, *kinds] if len(kinds) > 1 else [None]:
            for mode in modes:
                found = results[(name, kind, mode)]
                cells = " | ".join(f"{value:.3f}" for value in measures(found).values())
                print(f"| {name} | {kind or 'all'} | {len(found)} | {mode} | {cells} |")
    if "semantic" not in modes:
        return True
    met = True
    for (name, kind, measure_name), goal in GOALS.items():
        if name in names:
            value = measures(results[(name, kind, "semantic")])[measure_name]
            met &= value >= goal
            print(
                f"goal: {name} {kind or 'all'} {measure_name} >= {goal:.2f} with semantic recall: {value:.3f}"
            )
    for name in names:
        on, off = (measures(results[(name, None, mode)]) for mode in ("semantic", "keyword"))
        worse = [key for key in on if on[key] < off[key]]
        met &= not worse
        print(
            f"goal: {name} semantic >= keyword on every measure: {'yes' if not worse else ', '.join(worse)}"
        )
    return met


def main_quality() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=Path, help="a LoCoMo-format JSON file or folder")
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument(
        "-v", action="store_true", dest="verbose", help="list the questions not answered first"
    )
    args = parser.parse_args()
    modes = MODES if local_available() else MODES[:1]
    if len(modes) == 1:
        print("the embeddings extra is not installed: keyword recall only", file=sys.stderr)
    corpora: dict[str, list[tuple[dict[str, str], list[Question]]]] = {
        "notes": [labelled("notes")],
        "project": [labelled("project")],
    }
    if args.conversations:
        corpora["conversations"] = list(conversations(args.conversations))
    if args.sets:
        corpora = {name: parts for name, parts in corpora.items() if name in args.sets}
    met = report(list(corpora), measure(corpora, modes, args.verbose), modes)
    print("goals:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main_quality())
