"""What the push surface Claude Code read at a session's start lacks, pure (docs/quickstart.md).

Claude Code reads `.claude/cortex-memory.local.md` (through CLAUDE.local.md's import) while its
SessionStart hooks run — seen with the real client: a hook that rewrote the file within 0.3 s was
too late — so SessionStart never rewrites it. Every change made through cortex-hooks in the project
rewrites it at once (api.surface.follow); what is still missing when a session starts (a memory of
the user-global scope changed from another project, a branch checked out since) reaches the model
through SessionStart's context as the difference: the current digest's entries the file does not
hold as they are, and the file's entries that are gone. An entry is keyed by the command that
shows it (`cortex-hooks memories show 3 --global`), so nothing the file holds is said twice.
"""

from __future__ import annotations

import re

ENTRY = re.compile(r"`cortex-hooks memories show (\d+)( --global)?`$")
HEADER = "## Memory (cortex-hooks): changed since .claude/cortex-memory.local.md was written"
CHANGED = "New or changed since:"
GONE = "No longer in it (forgotten, archived, or outranked since):"


def entries(text: str) -> dict[str, str]:
    """A digest's entries (its `- ` lines) by the memory each shows."""
    found: dict[str, str] = {}
    for line in text.split("\n"):
        key = ENTRY.search(line) if line.startswith("- ") else None
        if key is not None:
            found[key[1] + (key[2] or "")] = line
    return found


def delta(read: str | None, current: str, budget: int) -> str | None:
    """What SessionStart says beside the file Claude Code read (`read`: the text between its
    markers; None: no file, so the import was left unresolved), within `budget` characters, whole
    lines only; None when the file holds every current entry as it is and none that is gone."""
    old, new = entries(read or ""), entries(current)
    changed = [line for key, line in new.items() if old.get(key) != line]
    gone = [line for key, line in old.items() if key not in new]
    if not changed and not gone:
        return None
    lines = [HEADER]
    for title, listed in ((CHANGED, changed), (GONE, gone)):
        if listed:
            lines += [title, *listed]
    kept: list[str] = []
    for line in lines:  # the changes first: what the model would otherwise miss
        if sum(len(each) + 1 for each in kept) + len(line) > budget:
            break
        kept.append(line)
    return "\n".join(kept) if len(kept) > 1 and kept[-1] not in (CHANGED, GONE) else None
