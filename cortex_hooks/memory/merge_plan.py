"""What a consolidation merges, pure: the flagged groups, each group's survivor, the plan.

A group is a connected component of the flagged pairs (two memories found nearly the same,
similarity ≥ 0.85, when one of them was stored). Its survivor is the member of highest rank (memory.rank:
centrality over the whole graph, the usage term over the group), ties to the oldest (smallest id);
it takes the union of the group's tags (its own first, then each other member's in id order) and
stays pinned if any member was pinned. Every other member becomes `superseded`.

The survivor keeps its own content. `plan` takes a `merge` function for the day an LLM is
configured: given the group, survivor first, it returns the merged content. None exists
yet, so the CLI passes none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from cortex_hooks.memory import rank

EXTRACTIONS_TRIGGER = 10  # memories written by capture (source `conversation`) since the last one
ACTIVE_TRIGGER = 500  # more active memories than this


@dataclass(frozen=True)
class Candidate:
    """One memory of a flagged group, as ranking and merging need it."""

    id: int
    confidence: int  # hundredths
    priority: int
    in_degree: int
    access_count: int
    pinned: bool
    tags: tuple[str, ...]
    content: str
    summary: str


@dataclass(frozen=True)
class Merge:
    """One group's merge: the survivor, what it becomes, and the members it supersedes."""

    survivor: int
    superseded: tuple[int, ...]
    tags: tuple[str, ...]
    pinned: bool
    content: str | None = None  # the merged content; None: the survivor's own is kept
    summary: str | None = None  # derived from the merged content


Merger = Callable[[Sequence[Candidate]], str]


def groups(pairs: Iterable[tuple[int, int]]) -> list[tuple[int, ...]]:
    """The connected components of the pairs, each sorted, ordered by their smallest id."""
    parent: dict[int, int] = {}

    def root(node: int) -> int:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for first, second in pairs:
        if first != second:
            low, high = sorted((root(first), root(second)))
            parent[high] = low
    members: dict[int, list[int]] = {}
    for node in parent:
        members.setdefault(root(node), []).append(node)
    return sorted(tuple(sorted(group)) for group in members.values() if len(group) > 1)


def survivor(members: Sequence[Candidate], max_in_degree: int) -> Candidate:
    """The member of highest rank (memory.rank); of equal ranks, the oldest."""
    max_log = max(rank.access_log(member.access_count) for member in members)

    def score(member: Candidate) -> tuple[float, int]:
        centrality = rank.centrality(member.in_degree, max_in_degree)
        value = rank.rank(member.confidence, member.priority, centrality, member.access_count, max_log)
        return round(value, 9), -member.id

    return max(members, key=score)


def plan(
    candidates: Iterable[Candidate],
    pairs: Iterable[tuple[int, int]],
    max_in_degree: int,
    merge: Merger | None = None,
) -> list[Merge]:
    """One Merge per group of flagged pairs whose members are all among the candidates (the active
    memories); a pair with a member that is not is left out."""
    known = {candidate.id: candidate for candidate in candidates}
    kept = [(first, second) for first, second in pairs if first in known and second in known]
    merges = []
    if merge is not None:
        from cortex_hooks.memory.given import summary_of
    for group in groups(kept):
        members = [known[member] for member in group]
        best = survivor(members, max_in_degree)
        others = [member for member in members if member.id != best.id]
        tags = tuple(dict.fromkeys(tag for member in (best, *others) for tag in member.tags))
        merges.append(
            Merge(
                survivor=best.id,
                superseded=tuple(member.id for member in others),
                tags=tags,
                pinned=any(member.pinned for member in members),
            )
        )
        if merge is not None:
            content = merge([best, *others])
            merges[-1] = replace(merges[-1], content=content, summary=summary_of(content))
    return merges


def trigger(extractions: int, active: int) -> str | None:
    """Why `consolidate --auto` runs now (docs/guide/aging.md), or None when no trigger is met."""
    if extractions >= EXTRACTIONS_TRIGGER:
        return f"{extractions} extractions since the last consolidation (trigger: {EXTRACTIONS_TRIGGER})"
    if active > ACTIVE_TRIGGER:
        return f"{active} active memories (trigger: more than {ACTIVE_TRIGGER})"
    return None
