"""One id in several places (SPEC §17) among the matches of one call, read from the scopes'
databases and resolved by guard.precedence: PreToolUse (its call, and a rewrite's corrected
command) and explain call this one function, so they agree."""

from __future__ import annotations

from cortex_hooks.store import team as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.scopes import Scope


def one_per_id(hits: list[Any], scopes: list[Scope]) -> list[Any]:
    """The matches after guard.precedence: of an id held in several places the highest place's
    entry, at the strictest action among them (SPEC §17)."""
    places: dict[tuple[str, int], tuple[str, str | None]] = {}
    readable = [scope for scope in scopes if scope.connection is not None]
    for scope in readable:
        ids = [hit.id for hit in hits if hit.scope == scope.name]
        if ids:
            places.update(
                ((scope.name, i), key) for i, key in store.keys_of(scope.connection, ids, scope.name).items()
            )
    keys = sorted({key for _place, key in places.values() if key is not None})
    if not keys:
        return hits  # no match is of an id: nothing to resolve (and guard.precedence not imported)
    from cortex_hooks.guard import precedence

    entries: dict[str, list[precedence.Entry]] = {}
    for scope in readable:
        for row in store.holding(scope.connection, keys, scope.name):
            entries.setdefault(row["key"], []).append(
                precedence.Entry(row["place"], row["action"], row["regex"], row["tool"], row["target"])
            )
    matches = [precedence.Match(*places.get((hit.scope, hit.id), (hit.scope, None))) for hit in hits]
    for hit, match in zip(hits, matches, strict=True):
        if match.place == "team":
            hit.team = match.key
    kept = []
    for hit, (stands, action) in zip(hits, precedence.resolve(matches, entries), strict=True):
        if stands:
            if action is not None:
                hit.action = action
            kept.append(hit)
    return kept
