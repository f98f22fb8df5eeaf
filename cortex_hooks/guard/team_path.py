"""Where the team file lives (SPEC §17): what PreToolUse needs of it on every call, and no more."""

FOLDER, NAME = ".claude", "cortex-team.jsonl"
ABSENT = "absent"  # the stat of a file that is not there (nor ever was, for a database)
