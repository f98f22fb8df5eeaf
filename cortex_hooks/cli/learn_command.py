"""The `/learn` slash command that `cortex-hooks install --with-learn-command` writes."""

from __future__ import annotations

MARKER = (
    "<!-- written by `cortex-hooks install --with-learn-command`; `cortex-hooks uninstall` removes it -->"
)

_TEMPLATE = """\
---
description: Record a learning (a mistake and the correct way) in the cortex-hooks memory
argument-hint: what went wrong, and what to do instead
---
{marker}
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


def text(cli: str) -> str:
    """The command file, calling the management CLI at `cli` (an absolute, shell-quoted path)."""
    return _TEMPLATE.format(marker=MARKER, cli=cli)
