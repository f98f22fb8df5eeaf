"""SQL of recall (SPEC §9.3): the full-text index over every kind, and the rows it finds.

The index `search` holds one row per memory, learning, decision, error and todo; its rowid is
8 · the item's id + the kind's number (KINDS), and triggers keep it in step with the rows (schema 7).
Archived, superseded and done rows stay indexed: they are filtered out here, when found.
"""

from __future__ import annotations

import json
import sqlite3

KINDS = {1: "memory", 2: "learning", 3: "decision", 4: "error", 5: "todo"}
NUMBERS = {kind: number for number, kind in KINDS.items()}
CANDIDATES = 50  # the fewest bm25 hits read per database (5 per result asked for): ranked

# Each kind's active rows as recall shows them: the columns every result has.
_ROWS = {
    "memory": """SELECT id, type, summary, content, tags, confidence, priority, in_degree, access_count, path
                 FROM memory WHERE status = 'active' AND id IN (SELECT value FROM json_each(:ids))""",
    "learning": """SELECT l.id, 'learning' AS type, l.anti_pattern AS summary,
                       l.anti_pattern || char(10) || 'DO: ' || l.correct_pattern
                           || coalesce(char(10) || l.context, '') AS content,
                       '[]' AS tags, c.confidence, NULL AS priority, 0 AS in_degree, l.access_count,
                       NULL AS path
                   FROM learning AS l JOIN learning_confidence AS c ON c.learning_id = l.id
                   WHERE l.archived_at IS NULL AND typeof(c.confidence) = 'integer'
                       AND l.id IN (SELECT value FROM json_each(:ids))""",
    "decision": """SELECT id, 'decision' AS type, title AS summary, reasoning AS content, '[]' AS tags,
                       NULL AS confidence, NULL AS priority, 0 AS in_degree, access_count, NULL AS path
                   FROM decision WHERE archived_at IS NULL AND superseded_by IS NULL
                       AND id IN (SELECT value FROM json_each(:ids))""",
    "error": """SELECT id, 'error' AS type, message AS summary,
                    message || coalesce(char(10) || 'fix: ' || fix, '') AS content, '[]' AS tags,
                    NULL AS confidence, NULL AS priority, 0 AS in_degree, access_count, NULL AS path
                FROM error WHERE archived_at IS NULL AND id IN (SELECT value FROM json_each(:ids))""",
    "todo": """SELECT id, 'todo' AS type, text AS summary, text AS content, '[]' AS tags,
                   NULL AS confidence, priority, 0 AS in_degree, 0 AS access_count, NULL AS path
               FROM todo WHERE archived_at IS NULL AND done = 0
                   AND id IN (SELECT value FROM json_each(:ids))""",
}


def found(
    connection: sqlite3.Connection, match: str, kinds: set[str], best: int = CANDIDATES
) -> list[dict[str, object]]:
    """The active rows of these kinds among the `best` hits of the FTS5 query `match`, each with
    its kind and its bm25 relevance (higher is better), best first. bm25 scores the newest BUDGET
    rows the query finds, never more (see `match`)."""
    hits = connection.execute(
        "SELECT rowid, -bm25(search) AS relevance FROM search WHERE search MATCH :match "
        "AND rowid >= :floor AND rowid % 8 IN (SELECT value FROM json_each(:kinds)) "
        "ORDER BY bm25(search) LIMIT :best",
        {
            "match": match,
            "floor": _floor(connection, match),
            "kinds": json.dumps([NUMBERS[kind] for kind in kinds]),
            "best": best,
        },
    ).fetchall()
    wanted: dict[str, dict[int, float]] = {}
    for rowid, relevance in hits:
        wanted.setdefault(KINDS[rowid % 8], {})[rowid // 8] = relevance
    results = rows(connection, wanted)
    results.sort(key=lambda result: -float(str(result["relevance"])))
    return results


def containing(
    connection: sqlite3.Connection, texts: list[str], kinds: set[str], best: int = CANDIDATES
) -> list[dict[str, object]]:
    """The active rows of these kinds whose text holds any of these texts (the symbols FTS5's
    tokenizer leaves out of its words: an emoji), the newest first, at most `best`; a scan of the
    index's text, for the rare query that has no word at all. Each has relevance 1."""
    held = " OR ".join(f"instr(body, :text{index}) > 0" for index in range(len(texts)))
    hits = connection.execute(
        f"SELECT rowid FROM search WHERE ({held}) AND rowid % 8 IN (SELECT value FROM json_each(:kinds)) "
        "ORDER BY rowid DESC LIMIT :best",
        {
            **{f"text{index}": text for index, text in enumerate(texts)},
            "kinds": json.dumps([NUMBERS[kind] for kind in kinds]),
            "best": best,
        },
    ).fetchall()
    wanted: dict[str, dict[int, float]] = {}
    for (rowid,) in hits:
        wanted.setdefault(KINDS[rowid % 8], {})[rowid // 8] = 1.0
    return rows(connection, wanted)


def _floor(connection: sqlite3.Connection, match: str) -> int:
    """The lowest rowid bm25 scores: the newest BUDGET rows the query finds are scored, older ones
    not (0 when it finds no more than that)."""
    beyond = connection.execute(
        "SELECT rowid FROM search WHERE search MATCH :match ORDER BY rowid DESC LIMIT 1 OFFSET :budget",
        {"match": match, "budget": BUDGET},
    ).fetchone()
    return beyond[0] + 1 if beyond else 0


def rows(connection: sqlite3.Connection, wanted: dict[str, dict[int, float]]) -> list[dict[str, object]]:
    """The active ones of some rows (ids by kind, each with its relevance) as recall shows them."""
    results: list[dict[str, object]] = []
    for kind, relevances in wanted.items():
        for row in connection.execute(_ROWS[kind], {"ids": json.dumps(list(relevances))}):
            results.append({**dict(row), "kind": kind, "relevance": relevances[row["id"]]})
    return results


def similar_memories(
    connection: sqlite3.Connection, match: str, exclude: int, limit: int = 50
) -> list[sqlite3.Row]:
    """The active memories sharing the most words with a text (the candidates of auto-link and
    of similar pairs: an index lookup, never a scan of every memory; bm25 scores at most the
    newest BUDGET rows the words find)."""
    return connection.execute(
        """SELECT m.id, m.content FROM (
               SELECT rowid / 8 AS id, bm25(search) AS relevance FROM search
               WHERE search MATCH :match AND rowid >= :floor AND rowid % 8 = 1
               ORDER BY bm25(search) LIMIT :limit) AS hit
           JOIN memory AS m ON m.id = hit.id
           WHERE m.status = 'active' AND m.id != :exclude ORDER BY hit.relevance""",
        {"match": match, "floor": _floor(connection, match), "exclude": exclude, "limit": limit},
    ).fetchall()


def words_query(words: list[str]) -> str:
    """An FTS5 query that finds any of these words, each quoted: never FTS syntax."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


KEPT_WORDS = 8  # a query is searched by its rarest words: common ones only cost time
# The rows bm25 scores at most, per query and scope: it reads every row the query's words are in,
# so this bounds recall's cost at any size. A query keeps its rarer words while the rows they are
# in stay within it; when even its rarest word is in more rows, the newest BUDGET are scored.
BUDGET = 1_000
COMMON = 0.10  # past the budget, a word in more than this share of rows is dropped while rarer ones remain
# Words too common to be worth counting or searching: left out of a query that has other words.
STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from had has have how i if in into is it its
    not of on or our so that the their then there these they this to was we were what when where
    which who why will with you your""".split()  # noqa: SIM905 (a word list reads best as words)
)


def match(connection: sqlite3.Connection, words: list[str]) -> str:
    """The FTS5 query for these words: the rarest of them, while the rows they are in fit the
    budget (bm25 weighs a common word at almost nothing, yet reading its rows is what makes a
    query slow over 100,000 memories). A word in no row costs nothing and is kept."""
    words = [word for word in words if word not in STOPWORDS] or words
    newest = connection.execute("SELECT coalesce(max(rowid), 0) FROM search").fetchone()[0]
    counts = {word: _rows_holding(connection, word, newest) for word in words}
    absent = [word for word in words if not counts[word]]
    present = sorted((word for word in words if counts[word]), key=counts.__getitem__)
    kept: list[str] = []
    total = 0.0
    for word in present:
        total += counts[word]
        if total > BUDGET:
            break
        kept.append(word)
    if not kept:  # even the rarest word is in more rows than the budget: found() takes the newest
        rows = newest / 8
        kept = [word for word in present if counts[word] <= COMMON * rows] or present[:1]
    return words_query(absent + kept[:KEPT_WORDS])


def _rows_holding(connection: sqlite3.Connection, word: str, newest: int) -> float:
    """How many rows hold a word: counted up to the budget, beyond it estimated from how recent
    the newest BUDGET of them are (reading no more than those)."""
    count, oldest = connection.execute(
        """SELECT count(*), min(rowid) FROM (
               SELECT rowid FROM search WHERE search MATCH :word ORDER BY rowid DESC LIMIT :enough)""",
        {"word": words_query([word]), "enough": BUDGET + 1},
    ).fetchone()
    if count <= BUDGET:
        return float(count)
    return float(count * newest / max(newest - oldest, 1))
