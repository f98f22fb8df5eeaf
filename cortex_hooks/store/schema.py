"""Schema migrations, keyed by `PRAGMA user_version`; each runs inside one write transaction."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from cortex_hooks.errors import CortexError
from cortex_hooks.store import learnings
from cortex_hooks.store.transaction import Transaction
from cortex_hooks.store.version import SCHEMA_VERSION, user_version

# What each kind gives the full-text index (SPEC §9.3), and its number in the index's rowids.
_SEARCHED = {
    "memory": (1, "new.content || ' ' || new.summary || ' ' || new.tags"),
    "learning": (2, "new.anti_pattern || ' ' || new.correct_pattern || ' ' || coalesce(new.context, '')"),
    "decision": (3, "new.title || ' ' || new.reasoning"),
    "error": (4, "new.message || ' ' || coalesce(new.fix, '')"),
    "todo": (5, "new.text"),
}
_SEARCH_TRIGGERS = tuple(
    statement
    for table, (number, body) in _SEARCHED.items()
    for columns in [", ".join(sorted(set(re.findall(r"new\.(\w+)", body))))]
    for statement in (
        f"""CREATE TRIGGER {table}_searched AFTER INSERT ON {table} BEGIN
            INSERT INTO search (rowid, body) VALUES (new.id * 8 + {number}, {body}); END""",
        f"""CREATE TRIGGER {table}_researched AFTER UPDATE OF {columns} ON {table} BEGIN
            DELETE FROM search WHERE rowid = old.id * 8 + {number};
            INSERT INTO search (rowid, body) VALUES (new.id * 8 + {number}, {body}); END""",
        f"""CREATE TRIGGER {table}_unsearched AFTER DELETE ON {table} BEGIN
            DELETE FROM search WHERE rowid = old.id * 8 + {number}; END""",
    )
)
# What each kind embeds (cortex_hooks.embeddings.text): a change of these drops its vectors.
_EMBEDDED = {
    "memory": (1, "content, summary, type"),
    "learning": (2, "anti_pattern, correct_pattern, context"),
    "decision": (3, "title, reasoning"),
    "error": (4, "message, fix"),
    "todo": (5, "text"),
}
_VECTOR_TRIGGERS = tuple(
    statement
    for table, (number, columns) in _EMBEDDED.items()
    for statement in (
        f"""CREATE TRIGGER {table}_reembedded AFTER UPDATE OF {columns} ON {table}
            WHEN {" OR ".join(f"old.{c} IS NOT new.{c}" for c in columns.split(", "))} BEGIN
            DELETE FROM vector WHERE kind = {number} AND item_id = old.id; END""",
        f"""CREATE TRIGGER {table}_unembedded AFTER DELETE ON {table} BEGIN
            DELETE FROM vector WHERE kind = {number} AND item_id = old.id; END""",
    )
)
_SEARCH_FILLS = {
    table: f"INSERT INTO search (rowid, body) SELECT id * 8 + {number}, {body.replace('new.', '')} "
    f"FROM {table}"
    for table, (number, body) in _SEARCHED.items()
}
_SEARCH_BACKFILL = tuple(fill for table, fill in _SEARCH_FILLS.items() if table != "memory")

_MASKED = re.escape("[REDACTED]")  # what a regex built from redacted text held
_ANY_VALUE = ".+?"  # what stands for a secret in a regex (capture.regex_synthesis.SECRET)
_VERDICTS = """matches INTEGER NOT NULL DEFAULT 0, denies INTEGER NOT NULL DEFAULT 0,
    asks INTEGER NOT NULL DEFAULT 0, warnings INTEGER NOT NULL DEFAULT 0,
    rewrites INTEGER NOT NULL DEFAULT 0"""
_COUNTS = f"{_VERDICTS}, confidence INTEGER"
_SCOPE_COUNTS = f"""{_VERDICTS}, added INTEGER NOT NULL DEFAULT 0, recalled INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, pruned INTEGER NOT NULL DEFAULT 0"""


def _counted(column: str, day: str) -> str:
    """A trigger statement counting one memory event on the day the row itself names (no clock
    in SQL: a hand edit in the sqlite3 shell fires it too)."""
    return f"""INSERT INTO scope_day (day, {column}) VALUES (substr({day}, 1, 10), 1)
               ON CONFLICT (day) DO UPDATE SET {column} = {column} + 1"""


_COUNTED = "BEGIN UPDATE keeper_state SET changes = changes + 1; END"
_KEEPER_TRIGGERS = (
    *(
        f"CREATE TRIGGER keeper_{table}_{event.lower()} AFTER {event} ON {table} {_COUNTED}"
        for table in ("learning_confidence", "pack", "team_file", "team_entry")
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
    f"CREATE TRIGGER keeper_learning_insert AFTER INSERT ON learning {_COUNTED}",
    f"CREATE TRIGGER keeper_learning_delete AFTER DELETE ON learning {_COUNTED}",
    f"""CREATE TRIGGER keeper_learning_update AFTER UPDATE OF anti_pattern, correct_pattern, regex,
        tool, target, severity, action, rewrite, pinned, archived_at, muted ON learning {_COUNTED}""",
)

_HISTORY = (
    f"""CREATE TABLE learning_day (learning_id INTEGER NOT NULL, day TEXT NOT NULL, {_COUNTS},
        PRIMARY KEY (learning_id, day)) WITHOUT ROWID""",
    "CREATE INDEX learning_day_by_day ON learning_day (day)",
    f"""CREATE TABLE learning_month (learning_id INTEGER NOT NULL, month TEXT NOT NULL, {_COUNTS},
        PRIMARY KEY (learning_id, month)) WITHOUT ROWID""",
    # the whole scope's day: every learning's counts summed, and the memories' events
    f"CREATE TABLE scope_day (day TEXT PRIMARY KEY, {_SCOPE_COUNTS}) WITHOUT ROWID",
    f"CREATE TABLE scope_month (month TEXT PRIMARY KEY, {_SCOPE_COUNTS}) WITHOUT ROWID",
    """CREATE TABLE verdict_call (
        id INTEGER PRIMARY KEY,
        learning_id INTEGER NOT NULL,
        at TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('deny', 'ask', 'warn', 'rewrite')),
        tool TEXT NOT NULL,
        call TEXT NOT NULL
    )""",
    "CREATE INDEX verdict_call_of ON verdict_call (learning_id, id)",
    f"""CREATE TRIGGER memory_added AFTER INSERT ON memory BEGIN
        {_counted("added", "new.created_at")}; END""",
    f"""CREATE TRIGGER memory_recalled AFTER UPDATE OF access_count ON memory
        WHEN new.access_count > old.access_count AND new.last_accessed IS NOT NULL BEGIN
        {_counted("recalled", "new.last_accessed")}; END""",
    f"""CREATE TRIGGER memory_archived AFTER UPDATE OF status ON memory
        WHEN new.status = 'archived' AND old.status IS NOT 'archived' BEGIN
        {_counted("archived", "coalesce(new.archived_at, new.updated_at)")}; END""",
    # what the memories themselves tell of the past: when each was added, and archived
    """INSERT INTO scope_day (day, added)
       SELECT substr(created_at, 1, 10), count(*) FROM memory WHERE true GROUP BY 1""",
    """INSERT INTO scope_day (day, archived)
       SELECT substr(archived_at, 1, 10), count(*) FROM memory WHERE status = 'archived'
           AND archived_at IS NOT NULL GROUP BY 1
       ON CONFLICT (day) DO UPDATE SET archived = excluded.archived""",
)


def _allow_raw_target(connection: sqlite3.Connection) -> None:
    """Rebuild `learning` with `raw` among the targets its CHECK allows (version 16)."""
    _widen_check(
        connection,
        "learning",
        "CHECK (target IN ('content', 'path', 'input'))",
        "CHECK (target IN ('content', 'path', 'input', 'raw'))",
    )


def _allow_remembered_signal(connection: sqlite3.Connection) -> None:
    """Rebuild `proposal` with `remembered` among the signals its CHECK allows (version 18)."""
    _widen_check(
        connection,
        "proposal",
        "'repeated-failure', 'model'))",
        "'repeated-failure', 'model', 'remembered'))",
    )


def _allow_followed_signal(connection: sqlite3.Connection) -> None:
    """Rebuild `proposal` with `followed` among the signals its CHECK allows (version 22)."""
    _widen_check(
        connection,
        "proposal",
        "'repeated-failure', 'model', 'remembered'))",
        "'repeated-failure', 'model', 'remembered', 'followed'))",
    )


def _widen_check(connection: sqlite3.Connection, table: str, old: str, new: str) -> None:
    """Rebuild a table with a CHECK widened (SQLite cannot alter a CHECK): the table as it stands —
    whatever columns earlier versions added — copied whole, with its indexes and triggers made
    again from their own SQL."""
    (sql,) = connection.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table", {"table": table}
    ).fetchone()
    if old not in sql:  # already widened (or never checked): nothing to do
        return
    attached = [
        row[0]
        for row in connection.execute(
            """SELECT sql FROM sqlite_master WHERE tbl_name = :table AND type IN ('index', 'trigger')
               AND sql IS NOT NULL ORDER BY type, name""",
            {"table": table},
        )
    ]
    columns = ", ".join(f'"{row[1]}"' for row in connection.execute(f"PRAGMA table_info({table})"))
    widened = sql.replace(old, new)
    # a table rebuilt before is named in quotes (`ALTER TABLE … RENAME` writes "proposal")
    widened = re.sub(rf'\ACREATE TABLE\s+(?:"{table}"|{table}\b)', f"CREATE TABLE {table}_widened", widened)
    connection.execute(widened)
    connection.execute(f"INSERT INTO {table}_widened ({columns}) SELECT {columns} FROM {table}")
    connection.execute(f"DROP TABLE {table}")
    connection.execute(f"ALTER TABLE {table}_widened RENAME TO {table}")
    for statement in attached:
        connection.execute(statement)


# Claude Code's own memory (SPEC §18), indexed for recall (store.claude_index); also what a
# recall builds in memory when it may not write the project's database.
CLAUDE_INDEX = (
    """CREATE TABLE claude_file (
        path TEXT PRIMARY KEY,
        origin TEXT NOT NULL CHECK (origin IN ('auto-memory', 'claude-md')),
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL,
        indexed_at TEXT NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE claude_chunk (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        summary TEXT NOT NULL,
        content TEXT NOT NULL,
        captured INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX claude_chunk_of ON claude_chunk (path)",
    "CREATE INDEX claude_chunk_uncaptured ON claude_chunk (id) WHERE captured = 0",
    "CREATE VIRTUAL TABLE claude_search USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')",
    """CREATE TRIGGER claude_chunk_indexed AFTER INSERT ON claude_chunk BEGIN
        INSERT INTO claude_search (rowid, body)
        VALUES (new.id, new.summary || char(10) || new.content); END""",
    """CREATE TRIGGER claude_chunk_dropped AFTER DELETE ON claude_chunk BEGIN
        DELETE FROM claude_search WHERE rowid = old.id; END""",
)


# What the guard file holds (store.guard_file): the learnings that block, ask or rewrite. Its
# triggers mark every change of such a row, whoever makes it.
_GUARDED = "({row}.action != 'warn' OR {row}.rewrite IS NOT NULL)"
_GUARD_TRIGGERS = (
    f"""CREATE TRIGGER learning_guarded AFTER INSERT ON learning WHEN {_GUARDED.format(row="new")} BEGIN
        UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    f"""CREATE TRIGGER learning_reguarded AFTER UPDATE OF anti_pattern, correct_pattern, regex, tool,
        target, severity, action, rewrite, archived_at, muted ON learning
        WHEN {_GUARDED.format(row="new")} OR {_GUARDED.format(row="old")}
        BEGIN UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    f"""CREATE TRIGGER learning_unguarded AFTER DELETE ON learning WHEN {_GUARDED.format(row="old")} BEGIN
        UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
)


# One entry per schema version: the statements that take version N-1 to N. Statements run one
# by one inside the migration's transaction (executescript() would commit first); a function
# among them is called with the connection, inside the same transaction.
MIGRATIONS: list[tuple[str | Callable[[sqlite3.Connection], None], ...]] = [
    (
        """CREATE TABLE learning (
            id INTEGER PRIMARY KEY,
            anti_pattern TEXT NOT NULL,
            correct_pattern TEXT NOT NULL,
            regex TEXT,
            tool TEXT NOT NULL DEFAULT '*',
            target TEXT NOT NULL DEFAULT 'content' CHECK (target IN ('content', 'path', 'input')),
            severity TEXT NOT NULL DEFAULT 'medium'
                CHECK (severity IN ('low', 'medium', 'high', 'critical')),
            auto_block INTEGER NOT NULL DEFAULT 0 CHECK (auto_block IN (0, 1)),
            pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
            confidence INTEGER NOT NULL DEFAULT 70 CHECK (confidence BETWEEN 0 AND 100),
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT,
            context TEXT
        )""",
        # The PreToolUse prefilter (see cortex_hooks.guard.prefilter): looked up by key, never scanned.
        """CREATE TABLE learning_key (
            key TEXT NOT NULL,
            learning_id INTEGER NOT NULL REFERENCES learning (id),
            PRIMARY KEY (key, learning_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX learning_key_by_learning ON learning_key (learning_id)",
        """CREATE TABLE session (
            id TEXT PRIMARY KEY,
            source TEXT,
            started_at TEXT,
            ended_at TEXT,
            reason TEXT,
            summary TEXT,
            key_changes TEXT NOT NULL DEFAULT '[]'
        )""",
    ),
    # 2: decisions, errors and todos as memory kinds beside learnings (SPEC §5, §6).
    (
        """CREATE TABLE decision (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            reasoning TEXT NOT NULL,
            category TEXT,
            superseded_by INTEGER REFERENCES decision (id),
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT
        )""",
        """CREATE TABLE error (
            id INTEGER PRIMARY KEY,
            message TEXT NOT NULL,
            fix TEXT,
            severity TEXT NOT NULL DEFAULT 'medium'
                CHECK (severity IN ('low', 'medium', 'high', 'critical')),
            occurrences INTEGER NOT NULL DEFAULT 1,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            archived_at TEXT
        )""",
        """CREATE TABLE todo (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
            done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
            done_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT
        )""",
        "CREATE INDEX session_by_end ON session (ended_at)",
    ),
    # 3: every required literal of a learning's regex, checked before it is compiled.
    ("ALTER TABLE learning ADD COLUMN literals TEXT",),
    # 4: what SessionStart reads at every start, found through small partial indexes rather
    # than by reading every learning. None holds `confidence`: SessionEnd changes it in every row,
    # and would then have to rewrite the index too.
    (
        "CREATE INDEX learning_auto_block ON learning (id) WHERE archived_at IS NULL AND auto_block = 1",
        """CREATE INDEX learning_by_update ON learning (updated_at)
           WHERE archived_at IS NULL AND auto_block = 0""",
        """CREATE INDEX learning_prunable ON learning (created_at)
           WHERE archived_at IS NULL AND auto_block = 0 AND pinned = 0""",
    ),
    # 5: confidence in a narrow table (see store.learnings): a session end rewrites it for every
    # learning, and the wide learning rows made that the most of SessionEnd's cost.
    (
        """CREATE TABLE learning_confidence (
            learning_id INTEGER PRIMARY KEY REFERENCES learning (id),
            confidence INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100)
        )""",
        "INSERT INTO learning_confidence (learning_id, confidence) SELECT id, confidence FROM learning",
        "ALTER TABLE learning DROP COLUMN confidence",
        "CREATE INDEX learning_exempt ON learning (id) WHERE pinned = 1 OR archived_at IS NOT NULL",
    ),
    # 6: the ids of pending writes applied (see store.pending): recorded in the transaction that
    # applies them, so a process killed before the pending file is emptied never applies one twice.
    ("CREATE TABLE pending_applied (id TEXT PRIMARY KEY) WITHOUT ROWID",),
    # 7: memories (SPEC §9), their graph, and one full-text index over every kind (store.search).
    (
        """CREATE TABLE memory (
            id INTEGER PRIMARY KEY,
            type TEXT NOT NULL CHECK (type IN ('architecture', 'decision', 'pattern', 'gotcha',
                'progress', 'context', 'code_description', 'code')),
            content TEXT NOT NULL,
            summary TEXT NOT NULL,
            priority INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 10),
            confidence INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100),
            pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
            tags TEXT NOT NULL DEFAULT '[]',
            source TEXT NOT NULL CHECK (source IN ('explicit', 'conversation', 'code_index')),
            source_session TEXT,
            path TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
            access_count INTEGER NOT NULL DEFAULT 0,
            last_accessed TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            confirmed_at TEXT NOT NULL,
            archived_at TEXT,
            in_degree INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX memory_active ON memory (type, id) WHERE status = 'active'",
        "CREATE INDEX memory_pinned ON memory (id) WHERE status = 'active' AND pinned = 1",
        """CREATE TABLE edge (
            from_id INTEGER NOT NULL REFERENCES memory (id),
            to_id INTEGER NOT NULL REFERENCES memory (id),
            type TEXT NOT NULL CHECK (type IN ('relates_to', 'derived_from', 'contradicts', 'exemplifies',
                'refines', 'supersedes', 'source_of')),
            strength REAL NOT NULL CHECK (strength BETWEEN 0 AND 1),
            created_at TEXT NOT NULL,
            PRIMARY KEY (from_id, to_id, type)
        ) WITHOUT ROWID""",
        "CREATE INDEX edge_to ON edge (to_id)",
        # Centrality (§9.4) reads the in-degree of every memory: kept in the row by the database
        # itself, whatever writes an edge. `supersedes` edges do not count.
        """CREATE TRIGGER edge_in AFTER INSERT ON edge WHEN new.type != 'supersedes' BEGIN
            UPDATE memory SET in_degree = in_degree + 1 WHERE id = new.to_id; END""",
        """CREATE TRIGGER edge_out AFTER DELETE ON edge WHEN old.type != 'supersedes' BEGIN
            UPDATE memory SET in_degree = in_degree - 1 WHERE id = old.to_id; END""",
        # One full-text index over every kind; a row's rowid is 8 * its id + its kind's number
        # (store.search.KINDS). Triggers keep it in step with its rows under every write path.
        "CREATE VIRTUAL TABLE search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')",
        # How many rows hold each word: a query keeps its rarer words (store.search.match).
        "CREATE VIRTUAL TABLE search_vocabulary USING fts5vocab(search, 'row')",
        *_SEARCH_TRIGGERS,
        *_SEARCH_BACKFILL,
    ),
    # 8: the push surface (SPEC §9.6) lists memories touched lately — created, updated or accessed,
    # whichever came last — through this index, newest first, without reading the others.
    (
        """CREATE INDEX memory_touched ON memory (max(confirmed_at, updated_at))
           WHERE status = 'active'""",
    ),
    # 9: the memory lifecycle (SPEC §9.5, store.lifecycle). `base_confidence` is the value the
    # decay curve starts from (hundredths; `confidence` is the curve's value as last written);
    # `lifecycle_due` is when the lifecycle must next look at a memory ('' now, NULL never), so a
    # session end reads only the memories whose state can change, through `memory_due`.
    (
        "ALTER TABLE memory ADD COLUMN base_confidence INTEGER",
        "ALTER TABLE memory ADD COLUMN lifecycle_due TEXT",
        "UPDATE memory SET base_confidence = confidence, lifecycle_due = ''",
        "CREATE INDEX memory_due ON memory (lifecycle_due) WHERE lifecycle_due IS NOT NULL",
        # The largest in-degree (centrality's denominator, read by every pass): one index step
        # rather than a read of every memory.
        "CREATE INDEX memory_in_degree ON memory (in_degree)",
        # The largest in-degree the lifecycle last computed centralities with (a change of it
        # changes which memories have the centrality that doubles a half-life).
        """CREATE TABLE lifecycle_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            max_in_degree INTEGER NOT NULL
        )""",
        # A new memory: its curve starts from the confidence it is stored with; looked at soon.
        """CREATE TRIGGER memory_aging AFTER INSERT ON memory BEGIN
            UPDATE memory SET base_confidence = coalesce(new.base_confidence, new.confidence),
                lifecycle_due = '' WHERE id = new.id; END""",
        # A confirmation restarts the curve at its start value, whatever wrote it.
        """CREATE TRIGGER memory_confirmed AFTER UPDATE OF confirmed_at ON memory
            WHEN new.confirmed_at IS NOT old.confirmed_at AND typeof(new.base_confidence) = 'integer'
                AND new.base_confidence BETWEEN 0 AND 100 BEGIN
            UPDATE memory SET confidence = new.base_confidence WHERE id = new.id; END""",
        # Pinning, unpinning and restoring restart the curve too (a person's word on the memory;
        # a restored memory would otherwise be archived again at once).
        """CREATE TRIGGER memory_restarted AFTER UPDATE OF pinned, status ON memory
            WHEN (new.pinned IS NOT old.pinned OR (new.status = 'active' AND old.status != 'active'))
                AND new.updated_at > new.confirmed_at BEGIN
            UPDATE memory SET confirmed_at = new.updated_at WHERE id = new.id; END""",
        # Whatever changes what the lifecycle computes makes the memory due now, unless the
        # writer (the lifecycle itself) set the next look in the same statement.
        """CREATE TRIGGER memory_changed AFTER UPDATE OF confirmed_at, base_confidence, pinned, type,
                access_count, status, in_degree ON memory
            WHEN new.lifecycle_due IS old.lifecycle_due BEGIN
            UPDATE memory SET lifecycle_due = '' WHERE id = new.id; END""",
    ),
    # 10: consolidation (SPEC §9.7). Pairs of memories found nearly the same (similarity ≥ 0.85)
    # when one of them was stored, each pair once (smaller id first), until `consolidate` merges
    # them; and a row per consolidation that changed something, whose `last_memory_id` tells the
    # memories written since (the `--auto` trigger). A deleted memory takes its flags and its edges
    # with it, whatever deletes it.
    (
        """CREATE TABLE consolidation_flag (
            first_id INTEGER NOT NULL REFERENCES memory (id),
            second_id INTEGER NOT NULL REFERENCES memory (id),
            similarity REAL NOT NULL CHECK (similarity BETWEEN 0 AND 1),
            flagged_at TEXT NOT NULL,
            PRIMARY KEY (first_id, second_id),
            CHECK (first_id < second_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX consolidation_flag_second ON consolidation_flag (second_id)",
        """CREATE TABLE consolidation (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            checkpoint TEXT,
            groups INTEGER NOT NULL,
            superseded INTEGER NOT NULL,
            last_memory_id INTEGER NOT NULL
        )""",
        """CREATE TRIGGER memory_gone AFTER DELETE ON memory BEGIN
            DELETE FROM edge WHERE from_id = old.id OR to_id = old.id;
            DELETE FROM consolidation_flag WHERE first_id = old.id OR second_id = old.id; END""",
    ),
    # 11: semantic recall (SPEC §12): one float32 vector per item and model. Ids are never reused
    # (AUTOINCREMENT), so (count, max id) of a model's rows changes with every write: a warm
    # process knows when its cached vectors went stale. A change of an item's embedded text (or a
    # memory becoming `code`, never embedded) and its deletion drop its vectors, whatever writes.
    (
        """CREATE TABLE vector (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 7),
            item_id INTEGER NOT NULL,
            model TEXT NOT NULL,
            data BLOB NOT NULL,
            UNIQUE (model, kind, item_id)
        )""",
        "CREATE INDEX vector_item ON vector (kind, item_id)",
        *_VECTOR_TRIGGERS,
    ),
    # 12: capture (SPEC §10). Proposals live apart from learnings and memories, so no hook matches
    # them, no recall finds them and nothing decays them until accepted. A row is an invisible
    # 'candidate' until its recurrence gate opens; each sighting is one occurrence. Rejected
    # fingerprints outlive their rows. capture_scan keeps each session's transcript offset and the
    # tail of calls the next scan needs; capture_success the project's successful Bash calls (a
    # regex matching many of them is too broad); capture_note the worker's last error.
    (
        """CREATE TABLE proposal (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'learning' CHECK (kind IN ('learning', 'memory')),
            signal TEXT NOT NULL CHECK (signal IN ('failed-then-fixed', 'user-correction',
                'repeated-failure', 'model')),
            anti_pattern TEXT NOT NULL,
            correct_pattern TEXT NOT NULL,
            regex TEXT,
            tool TEXT NOT NULL DEFAULT 'Bash',
            content TEXT,
            status TEXT NOT NULL DEFAULT 'candidate' CHECK (status IN ('candidate', 'proposed',
                'accepted', 'rejected', 'expired')),
            proposed_in TEXT,
            shown INTEGER NOT NULL DEFAULT 0,
            learning_id INTEGER,
            learning_scope TEXT,
            drafted TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (fingerprint, signal)
        )""",
        "CREATE INDEX proposal_pending ON proposal (status, id)",
        """CREATE TABLE proposal_occurrence (
            proposal_id INTEGER NOT NULL REFERENCES proposal (id),
            session_id TEXT NOT NULL,
            failed TEXT NOT NULL,
            fixed TEXT NOT NULL,
            seen_at TEXT NOT NULL
        )""",
        "CREATE INDEX proposal_occurrence_of ON proposal_occurrence (proposal_id)",
        """CREATE TABLE proposal_rejected (fingerprint TEXT PRIMARY KEY, rejected_at TEXT NOT NULL)
           WITHOUT ROWID""",
        """CREATE TABLE capture_scan (
            session_id TEXT PRIMARY KEY,
            transcript TEXT NOT NULL,
            offset INTEGER NOT NULL DEFAULT 0,
            size INTEGER NOT NULL DEFAULT 0,
            tail TEXT NOT NULL DEFAULT '[]',
            updated_at TEXT NOT NULL
        ) WITHOUT ROWID""",
        """CREATE TABLE capture_success (
            command TEXT NOT NULL,
            session_id TEXT NOT NULL,
            seen_at TEXT NOT NULL,
            PRIMARY KEY (command, session_id)
        )""",
        """CREATE TABLE capture_note (name TEXT PRIMARY KEY, value TEXT NOT NULL, at TEXT NOT NULL)
           WITHOUT ROWID""",
    ),
    # 13: each prefilter key carries its learning's tool matcher, so PreToolUse drops the keys of
    # learnings for other tools in the index itself (store.learnings.candidates), before it reads a
    # single wide `learning` row. A non-PK column of a WITHOUT ROWID table lives in the key's own
    # b-tree cell: no extra lookup. No declared type (no affinity): a hand-edited non-text tool is
    # copied as it is, and reaches the hook's check that names it. The trigger keeps the copy in
    # step whatever changes `learning.tool` (update --tool, an import, the sqlite3 shell).
    (
        "ALTER TABLE learning_key ADD COLUMN tool",
        "UPDATE learning_key SET tool = (SELECT l.tool FROM learning AS l WHERE l.id = learning_id)",
        """CREATE TRIGGER learning_tool_keyed AFTER UPDATE OF tool ON learning
            WHEN new.tool IS NOT old.tool BEGIN
            UPDATE learning_key SET tool = new.tool WHERE learning_id = new.id; END""",
    ),
    # 14: the history (issue 28), what `report` and `stats` read. Per learning and UTC day its
    # matches, what they became, and its confidence at the day's end, written by the transactions
    # that change them (store.history); per day the memories added, recalled, archived and pruned.
    # Day rows older than a year are folded into month rows (store.history.fold). The last few
    # denied or warned calls of each learning, redacted, show what tripped it.
    _HISTORY,
    # 15: recall's full-text index stems its words (the Porter stemmer over unicode61), so "painted"
    # finds "paint" and "deploys" finds "deploy" (measured in benchmarks/quality: the answer first
    # for more questions on every labelled set). The index is built again from the rows; the
    # triggers of version 7 write into the new table by name.
    (
        "DROP TABLE search_vocabulary",
        "DROP TABLE search",
        "CREATE VIRTUAL TABLE search USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')",
        "CREATE VIRTUAL TABLE search_vocabulary USING fts5vocab(search, 'row')",
        *_SEARCH_FILLS.values(),
    ),
    # 16: the command reader and packs (SPEC §13, §14). Target `raw` (the raw Bash command, as
    # every learning was matched before), and shipped pack learnings: each keyed by its stable
    # slug (`core.git:reset-hard`), with the pack it came from; `muted` is a user's per-scope
    # word on one (it never matches while muted, and a new pack version keeps it muted). `pack`
    # is what this scope enabled, with the digest of the pack file its learnings were written
    # from. The prefilter's keys are derived again (loosened keys for Bash, guard.prefilter).
    (
        _allow_raw_target,
        "ALTER TABLE learning ADD COLUMN slug TEXT",
        "ALTER TABLE learning ADD COLUMN pack TEXT",
        "ALTER TABLE learning ADD COLUMN muted INTEGER NOT NULL DEFAULT 0 CHECK (muted IN (0, 1))",
        "CREATE UNIQUE INDEX learning_slug ON learning (slug) WHERE slug IS NOT NULL",
        """CREATE TABLE pack (
            name TEXT PRIMARY KEY,
            digest TEXT NOT NULL,
            enabled_at TEXT NOT NULL
        ) WITHOUT ROWID""",
    ),
    # 17 (SPEC §19): the one redactor over what earlier versions kept from transcripts and prompts:
    # a session's summary held its first prompt verbatim; capture's redactor, which the history's
    # kept calls used too, missed password options (`sshpass -p`, `mysql -p…`). cortex_redacted is
    # cortex_hooks.redact.redact (registered by migrate). A successful call that becomes a duplicate
    # is kept once; a scan's tail that held a secret is dropped (it costs the context of one scan).
    # A proposal or a learning built from redacted text had `\[REDACTED\]` in its regex, which
    # never matches: it stands for any value now. And the guard file (below).
    (
        "UPDATE session SET summary = cortex_redacted(summary) WHERE summary IS NOT NULL",
        """UPDATE proposal SET anti_pattern = cortex_redacted(anti_pattern),
            correct_pattern = cortex_redacted(correct_pattern), content = cortex_redacted(content)""",
        "UPDATE proposal_occurrence SET failed = cortex_redacted(failed), fixed = cortex_redacted(fixed)",
        """INSERT OR IGNORE INTO capture_success (command, session_id, seen_at)
            SELECT cortex_redacted(command), session_id, seen_at FROM capture_success
            WHERE cortex_redacted(command) IS NOT command""",
        "DELETE FROM capture_success WHERE cortex_redacted(command) IS NOT command",
        "UPDATE capture_scan SET tail = '[]' WHERE cortex_redacted(tail) IS NOT tail",
        "UPDATE verdict_call SET call = cortex_redacted(call)",  # the history's kept calls (14)
        f"""UPDATE proposal SET regex = replace(regex, '{_MASKED}', '{_ANY_VALUE}')
            WHERE instr(regex, '{_MASKED}') > 0""",
        f"""UPDATE learning SET regex = replace(regex, '{_MASKED}', '{_ANY_VALUE}')
            WHERE instr(regex, '{_MASKED}') > 0""",
        # The guard file (store.guard_file): what a deny needs, readable when another process
        # holds the database in locking_mode=EXCLUSIVE. guard_state says it must be rewritten;
        # these triggers mark every change of an auto-block learning's row, whoever makes it (the
        # store marks its own boosts, decays and confidence writes: a trigger on every row of a
        # decay would cost each session end).
        """CREATE TABLE guard_state (id INTEGER PRIMARY KEY CHECK (id = 1), changed INTEGER NOT NULL,
            version INTEGER NOT NULL)""",
        "INSERT INTO guard_state (id, changed, version) VALUES (1, 1, 0)",
        """CREATE TRIGGER learning_guarded AFTER INSERT ON learning WHEN new.auto_block BEGIN
            UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
        """CREATE TRIGGER learning_reguarded AFTER UPDATE OF anti_pattern, correct_pattern, regex, tool,
            target, severity, auto_block, archived_at, muted ON learning WHEN new.auto_block OR old.auto_block
            BEGIN UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
        """CREATE TRIGGER learning_unguarded AFTER DELETE ON learning WHEN old.auto_block BEGIN
            UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    ),
    # 18: Claude Code's own memory (SPEC §18). Its auto-memory files and the project's CLAUDE.md
    # files, indexed for recall: each file as last read (its stat: one whose mtime or size changed
    # is read again, one gone leaves the index), its chunks (a topic file, a heading's section) and
    # their own full-text index, searched beside `search` (nothing of it is ours: it never decays,
    # counts an access or goes into an export). `captured`: capture has read the chunk for rules,
    # whose proposals carry the new signal `remembered`.
    (*CLAUDE_INDEX, _allow_remembered_signal),
    # 19: ask and auto-correct (SPEC §16). A learning's `action` (block, ask or warn) is the one
    # truth of what a trusted match does; `auto_block` stays, computed from it (a generated
    # column), for whatever reads the older flag, and can no longer be written. A Bash learning's
    # `rewrite`, and a proposal's suggested one (failed-then-fixed: its fix). The partial indexes
    # of version 4 read the action: block and ask learnings are listed first and never pruned.
    (
        # a hand-edited flag (only possible with ignore_check_constraints) would stop the next
        # ADD COLUMN's check of the whole table: read as block, the stricter reading
        "UPDATE learning SET auto_block = 1 WHERE auto_block IS NOT 0 AND auto_block IS NOT 1",
        # the guard file's triggers (17) name auto_block: made again below on the action
        "DROP TRIGGER IF EXISTS learning_guarded",
        "DROP TRIGGER IF EXISTS learning_reguarded",
        "DROP TRIGGER IF EXISTS learning_unguarded",
        "DROP INDEX IF EXISTS learning_auto_block",
        "DROP INDEX IF EXISTS learning_by_update",
        "DROP INDEX IF EXISTS learning_prunable",
        """ALTER TABLE learning ADD COLUMN action TEXT NOT NULL DEFAULT 'warn'
           CHECK (action IN ('block', 'ask', 'warn'))""",
        "UPDATE learning SET action = 'block' WHERE auto_block IS NOT 0",
        "ALTER TABLE learning DROP COLUMN auto_block",
        "ALTER TABLE learning ADD COLUMN auto_block INTEGER GENERATED ALWAYS AS (action = 'block') VIRTUAL",
        "ALTER TABLE learning ADD COLUMN rewrite TEXT",
        "CREATE INDEX learning_acting ON learning (id) WHERE archived_at IS NULL AND action != 'warn'",
        """CREATE INDEX learning_by_update ON learning (updated_at)
           WHERE archived_at IS NULL AND action = 'warn'""",
        """CREATE INDEX learning_prunable ON learning (created_at)
           WHERE archived_at IS NULL AND action = 'warn' AND pinned = 0""",
        "ALTER TABLE proposal ADD COLUMN rewrite TEXT",
        *_GUARD_TRIGGERS,
        "UPDATE guard_state SET changed = 1",  # the file holds the action and the rewrite now
    ),
    # 20: the team file (SPEC §17), `.claude/cortex-team.jsonl`, read into the project database
    # when its stat changes (api.team_file). `team_file`: the stat and digest of what was read,
    # the digest `team trust` accepted, and the lines that did not validate (named by doctor and
    # `team check`). `team_entry`: each id of the file and the row holding it (a learning with
    # pack 'team', or a memory), with the digest of its line (an unchanged line is not validated
    # again) and what it declared to do (action, rewrite: in force once trusted). A row whose line
    # is gone stays, archived, with the user's state (hits, confidence, muted) for its return.
    (
        """CREATE TABLE team_file (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            stat TEXT NOT NULL,
            digest TEXT,
            trusted TEXT,
            problems TEXT NOT NULL DEFAULT '[]',
            read_at TEXT NOT NULL
        )""",
        """CREATE TABLE team_entry (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('learning', 'memory')),
            row_id INTEGER NOT NULL,
            line TEXT,
            action TEXT CHECK (action IN ('block', 'ask', 'warn')),
            rewrite TEXT
        ) WITHOUT ROWID""",
        "CREATE UNIQUE INDEX team_entry_row ON team_entry (kind, row_id)",
    ),
    # 21: one judge (SPEC §20). The built-in protection's denials are counted in the scope's day
    # (`protections`; its latest denied calls are kept in verdict_call under learning 0, which no
    # learning has). A learning's `examples`: the calls it must deny and must let through, as
    # JSON {"deny": [...], "allow": [...]} (NULL: none), proved by doctor through the judge.
    (
        "ALTER TABLE scope_day ADD COLUMN protections INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE scope_month ADD COLUMN protections INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE learning ADD COLUMN examples TEXT",
    ),
    # 22: integrity by design (SPEC §21). `keeper_state.changes` counts every change of the
    # protective tables, whoever makes it (these triggers): the keeper's ledger (store.keeper)
    # holds the count a write of cortex-hooks left, so a change another program made is seen at
    # the next tool call without reading a learning.
    (
        """CREATE TABLE keeper_state (id INTEGER PRIMARY KEY CHECK (id = 1),
            changes INTEGER NOT NULL)""",
        "INSERT INTO keeper_state (id, changes) VALUES (1, 0)",
        *_KEEPER_TRIGGERS,
    ),
    # 23: a lesson that works, shown (SPEC §23). `outcome`: each deny, ask and rewrite of a
    # learning, as PreToolUse wrote it (its session, the tool call's id, the jobs of the call,
    # where its transcript stood), until what the agent did next decides it: followed, retried
    # or asked (NULL: not known yet). `settled`: decided from the transcript, final; a retry
    # PreToolUse saw (the learning matched again) is provisional until then. The history counts
    # each outcome on the day of its catch (`followed`, `retried`, `asked`: the person answered).
    (
        """CREATE TABLE outcome (
            id INTEGER PRIMARY KEY,
            learning_id INTEGER NOT NULL,
            session_id TEXT NOT NULL,
            call_id TEXT NOT NULL,
            answer TEXT NOT NULL CHECK (answer IN ('deny', 'ask', 'rewrite')),
            at TEXT NOT NULL,
            tool TEXT NOT NULL,
            call TEXT NOT NULL,
            jobs TEXT NOT NULL DEFAULT '[]',
            transcript TEXT,
            offset INTEGER NOT NULL DEFAULT 0,
            read INTEGER NOT NULL DEFAULT 0,
            result TEXT CHECK (result IN ('followed', 'retried', 'asked')),
            settled INTEGER NOT NULL DEFAULT 0,
            decided_at TEXT,
            next_tool TEXT,
            next_call TEXT
        )""",
        "CREATE INDEX outcome_open ON outcome (session_id) WHERE settled = 0",
        # since a learning was last changed (its `updated_at`: a reworded correct way, a `keep`):
        # how often the agent followed and retried it, what SessionStart's review weighs
        """CREATE TABLE outcome_since (
            learning_id INTEGER PRIMARY KEY,
            since TEXT NOT NULL,
            followed INTEGER NOT NULL DEFAULT 0,
            retried INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX outcome_of ON outcome (learning_id, result, id)",
        *(
            f"ALTER TABLE {table} ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0"
            for table in ("learning_day", "learning_month", "scope_day", "scope_month")
            for column in ("followed", "retried", "asked")
        ),
        # capture's rewrite a learning could have, shown by the call the agent ran after its deny
        # (signal `followed`; the proposal names the learning it is for from the start)
        _allow_followed_signal,
    ),
]
assert len(MIGRATIONS) == SCHEMA_VERSION


def _check_ours(connection: sqlite3.Connection, path: str) -> None:
    version = user_version(connection)
    if version > SCHEMA_VERSION:
        raise CortexError(f"{path} has schema version {version}, newer than this cortex-hooks")
    if version == 0 and connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise CortexError(f"{path} is an SQLite database of something else; it was left untouched")


def _redacted(text: str | None) -> str | None:
    if text is None:
        return None
    from cortex_hooks.redact import redact

    return redact(text)


def is_blank(connection: sqlite3.Connection) -> bool:
    """An empty file (or one the CLI has just created and not yet migrated): not a database yet."""
    return (
        user_version(connection) == 0
        and not connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    )


def migrate(connection: sqlite3.Connection, path: str) -> int:
    """Bring the database to SCHEMA_VERSION; a no-op if another process got there first. The
    version this process found and migrated from (SCHEMA_VERSION when there was nothing to do)."""
    _check_ours(connection, path)  # before anything, even the journal mode, is written
    if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        connection.execute("PRAGMA journal_mode = WAL")  # persistent; not allowed in a transaction
    connection.create_function("cortex_redacted", 1, _redacted, deterministic=True)
    with Transaction(connection):
        _check_ours(connection, path)  # again: another process may have migrated meanwhile
        version = user_version(connection)
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                if isinstance(statement, str):
                    connection.execute(statement)
                else:
                    statement(connection)
        if version < SCHEMA_VERSION:
            learnings.derive_all(connection)  # the prefilter data of this version, for every row
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return version
