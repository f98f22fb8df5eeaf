"""The candidate rankings the recall benchmark compares (recall_quality.py), each a function of
the rows one question finds (api.recall.gather: FTS5 hits and nearest items by cosine, both scopes)
to their order. The chosen one is recall's own (memory.query.ranked); the others are scored from
the same rows' signals: `relevance` (bm25 over the query's weight), `coverage` (the IDF of the
words an item holds over the query's weight), `cosine`, `exact` (the query holds an identifier),
and each scope's `spread` (the best cosine minus the fifth) and `mean_cosine` (of all its vectors).
"""

from __future__ import annotations

from collections.abc import Callable

from cortex_hooks.embeddings.hybrid import keyword_weight
from cortex_hooks.embeddings.vector_math import MINILM, thresholds
from cortex_hooks.memory.query import KEYWORD_CAP, QUESTION, Found, asks, ranked

Order = list[tuple[str, object]]  # (scope, id) best first
Ranking = Callable[[list[Found]], Order]

CHOSEN = "chosen: cosine + w(mean cosine) · words held, a question -0.15 (recall)"
KEYWORD = "keyword recall alone (semantic off)"


def _number(row: dict[str, object], name: str, default: float = 0.0) -> float:
    return float(str(row.get(name, default)))


def by(score: Callable[[Found, dict[str, float]], float], scope_stats: bool = False) -> Ranking:
    """Order rows by a score (ties: project first, then kind and id, as recall breaks them)."""

    def order(found: list[Found]) -> Order:
        stats: dict[str, float] = {}
        if scope_stats:  # the largest bm25 share in each scope
            for item in found:
                key = f"max {item.scope}"
                stats[key] = max(stats.get(key, 0.0), _number(item.row, "relevance"))
        ranked_rows = sorted(
            found,
            key=lambda item: (
                -score(item, stats),
                item.scope != "project",
                str(item.row["kind"]),
                str(item.row["id"]),
            ),
        )
        return [(item.scope, item.row["id"]) for item in ranked_rows]

    return order


def chosen(found: list[Found]) -> Order:
    return [(str(result["scope"]), result["id"]) for result in ranked(found, len(found))]


def _rrf(found: list[Found], k: int = 60) -> Order:
    """Reciprocal-rank fusion of the cosine's order and bm25's, each scope on its own."""
    score: dict[int, float] = {}
    for scope in {item.scope for item in found}:
        mine = [item for item in found if item.scope == scope]
        for place, item in enumerate(sorted(mine, key=lambda item: -_number(item.row, "cosine")), 1):
            score[id(item)] = score.get(id(item), 0.0) + 1 / (k + place)
        hits = [item for item in mine if _number(item.row, "relevance") > 0]
        for place, item in enumerate(sorted(hits, key=lambda item: -_number(item.row, "relevance")), 1):
            score[id(item)] = score.get(id(item), 0.0) + 1 / (k + place)
    return by(lambda item, _: score[id(item)])(found)


def _spread_weight(row: dict[str, object]) -> float:
    """Issue 29's keyword weight: 1 while the five nearest cosines lie within 0.07, then
    (0.07 / spread)², 1 for an identifier."""
    spread = _number(row, "spread")
    weight = min(1.0, (0.07 / spread) ** 2) if spread > 0.07 else 1.0
    return 1.0 if row.get("exact") else weight


def blend(
    weight: str | float = "mean", words: str = "coverage", question: bool = True
) -> Callable[[Found, dict[str, float]], float]:
    """cosine + weight · min(cap, words held) minus QUESTION for a question: the chosen formula's parts,
    each replaceable (a fixed weight, bm25's share for the words, no question rule)."""

    def score(item: Found, _: dict[str, float]) -> float:
        row = item.row
        if weight == "mean":
            w = keyword_weight(_number(row, "mean_cosine"), thresholds(MINILM))
        elif weight == "spread":
            w = _spread_weight(row)
        else:
            w = float(weight)
        if weight != "spread" and row.get("exact"):
            w = max(w, 1.0)
        held = _number(row, "coverage" if words == "coverage" else "relevance")
        value = _number(row, "cosine") + w * min(KEYWORD_CAP, held)
        return value - QUESTION if question and asks(row) else value

    return score


CANDIDATES: dict[str, Ranking] = {
    "cosine alone": by(lambda item, _: _number(item.row, "cosine")),
    "cosine + 0.1 · bm25/max (the blend first specified)": by(
        lambda item, stats: (
            _number(item.row, "cosine")
            + 0.1 * _number(item.row, "relevance") / (stats[f"max {item.scope}"] or 1.0)
        ),
        scope_stats=True,
    ),
    "reciprocal-rank fusion, k = 60": _rrf,
    "cosine + w(spread) · bm25 share (the ranking before)": by(blend("spread", "share", question=False)),
    "as chosen, w fixed at 0.4": by(blend(0.4)),
    "as chosen, w fixed at 1.2": by(blend(1.2)),
    "as chosen, words by bm25 share": by(blend("mean", "share")),
    "as chosen, without the question rule": by(blend("mean", "coverage", question=False)),
    CHOSEN: chosen,
}
