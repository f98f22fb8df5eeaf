"""What the agent did after each deny, ask and rewrite, end to end: the labelled set of
sessions (tests/corpora/outcomes.toml) played through the installed hooks with real payloads and a
real SQLite file; replay over the same transcripts reports the same outcomes."""

from __future__ import annotations

import shutil
from collections import Counter
from typing import Any

import pytest
from outcome_sessions import add_learnings, corpus, outcomes, play
from support import cli_json

GOAL = 0.95  # of the labelled catches decided as labelled


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every session of the corpus played, each on a copy of one database of the corpus's
    learnings; their transcripts in one folder (Claude Code's folder of the project)."""
    work = tmp_path_factory.mktemp("outcomes")
    home = work / "home"
    prepared = work / "prepared.db"
    found = corpus()
    ids = add_learnings(found["learning"], {"CORTEX_DB": str(prepared), "HOME": str(home)})
    sessions = []
    for number, session in enumerate(found["session"]):
        database = work / f"session{number}.db"
        shutil.copyfile(prepared, database)
        env = {"CORTEX_DB": str(database), "HOME": str(home)}
        one = play(session, ids, env, home)
        sessions.append((session, one, outcomes(str(database))))
    return {"ids": ids, "sessions": sessions, "home": home, "prepared": prepared}


def test_the_labelled_sessions_are_decided_as_labelled(played: dict[str, Any]) -> None:
    ids = played["ids"]
    right, wrong, unlabelled = 0, [], []
    for session, one, found in played["sessions"]:
        unlabelled += [(session["name"], step, name) for step, name in one.unlabelled]
        for name, call_id, label in one.labelled:
            got = found.get((ids[name], call_id), "no catch")
            if got == label:
                right += 1
            else:
                wrong.append(f"{session['name']}: {name} labelled {label}, decided {got}")
    assert unlabelled == [], "catches without a label"
    total = right + len(wrong)
    print(f"\noutcomes right: {right} of {total} ({right / total:.1%}); wrong: {wrong}")
    assert total >= 50
    assert right / total >= GOAL, wrong


def test_every_shape_of_the_issue_is_in_the_set(played: dict[str, Any]) -> None:
    """deny then the correct command; deny then the same command; deny then a workaround; ask then
    the person's answer: each at least four times."""
    shapes = Counter(session["shape"] for session, _, _ in played["sessions"])
    for shape in ("correct", "same", "workaround", "ask"):
        assert shapes[shape] >= 4, shape
    labels = Counter(label for _, one, _ in played["sessions"] for _, _, label in one.labelled)
    assert min(labels[label] for label in ("followed", "retried", "asked", "unknown")) >= 4, labels


def test_replay_reports_the_outcomes_the_session_ends_worked_out(played: dict[str, Any]) -> None:
    """The same transcripts replayed (read only, the learnings as they were at the start) give
    each learning the followed, retried and asked counts the session ends stored."""
    ids = played["ids"]
    stored: dict[int, Counter[str]] = {}
    for _, _, found in played["sessions"]:
        for (learning_id, _call), result in found.items():
            stored.setdefault(learning_id, Counter())[result] += 1
    folder = played["home"] / ".claude" / "projects" / "-home-dev-proj"
    report = cli_json(
        "replay", str(folder), env={"CORTEX_DB": str(played["prepared"]), "HOME": str(played["home"])}
    )
    replayed = {item["id"]: item["outcomes"] for item in report["learnings"]}
    for name, learning_id in ids.items():
        counted = stored.get(learning_id, Counter())
        got = replayed[learning_id]
        assert (got["followed"], got["retried"], got["asked"], got["unknown"]) == (
            counted["followed"],
            counted["retried"],
            counted["asked"],
            counted["unknown"],
        ), name
