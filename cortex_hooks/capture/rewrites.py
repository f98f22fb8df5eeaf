"""Rewrites the agent's own retries show (SPEC §23): after a learning denied a call, the call the
agent ran instead, the correct way, says what the learning's rewrite could be (guard.catch_outcomes.
intended). Proposed to the person as any capture is (signal `followed`), never applied: `accept`
gives the learning that rewrite."""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

from cortex_hooks.capture import recurrence
from cortex_hooks.guard import catch_outcomes, matching
from cortex_hooks.redact import redact  # the one redactor (SPEC §19)
from cortex_hooks.store import proposals

SIGNAL = "followed"
EVIDENCE = 300  # characters of each call kept as evidence


def propose(
    connection: sqlite3.Connection,
    learning: Any,
    scope: str,
    *,
    caught: str,
    followed: str,
    session: str,
    now: str,
    timeouts: tuple[float, float],
) -> int | None:
    """A rewrite proposed for `learning` (a row of its scope: id, regex, tool, target, rewrite,
    anti_pattern, correct_pattern) from the caught call as the history keeps it (redacted, cut)
    and the command the agent ran instead; its id when it is proposed now (None: no rewrite can
    be said, it was rejected before, it waits for its answer already, or the caps are reached)."""
    if learning["rewrite"] is not None or not learning["regex"]:
        return None
    if not matching.tool_accepts(str(learning["tool"]), matching.READ_TOOL):
        return None
    if redact(followed) != followed or "[REDACTED]" in caught or caught.endswith("…"):
        return None  # a secret is never a rewrite, and a call cut short says too little
    template = catch_outcomes.intended(
        str(learning["regex"]), str(learning["target"]), caught, followed, timeouts
    )
    if template is None:
        return None
    fingerprint = hashlib.sha256(f"{SIGNAL} {scope} {learning['id']} {template}".encode()).hexdigest()[:16]
    if proposals.rejected(connection, fingerprint):
        return None
    values = {
        "fingerprint": fingerprint,
        "signal": SIGNAL,
        "anti_pattern": learning["anti_pattern"],
        "correct_pattern": learning["correct_pattern"],
        "regex": learning["regex"],
        "rewrite": template,
        "tool": "Bash",
        "failed": caught[:EVIDENCE],
        "fixed": followed[:EVIDENCE],
    }
    proposal_id = proposals.sighting(connection, values, session, now)
    proposals.aimed(connection, proposal_id, int(learning["id"]), scope)
    status, sessions, most = proposals.recurrence(connection, proposal_id)
    if status != "candidate" or not recurrence.opens(SIGNAL, sessions, most):
        return None
    if not recurrence.room(*proposals.counts(connection, session)):
        return None
    proposals.propose(connection, proposal_id, session, now)
    return proposal_id
