"""The labelled sets of the recall benchmark (recall_quality.py): each set is a list of parts, a
part being the memories of one project database (and of the global one, when the set has one)
with the questions asked there.

- notes.json, project.json: {"notes": {key: text}, "queries": [{"kind", "query", "expected"}]};
- projects.json: {"global": {key: text}, "projects": {name: {"held_out", "notes", "queries"}}}:
  several projects, each in its own database, all beside one global database, as recall
  searches them; a project marked held_out is left out of the sets rankings were chosen on, and
  the `paraphrase` questions (no searched word of their note) were written after the ranking
  was chosen;
- LoCoMo (a JSON file, or a folder of one file per conversation; not in this repository): one
  memory per dialogue turn ("Speaker: text"), one database per conversation, the questions of
  categories 1-4 with their evidence turns (found when any of them is);
- BEIR's format (a folder with corpus.jsonl, queries.jsonl and qrels/test.tsv; not in this
  repository): one memory per document (title, then text), one database; a question is found
  when any document judged relevant is (grade 2 or more where grades go past 1, else 1).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent


@dataclass
class Question:
    query: str
    answers: set[str]  # the keys of the memories answering it
    kind: str  # reworded, keyword, identifier, multihop, long, category N, judged


@dataclass
class Part:
    notes: dict[str, str]  # the project database's memories by key
    questions: list[Question]
    global_notes: dict[str, str] = field(default_factory=dict)  # the global database's


@dataclass
class LabelledSet:
    name: str
    parts: list[Part]
    about: str  # one line for the report


def _questions(queries: list[dict[str, object]]) -> list[Question]:
    return [
        Question(
            str(q["query"]),
            set(q["expected"]) if isinstance(q["expected"], list) else {str(q["expected"])},
            str(q["kind"]),
        )
        for q in queries
    ]


def single(name: str) -> LabelledSet:
    """notes.json or project.json: one database."""
    data = json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))
    part = Part(data["notes"], _questions(data["queries"]))
    about = f"{len(part.notes)} notes, {len(part.questions)} questions ({name}.json)"
    return LabelledSet(name, [part], about)


def projects(held_out: bool) -> LabelledSet:
    """projects.json: the projects chosen on (held_out False) or the held-out ones."""
    data = json.loads((HERE / "projects.json").read_text(encoding="utf-8"))
    parts = [
        Part(project["notes"], _questions(project["queries"]), data["global"])
        for project in data["projects"].values()
        if project["held_out"] == held_out
    ]
    names = [name for name, project in data["projects"].items() if project["held_out"] == held_out]
    notes = sum(len(part.notes) for part in parts)
    questions = sum(len(part.questions) for part in parts)
    about = f"{', '.join(names)}: {notes} notes + {len(data['global'])} global, {questions} questions"
    return LabelledSet("projects, held out" if held_out else "projects", parts, about)


def locomo(path: Path) -> LabelledSet:
    """Each conversation of a LoCoMo-format file (or folder of files): its turns by dialogue id,
    and its questions of categories 1-4 whose evidence names turns."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    parts = []
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
                    for piece in re.split(r"[;\s]+", given.replace("D:", "D")):
                        found = re.fullmatch(r"D(\d+):0*(\d+)", piece)
                        if found and f"D{found[1]}:{found[2]}" in turns:
                            evidence.add(f"D{found[1]}:{found[2]}")
                if evidence:
                    questions.append(Question(item["question"], evidence, f"category {item['category']}"))
            parts.append(Part(turns, questions))
    turns_count = sum(len(part.notes) for part in parts)
    count = sum(len(part.questions) for part in parts)
    about = f"LoCoMo: {len(parts)} conversations, {turns_count} turns, {count} questions"
    return LabelledSet("conversations", parts, about)


def beir(path: Path) -> LabelledSet:
    """A retrieval set in BEIR's format: one database of its documents."""
    notes = {}
    for line in _lines(path / "corpus.jsonl"):
        document = json.loads(line)
        title, text = str(document.get("title") or "").strip(), str(document["text"]).strip()
        notes[str(document["_id"])] = f"{title}\n{text}" if title else text
    queries = {}
    for line in _lines(path / "queries.jsonl"):
        query = json.loads(line)
        queries[str(query["_id"])] = str(query["text"])
    judged: dict[str, dict[str, int]] = {}
    for line in _lines(path / "qrels" / "test.tsv")[1:]:
        query_id, document_id, grade = line.split("\t")
        if document_id in notes:
            judged.setdefault(query_id, {})[document_id] = int(grade)
    least = 2 if any(grade > 1 for grades in judged.values() for grade in grades.values()) else 1
    questions = [
        Question(queries[query_id], {key for key, grade in grades.items() if grade >= least}, "judged")
        for query_id, grades in sorted(judged.items())
        if query_id in queries and any(grade >= least for grade in grades.values())
    ]
    about = f"{path.name} (BEIR format): {len(notes)} documents, {len(questions)} questions"
    about += f", relevant at grade >= {least}"
    return LabelledSet(path.name, [Part(notes, questions)], about)


def _lines(path: Path) -> list[str]:
    """A file's lines, split at newlines only (a text may hold U+2028, which splitlines() splits at)."""
    return [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
