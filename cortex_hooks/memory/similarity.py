"""Lexical similarity of two texts, pure (docs/guide/graph.md): the Jaccard index of their word sets.

Words are runs of letters and digits, case-folded, accents kept; similarity is the number of
words two texts share over the number of words in either. 1.0 for identical texts (and for two
texts of the same words in another order), symmetric, 0.0 when they share no word.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+")

RELATES = 0.60  # a `relates_to` edge when a memory is stored (docs/guide/aging.md)
CONSOLIDATE = 0.85  # flagged for consolidation


def words(text: str) -> frozenset[str]:
    return frozenset(word.casefold() for word in WORD.findall(text))


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


def similarity(first: str, second: str) -> float:
    return jaccard(words(first), words(second))
