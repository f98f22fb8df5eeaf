"""SQL of Claude Code's own memory as recall indexes it (docs/guide/claude-memory.md, schema 18):
the files as last read, their chunks, and the chunks' full-text index (`claude_search`, its rowid
the chunk's id, kept in step by triggers). Cortex never writes the files themselves."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from cortex_hooks import stored
from cortex_hooks.store.recall import STOPWORDS, idf, words_query
from cortex_hooks.stored.memory_rows import Chunk

ORIGINS = ("auto-memory", "claude-md")


def transient() -> sqlite3.Connection:
    """An empty index in memory: what a recall that may not write the project's database (there
    is none, or `--peek`) searches, built from the files each time."""
    from cortex_hooks.store.schema import CLAUDE_INDEX

    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.row_factory = sqlite3.Row
    for statement in CLAUDE_INDEX:
        connection.execute(statement)
    return connection


def files(connection: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """Every indexed file: its path and the (mtime in ns, size) it had when read."""
    return {
        row[0]: (int(row[1]), int(row[2]))
        for row in connection.execute("SELECT path, mtime_ns, size FROM claude_file")
    }


def forget(connection: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Files gone (or to be read again) out of the index, with their chunks."""
    listed = json.dumps(list(paths))
    connection.execute(
        "DELETE FROM claude_chunk WHERE path IN (SELECT value FROM json_each(:paths))", {"paths": listed}
    )
    connection.execute(
        "DELETE FROM claude_file WHERE path IN (SELECT value FROM json_each(:paths))", {"paths": listed}
    )


def store(
    connection: sqlite3.Connection,
    path: str,
    *,
    origin: str,
    stat: tuple[int, int],
    chunks: Iterable[tuple[int, str, str]],
    now: str,
) -> None:
    """A file as just read: its stat and its chunks (line, summary, content), replacing any
    earlier reading of it."""
    forget(connection, [path])
    connection.execute(
        """INSERT INTO claude_file (path, origin, mtime_ns, size, indexed_at)
           VALUES (:path, :origin, :mtime_ns, :size, :now)""",
        {"path": path, "origin": origin, "mtime_ns": stat[0], "size": stat[1], "now": now},
    )
    connection.executemany(
        "INSERT INTO claude_chunk (path, line, summary, content) VALUES (:path, :line, :summary, :content)",
        [
            {"path": path, "line": line, "summary": summary, "content": content}
            for line, summary, content in chunks
        ],
    )


def search(connection: sqlite3.Connection, words: list[str], best: int) -> list[dict[str, object]]:
    """The `best` chunks for recall's words and phrases (memory.query.query_words), best first,
    as recall's found rows: bm25 over the query's weight (the sum of its words' IDF, as
    store.recall.query measures it) is how much of the query a chunk holds."""
    words = [word for word in words if word not in STOPWORDS] or words
    size = connection.execute("SELECT count(*) FROM claude_search_docsize").fetchone()[0]
    if not size:
        return []
    weight = sum(
        idf(
            size,
            connection.execute(
                "SELECT count(*) FROM claude_search WHERE claude_search MATCH :word",
                {"word": words_query([word])},
            ).fetchone()[0],
        )
        for word in words
        if " " not in word
    )
    exact = any(" " in word for word in words)
    found = connection.execute(
        """SELECT c.id, c.summary, c.content, c.path, c.line, f.origin, hit.relevance FROM (
               SELECT rowid, -bm25(claude_search) AS relevance FROM claude_search
               WHERE claude_search MATCH :match ORDER BY bm25(claude_search) LIMIT :best) AS hit
           JOIN claude_chunk AS c ON c.id = hit.rowid JOIN claude_file AS f ON f.path = c.path
           ORDER BY hit.relevance DESC""",
        {"match": words_query(words), "best": best},
    ).fetchall()
    return [
        {
            "kind": "memory",
            "id": row["id"],
            "type": "context",
            "summary": row["summary"],
            "content": row["content"],
            "tags": "[]",
            "confidence": None,
            "priority": None,
            "in_degree": 0,
            "access_count": 0,
            "path": row["path"],
            "line": row["line"],
            "origin": row["origin"],
            "source": "claude-code",
            "relevance": float(row["relevance"]) / (weight or 1.0),
            **({"exact": True} if exact else {}),
        }
        for row in found
    ]


def uncaptured(connection: sqlite3.Connection, limit: int) -> list[Chunk]:
    """Chunks capture has not read for rules yet, oldest first, with their file's origin."""
    rows = connection.execute(
        f"""SELECT {stored.columns(Chunk, "c", origin="f.origin")} FROM claude_chunk AS c
           JOIN claude_file AS f ON f.path = c.path WHERE c.captured = 0 ORDER BY c.id LIMIT :limit""",
        {"limit": limit},
    )
    return stored.made(Chunk, rows)


def captured(connection: sqlite3.Connection, ids: list[int]) -> None:
    connection.execute(
        "UPDATE claude_chunk SET captured = 1 WHERE id IN (SELECT value FROM json_each(:ids))",
        {"ids": json.dumps(ids)},
    )
