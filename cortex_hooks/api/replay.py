"""Replay (docs/reference/commands.md): what the guard would have done with the tool calls of past
transcripts — by default this project's own, from Claude Code's folder of it and the other agents'
transcripts of it (replay.folder: Codex rollouts, Gemini chats) — learning by learning: the calls
it would have denied, asked about, rewritten and warned about, with up to three redacted examples
each.

Read only: nothing is boosted, written or counted as an access, and no database of the user's
is created (with none, only a pack or a proposal can be replayed). The learnings are judged as
they are now (their action, rewrite and confidence), every call alone, by the one judge
(guard.judge, through replay.rules), the built-in protection with them: its denials are counted
under its own name. With `--learning`, `--pack` or `--proposal`, only those learnings are judged,
as if they were the whole guard (without the built-in protection); a pack is replayed as enabling
it would add it, a proposal as `accept` would make it.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from cortex_hooks import clock, location
from cortex_hooks.api.capture import Answer, preview
from cortex_hooks.api.databases import Databases
from cortex_hooks.api.replay_learnings import Replayed, pack_learnings, proposal_learnings, stored_learnings
from cortex_hooks.api.wording import clean
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.frozen import Record
from cortex_hooks.guard import prefilter
from cortex_hooks.notes import Notes
from cortex_hooks.replay import folder
from cortex_hooks.replay.run import Each, Progress, Setting, replay
from cortex_hooks.replay.tally import Tally
from cortex_hooks.replay.worker_rules import BUILT_IN
from cortex_hooks.store import scratch
from cortex_hooks.transcripts import call_log

if TYPE_CHECKING:
    from cortex_hooks.guard.learning_records import LearningFields
    from cortex_hooks.replay.tally import Key

COUNTS = {"deny": "denied", "ask": "asked", "rewrite": "rewritten", "warn": "warned"}
# What the calls got; a call nothing stops is counted as "none", the word replay's JSON had
# before the judge named it allow (explain's `decision` keeps it too).
ANSWERS = {**{answer: answer for answer in COUNTS}, "allow": "none"}


class Selection(Record):
    """What is replayed: every active learning of both scopes, or one learning, pack or proposal."""

    learning: int | None = None
    pack: str | None = None
    proposal: int | None = None


EVERY = Selection()  # every active learning of both scopes


class Where(Record):
    """The transcripts read: the paths given, or this project's folder; calls since an instant."""

    paths: list[str]
    since_days: int | None = None


def run(
    databases: Databases,
    where: Where,
    notes: Notes,
    selection: Selection = EVERY,
    *,
    progress: Progress | None = None,
    each: Each | None = None,
) -> dict[str, Any]:
    """The replay report (its JSON keys are documented in docs/guide/actions.md); `each` sees
    every call judged, with the hook's answer."""
    if selection.pack is not None:
        replayed = pack_learnings(databases, selection.pack, notes)
    elif selection.proposal is not None:
        fields = preview(databases, selection.proposal, notes, Answer())
        replayed = proposal_learnings(databases, fields, selection.proposal, notes)
    else:
        replayed = stored_learnings(databases, selection.learning, notes)
    # what the agent did after each catch: for the learnings in force (or one of them), not for a
    # pack or a proposal, which caught nothing then (and whose replay reads only the lines it may match)
    return report(
        replayed, where, notes, progress, each, outcomes=selection.pack is None and selection.proposal is None
    )


def of_pack(
    databases: Databases, name: str, notes: Notes, progress: Progress | None = None
) -> dict[str, Any]:
    """`packs enable --dry-run`: a pack's learnings replayed over this project's transcripts."""
    return report(pack_learnings(databases, name, notes), Where([]), notes, progress)


def of_accepting(
    databases: Databases, proposal_id: int, answer: Answer, notes: Notes, progress: Progress | None = None
) -> tuple[LearningFields, dict[str, Any]]:
    """`accept --dry-run`: the learning accepting the proposal with this answer would make, and
    its replay over this project's transcripts."""
    fields = preview(databases, proposal_id, notes, answer)
    return fields, report(
        proposal_learnings(databases, fields, proposal_id, notes), Where([]), notes, progress
    )


def report(
    replayed: Replayed,
    where: Where,
    notes: Notes,
    progress: Progress | None = None,
    each: Each | None = None,
    *,
    outcomes: bool = False,
) -> dict[str, Any]:
    """These rules replayed over the transcripts of `where`; with `outcomes`, what the agent did
    after each of their catches (docs/guide/outcomes.md: guard.catch_outcomes, as SessionEnd works it out)."""
    missing = [path for path in where.paths if not os.path.lexists(path)]
    if missing:  # a mistyped path is a usage error, as in every other command, not an empty replay
        raise CortexError(f"replay: no such file or folder: {missing[0]}", USAGE)
    since = _since(where.since_days)
    root = location.project_root()
    # this project's: Claude Code's folder of it, and the other agents' transcripts of it
    paths = where.paths or [folder.project_folder(root), *folder.agents_transcripts(root)]
    skipped: list[tuple[str, str]] = []
    read = paths
    if not where.paths and not os.path.isdir(paths[0]):
        if len(paths) == 1:
            notes.add(f"replay: no transcripts of this project at {paths[0]} (give a PATH)")
        read = paths[1:]
    files = _recent(folder.transcripts(read, skipped), since) if read else []
    if not replayed.described and not replayed.whole:
        notes.add("replay: no learning to replay")
        files = []
    with scratch.database(replayed.rows) as (path, ids):
        if replayed.whole:
            databases, keys = replayed.databases, replayed.keys
        else:
            databases, keys = [(replayed.scope, path)], [(replayed.scope, i) for i in ids]
        grams = _grams(replayed) if not (replayed.whole or outcomes) else None
        setting = Setting(databases, replayed.whole, since, grams, outcomes)
        tally = replay(setting, files, progress=progress, each=each) if databases else None
    if tally is None:
        tally = Tally()
    skipped += tally.problems
    for file, reason in skipped:
        notes.add(f"replay: {file}: {reason}")
    result = {
        "paths": paths,
        "since": since,
        "transcripts": tally.transcripts,
        "calls": tally.calls,
        "answers": {said: tally.answers.get(answer, 0) for answer, said in ANSWERS.items()},
        "learnings": [
            _learning(key, one, tally, outcomes=outcomes)
            for key, one in zip(keys, replayed.described, strict=True)
        ],
        "skipped": [{"path": file, "reason": reason} for file, reason in skipped],
    }
    if replayed.whole:
        result["built_in"] = _learning(BUILT_IN, {"name": "built-in protection"}, tally)
    return result


def _grams(replayed: Replayed) -> call_log.Grams | None:
    """What a transcript line must hold for a call in it to matter to these learnings alone."""
    return call_log.grams(
        [(row["tool"], row["target"], prefilter.keys(row["regex"], row["target"])) for row in replayed.rows]
    )


def _learning(key: Key, described: dict[str, Any], tally: Tally, *, outcomes: bool = False) -> dict[str, Any]:
    counts: dict[str, int] = dict(tally.learnings.get(key, {}))
    examples = [
        example
        for answer in COUNTS
        for example in reversed(tally.examples.get((key, answer), []))  # the latest first
    ]  # (the retried calls are the outcomes' own)
    found: dict[str, Any] = {
        **described,
        "matched": counts.get("matched", 0),
        **{name: counts.get(answer, 0) for answer, name in COUNTS.items()},
        "examples": examples,
    }
    if key != BUILT_IN:
        found["outcomes"] = _outcomes(key, counts, tally) if outcomes else None
    return found


def _outcomes(key: Key, counts: dict[str, int], tally: Tally) -> dict[str, Any]:
    """What the agent did after the learning's catches (its denies, asks and rewrites:
    guard.catch_outcomes), and the latest call it retried it with."""
    caught = sum(counts.get(answer, 0) for answer in ("deny", "ask", "rewrite"))
    done: dict[str, int] = dict(tally.outcomes.get(key, {}))
    decided = {name: done.get(name, 0) for name in ("followed", "retried", "asked")}
    retried = tally.examples.get((key, "retried"), [])
    return {
        "caught": caught,
        **decided,
        "unknown": max(caught - sum(decided.values()), 0),
        "last_retried": retried[-1] if retried else None,
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


# What people read of it, from the CLI and the MCP server alike. The text of a replay: what the
# guard would have done, learning by learning, with examples.

_VERBS = {"denied": "denied", "asked": "asked about", "rewritten": "rewritten", "warned": "warned about"}
_ANSWERED = {"deny": "denied", "ask": "asked", "rewrite": "rewrote", "warn": "warned"}


def replayed(report: dict[str, Any], *, title: str | None = None) -> str:
    """The whole report: what was read, what the guard would have done, each learning that
    matched with its examples, and how many matched nothing."""
    where = ", ".join(clean(path, one_line=True) for path in report["paths"])
    since = f", calls since {report['since'][:10]}" if report["since"] else ""
    lines = [title] if title else []
    lines.append(
        f"Replayed {report['transcripts']:,} transcript{'s' if report['transcripts'] != 1 else ''} "
        f"({report['calls']:,} tool calls) from {where}{since}."
    )
    answers = report["answers"]
    done = [
        f"{_VERBS[name]} {answers[answer]:,}"
        for answer, name in (
            ("deny", "denied"),
            ("ask", "asked"),
            ("rewrite", "rewritten"),
            ("warn", "warned"),
        )
        if answers[answer]
    ]
    lines.append(
        "No tool call was read, so there is nothing to judge."
        if not report["calls"]
        else "The guard would have " + (", ".join(done) + " calls." if done else "let every call through.")
    )
    built_in = report.get("built_in")
    if built_in and built_in["matched"]:  # counted under its own name (docs/internals/judge.md)
        lines += ["", f"The built-in protection would have denied {built_in['denied']:,} calls:"]
        lines += [
            f"    e.g. {example['at'][:10] or '?'} denied: {_cut(clean(example['call'], one_line=True), 120)}"
            for example in built_in["examples"]
        ]
    quiet = 0
    for learning in report["learnings"]:
        if not learning["matched"]:
            quiet += 1
            continue
        lines += ["", *_learning_lines(learning)]
    if quiet:
        lines += ["", f"{quiet} learning{'s' if quiet != 1 else ''} matched no call."]
    lines.append("Nothing was written: a replay is read only.")
    return "\n".join(lines)


def name(learning: dict[str, Any]) -> str:
    """How a report names a learning: its id, its pack slug, or the proposal it would come from."""
    if learning["id"] is not None:
        return f"#{learning['id']}" + (" (global)" if learning["scope"] == "global" else "")
    if learning["slug"] is not None:
        return str(learning["slug"])
    return f"proposal #{learning['proposal']}"


def _learning_lines(learning: dict[str, Any]) -> list[str]:
    rewrite = learning["rewrite"]
    acts = learning["action"] + (
        f", rewrite to `{clean(rewrite, one_line=True)[:60]}`" if rewrite is not None else ""
    )
    trust = "" if learning["trusted"] else " — not trusted yet: it warns until its confidence passes the gate"
    counts = ", ".join(
        f"{_VERBS[key]} {learning[key]:,}"
        for key in ("denied", "asked", "rewritten", "warned")
        if learning[key]
    )
    lines = [
        f"{name(learning)} {_cut(clean(learning['anti_pattern'], one_line=True), 80)}",
        f"    {acts}, confidence {learning['confidence']:.2f}{trust}",
        f"    matched {learning['matched']:,} call{'s' if learning['matched'] != 1 else ''}:"
        f" would have {counts}",
    ]
    lines += _after(learning.get("outcomes"))
    for example in learning["examples"]:
        corrected = example["corrected"]
        then = f"\n          -> {_cut(clean(corrected, one_line=True), 120)}" if corrected is not None else ""
        lines.append(
            f"    e.g. {example['at'][:10] or '?'} {_ANSWERED[example['answer']]}: "
            f"{_cut(clean(example['call'], one_line=True), 120)}{then}"
        )
    return lines


def _after(outcomes: dict[str, Any] | None) -> list[str]:
    """What the agent did after the calls it would have caught, and the latest call it
    retried the anti-pattern with."""
    if not outcomes or not outcomes["caught"]:
        return []
    answered = f", the person answered {outcomes['asked']:,}" if outcomes["asked"] else ""
    lines = [
        f"    after them the agent followed the correct way {outcomes['followed']:,}, retried the "
        f"anti-pattern {outcomes['retried']:,}{answered}, unknown {outcomes['unknown']:,}"
    ]
    last = outcomes["last_retried"]
    if last is not None:
        lines.append(
            f"    last retried {last['at'][:10] or '?'}: {_cut(clean(last['call'], one_line=True), 120)}"
        )
    return lines


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"
