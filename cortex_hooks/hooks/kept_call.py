"""The text a denied or warned tool call is kept as in the history (store.history.keep_calls):
enough for a person to recognise it, redacted before it is stored, one line, bounded."""

from __future__ import annotations

from cortex_hooks import sanitize
from cortex_hooks.redact import redact  # the one redactor (docs/guide/selfguard.md)

LIMIT = 300  # characters kept of a call
_READ = LIMIT * 4  # what is redacted: a secret that begins within LIMIT is seen whole


def text(texts: dict[str, list[str]]) -> str:
    """A call as the learnings read it (cortex_hooks.guard.matching.fragments by target): its path
    if it has one, then its content (a Bash command, the text written, or the compact input)."""
    path = texts["path"][0][:_READ] if texts["path"] else ""
    fragments = texts["content"] or texts["input"]
    content = " ".join(fragment[:_READ] for fragment in fragments[:4])  # a Write of megabytes: its start
    shown = f"{path}: {content}" if path else content
    return sanitize.line(redact(shown[:_READ]), LIMIT)
