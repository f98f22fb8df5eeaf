"""Similar pairs among many texts (SPEC §9.8), pure: every pair whose Jaccard similarity
(memory.similarity) reaches a threshold, without comparing every pair with every other.

Prefix filtering (Bayardo et al., "Scaling up all pairs similarity search", 2007): order each
text's words rarest first; two word sets of Jaccard >= t share at least ceil(t · the larger size)
words, so they share a word among the first |A| - ceil(t·|A|) + 1 rarest words of each. Only the
pairs an inverted index of those prefixes brings together are compared exactly: no pair at or above
the threshold is missed, and near-duplicates of rare words cost almost nothing to find.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

from cortex_hooks.memory.similarity import jaccard

Key = TypeVar("Key", bound=Hashable)


def _needed(size: int, threshold: float) -> int:
    """Words two sets must share when one has `size` words (the float's last bit forgiven)."""
    return max(1, math.ceil(threshold * size - 1e-9))


def similar(items: Sequence[tuple[Key, frozenset[str]]], threshold: float) -> list[tuple[Key, Key, float]]:
    """Every pair (first, second, similarity) with similarity >= threshold (0 < threshold <= 1),
    in the order of `items` within each pair (earlier item first), most similar first."""
    frequency: Counter[str] = Counter(word for _, words in items for word in words)
    index: dict[str, list[int]] = {}
    found: list[tuple[int, int, float]] = []
    for position, (_, words) in enumerate(items):
        if not words:
            continue
        ordered = sorted(words, key=lambda word: (frequency[word], word))
        prefix = ordered[: len(ordered) - _needed(len(ordered), threshold) + 1]
        candidates: set[int] = set()
        for word in prefix:
            candidates.update(index.get(word, ()))
        for other in candidates:
            others = items[other][1]
            smaller, larger = sorted((len(words), len(others)))
            if smaller < threshold * larger - 1e-9:
                continue  # too different in size to reach the threshold
            value = jaccard(words, others)
            if value >= threshold - 1e-9:
                found.append((other, position, value))
        for word in prefix:
            index.setdefault(word, []).append(position)
    found.sort(key=lambda pair: (-pair[2], pair[0], pair[1]))
    return [(items[first][0], items[second][0], value) for first, second, value in found]
