"""Replay (SPEC §15): what the guard would have done with the tool calls of past transcripts — by
default this project's own, from Claude Code's folder of it (replay.folder) — learning by
learning: the calls it would have denied, asked about, rewritten and warned about, with up to
three redacted examples each.

Read only: nothing is boosted, written or counted as an access, and no database is created
(with none, only a pack or a proposal can be replayed). The learnings are judged as they are
now (their action, rewrite and confidence), every call alone, by the hook's own evaluation
(replay.judge). With `--learning`, `--pack` or `--proposal`, only those learnings are judged,
as if they were the whole guard; a pack is replayed as enabling it would add it, a proposal as
`accept` would make it.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any, NamedTuple

from cortex_hooks import clock, location
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.replay_learnings import pack_learnings, proposal_learnings, stored_learnings
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.notes import Notes
from cortex_hooks.replay import folder
from cortex_hooks.replay.judge import Learned
from cortex_hooks.replay.run import Progress, replay

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.api.capture import Answer
    from cortex_hooks.guard.records import LearningFields
    from cortex_hooks.replay.tally import Tally

COUNTS = {"deny": "denied", "ask": "asked", "rewrite": "rewritten", "warn": "warned"}


class Selection(NamedTuple):
    """What is replayed: every active learning of both scopes, or one learning, pack or proposal."""

    learning: int | None = None
    pack: str | None = None
    proposal: int | None = None


EVERY = Selection()  # every active learning of both scopes


class Where(NamedTuple):
    """The transcripts read: the paths given, or this project's folder; calls since an instant."""

    paths: list[str]
    since_days: int | None = None


def run(
    databases: Databases,
    where: Where,
    notes: Notes,
    selection: Selection = EVERY,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The replay report (its JSON keys are documented in docs/guide/actions.md)."""
    if selection.pack is not None:
        learned, described = pack_learnings(databases, selection.pack, notes)
    elif selection.proposal is not None:
        from cortex_hooks.api.capture import Answer, preview

        fields = preview(databases, selection.proposal, notes, Answer())
        learned, described = proposal_learnings(databases, fields, selection.proposal, notes)
    else:
        learned, described = stored_learnings(databases, selection.learning, notes)
    return report(learned, described, where, notes, progress)


def of_pack(
    databases: Databases, name: str, notes: Notes, progress: Progress | None = None
) -> dict[str, Any]:
    """`packs enable --dry-run`: a pack's learnings replayed over this project's transcripts."""
    learned, described = pack_learnings(databases, name, notes)
    return report(learned, described, Where([]), notes, progress)


def of_accepting(
    databases: Databases, proposal_id: int, answer: Answer, notes: Notes, progress: Progress | None = None
) -> tuple[LearningFields, dict[str, Any]]:
    """`accept --dry-run`: the learning accepting the proposal with this answer would make, and
    its replay over this project's transcripts."""
    from cortex_hooks.api.capture import preview

    fields = preview(databases, proposal_id, notes, answer)
    learned, described = proposal_learnings(databases, fields, proposal_id, notes)
    return fields, report(learned, described, Where([]), notes, progress)


def report(
    learned: list[Learned],
    described: list[dict[str, Any]],
    where: Where,
    notes: Notes,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """These learnings replayed over the transcripts of `where`."""
    missing = [path for path in where.paths if not os.path.lexists(path)]
    if missing:  # a mistyped path is a usage error, as in every other command, not an empty replay
        raise CortexError(f"replay: no such file or folder: {missing[0]}", USAGE)
    since = _since(where.since_days)
    paths = where.paths or [folder.project_folder(location.project_root())]
    skipped: list[tuple[str, str]] = []
    if not where.paths and not os.path.isdir(paths[0]):
        notes.add(f"replay: no transcripts of this project at {paths[0]} (give a PATH)")
        files: list[str] = []
    else:
        files = _recent(folder.transcripts(paths, skipped), since)
    if not learned:
        notes.add("replay: no learning to replay")
        files = []
    tally = replay(learned, files, since=since, progress=progress)
    skipped += tally.problems
    for path, reason in skipped:
        notes.add(f"replay: {path}: {reason}")
    return {
        "paths": paths,
        "since": since,
        "transcripts": tally.transcripts,
        "calls": tally.calls,
        "answers": {answer: tally.answers.get(answer, 0) for answer in (*COUNTS, "none")},
        "learnings": [_learning(number, one, tally) for number, one in enumerate(described)],
        "skipped": [{"path": path, "reason": reason} for path, reason in skipped],
    }


def _learning(number: int, described: dict[str, Any], tally: Tally) -> dict[str, Any]:
    counts: dict[str, int] = dict(tally.learnings.get(number, {}))
    examples = [
        example
        for answer in COUNTS
        for example in reversed(tally.examples.get((number, answer), []))  # the latest first
    ]
    return {
        **described,
        "matched": counts.get("matched", 0),
        **{name: counts.get(answer, 0) for answer, name in COUNTS.items()},
        "examples": examples,
    }


def _since(days: int | None) -> str | None:
    """The first instant replayed, in the transcripts' own form (milliseconds, Z)."""
    if days is None:
        return None
    return (clock.now() - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _recent(files: list[str], since: str | None) -> list[str]:
    """The transcripts that may hold calls since `since`: one last written before holds none."""
    if since is None:
        return files
    cutoff = clock.parse(since).timestamp()
    kept = []
    for path in files:
        try:
            if os.stat(path).st_mtime >= cutoff:
                kept.append(path)
        except OSError:
            kept.append(path)  # read, and named if it cannot be
    return kept
