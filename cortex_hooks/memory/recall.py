"""What recall returns, pure (SPEC §9.3): the words of a query, and found rows ranked.

A result's score blends its bm25 relevance (over the best of the found set) with its rank score
(memory.rank): 0.85 · relevance + 0.15 · rank, so what the query is about decides and the rank
breaks near-ties (SPEC §12 measured a heavier rank weight hurting). Best first; at equal scores
the project before the global scope, then the older item.

With semantic recall (rows that carry a `cosine`, SPEC §12) the score is the cosine plus
0.1 · bm25 / max(bm25) plus a tiny share of the rank: meaning decides, a keyword hit lifts an
item among those meaning about the same, and the rank only breaks near-ties.
"""

from __future__ import annotations

import json
import re

from cortex_hooks.memory import rank
from cortex_hooks.memory.similarity import WORD

RELEVANCE_WEIGHT = 0.85
RANK_WEIGHT = 0.15
BM25_WEIGHT = 0.1  # semantic recall: cosine + 0.1 · bm25/max (SPEC §12; rank fusion measured far worse)
RANK_TIEBREAK = 0.02  # semantic recall: the rank score (0-1) moves a score by at most this
MAX_WORDS = 64  # a 10,000-character query is searched by its first 64 distinct words
KINDS = ("memory", "learning", "decision", "error", "todo")
_SHOW = {
    "memory": "cortex-hooks memories show {id}",
    "learning": "cortex-hooks show {id}",
    "decision": "cortex-hooks decisions show {id}",
    "error": "cortex-hooks errors show {id}",
    "todo": "cortex-hooks todos list",
}


def show_command(kind: str, item_id: object, scope: str) -> str:
    """The command that shows an item of a kind in full, in its scope: what recall's results and
    the push surface point at (`cortex-hooks memories show 3 --global`)."""
    return _SHOW[kind].format(id=item_id) + (" --global" if scope == "global" else "")


def query_words(text: str) -> list[str]:
    """The distinct words of a query, in order: quotes, operators and punctuation are no syntax."""
    return list(dict.fromkeys(word.casefold() for word in WORD.findall(text)))[:MAX_WORDS]


_SYMBOLS = re.compile(r"[^\w\s\x00-\x7f]+")


def query_symbols(text: str) -> list[str]:
    """The symbols of a query that has no word (`🚀`, `→`, `👍🏽`), each searched as it is written
    (SPEC §9.3: emoji are searched too), since the full-text index keeps only words. ASCII
    punctuation alone is no query."""
    units: list[str] = []
    for run in _SYMBOLS.findall(text):
        units += _symbols(run)
    return list(dict.fromkeys(units))[:MAX_WORDS]


def _symbols(run: str) -> list[str]:
    """A run of symbols cut into what a reader sees as one each: a mark, a variation selector, a
    skin tone, the character after a zero-width joiner and the second half of a flag stay with
    the symbol before them."""
    import unicodedata

    units: list[str] = []
    for character in run:
        code = ord(character)
        joins = bool(units) and (
            unicodedata.category(character) in ("Mn", "Me", "Cf")
            or 0x1F3FB <= code <= 0x1F3FF
            or units[-1].endswith("\u200d")
            or (_flag(code) and len(units[-1]) == 1 and _flag(ord(units[-1])))
        )
        if joins:
            units[-1] += character
        else:
            units.append(character)
    return units


def _flag(code: int) -> bool:
    return 0x1F1E6 <= code <= 0x1F1FF  # a regional indicator: two make a flag


class Found:
    """One found row of one scope, as the store reads it."""

    __slots__ = ("max_in_degree", "row", "scope")

    def __init__(self, scope: str, row: dict[str, object], max_in_degree: int) -> None:
        self.scope = scope
        self.row = row
        self.max_in_degree = max_in_degree


def ranked(found: list[Found], limit: int) -> list[dict[str, object]]:
    """The best `limit` results as recall prints them (without `linked`, which the caller adds)."""
    if not found:
        return []
    best = max(float(str(item.row["relevance"])) for item in found) or 1.0
    max_log = max(rank.access_log(int(str(item.row["access_count"]))) for item in found)
    scored = []
    for item in found:
        row = item.row
        value = rank.rank(
            int(str(row["confidence"])) if row["confidence"] is not None else rank.PART_ONE_CONFIDENCE,
            _priority(row["priority"]),
            rank.centrality(int(str(row["in_degree"])), item.max_in_degree),
            int(str(row["access_count"])),
            max_log,
        )
        relevance = float(str(row["relevance"])) / best
        if "cosine" in row:
            score = float(str(row["cosine"])) + BM25_WEIGHT * relevance + RANK_TIEBREAK * value
        else:
            score = RELEVANCE_WEIGHT * relevance + RANK_WEIGHT * value
        scored.append((score, item))
    scored.sort(
        key=lambda pair: (-pair[0], pair[1].scope != "project", pair[1].row["kind"], pair[1].row["id"])
    )
    return [
        {
            "scope": item.scope,
            "kind": item.row["kind"],
            "id": item.row["id"],
            "type": item.row["type"],
            "summary": item.row["summary"],
            "content": item.row["content"],
            "score": round(score, 4),
            "tags": json.loads(str(item.row["tags"] or "[]")),
            "path": item.row["path"],
        }
        for score, item in scored[:limit]
    ]


def _priority(value: object) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return rank.TODO_PRIORITY.get(value, rank.PART_ONE_PRIORITY)
    return rank.PART_ONE_PRIORITY
