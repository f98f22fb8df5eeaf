"""The databases pack: SQL through psql, mysql, sqlite3 and the other clients, redis, MongoDB, the
databases' own command-line tools and the frameworks' reset commands (issue 37)."""

from __future__ import annotations

from pack_sources.words import HELP, WORDS, after, has, hasnt, program, then

POLICY = (
    "Denies statements that delete data for good, wherever the command shows them: SQL given to "
    "a client (psql -c, mysql -e, sqlite3 DB 'SQL', a here-string, a heredoc, echo … | psql) "
    "that drops a table, database, schema or column, truncates a table, or deletes from a table "
    "without WHERE; redis FLUSHALL / FLUSHDB; MongoDB dropDatabase(), drop(), deleteMany({}) / "
    "remove({}); dropdb, mysqladmin drop, mongorestore --drop, pg_restore --clean; the "
    "frameworks' resets (manage.py flush, rails db:drop / db:reset, prisma migrate reset, artisan "
    "migrate:fresh, alembic downgrade base). Passes: SELECT, INSERT, UPDATE, DELETE … WHERE, "
    "DROP INDEX / VIEW, dumps (pg_dump, mysqldump), --help, and these words as data (echo, grep, "
    "a file written by a heredoc, a SQL string literal). What the hook cannot see is not judged: "
    "psql -f FILE, psql < FILE, cat FILE | mysql pass, since nothing says they are destructive."
)

SQL_CLIENT = r"(?:psql|mysql|mariadb|sqlite3|sqlite|duckdb|clickhouse-client|clickhouse|sqlcmd|cqlsh|cockroach|usql|mycli|pgcli|litecli)"
PART = r"""(?:\\?"[^"\\]+\\?"|`[^`]+`|\[[^\]]+\]|[\w$]+)"""
NAME = PART + r"(?:\." + PART + r")*"
# A statement that deletes data for good, at the start of a statement.
DESTRUCTIVE_SQL = (
    r"(?i:DROP\s+(?:TABLE|DATABASE|SCHEMA|KEYSPACE)\b"
    r"|TRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?[\w\"`\[]"
    r"|DELETE\s+FROM\s+"
    + NAME
    + r"(?:\s+(?:AS\s+)?(?!WHERE\b|USING\b|RETURNING\b|LIMIT\b|ORDER\b)[\w$]+)?\s*(?:;|\\?[\"']|$)"
    r"|ALTER\s+TABLE\s+[^;]*?\bDROP\s+COLUMN\b)"
)
STATEMENTS = r"(?:[^;]*;\s*)*?"  # the statements before, each ended by `;`
COMMENTS = r"(?:--[^\n]*\n\s*)*"
# Where a client is given SQL: an option's value, a here-string.
SQL_OPTION = r"(?:-c|--command|-e|--execute|-q|-Q|--query|-cmd|<<<)(?:\s+|=|(?=[\"']))[\"']?\s*"
# A heredoc (the reader shows it after the command it feeds, as data): a statement at a line's start.
IN_HEREDOC = r"[^\n]*\n(?:[^\n;]*+[\n;])*?[ \t]*" + COMMENTS  # line by line, not character by character
RUNNERS = r"(?:(?:sudo|doas|env|nice|time)(?:\s[^\s|]+)*?\s)?"


MONGO_DELETE = (
    r"(?:\.(?:dropDatabase|dropCollection|dropAllUsers)\s*\(|\.drop\s*\(\s*\)"
    r"|\.(?:deleteMany|remove)\s*\(\s*[{\x00]\s*[}\x00]\s*\))"  # `[{\x00]`: see pack_sources.words
)
FLUSH = r"(?i:FLUSHALL|FLUSHDB)(?=\s|$|[\"';])"
REDIS = r"(?:redis-cli|valkey-cli|keydb-cli)"

rules = [
    dict(
        id="databases:sql-destroy",
        # the client first, outside any alternation: the prefilter then needs its name
        regex=r"^"
        + SQL_CLIENT
        + r"(?=\s|$)(?:"
        + WORDS
        + r"\s"
        + SQL_OPTION
        + COMMENTS
        + STATEMENTS
        + DESTRUCTIVE_SQL
        + r"|"
        + IN_HEREDOC
        + DESTRUCTIVE_SQL
        + r"|"
        + after("sqlite3", "sqlite", "duckdb")  # sqlite3 DB 'SQL': the statement is an argument
        + WORDS
        + r"\s[^\s\"'-][^\s]*\s[\"']?\s*"
        + STATEMENTS
        + DESTRUCTIVE_SQL
        + r")",
        anti_pattern="DROP TABLE / DATABASE / SCHEMA / COLUMN, TRUNCATE, or DELETE without WHERE sent to a database: the rows are gone for good",
        correct_pattern="Back up first (pg_dump -t TABLE, mysqldump), check with SELECT count(*) what would go, add a WHERE; ask the person before dropping anything",
        severity="critical",
        examples={
            "deny": [
                "psql -d app -c 'DROP TABLE users'",
                'mysql -u root -e "DROP DATABASE shop"',
                "sqlite3 app.db 'DELETE FROM sessions;'",
                "psql app <<'SQL'\nBEGIN;\nTRUNCATE orders;\nCOMMIT;\nSQL",
            ],
            "allow": [
                "psql -c 'SELECT count(*) FROM users'",
                'psql -c "DELETE FROM sessions WHERE expires < now()"',
                "psql -c \"SELECT 'DROP TABLE x'\"",
                "psql -f migrations/001_drop.sql",
                "echo 'DROP TABLE users;'",
                "cat <<'EOF' > down.sql\nDROP TABLE users;\nEOF",
            ],
        },
    ),
    dict(
        id="databases:redis-flush",
        regex=r"(?:"
        + program(REDIS)
        + r"(?:"
        + then(FLUSH)
        + r"|"
        + IN_HEREDOC
        + FLUSH
        + r"|"
        + WORDS
        + r"\s<<<\s[\"']?\s*"
        + FLUSH
        + r"))",
        anti_pattern="redis FLUSHALL / FLUSHDB: deletes every key of the server (or of the database)",
        correct_pattern="Delete the keys you made, by name or pattern you checked (redis-cli --scan --pattern 'myapp:*'); ask the person first",
        severity="critical",
        examples={
            "deny": ["redis-cli FLUSHALL", "redis-cli -h cache -n 2 flushdb", "redis-cli <<< FLUSHALL"],
            "allow": [
                "redis-cli GET session:1",
                "redis-cli DEL session:1",
                "redis-cli --scan --pattern 'flushall*'",
            ],
        },
    ),
    dict(
        id="databases:mongo-drop",
        regex=program("mongosh", "mongo") + r"[\s\S]*?" + MONGO_DELETE,
        anti_pattern="MongoDB dropDatabase(), drop(), deleteMany({}) or remove({}): deletes a database, a collection or every document in it",
        correct_pattern="mongodump first; count what would go (db.c.countDocuments(FILTER)); delete with a filter; ask the person",
        severity="critical",
        examples={
            "deny": [
                "mongosh app --eval 'db.dropDatabase()'",
                'mongosh --eval "db.users.deleteMany({})"',
                "mongosh <<EOF\nuse app\ndb.sessions.drop()\nEOF",
            ],
            "allow": [
                "mongosh --eval 'db.users.find().limit(5)'",
                "mongosh --eval 'db.users.deleteMany({active: false})'",
            ],
        },
    ),
    dict(
        id="databases:piped-destroy",
        regex=r"^(?:echo|printf)(?:\s-[a-zA-Z]+)*\s[\"']?\s*"
        + STATEMENTS
        + r"(?:"
        + DESTRUCTIVE_SQL
        + r"|"
        + FLUSH
        + r"|[^|]*?"
        + MONGO_DELETE
        + r")[^|]*\|\s*"
        + RUNNERS
        + r"(?:"
        + SQL_CLIENT
        + r"|"
        + REDIS
        + r"|mongosh|mongo)(?=\s|$)",
        anti_pattern="echo 'DROP TABLE …' | psql (or FLUSHALL into redis-cli, dropDatabase() into mongosh): the statement piped in deletes data for good",
        correct_pattern="Back up first, check with a SELECT what would go, add a WHERE; ask the person before dropping anything",
        severity="critical",
        examples={
            "deny": [
                "echo 'DROP TABLE users;' | psql app",
                "echo FLUSHALL | redis-cli",
                "echo 'db.dropDatabase()' | mongosh app",
            ],
            "allow": [
                "echo 'SELECT 1;' | psql app",
                "echo 'DROP TABLE users;' > down.sql",
                "echo PING | redis-cli",
            ],
        },
    ),
    dict(
        id="databases:drop-tools",
        regex=r"(?:"
        + program("dropdb")
        + hasnt(r"(?:--help|-\?|--version|-V)")
        + r"|"
        + program("mysqladmin")
        + HELP
        + then("drop")
        + r"|"
        + program("mongorestore")
        + has(r"--drop")
        + r"|"
        + program("pg_restore")
        + has(r"(?:-[a-zA-Z]*c[a-zA-Z]*|--clean)")
        + r")",
        anti_pattern="dropdb, mysqladmin drop, mongorestore --drop, pg_restore --clean: delete a whole database, or its tables before restoring over them",
        correct_pattern="Dump it first (pg_dump, mysqldump, mongodump); restore into a new database and switch when it is checked; ask the person",
        severity="critical",
        examples={
            "deny": [
                "dropdb app_test",
                "mysqladmin -u root -f drop shop",
                "mongorestore --drop dump/",
                "pg_restore -c -d app dump.pgdump",
            ],
            "allow": [
                "createdb app_test",
                "dropdb --help",
                "pg_restore -l dump.pgdump",
                "mongorestore dump/",
            ],
        },
    ),
    dict(
        id="databases:framework-reset",
        regex=r"^(?:(?:python[0-9.]*(?:\s-\S+)*\s(?:\S*/)?)?manage\.py|django-admin|bundle\sexec\s(?:rails|rake)"
        + r"|rails|rake|prisma|php\s(?:\S*/)?artisan|alembic|dotnet)(?=\s|$)"  # the programs first: see sql-destroy
        + HELP
        + r"(?:"
        + then(
            r"flush|reset_db|db:drop(?::all)?|db:reset|db:purge|db:schema:load|migrate:fresh|migrate:reset|db:wipe"
        )
        + r"|"
        + then("migrate")
        + then("reset")
        + r"|"
        + then("db")
        + then("push")
        + has("--force-reset")
        + r"|"
        + then("downgrade")
        + then("base")
        + r"|"
        + then("ef")
        + then("database")
        + then("drop")
        + r")",
        anti_pattern="manage.py flush, rails db:drop / db:reset, prisma migrate reset, artisan migrate:fresh, alembic downgrade base: delete every row or table of the app's database",
        correct_pattern="Run it only against a throwaway database you created (check DATABASE_URL); ask the person before resetting a shared one",
        severity="critical",
        examples={
            "deny": [
                "python manage.py flush --noinput",
                "bin/rails db:drop",
                "npx prisma migrate reset --force",
                "php artisan migrate:fresh --seed",
            ],
            "allow": [
                "python manage.py migrate",
                "rails db:migrate",
                "npx prisma migrate dev",
                "alembic upgrade head",
            ],
        },
    ),
]
