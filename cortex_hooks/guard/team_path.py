"""Where the team file lives (docs/guide/team.md): what PreToolUse needs of it on every call, and no more."""

import os

FOLDER, NAME = ".claude", "cortex-team.jsonl"
ABSENT = "absent"  # the stat of a file that is not there (nor ever was, for a database)


def path_in(project: str) -> str:
    return os.path.join(project, FOLDER, NAME)
