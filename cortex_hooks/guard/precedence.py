"""One id in several places (docs/guide/team.md), pure: the project database's entry, the team file's and the
global database's may share an id (a pack's slug, a team id). The highest scope's entry is taken
whole (project > team file > global), except its action: the strictest of them holds (block > ask
> warn). A team entry never weakens a global one: where it would match otherwise (another regex,
tool or target: guard.weakening), the global entry stands beside it.

Resolved on the matches of one call only (a call that matches nothing never gets here).
"""

from __future__ import annotations

from cortex_hooks.frozen import Record
from cortex_hooks.guard import actions
from cortex_hooks.guard.weakening import Protection, lowered

ORDER = ("project", "team", "global")


class Entry(Record):
    """One place's entry of an id, active and not muted there."""

    place: str  # project, team or global
    action: str  # what it does now (a team entry not yet trusted: warn)
    regex: str | None
    tool: str
    target: str


class Match(Record):
    """A hit of this call, by where its learning lives and its shared id (None: it has none)."""

    place: str
    key: str | None


def resolve(matches: list[Match], entries: dict[str, list[Entry]]) -> list[tuple[bool, str | None]]:
    """For each match: whether it stands, and the action it takes (None: its own)."""
    decided: list[tuple[bool, str | None]] = []
    for match in matches:
        present = entries.get(match.key or "", [])
        if match.key is None or not present:
            decided.append((True, None))
            continue
        taken = min(present, key=lambda entry: ORDER.index(entry.place))
        strictest = actions.strictest(entry.action for entry in present)
        if match.place == taken.place:
            decided.append((True, strictest))
        elif match.place == "global" and taken.place == "team" and _weakens(taken, present):
            decided.append((True, None))  # the team entry matches otherwise: the global one stands
        else:
            decided.append((False, None))
    return decided


def _weakens(team: Entry, present: list[Entry]) -> bool:
    found = next((entry for entry in present if entry.place == "global"), None)
    if found is None:
        return False
    return bool(lowered(_protection(found), _protection(team)))


def _protection(entry: Entry) -> Protection:
    # What it matches is the question here: its action is taken at the strictest anyway, and the
    # person's state is not the file's to lower.
    return Protection(
        regex=entry.regex,
        tool=entry.tool,
        target=entry.target,
        action="warn",
        confidence=0,
        pinned=False,
        archived=False,
    )
