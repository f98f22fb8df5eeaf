"""What recall returns, pure: the words of a query, and found rows ranked.

Relevance, from the found rows' signals (chosen on several labelled sets at once, short project
notes and long conversations: benchmarks/quality, docs/internals/recall-quality.md):
- keyword recall: bm25 over the query's weight (store.recall.Query: the sum of its words' IDF),
  i.e. how much of the query an item holds, rare words counting most;
- semantic recall (rows that carry a `cosine`): the cosine plus the words the item holds (its
  `coverage`: their IDF over the query's weight, however often and in however long a text),
  capped at KEYWORD_CAP, times the scope's keyword weight
  (embeddings.hybrid.keyword_weight: small in a database of notes on many subjects, where the
  meaning finds the one asked about; full in one whose items are all alike to the query, a
  conversation, where only the words can tell them apart) — and at least 1 for a query holding
  an identifier (`orders.v2`, `eu-west-1`). Exact keywords and identifiers hold most of the query
  and so come first; a question worded unlike its answer is decided by its meaning. An item that
  itself ends in a question mark loses QUESTION: it asks, it does not tell (a quarter of a
  conversation's turns are questions, and a question is near another by its words and its shape).
The rank score (memory.rank) only breaks near-ties: it moves a relevance by at most RANK_TIEBREAK
(each recall adds accesses, and a heavier rank weight measured worse: see docs/guide/embeddings.md).
The score shown is that sum mapped into [0, 1) (`shown`). Best first; at equal scores the project before the
global scope, then the older item.
"""

from __future__ import annotations

import json
import re

from cortex_hooks.memory import rank
from cortex_hooks.memory.similarity import WORD

KEYWORD_CAP = 2.0  # semantic recall: the words held count up to this (identifiers beyond the weight)
QUESTION = 0.15  # semantic recall: what an item that is a question loses
RANK_TIEBREAK = 0.01  # the rank score (0-1) moves a score by at most this
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
    """The distinct words of a query, in order, then each identifier as a phrase (`orders.v2` →
    "orders v2", which only a row holding it whole matches): quotes, operators and punctuation
    are no syntax."""
    words = list(dict.fromkeys(word.casefold() for word in WORD.findall(text)))[:MAX_WORDS]
    phrases = (_identifier(token) for token in text.split())
    return words + [phrase for phrase in dict.fromkeys(phrases) if phrase][: MAX_WORDS // 4]


def _identifier(token: str) -> str | None:
    """An identifier's words joined by spaces: a token of several words that holds a digit or
    joins them with `.`, `_`, `/` or `:` (`eu-west-1`, `orders.v2`, `test_checkout_flow`); None
    for anything else (`self-portrait`, `Caroline's`)."""
    parts = WORD.findall(token)
    if len(parts) < 2 or not any(mark in token for mark in "0123456789._/:"):
        return None
    return " ".join(part.casefold() for part in parts)


_SYMBOLS = re.compile(r"[^\w\s\x00-\x7f]+")


def query_symbols(text: str) -> list[str]:
    """The symbols of a query that has no word (`🚀`, `→`, `👍🏽`), each searched as it is written
    (docs/guide/memories.md: emoji are searched too), since the full-text index keeps only words. ASCII
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


def relevance(row: dict[str, object]) -> float:
    """How well a found row answers the query (see the module's docstring)."""
    if "cosine" not in row:
        return float(str(row["relevance"]))
    weight = float(str(row.get("keyword_weight", 1.0)))
    if row.get("exact"):  # an identifier in the query (store.recall.Query.exact): the words decide in full
        weight = max(weight, 1.0)
    value = float(str(row["cosine"])) + weight * min(KEYWORD_CAP, float(str(row.get("coverage", 0.0))))
    return value - QUESTION if asks(row) else value


def asks(row: dict[str, object]) -> bool:
    """Whether an item is a question (its text ends with a question mark)."""
    return str(row.get("content") or "").rstrip().endswith("?")


def shown(score: float) -> float:
    """A score as recall shows it, in [0, 1): s / (1 + s), which keeps the order (a keyword
    score of 1, the whole query held once, shows 0.5)."""
    score = max(score, 0.0)
    return score / (1 + score)


def ranked(found: list[Found], limit: int) -> list[dict[str, object]]:
    """The best `limit` results as recall prints them (without `linked`, which the caller adds)."""
    if not found:
        return []
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
        scored.append((shown(relevance(row) + RANK_TIEBREAK * value), item))
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
            # "claude-code": a chunk of its memory files; "team": a line of the team file (docs/guide/team.md)
            "source": "team" if item.row.get("team") is not None else item.row.get("source", "cortex"),
            **({"line": item.row["line"], "origin": item.row["origin"]} if "line" in item.row else {}),
            "team": item.row.get("team") is not None,  # from the team file (docs/guide/team.md)
        }
        for score, item in scored[:limit]
    ]


def _priority(value: object) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return rank.TODO_PRIORITY.get(value, rank.PART_ONE_PRIORITY)
    return rank.PART_ONE_PRIORITY
