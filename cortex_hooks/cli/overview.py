"""The top-level help page: where to start, then every command in its group, on one screen (at most
40 lines at 80 columns); `cortex-hooks COMMAND --help` has a command's own options."""

from __future__ import annotations

import textwrap

WIDTH = 80
NAMES = 14  # the column where a group's commands begin
GLOSS = 36  # the column where a command's gloss begins

USAGE = "usage: cortex-hooks [--db PATH] [--global] [--global-db PATH] COMMAND [ARGS]"

ABOUT = (
    "A memory of its own mistakes for Claude Code: learnings that warn about or deny a tool call, "
    "and memories that reach the model at the next session start."
)

START = (
    ("cortex-hooks install", "wire the hooks; the core packs protect"),
    ("cortex-hooks explain --tool Bash --command 'git reset --hard'", "what the guard would decide"),
    ("cortex-hooks add --anti-pattern A --correct C --regex R", "a learning: warn (--auto-block: deny)"),
    ("cortex-hooks remember TEXT --pin", "a memory every session starts with"),
    ("cortex-hooks recall WORDS", "what the memory knows about them"),
    ("cortex-hooks doctor", "check the wiring, the database, every regex"),
)

# Every command, once, in the group a newcomer would look in (tests/test_cli_help.py holds this
# to the parser: a command added to the CLI and left out here fails there).
GROUPS = (
    ("Learnings", ("add", "list", "show", "update", "pin", "unpin", "keep", "archive", "restore")),
    ("The guard", ("explain", "packs", "team", "replay", "capture", "proposals", "accept", "reject")),
    ("Memories", ("remember", "recall", "memories", "forget", "index-code", "link", "surface", "embed")),
    ("Upkeep", ("lifecycle", "reflect", "consolidate", "move", "prune", "stats", "report")),
    ("Records", ("decisions", "errors", "todos", "sessions", "snapshot")),
    ("Setup", ("install", "uninstall", "doctor", "integrity", "mcp", "export", "import")),
)

OPTIONS = (
    ("--db PATH", "the project's SQLite file"),
    ("--global", "act on the user-global database, not the project's"),
    ("--global-db PATH", "the user-global SQLite file"),
    ("--version", "the installed version"),
)

END = (
    "`cortex-hooks COMMAND --help` gives a command's options; docs/reference/commands.md in the "
    "repository gives them all."
)


def text() -> str:
    """The page, ending in a newline."""
    lines = [USAGE, "", *textwrap.wrap(ABOUT, WIDTH), "", "Start here, in your project's folder:"]
    for command, gloss in START:
        lines += _entry(command, gloss)
    lines += ["", "Commands:"]
    for title, names in GROUPS:
        lines += textwrap.wrap(
            "  ".join(names),
            WIDTH,
            initial_indent=f"  {title}:".ljust(NAMES),
            subsequent_indent=" " * NAMES,
            break_on_hyphens=False,
        )
    lines += ["", "Options (before or after the command):"]
    for option, gloss in OPTIONS:
        lines += _entry(option, gloss, 20)
    lines += ["", *textwrap.wrap(END, WIDTH)]
    return "\n".join(lines) + "\n"


def _entry(name: str, gloss: str, column: int = GLOSS) -> list[str]:
    """`  name   gloss`, the gloss in its column; a name too long for it has the gloss beneath."""
    head, indent = f"  {name}", " " * column
    if len(head) < column - 1:
        return textwrap.wrap(gloss, WIDTH, initial_indent=head.ljust(column), subsequent_indent=indent)
    return [head, *textwrap.wrap(gloss, WIDTH, initial_indent=indent, subsequent_indent=indent)]
