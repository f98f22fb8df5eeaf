"""The current schema, written once: every table STRICT, with CHECKs that say what each value may
be, so that SQLite refuses at write time a value the code could not read (a hand edit in the
`sqlite3` shell included); the indexes; and the triggers that keep derived data in step whoever
writes. `create` makes a new database; store.upgrade brings one an earlier version wrote.
"""

from __future__ import annotations

import re
import sqlite3

from cortex_hooks.confidence import DEFAULT
from cortex_hooks.store.version import user_version


def _json(column: str, kind: str = "array") -> str:
    """A CHECK that the column holds JSON text of that kind (json_type alone would raise on bad JSON)."""
    return f"CASE WHEN json_valid({column}) THEN json_type({column}) = '{kind}' ELSE 0 END"


_FLAG = "IN (0, 1)"
_HUNDREDTHS = "BETWEEN 0 AND 100"
_SEVERITY = "IN ('low', 'medium', 'high', 'critical')"
_ACTION = "IN ('block', 'ask', 'warn')"
_VERDICTS = """matches INTEGER NOT NULL DEFAULT 0 CHECK (matches >= 0),
    denies INTEGER NOT NULL DEFAULT 0 CHECK (denies >= 0),
    asks INTEGER NOT NULL DEFAULT 0 CHECK (asks >= 0),
    warnings INTEGER NOT NULL DEFAULT 0 CHECK (warnings >= 0),
    rewrites INTEGER NOT NULL DEFAULT 0 CHECK (rewrites >= 0)"""
_OUTCOMES = """followed INTEGER NOT NULL DEFAULT 0 CHECK (followed >= 0),
    retried INTEGER NOT NULL DEFAULT 0 CHECK (retried >= 0),
    asked INTEGER NOT NULL DEFAULT 0 CHECK (asked >= 0)"""
_LEARNING_COUNTS = f"""{_VERDICTS},
    confidence INTEGER CHECK (confidence {_HUNDREDTHS}), {_OUTCOMES}"""
_SCOPE_COUNTS = f"""{_VERDICTS},
    added INTEGER NOT NULL DEFAULT 0 CHECK (added >= 0),
    recalled INTEGER NOT NULL DEFAULT 0 CHECK (recalled >= 0),
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived >= 0),
    pruned INTEGER NOT NULL DEFAULT 0 CHECK (pruned >= 0),
    protections INTEGER NOT NULL DEFAULT 0 CHECK (protections >= 0), {_OUTCOMES}"""

TABLES = (
    # Learnings. `action` is the one truth of what a trusted match does; `auto_block` is computed
    # from it for whatever reads the older flag. `literals` (the regex's required literals) and
    # learning_key (the prefilter's index, each key with its learning's tool matcher, so PreToolUse
    # drops other tools' keys before it reads a wide row) are derived (guard.prefilter).
    f"""CREATE TABLE learning (
        id INTEGER PRIMARY KEY,
        anti_pattern TEXT NOT NULL,
        correct_pattern TEXT NOT NULL,
        regex TEXT,
        tool TEXT NOT NULL DEFAULT '*',
        target TEXT NOT NULL DEFAULT 'content' CHECK (target IN ('content', 'path', 'input', 'raw')),
        severity TEXT NOT NULL DEFAULT 'medium' CHECK (severity {_SEVERITY}),
        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned {_FLAG}),
        access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
        last_accessed TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        archived_at TEXT,
        context TEXT,
        literals TEXT CHECK (literals IS NULL OR {_json("literals")}),
        slug TEXT,
        pack TEXT,
        muted INTEGER NOT NULL DEFAULT 0 CHECK (muted {_FLAG}),
        action TEXT NOT NULL DEFAULT 'warn' CHECK (action {_ACTION}),
        auto_block INTEGER GENERATED ALWAYS AS (action = 'block') VIRTUAL,
        rewrite TEXT,
        examples TEXT CHECK (examples IS NULL OR {_json("examples", "object")})
    ) STRICT""",
    """CREATE TABLE learning_key (
        key TEXT NOT NULL,
        learning_id INTEGER NOT NULL,
        tool TEXT NOT NULL,
        PRIMARY KEY (key, learning_id)
    ) STRICT, WITHOUT ROWID""",
    # Confidence in a narrow table: a session end rewrites it for every learning, and rewriting the
    # wide rows cost SessionEnd most of its budget. Every learning has one (triggers below: a
    # learning's first is written with it, and one written after it takes its place).
    f"""CREATE TABLE learning_confidence (
        learning_id INTEGER PRIMARY KEY ON CONFLICT REPLACE,
        confidence INTEGER NOT NULL CHECK (confidence {_HUNDREDTHS})
    ) STRICT""",
    f"""CREATE TABLE session (
        id TEXT PRIMARY KEY,
        source TEXT,
        started_at TEXT,
        ended_at TEXT,
        reason TEXT,
        summary TEXT,
        key_changes TEXT NOT NULL DEFAULT '[]' CHECK ({_json("key_changes")})
    ) STRICT""",
    """CREATE TABLE decision (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        reasoning TEXT NOT NULL,
        category TEXT,
        superseded_by INTEGER,
        access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
        last_accessed TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        archived_at TEXT
    ) STRICT""",
    f"""CREATE TABLE error (
        id INTEGER PRIMARY KEY,
        message TEXT NOT NULL,
        fix TEXT,
        severity TEXT NOT NULL DEFAULT 'medium' CHECK (severity {_SEVERITY}),
        occurrences INTEGER NOT NULL DEFAULT 1 CHECK (occurrences >= 0),
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
        last_accessed TEXT,
        archived_at TEXT
    ) STRICT""",
    f"""CREATE TABLE todo (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('high', 'medium', 'low')),
        done INTEGER NOT NULL DEFAULT 0 CHECK (done {_FLAG}),
        done_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        archived_at TEXT
    ) STRICT""",
    # The ids of pending writes applied (store.pending), recorded in the transaction that applies
    # them: a process killed before the pending file is emptied never applies one twice.
    "CREATE TABLE pending_applied (id TEXT PRIMARY KEY) STRICT, WITHOUT ROWID",
    # Memories and their graph. `in_degree` (centrality's numerator) is kept by triggers on `edge`;
    # `base_confidence` is where the decay curve starts (`confidence`: its value as last written);
    # `lifecycle_due` is when the lifecycle must look again ('' now, NULL never).
    f"""CREATE TABLE memory (
        id INTEGER PRIMARY KEY,
        type TEXT NOT NULL CHECK (type IN ('architecture', 'decision', 'pattern', 'gotcha', 'progress',
            'context', 'code_description', 'code')),
        content TEXT NOT NULL,
        summary TEXT NOT NULL,
        priority INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 10),
        confidence INTEGER NOT NULL CHECK (confidence {_HUNDREDTHS}),
        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned {_FLAG}),
        tags TEXT NOT NULL DEFAULT '[]' CHECK ({_json("tags")}),
        source TEXT NOT NULL CHECK (source IN ('explicit', 'conversation', 'code_index')),
        source_session TEXT,
        path TEXT,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
        access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
        last_accessed TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        confirmed_at TEXT NOT NULL,
        archived_at TEXT,
        in_degree INTEGER NOT NULL DEFAULT 0,
        base_confidence INTEGER CHECK (base_confidence {_HUNDREDTHS}),
        lifecycle_due TEXT
    ) STRICT""",
    """CREATE TABLE edge (
        from_id INTEGER NOT NULL,
        to_id INTEGER NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('relates_to', 'derived_from', 'contradicts', 'exemplifies',
            'refines', 'supersedes', 'source_of')),
        strength REAL NOT NULL CHECK (strength BETWEEN 0 AND 1),
        created_at TEXT NOT NULL,
        PRIMARY KEY (from_id, to_id, type)
    ) STRICT, WITHOUT ROWID""",
    # The largest in-degree the lifecycle last computed centralities with.
    """CREATE TABLE lifecycle_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        max_in_degree INTEGER NOT NULL
    ) STRICT""",
    # Pairs of memories found nearly the same when one was stored, until `consolidate` merges them;
    # and each consolidation that changed something.
    """CREATE TABLE consolidation_flag (
        first_id INTEGER NOT NULL,
        second_id INTEGER NOT NULL,
        similarity REAL NOT NULL CHECK (similarity BETWEEN 0 AND 1),
        flagged_at TEXT NOT NULL,
        PRIMARY KEY (first_id, second_id),
        CHECK (first_id < second_id)
    ) STRICT, WITHOUT ROWID""",
    """CREATE TABLE consolidation (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        checkpoint TEXT,
        groups INTEGER NOT NULL CHECK (groups >= 0),
        superseded INTEGER NOT NULL CHECK (superseded >= 0),
        last_memory_id INTEGER NOT NULL
    ) STRICT""",
    # Semantic recall: one float32 vector per item and model. Ids are never reused, so (count,
    # max id) of a model's rows changes with every write: a warm process sees its cache went stale.
    """CREATE TABLE vector (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 7),
        item_id INTEGER NOT NULL,
        model TEXT NOT NULL,
        data BLOB NOT NULL,
        UNIQUE (model, kind, item_id)
    ) STRICT""",
    # Capture: proposals apart from learnings and memories (nothing matches, recalls or decays them
    # until accepted), each sighting an occurrence; rejected fingerprints outlive their rows; each
    # session's scan state; the project's successful Bash calls; the worker's last error.
    """CREATE TABLE proposal (
        id INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'learning' CHECK (kind IN ('learning', 'memory')),
        signal TEXT NOT NULL CHECK (signal IN ('failed-then-fixed', 'user-correction', 'repeated-failure',
            'model', 'remembered', 'followed')),
        anti_pattern TEXT NOT NULL,
        correct_pattern TEXT NOT NULL,
        regex TEXT,
        tool TEXT NOT NULL DEFAULT 'Bash',
        content TEXT,
        status TEXT NOT NULL DEFAULT 'candidate' CHECK (status IN ('candidate', 'proposed', 'accepted',
            'rejected', 'expired')),
        proposed_in TEXT,
        shown INTEGER NOT NULL DEFAULT 0 CHECK (shown >= 0),
        learning_id INTEGER,
        learning_scope TEXT,
        drafted TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        rewrite TEXT,
        UNIQUE (fingerprint, signal)
    ) STRICT""",
    """CREATE TABLE proposal_occurrence (
        proposal_id INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        failed TEXT NOT NULL,
        fixed TEXT NOT NULL,
        seen_at TEXT NOT NULL
    ) STRICT""",
    """CREATE TABLE proposal_rejected (fingerprint TEXT PRIMARY KEY, rejected_at TEXT NOT NULL)
       STRICT, WITHOUT ROWID""",
    f"""CREATE TABLE capture_scan (
        session_id TEXT PRIMARY KEY,
        transcript TEXT NOT NULL,
        offset INTEGER NOT NULL DEFAULT 0 CHECK (offset >= 0),
        size INTEGER NOT NULL DEFAULT 0 CHECK (size >= 0),
        tail TEXT NOT NULL DEFAULT '[]' CHECK ({_json("tail")}),
        updated_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID""",
    """CREATE TABLE capture_success (
        command TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seen_at TEXT NOT NULL,
        PRIMARY KEY (command, session_id)
    ) STRICT""",
    """CREATE TABLE capture_note (name TEXT PRIMARY KEY, value TEXT NOT NULL, at TEXT NOT NULL)
       STRICT, WITHOUT ROWID""",
    # The history (store.history), what `report` and `stats` read: per learning and UTC day its
    # matches, what they became and what the agent did after (its outcomes), and its confidence
    # at the day's end; per day the whole scope's, and the memories' events. Day rows older than a
    # year are folded into month rows. The last few calls each learning denied or warned, redacted
    # (learning 0: the built-in protection).
    f"""CREATE TABLE learning_day (learning_id INTEGER NOT NULL, day TEXT NOT NULL, {_LEARNING_COUNTS},
        PRIMARY KEY (learning_id, day)) STRICT, WITHOUT ROWID""",
    f"""CREATE TABLE learning_month (learning_id INTEGER NOT NULL, month TEXT NOT NULL, {_LEARNING_COUNTS},
        PRIMARY KEY (learning_id, month)) STRICT, WITHOUT ROWID""",
    f"CREATE TABLE scope_day (day TEXT PRIMARY KEY, {_SCOPE_COUNTS}) STRICT, WITHOUT ROWID",
    f"CREATE TABLE scope_month (month TEXT PRIMARY KEY, {_SCOPE_COUNTS}) STRICT, WITHOUT ROWID",
    """CREATE TABLE verdict_call (
        id INTEGER PRIMARY KEY,
        learning_id INTEGER NOT NULL,
        at TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('deny', 'ask', 'warn', 'rewrite')),
        tool TEXT NOT NULL,
        call TEXT NOT NULL
    ) STRICT""",
    # The packs this scope enabled, each with the digest of the pack file its learnings were
    # written from (a pack learning: its `slug` and `pack`; `muted`: the person's word on one).
    """CREATE TABLE pack (
        name TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        enabled_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID""",
    # The guard file (store.guard_file): `changed` says it must be rewritten at the next commit.
    """CREATE TABLE guard_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        changed INTEGER NOT NULL CHECK (changed IN (0, 1)),
        version INTEGER NOT NULL CHECK (version >= 0)
    ) STRICT""",
    # The team file as last read (stat, digest, the digest trusted, the lines that did not
    # validate) and each id it held, with the row holding it and what it declared to do.
    f"""CREATE TABLE team_file (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        stat TEXT NOT NULL,
        digest TEXT,
        trusted TEXT,
        problems TEXT NOT NULL DEFAULT '[]' CHECK ({_json("problems")}),
        read_at TEXT NOT NULL
    ) STRICT""",
    f"""CREATE TABLE team_entry (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('learning', 'memory')),
        row_id INTEGER NOT NULL,
        line TEXT,
        action TEXT CHECK (action {_ACTION}),
        rewrite TEXT
    ) STRICT, WITHOUT ROWID""",
    # The keeper (store.keeper): every change of the protective tables counted, whoever makes it.
    """CREATE TABLE keeper_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        changes INTEGER NOT NULL
    ) STRICT""",
    # Each deny, ask and rewrite of a learning, until what the agent did next decides it
    # (`result`; `settled`: decided from the transcript, final); and since a learning last changed,
    # how often it was followed and retried.
    f"""CREATE TABLE outcome (
        id INTEGER PRIMARY KEY,
        learning_id INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        answer TEXT NOT NULL CHECK (answer IN ('deny', 'ask', 'rewrite')),
        at TEXT NOT NULL,
        tool TEXT NOT NULL,
        call TEXT NOT NULL,
        jobs TEXT NOT NULL DEFAULT '[]' CHECK ({_json("jobs")}),
        transcript TEXT,
        offset INTEGER NOT NULL DEFAULT 0 CHECK (offset >= 0),
        read INTEGER NOT NULL DEFAULT 0 CHECK (read >= 0),
        result TEXT CHECK (result IN ('followed', 'retried', 'asked')),
        settled INTEGER NOT NULL DEFAULT 0 CHECK (settled {_FLAG}),
        decided_at TEXT,
        next_tool TEXT,
        next_call TEXT
    ) STRICT""",
    """CREATE TABLE outcome_since (
        learning_id INTEGER PRIMARY KEY,
        since TEXT NOT NULL,
        followed INTEGER NOT NULL DEFAULT 0 CHECK (followed >= 0),
        retried INTEGER NOT NULL DEFAULT 0 CHECK (retried >= 0)
    ) STRICT""",
)

# Claude Code's own memory, indexed for recall (store.claude_index): each file as last read, its
# chunks and their own full-text index (nothing of it is ours: it never decays nor is exported).
# Also what a recall builds in memory when it may not write the project's database.
CLAUDE_INDEX = (
    """CREATE TABLE claude_file (
        path TEXT PRIMARY KEY,
        origin TEXT NOT NULL CHECK (origin IN ('auto-memory', 'claude-md')),
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL CHECK (size >= 0),
        indexed_at TEXT NOT NULL
    ) STRICT, WITHOUT ROWID""",
    """CREATE TABLE claude_chunk (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        summary TEXT NOT NULL,
        content TEXT NOT NULL,
        captured INTEGER NOT NULL DEFAULT 0 CHECK (captured IN (0, 1))
    ) STRICT""",
    "CREATE VIRTUAL TABLE claude_search USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE INDEX claude_chunk_of ON claude_chunk (path)",
    "CREATE INDEX claude_chunk_uncaptured ON claude_chunk (id) WHERE captured = 0",
    """CREATE TRIGGER claude_chunk_indexed AFTER INSERT ON claude_chunk BEGIN
        INSERT INTO claude_search (rowid, body)
        VALUES (new.id, new.summary || char(10) || new.content); END""",
    """CREATE TRIGGER claude_chunk_dropped AFTER DELETE ON claude_chunk BEGIN
        DELETE FROM claude_search WHERE rowid = old.id; END""",
)

# One full-text index over every kind, its words stemmed (Porter over unicode61); a row's rowid is
# 8 * its id + its kind's number (store.recall). How many rows hold each word: a query keeps its
# rarer words.
SEARCH = (
    "CREATE VIRTUAL TABLE search USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE search_vocabulary USING fts5vocab(search, 'row')",
)
# What each kind gives the full-text index, and its number in the index's rowids.
_SEARCHED = {
    "memory": (1, "new.content || ' ' || new.summary || ' ' || new.tags"),
    "learning": (2, "new.anti_pattern || ' ' || new.correct_pattern || ' ' || coalesce(new.context, '')"),
    "decision": (3, "new.title || ' ' || new.reasoning"),
    "error": (4, "new.message || ' ' || coalesce(new.fix, '')"),
    "todo": (5, "new.text"),
}
SEARCH_FILLS = tuple(
    f"INSERT INTO search (rowid, body) SELECT id * 8 + {number}, {body.replace('new.', '')} FROM {table}"
    for table, (number, body) in _SEARCHED.items()
)
# What each kind embeds (cortex_hooks.embeddings.text): a change of these drops its vectors.
_EMBEDDED = {
    "memory": (1, "content, summary, type"),
    "learning": (2, "anti_pattern, correct_pattern, context"),
    "decision": (3, "title, reasoning"),
    "error": (4, "message, fix"),
    "todo": (5, "text"),
}

INDEXES = (
    "CREATE INDEX learning_key_by_learning ON learning_key (learning_id)",
    # what SessionStart reads at every start, through small partial indexes (none holds the
    # confidence: a session end changes it in every row)
    "CREATE INDEX learning_acting ON learning (id) WHERE archived_at IS NULL AND action != 'warn'",
    "CREATE INDEX learning_by_update ON learning (updated_at) WHERE archived_at IS NULL AND action = 'warn'",
    """CREATE INDEX learning_prunable ON learning (created_at)
       WHERE archived_at IS NULL AND action = 'warn' AND pinned = 0""",
    "CREATE INDEX learning_exempt ON learning (id) WHERE pinned = 1 OR archived_at IS NOT NULL",
    "CREATE UNIQUE INDEX learning_slug ON learning (slug) WHERE slug IS NOT NULL",
    "CREATE INDEX session_by_end ON session (ended_at)",
    "CREATE INDEX memory_active ON memory (type, id) WHERE status = 'active'",
    "CREATE INDEX memory_pinned ON memory (id) WHERE status = 'active' AND pinned = 1",
    # the push surface: memories touched lately, newest first, without reading the others
    "CREATE INDEX memory_touched ON memory (max(confirmed_at, updated_at)) WHERE status = 'active'",
    "CREATE INDEX memory_due ON memory (lifecycle_due) WHERE lifecycle_due IS NOT NULL",
    "CREATE INDEX memory_in_degree ON memory (in_degree)",
    "CREATE INDEX edge_to ON edge (to_id)",
    "CREATE INDEX consolidation_flag_second ON consolidation_flag (second_id)",
    "CREATE INDEX vector_item ON vector (kind, item_id)",
    "CREATE INDEX proposal_pending ON proposal (status, id)",
    "CREATE INDEX proposal_occurrence_of ON proposal_occurrence (proposal_id)",
    "CREATE INDEX learning_day_by_day ON learning_day (day)",
    "CREATE INDEX verdict_call_of ON verdict_call (learning_id, id)",
    "CREATE UNIQUE INDEX team_entry_row ON team_entry (kind, row_id)",
    "CREATE INDEX outcome_open ON outcome (session_id) WHERE settled = 0",
    "CREATE INDEX outcome_of ON outcome (learning_id, result, id)",
)


def _counted(column: str, day: str) -> str:
    """A trigger statement counting one memory event on the day the row itself names (no clock
    in SQL: a hand edit in the sqlite3 shell fires it too)."""
    return f"""INSERT INTO scope_day (day, {column}) VALUES (substr({day}, 1, 10), 1)
               ON CONFLICT (day) DO UPDATE SET {column} = {column} + 1"""


_GUARDED = "({row}.action != 'warn' OR {row}.rewrite IS NOT NULL)"  # what the guard file holds
_COUNTED = "BEGIN UPDATE keeper_state SET changes = changes + 1; END"
_REFUSED = (
    "a learning and its confidence go together: archive or delete the learning (cortex-hooks archive ID)"
)

TRIGGERS = (
    # the full-text index and the vectors follow every kind's text, whoever writes it
    *(
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
    ),
    *(
        statement
        for table, (number, columns) in _EMBEDDED.items()
        for statement in (
            f"""CREATE TRIGGER {table}_reembedded AFTER UPDATE OF {columns} ON {table}
                WHEN {" OR ".join(f"old.{c} IS NOT new.{c}" for c in columns.split(", "))} BEGIN
                DELETE FROM vector WHERE kind = {number} AND item_id = old.id; END""",
            f"""CREATE TRIGGER {table}_unembedded AFTER DELETE ON {table} BEGIN
                DELETE FROM vector WHERE kind = {number} AND item_id = old.id; END""",
        )
    ),
    # every learning has its confidence, from its first moment to its deletion (the store writes
    # its own at once; a row inserted by hand starts at the start value)
    f"""CREATE TRIGGER learning_confident AFTER INSERT ON learning BEGIN
        INSERT INTO learning_confidence (learning_id, confidence) VALUES (new.id, {DEFAULT.start})
        ON CONFLICT (learning_id) DO NOTHING; END""",
    f"""CREATE TRIGGER learning_confidence_kept BEFORE DELETE ON learning_confidence
        WHEN EXISTS (SELECT 1 FROM learning WHERE id = old.learning_id) BEGIN
        SELECT RAISE(ABORT, '{_REFUSED}'); END""",
    f"""CREATE TRIGGER learning_confidence_moved BEFORE UPDATE OF learning_id ON learning_confidence
        WHEN new.learning_id IS NOT old.learning_id BEGIN SELECT RAISE(ABORT, '{_REFUSED}'); END""",
    f"""CREATE TRIGGER learning_renumbered BEFORE UPDATE OF id ON learning WHEN new.id IS NOT old.id BEGIN
        SELECT RAISE(ABORT, '{_REFUSED}'); END""",
    """CREATE TRIGGER learning_forgotten AFTER DELETE ON learning BEGIN
        DELETE FROM learning_confidence WHERE learning_id = old.id; END""",
    # each prefilter key carries its learning's tool matcher, whatever changes it
    """CREATE TRIGGER learning_tool_keyed AFTER UPDATE OF tool ON learning WHEN new.tool IS NOT old.tool BEGIN
        UPDATE learning_key SET tool = new.tool WHERE learning_id = new.id; END""",
    # the guard file must be rewritten after any change of a learning it holds, whoever makes it
    # (the store marks its own boosts, decays and confidence writes: a trigger on every row of a
    # decay would cost each session end)
    f"""CREATE TRIGGER learning_guarded AFTER INSERT ON learning WHEN {_GUARDED.format(row="new")} BEGIN
        UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    f"""CREATE TRIGGER learning_reguarded AFTER UPDATE OF anti_pattern, correct_pattern, regex, tool,
        target, severity, action, rewrite, archived_at, muted ON learning
        WHEN {_GUARDED.format(row="new")} OR {_GUARDED.format(row="old")}
        BEGIN UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    f"""CREATE TRIGGER learning_unguarded AFTER DELETE ON learning WHEN {_GUARDED.format(row="old")} BEGIN
        UPDATE guard_state SET changed = 1 WHERE changed = 0; END""",
    # the keeper's count of changes to the protective tables, whoever makes them
    *(
        f"CREATE TRIGGER keeper_{table}_{event.lower()} AFTER {event} ON {table} {_COUNTED}"
        for table in ("learning_confidence", "pack", "team_file", "team_entry")
        for event in ("INSERT", "UPDATE", "DELETE")
    ),
    f"CREATE TRIGGER keeper_learning_insert AFTER INSERT ON learning {_COUNTED}",
    f"CREATE TRIGGER keeper_learning_delete AFTER DELETE ON learning {_COUNTED}",
    f"""CREATE TRIGGER keeper_learning_update AFTER UPDATE OF anti_pattern, correct_pattern, regex,
        tool, target, severity, action, rewrite, pinned, archived_at, muted ON learning {_COUNTED}""",
    # centrality reads every memory's in-degree: kept in the row, whatever writes an edge
    # (`supersedes` edges do not count); a deleted memory takes its edges and flags with it
    """CREATE TRIGGER edge_in AFTER INSERT ON edge WHEN new.type != 'supersedes' BEGIN
        UPDATE memory SET in_degree = in_degree + 1 WHERE id = new.to_id; END""",
    """CREATE TRIGGER edge_out AFTER DELETE ON edge WHEN old.type != 'supersedes' BEGIN
        UPDATE memory SET in_degree = in_degree - 1 WHERE id = old.to_id; END""",
    """CREATE TRIGGER memory_gone AFTER DELETE ON memory BEGIN
        DELETE FROM edge WHERE from_id = old.id OR to_id = old.id;
        DELETE FROM consolidation_flag WHERE first_id = old.id OR second_id = old.id; END""",
    # the memory lifecycle: a new memory's curve starts from the confidence it is stored with and it
    # is looked at soon; a confirmation restarts the curve at its start value, and so do pinning,
    # unpinning and restoring (a restored memory would otherwise be archived again at once);
    # whatever changes what the lifecycle computes makes the memory due now, unless the writer (the
    # lifecycle itself) set the next look in the same statement
    """CREATE TRIGGER memory_aging AFTER INSERT ON memory BEGIN
        UPDATE memory SET base_confidence = coalesce(new.base_confidence, new.confidence),
            lifecycle_due = '' WHERE id = new.id; END""",
    """CREATE TRIGGER memory_confirmed AFTER UPDATE OF confirmed_at ON memory
        WHEN new.confirmed_at IS NOT old.confirmed_at AND new.base_confidence IS NOT NULL BEGIN
        UPDATE memory SET confidence = new.base_confidence WHERE id = new.id; END""",
    """CREATE TRIGGER memory_restarted AFTER UPDATE OF pinned, status ON memory
        WHEN (new.pinned IS NOT old.pinned OR (new.status = 'active' AND old.status != 'active'))
            AND new.updated_at > new.confirmed_at BEGIN
        UPDATE memory SET confirmed_at = new.updated_at WHERE id = new.id; END""",
    """CREATE TRIGGER memory_changed AFTER UPDATE OF confirmed_at, base_confidence, pinned, type,
            access_count, status, in_degree ON memory
        WHEN new.lifecycle_due IS old.lifecycle_due BEGIN
        UPDATE memory SET lifecycle_due = '' WHERE id = new.id; END""",
    # the history's memory events, on the day the row itself names
    f"CREATE TRIGGER memory_added AFTER INSERT ON memory BEGIN {_counted('added', 'new.created_at')}; END",
    f"""CREATE TRIGGER memory_recalled AFTER UPDATE OF access_count ON memory
        WHEN new.access_count > old.access_count AND new.last_accessed IS NOT NULL BEGIN
        {_counted("recalled", "new.last_accessed")}; END""",
    f"""CREATE TRIGGER memory_archived AFTER UPDATE OF status ON memory
        WHEN new.status = 'archived' AND old.status IS NOT 'archived' BEGIN
        {_counted("archived", "coalesce(new.archived_at, new.updated_at)")}; END""",
)
# The rows a database always has: the guard file is written at the first commit.
SINGLETONS = (
    "INSERT OR IGNORE INTO guard_state (id, changed, version) VALUES (1, 1, 0)",
    "INSERT OR IGNORE INTO keeper_state (id, changes) VALUES (1, 0)",
)


def make_tables(connection: sqlite3.Connection) -> None:
    """Every table, empty (their indexes and triggers: `finish`)."""
    for statement in (*TABLES, *(s for s in CLAUDE_INDEX if s.startswith("CREATE TABLE"))):
        connection.execute(statement)


def finish(connection: sqlite3.Connection) -> None:
    """The full-text indexes, the rows every database has, the indexes and the triggers, over
    tables whose rows are in (triggers made last: what they would count is counted already)."""
    for statement in (*SEARCH, *(s for s in CLAUDE_INDEX if not s.startswith("CREATE TABLE"))):
        if not statement.startswith("CREATE TRIGGER"):
            connection.execute(statement)
    for statement in (*SINGLETONS, *INDEXES, *TRIGGERS):
        connection.execute(statement)
    for statement in CLAUDE_INDEX:
        if statement.startswith("CREATE TRIGGER"):
            connection.execute(statement)


def create(connection: sqlite3.Connection) -> None:
    """The current schema in an empty database, inside the caller's transaction."""
    make_tables(connection)
    finish(connection)


def is_blank(connection: sqlite3.Connection) -> bool:
    """An empty file (or one the CLI has just created and not yet made): not a database yet."""
    return (
        user_version(connection) == 0
        and not connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    )
