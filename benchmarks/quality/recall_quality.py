"""Recall quality on labelled sets (docs/guide/memories.md and docs/guide/embeddings.md):
R@1, R@5, R@10 and MRR of
every candidate ranking (candidates.py) on every set (sets.py), and of keyword recall alone;
prints the tables of docs/internals/recall-quality.md and checks the goals.

    .venv/bin/python benchmarks/quality/recall_quality.py [--locomo PATH] [--beir PATH]...
        [--set NAME]... [--check] [-v]

Sets in this repository: notes.json, project.json and projects.json (several projects, each in
its own database beside one global database; the projects marked held out were not looked at
while the ranking was chosen). Public sets, fetched for local measurement only and never
committed:
- --locomo PATH: LoCoMo (github.com/snap-research/locomo, data/locomo10.json, or the folder of
  ten files its data/locomo10.zip holds);
- --beir PATH: a folder in BEIR's format (corpus.jsonl, queries.jsonl, qrels/test.tsv), e.g. the
  MS MARCO sample of github.com/agentset-ai/embedding-leaderboard (datasets/msmarco).

Each part's memories are stored with `remember` and embedded with `embed` in fresh databases;
each question is asked through api.recall.gather (what `recall` finds: FTS5 hits and the nearest
items by cosine, both scopes) and every candidate orders the same rows; the chosen one is
recall's own ranking (memory.query.ranked), and --check asks `recall --peek --json` too and
fails if it orders differently. A question's place is that of its first answer among the first
10 (MRR counts 0 past 10). Needs the embeddings extra. Exit 1 when a goal is missed (GOALS).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sets as labelled_sets
from candidates import CANDIDATES, CHOSEN, KEYWORD

from cortex_hooks.api.recall import gather
from cortex_hooks.cli import main
from cortex_hooks.embeddings.backend import local_available
from cortex_hooks.embeddings.hybrid import query_vector
from cortex_hooks.memory.query import KINDS, query_words, ranked
from cortex_hooks.notes import Notes
from cortex_hooks.store.scopes import close, open_scopes

LIMIT = 10
CONTROLS = ("keyword", "identifier")
# (group, measure) → the least value of the chosen ranking (issue 40; notes' controls: issue 29).
GOALS = {
    ("projects, held out (reworded)", "R@5"): 0.86,
    ("conversations", "R@10"): 0.75,
    ("conversations", "MRR"): 0.50,
    ("notes (keyword and identifier)", "R@1"): 1.0,
    ("projects.json (keyword and identifier)", "R@1"): 1.0,
}
MARGIN = 0.02  # no group may lose more than this at R@5 against the best candidate for it

Places = dict[tuple[str, str, str], list[int]]  # (set, question kind, ranking) → places


@dataclass
class Run:
    """What one run measures into, and how."""

    check: bool  # also ask `recall --peek --json` and compare
    verbose: bool  # list the questions the chosen ranking did not answer first
    dump: list[object] | None  # the rows each question found, when asked for
    places: Places = field(default_factory=lambda: defaultdict(list))


def quiet(argv: list[str]) -> str:
    out = StringIO()
    with redirect_stdout(out):
        code = main(argv)
    if code != 0:
        raise SystemExit(f"{argv[:4]}… exited {code}")
    return out.getvalue()


def build(db: str, notes: dict[str, str]) -> dict[object, str]:
    """The notes stored as a user would, then embedded: the key of each memory id."""
    os.environ["CORTEX_EMBEDDINGS"] = "off"
    keys: dict[object, str] = {}
    for key, text in notes.items():
        keys[json.loads(quiet(["--db", db, "remember", text, "--json"]))["id"]] = key
    os.environ["CORTEX_EMBEDDINGS"] = "local"
    quiet(["--db", db, "embed"])
    return keys


def place(order: list[tuple[str, object]], keys: dict[str, dict[object, str]], answers: set[str]) -> int:
    names = [keys[scope][item_id] for scope, item_id in order[:LIMIT]]
    return next((number for number, name in enumerate(names, 1) if name in answers), 0)


def measure(chosen_sets: list[labelled_sets.LabelledSet], run: Run) -> Places:
    with tempfile.TemporaryDirectory() as folder:
        for labelled in chosen_sets:
            global_db = str(Path(folder) / f"{labelled.name}-global.db")
            global_keys: dict[object, str] = {}
            if labelled.parts[0].global_notes:
                global_keys = build(global_db, labelled.parts[0].global_notes)
            for number, part in enumerate(labelled.parts):
                db = str(Path(folder) / f"{labelled.name}-{number}.db")
                keys = {"project": build(db, part.notes), "global": global_keys}
                _ask(run, labelled.name, part, (db, global_db), keys)
                print(f"{labelled.name} {number + 1}/{len(labelled.parts)}", file=sys.stderr)
    return run.places


def _ask(
    run: Run, name: str, part: labelled_sets.Part, paths: tuple[str, str], keys: dict[str, dict[object, str]]
) -> None:
    db, global_db = paths
    os.environ["CORTEX_EMBEDDINGS"] = "local"
    os.environ["CORTEX_GLOBAL_DB"] = global_db
    names = ("project", "global") if part.global_notes else ("project",)
    scopes, _ = open_scopes(db, global_db, names=names)
    try:
        for question in part.questions:
            words = query_words(question.query)
            vector = query_vector("local", question.query, Notes(printed=True))
            found = gather(scopes, words, set(KINDS), None, vector, limit=LIMIT)
            orders = {candidate: rank(found) for candidate, rank in CANDIDATES.items()}
            plain = gather(scopes, words, set(KINDS), None, None, limit=LIMIT)
            orders[KEYWORD] = [(str(result["scope"]), result["id"]) for result in ranked(plain, LIMIT)]
            if run.dump is not None:  # what each question found, to try other rankings on
                rows = [(item.scope, keys[item.scope][item.row["id"]], item.row) for item in found]
                run.dump.append((name, question.kind, question.query, question.answers, rows))
            if run.check:
                _check(db, question.query, orders[CHOSEN], "local")
                _check(db, question.query, orders[KEYWORD], "off")
            for candidate, order in orders.items():
                at = place(order, keys, question.answers)
                run.places[(name, question.kind, candidate)].append(at)
                if run.verbose and candidate == CHOSEN and at != 1:
                    answers = sorted(question.answers)
                    print(f"  {name} {question.kind}: {question.query!r} -> {answers} at {at or '>10'}")
    finally:
        close(scopes)


def _check(db: str, query: str, order: list[tuple[str, object]], setting: str) -> None:
    """recall --peek --json orders as the library did (the CLI and the benchmark agree)."""
    os.environ["CORTEX_EMBEDDINGS"] = setting
    printed = json.loads(quiet(["--db", db, "recall", query, "--peek", "--json", "--limit", str(LIMIT)]))
    got = [(result["scope"], result["id"]) for result in printed]
    if got != order[:LIMIT]:
        raise SystemExit(
            f"recall --peek ordered {query!r} otherwise than the benchmark: {got} != {order[:LIMIT]}"
        )


def measures(found: list[int]) -> dict[str, float]:
    count = len(found) or 1
    return {
        "R@1": sum(at == 1 for at in found) / count,
        "R@5": sum(0 < at <= 5 for at in found) / count,
        "R@10": sum(0 < at <= 10 for at in found) / count,
        "MRR": sum(1 / at for at in found if at) / count,
    }


def groups(places: Places) -> dict[str, dict[str, list[int]]]:
    """The groups the report shows (a set's questions, or some kinds of them): ranking → places."""
    shown: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for (name, kind, ranking), found in places.items():
        if name.startswith("projects"):
            if kind in CONTROLS:
                shown["projects.json (keyword and identifier)"][ranking] += found
            else:
                shown[f"{name} ({kind})"][ranking] += found
            continue
        shown[name][ranking] += found
        if name == "notes" and kind in CONTROLS:
            shown["notes (keyword and identifier)"][ranking] += found
        if name == "notes" and kind == "reworded":
            shown["notes (reworded)"][ranking] += found
    return shown


def report(places: Places, about: dict[str, str]) -> bool:
    """Print a table per group and the goals; whether every goal is met."""
    shown = groups(places)
    rankings = [KEYWORD, *CANDIDATES]
    met = True
    for group, by_ranking in shown.items():
        count = len(by_ranking[CHOSEN])
        print(f"\n**{group}** ({count} questions{'; ' + about[group] if group in about else ''})\n")
        print("| ranking | R@1 | R@5 | R@10 | MRR |")
        print("|---|---|---|---|---|")
        for ranking in rankings:
            cells = " | ".join(f"{value:.3f}" for value in measures(by_ranking[ranking]).values())
            label = f"**{ranking}**" if ranking == CHOSEN else ranking
            print(f"| {label} | {cells} |")
    print()
    for group, by_ranking in shown.items():
        values = {ranking: measures(found) for ranking, found in by_ranking.items()}
        chosen, best = values[CHOSEN], max(values[ranking]["R@5"] for ranking in CANDIDATES)
        on_over_off = chosen["R@1"] >= values[KEYWORD]["R@1"]
        close_to_best = chosen["R@5"] >= best - MARGIN - 1e-9
        met &= on_over_off and close_to_best
        print(
            f"goal: {group}: R@1 semantic {chosen['R@1']:.3f} >= keyword {values[KEYWORD]['R@1']:.3f}: "
            f"{'yes' if on_over_off else 'NO'}; R@5 {chosen['R@5']:.3f} within {MARGIN} of the best "
            f"candidate's {best:.3f}: {'yes' if close_to_best else 'NO'}"
        )
    for (group, measure_name), goal in GOALS.items():
        if group in shown:
            value = measures(shown[group][CHOSEN])[measure_name]
            met &= value >= goal
            print(
                f"goal: {group}: {measure_name} {value:.3f} >= {goal:.2f}: {'yes' if value >= goal else 'NO'}"
            )
    return met


def main_quality() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", type=Path, help="LoCoMo's JSON file or folder (not in this repository)")
    parser.add_argument("--beir", type=Path, action="append", default=[], help="a BEIR-format folder")
    parser.add_argument("--set", action="append", dest="sets", help="only this set (repeatable)")
    parser.add_argument("--check", action="store_true", help="also ask recall --peek --json and compare")
    parser.add_argument(
        "-v", action="store_true", dest="verbose", help="list the questions not answered first"
    )
    parser.add_argument(
        "--dump", type=Path, help="write the rows each question found (pickle) to try other rankings"
    )
    args = parser.parse_args()
    if not local_available():
        print("the embeddings extra is not installed: pip install -e '.[embeddings]'", file=sys.stderr)
        return 2
    chosen = [
        labelled_sets.single("notes"),
        labelled_sets.single("project"),
        labelled_sets.projects(held_out=False),
        labelled_sets.projects(held_out=True),
    ]
    if args.locomo:
        chosen.append(labelled_sets.locomo(args.locomo))
    chosen += [labelled_sets.beir(path) for path in args.beir]
    if args.sets:
        chosen = [labelled for labelled in chosen if labelled.name in args.sets]
    about = {labelled.name: labelled.about for labelled in chosen}
    about.update(
        {
            f"{labelled.name} (reworded)": labelled.about
            for labelled in chosen
            if labelled.name.startswith("projects")
        }
    )
    run = Run(args.check, args.verbose, [] if args.dump else None)
    met = report(measure(chosen, run), about)
    if args.dump:
        import pickle

        args.dump.write_bytes(pickle.dumps(run.dump))
    print("goals:", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main_quality())
