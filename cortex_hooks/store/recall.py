"""SQL of recall (docs/guide/memories.md): the full-text index over every kind, and the rows it finds.

The index `search` holds one row per memory, learning, decision, error and todo; its rowid is
8 · the item's id + the kind's number (KINDS), and triggers keep it in step with the rows (schema 7).
Archived, superseded and done rows stay indexed: they are filtered out here, when found.
"""

from __future__ import annotations

import json
import math
import sqlite3

from cortex_hooks import stored
from cortex_hooks.frozen import Record
from cortex_hooks.stored.memory_rows import Archived, Content

KINDS = {1: "memory", 2: "learning", 3: "decision", 4: "error", 5: "todo"}
NUMBERS = {kind: number for number, kind in KINDS.items()}
CANDIDATES = 50  # the fewest bm25 hits read per database (5 per result asked for): ranked

# Each kind's active rows as recall shows them: the columns every result has.
_ROWS = {
    "memory": """SELECT id, type, summary, content, tags, confidence, priority, in_degree, access_count, path,
                     (SELECT e.id FROM team_entry AS e
                      WHERE e.kind = 'memory' AND e.row_id = memory.id) AS team
                 FROM memory WHERE status = 'active' AND id IN (SELECT value FROM json_each(:ids))""",
    "learning": """SELECT l.id, 'learning' AS type, l.anti_pattern AS summary,
                       l.anti_pattern || char(10) || 'DO: ' || l.correct_pattern
                           || coalesce(char(10) || l.context, '') AS content,
                       '[]' AS tags, c.confidence, NULL AS priority, 0 AS in_degree, l.access_count,
                       NULL AS path,
                       (SELECT e.id FROM team_entry AS e
                        WHERE e.kind = 'learning' AND e.row_id = l.id) AS team
                   FROM learning AS l JOIN learning_confidence AS c ON c.learning_id = l.id
                   WHERE l.archived_at IS NULL AND l.id IN (SELECT value FROM json_each(:ids))""",
    "decision": """SELECT id, 'decision' AS type, title AS summary, reasoning AS content, '[]' AS tags,
                       NULL AS confidence, NULL AS priority, 0 AS in_degree, access_count, NULL AS path,
                       NULL AS team
                   FROM decision WHERE archived_at IS NULL AND superseded_by IS NULL
                       AND id IN (SELECT value FROM json_each(:ids))""",
    "error": """SELECT id, 'error' AS type, message AS summary,
                    message || coalesce(char(10) || 'fix: ' || fix, '') AS content, '[]' AS tags,
                    NULL AS confidence, NULL AS priority, 0 AS in_degree, access_count, NULL AS path,
                    NULL AS team
                FROM error WHERE archived_at IS NULL AND id IN (SELECT value FROM json_each(:ids))""",
    "todo": """SELECT id, 'todo' AS type, text AS summary, text AS content, '[]' AS tags,
                   NULL AS confidence, priority, 0 AS in_degree, 0 AS access_count, NULL AS path,
                   NULL AS team
               FROM todo WHERE archived_at IS NULL AND done = 0
                   AND id IN (SELECT value FROM json_each(:ids))""",
}


class Query(Record):
    """An FTS5 query of recall, and what bm25 over it is measured against."""

    text: str  # the FTS5 query: each word and phrase quoted (never FTS syntax)
    weight: float  # the sum of its words' IDF: bm25 / weight is the share of the query an item holds
    exact: bool = False  # it holds a phrase (an identifier): its rows are marked `exact`
    # Asked for (`query(..., held=True)`): each word's and phrase's IDF and the rows holding it (the
    # newest BUDGET), from which `found` gives each row its `coverage`.
    terms: tuple[tuple[float, frozenset[int]], ...] = ()


def found(
    connection: sqlite3.Connection, match: Query | str, kinds: set[str], best: int = CANDIDATES
) -> list[dict[str, object]]:
    """The active rows of these kinds among the `best` hits of an FTS5 query, each with its kind
    and its bm25 relevance (higher is better; over the query's weight for a Query, and marked
    `exact` when the Query is), best first. With a Query's `terms`, each row also has its
    `coverage`: the IDF of the words and phrases it holds over the query's weight, however often
    and in however long a text (bm25's length normalisation buried the long turns of a
    conversation that answer a question under short ones that only share its words).
    bm25 scores the newest BUDGET rows the query finds, never more (see `query`)."""
    text, weight, exact, terms = match if isinstance(match, Query) else Query(match, 1.0)
    hits = connection.execute(
        "SELECT rowid, -bm25(search) AS relevance FROM search WHERE search MATCH :match "
        "AND rowid >= :floor AND rowid % 8 IN (SELECT value FROM json_each(:kinds)) "
        "ORDER BY bm25(search) LIMIT :best",
        {
            "match": text,
            "floor": _floor(connection, text),
            "kinds": json.dumps([NUMBERS[kind] for kind in kinds]),
            "best": best,
        },
    ).fetchall()
    wanted: dict[str, dict[int, float]] = {}
    coverage: dict[tuple[str, int], float] = {}
    for rowid, relevance in hits:
        wanted.setdefault(KINDS[rowid % 8], {})[rowid // 8] = relevance / weight
        if terms:
            held = sum(term_idf for term_idf, holding in terms if rowid in holding)
            coverage[(KINDS[rowid % 8], rowid // 8)] = held / weight
    results = rows(connection, wanted)
    results.sort(key=lambda result: -float(str(result["relevance"])))
    for result in results:
        if exact:
            result["exact"] = True
        if terms:
            result["coverage"] = coverage[(str(result["kind"]), int(str(result["id"])))]
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
) -> list[Content]:
    """The active memories sharing the most words with a text (the candidates of auto-link and
    of similar pairs: an index lookup, never a scan of every memory; bm25 scores at most the
    newest BUDGET rows the words find)."""
    rows = connection.execute(
        f"""SELECT {stored.columns(Content, "m")} FROM (
               SELECT rowid / 8 AS id, bm25(search) AS relevance FROM search
               WHERE search MATCH :match AND rowid >= :floor AND rowid % 8 = 1
               ORDER BY bm25(search) LIMIT :limit) AS hit
           JOIN memory AS m ON m.id = hit.id
           WHERE m.status = 'active' AND m.id != :exclude ORDER BY hit.relevance""",
        {"match": match, "floor": _floor(connection, match), "exclude": exclude, "limit": limit},
    )
    return stored.made(Content, rows)


def words_query(words: list[str]) -> str:
    """An FTS5 query that finds any of these words, each quoted: never FTS syntax."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


KEPT_WORDS = 8  # auto-link's candidates come from a text's 8 rarest words (`match`)
# The rows bm25 scores at most, per query and scope: it reads every row the query's words are in,
# so this bounds recall's cost at any size. A query that finds no more rows than this is searched
# by all its words; past it, by its rarer words while the rows they are in stay within it; when even
# its rarest word is in more rows, the newest BUDGET are scored.
BUDGET = 1_000
COMMON = 0.10  # past the budget, a word in more than this share of rows is dropped while rarer ones remain
# Words that say nothing about what is asked for ("which", "did", "the"): left out of a query that
# has other words (bm25 would weigh them at almost nothing, and they match nearly every row).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves""".split()  # noqa: SIM905 (a word list reads best as words)
)


def query(connection: sqlite3.Connection, words: list[str], *, held: bool = False) -> Query:
    """Recall's FTS5 query for these words (and phrases: words joined by a space, an identifier
    such as `orders.v2` that must match whole): every one of them while the rows they find fit the
    budget, else the rarest (`_rarest`). Its weight is the sum of the words' IDF as bm25 computes it
    (a word in no row at its highest), so that bm25 / weight says how much of the query an item
    holds, whatever the size of the database. With `held`, the Query keeps each word's and
    phrase's IDF and the rows holding it (`terms`): semantic recall ranks by them (`found`)."""
    words = [word for word in words if word not in STOPWORDS] or words
    newest = connection.execute("SELECT coalesce(max(rowid), 0) FROM search").fetchone()[0]
    holding = {word: _rows_holding(connection, word, newest, held=held) for word in words}
    counts = {word: count for word, (count, _) in holding.items()}
    every = words_query(words)
    if sum(counts.values()) > BUDGET and _rows_finding(connection, every) > BUDGET:
        every = _rarest(words, counts, newest)
    size = _index_rows(connection)
    weight = sum(idf(size, counts[word]) for word in words if " " not in word)
    terms = tuple((idf(size, count), rowids) for count, rowids in holding.values() if rowids)
    return Query(every, weight or 1.0, any(" " in word for word in words), terms)


def idf(size: int, holding: float) -> float:
    """bm25's IDF of a word in `holding` of `size` rows (FTS5's formula, with its floor; a count
    estimated past the budget may exceed the size)."""
    holding = min(holding, size)
    return max(1e-6, math.log((size - holding + 0.5) / (holding + 0.5)))


def _index_rows(connection: sqlite3.Connection) -> int:
    """How many rows the index holds (its docsize table has one per row: a b-tree count)."""
    count: int = connection.execute("SELECT count(*) FROM search_docsize").fetchone()[0]
    return count


def _rows_finding(connection: sqlite3.Connection, match: str) -> int:
    """How many rows an FTS5 query finds, counted up to one past the budget."""
    count: int = connection.execute(
        "SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH :match LIMIT :enough)",
        {"match": match, "enough": BUDGET + 1},
    ).fetchone()[0]
    return count


def match(connection: sqlite3.Connection, words: list[str]) -> str:
    """The FTS5 query of auto-link's candidates (similar_memories): a text's KEPT_WORDS rarest
    words within the budget."""
    words = [word for word in words if word not in STOPWORDS] or words
    newest = connection.execute("SELECT coalesce(max(rowid), 0) FROM search").fetchone()[0]
    counts = {word: _rows_holding(connection, word, newest)[0] for word in words}
    return _rarest(words, counts, newest, KEPT_WORDS)


def _rarest(words: list[str], counts: dict[str, float], newest: int, most: int | None = None) -> str:
    """The FTS5 query of the rarest of these words, while the rows they are in fit the budget
    (bm25 weighs a common word at almost nothing, yet reading its rows is what makes a query slow
    over 100,000 memories). A word in no row costs nothing and is kept."""
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
    return words_query(absent + kept[:most])


def _rows_holding(
    connection: sqlite3.Connection, word: str, newest: int, *, held: bool = False
) -> tuple[float, frozenset[int]]:
    """How many rows hold a word: counted up to the budget, beyond it estimated from how recent
    the newest BUDGET of them are (reading no more than those); and with `held`, those newest
    BUDGET rows (else none)."""
    if held:
        found = [
            rowid
            for (rowid,) in connection.execute(_NEWEST, {"word": words_query([word]), "enough": BUDGET + 1})
        ]
        count, oldest = len(found), (found[-1] if found else 0)
        rowids = frozenset(found[:BUDGET])
    else:
        count, oldest = connection.execute(
            f"SELECT count(*), min(rowid) FROM ({_NEWEST})",
            {"word": words_query([word]), "enough": BUDGET + 1},
        ).fetchone()
        rowids = frozenset()
    if count <= BUDGET:
        return float(count), rowids
    return float(count * newest / max(newest - oldest, 1)), rowids


_NEWEST = "SELECT rowid FROM search WHERE search MATCH :word ORDER BY rowid DESC LIMIT :enough"


def archived_memories(connection: sqlite3.Connection, words: list[str]) -> list[Archived]:
    """The archived memories holding any of these words (recall's rows are active ones): what it
    says when it finds nothing active, newest first, among the newest BUDGET memories they find."""
    words = [word for word in words if word not in STOPWORDS] or words
    rows = connection.execute(
        f"""SELECT {stored.columns(Archived)} FROM memory WHERE status = 'archived' AND id IN (
               SELECT rowid / 8 FROM search WHERE search MATCH :match AND rowid % 8 = 1
               ORDER BY rowid DESC LIMIT :budget)
           ORDER BY id DESC""",
        {"match": words_query(words), "budget": BUDGET},
    )
    return stored.made(Archived, rows)
