"""The slash commands `cortex-hooks install` writes into `.claude/commands/`: /learn, /remember, /recall.

Each calls the management CLI by the absolute, shell-quoted path of this installation (`{cli}`):
the agent's PATH need not hold our virtualenv. Each carries MARKER, by which uninstall knows a
file as ours (LEGACY: the marker of files written before /remember and /recall existed).
"""

from __future__ import annotations

MARKER = "<!-- written by `cortex-hooks install`; `cortex-hooks uninstall` removes it -->"
LEGACY = (
    "<!-- written by `cortex-hooks install --with-learn-command`; `cortex-hooks uninstall` removes it -->",
)
NAMES = ("learn", "remember", "recall")

_HEAD = """\
---
description: {description}
argument-hint: {hint}
---
{marker}
"""

_LEARN = """\
Record this as a cortex-hooks learning: $ARGUMENTS

If nothing is given after /learn, use the mistake just made in this session.

1. Phrase it: the anti-pattern (what went wrong, one line), the correct pattern (what to do
   instead; this is the text the agent reads when the learning warns or blocks), and a detection
   regex (Python `regex` syntax) that matches the wrong tool input and not the right one. Choose
   the tool it is about (`Bash`, `Edit|Write`, ...; leave `--tool` out for every tool).
2. Save it with the Bash tool, every value in single quotes, without `--auto-block` for now:

       {cli} add --anti-pattern '...' --correct '...' --regex '...' [--tool Bash]

   A value that begins with `-` is written `--regex=-...`. Note the id it prints.
3. Check the regex with `explain`, which shows what the hooks would decide and writes nothing:

       {cli} explain --tool Bash --command 'the wrong command'
       {cli} explain --tool Bash --command 'the correct command'

   (another tool: `--tool Write --input '{{"file_path": "...", "content": "..."}}'`). The new
   learning must match the wrong input and not the correct one. If it does not, fix the regex
   with `{cli} update ID --regex '...'` and check again.
4. Only when the user asked for the mistake to be blocked outright:
   `{cli} update ID --auto-block` (otherwise a match warns).
5. Report the id and, in one line, what will now warn or be blocked.
"""

_REMEMBER = """\
Store this in the cortex-hooks memory: $ARGUMENTS

If nothing is given after /remember, use what was just decided, found or agreed in this session.

1. Write it as one self-contained statement someone could act on months later; its first line
   is the summary every listing shows. Choose its type: `architecture`, `decision`, `pattern`,
   `gotcha`, `progress` or `context` (the default).
2. Save it with the Bash tool, the text in single quotes:

       {cli} remember '...' --type TYPE [--tag X] [--priority N]

   Priority is 1 to 10 (default 5). Add `--pin` only when the user asks for it to stay at the
   top of every session, `--global` when it holds in every project, not only this one.
3. Report the id it prints, and the text as stored.
"""

_RECALL = """\
Look up what the cortex-hooks memory knows about: $ARGUMENTS

If nothing is given after /recall, look up what the current task is about.

1. Search with the Bash tool, the words in single quotes:

       {cli} recall '...'

   It searches memories, learnings, decisions, errors and todos of this project and of the
   user's global memory, best first. Each result names the command that shows it in full
   (`{cli} memories show ID`, with `--global` for a global one).
2. Answer from what it found, naming the ids you used. When nothing is found, say so plainly:
   do not make up what the memory holds.
"""

_COMMANDS = {
    "learn": (
        "Record a learning (a mistake and the correct way) in the cortex-hooks memory",
        "what went wrong, and what to do instead",
        _LEARN,
    ),
    "remember": (
        "Store a memory (a fact, decision or gotcha worth keeping) in the cortex-hooks memory",
        "what to remember",
        _REMEMBER,
    ),
    "recall": ("Ask the cortex-hooks memory what it knows about something", "words to look for", _RECALL),
}


def text(name: str, cli: str) -> str:
    """The command file `name`.md, calling the management CLI at `cli` (absolute, shell-quoted)."""
    description, hint, body = _COMMANDS[name]
    return _HEAD.format(description=description, hint=hint, marker=MARKER) + body.format(cli=cli)


def ours(content: bytes | None) -> bool:
    """Whether a command file was written by cortex-hooks (uninstall removes only those)."""
    return content is not None and any(marker.encode() in content for marker in (MARKER, *LEGACY))
