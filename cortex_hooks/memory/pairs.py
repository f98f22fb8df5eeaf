"""Similar pairs among many texts (docs/guide/graph.md), pure: every pair whose Jaccard similarity
(memory.similarity) reaches a threshold, without comparing every pair with every other.

Prefix filtering with pairs of words (Wang, Li, Feng: "Can we beat the prefix filtering?", 2012):
order each text's words rarest first. Two sets of Jaccard >= t share o >= ceil(t · |A|) words,
so their second shared word lies among the first |A| - ceil(t·|A|) + 2 words of each: when
o >= 2, the two share a *pair* of words from those prefixes. Each set is indexed under the
pairs of its prefix (3 pairs for 12 words at t = 0.85), and only sets meeting under a pair are
compared exactly. A pair of rare words is far rarer than either word, so the candidates stay
few as the number of texts grows. Sets that may reach t sharing a single word (sizes adding up
to at most 1 + 1/t: one-word texts at 0.85) are matched on single words among themselves.
No pair at or above the threshold is missed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)
_SLACK = 1e-9  # a float's last bit never decides a bound


def similar(items: Sequence[tuple[Key, frozenset[str]]], threshold: float) -> list[tuple[Key, Key, float]]:
    """Every pair (first, second, similarity) with similarity >= threshold (0 < threshold <= 1),
    in the order of `items` within each pair (earlier item first), most similar first."""
    frequency: Counter[str] = Counter(word for _, words in items for word in words)
    # One total order of every word, rarest first (the filter holds only under one order).
    rank = {word: n for n, word in enumerate(sorted(frequency, key=lambda word: (frequency[word], word)))}
    index: dict[tuple[str, ...], int | list[int]] = {}  # most keys hold one item: a bare int
    tiny = 1 + 1 / threshold + _SLACK  # sizes adding up to this may reach t sharing one word
    candidates: set[tuple[int, int]] = set()
    for position, (_, words) in enumerate(items):
        if not words:
            continue
        ordered = sorted(words, key=rank.__getitem__)
        size = len(ordered)
        prefix = ordered[: size - max(1, math.ceil(threshold * size - _SLACK)) + 2]
        keys: list[tuple[str, ...]] = list(combinations(prefix, 2))
        if size + 1 <= tiny:
            keys += [(word,) for word in ordered]
        for key in keys:
            postings = index.setdefault(key, position)
            if isinstance(postings, int):
                if postings != position:
                    candidates.add((postings, position))
                    index[key] = [postings, position]
            else:
                candidates.update((other, position) for other in postings)
                postings.append(position)
    found: list[tuple[int, int, float]] = []
    for first, second in candidates:
        mine, theirs = items[first][1], items[second][1]
        shared = len(mine & theirs)
        value = shared / (len(mine) + len(theirs) - shared)
        if value >= threshold - _SLACK:
            found.append((first, second, value))
    found.sort(key=lambda pair: (-pair[2], pair[0], pair[1]))
    return [(items[first][0], items[second][0], value) for first, second, value in found]
