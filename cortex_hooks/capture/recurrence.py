"""When a candidate becomes a proposal, and how many may wait (docs/guide/capture.md), pure."""

from __future__ import annotations

NEW_PER_SESSION = 5  # new proposals one session may bring
PENDING_PER_SCOPE = 20  # proposals awaiting an answer at any time
EXPIRES_AFTER = 10  # SessionStarts a proposal is shown at without an answer
SHOWN_AT_START = 3  # proposals SessionStart puts in front of the person


def opens(signal: str, sessions: int, most_in_one: int) -> bool:
    """Whether a candidate seen in `sessions` sessions (at most `most_in_one` times in one) is
    proposed: a failed-then-fixed at its second session; a failure without a fix at two
    sessions or three times in one; a correction, a rule of Claude Code's memory, or a rewrite
    the agent's own retry shows, at first sight (each names its referent; a rewrite, its learning)."""
    if signal in ("user-correction", "remembered", "followed"):
        return sessions >= 1
    if signal == "repeated-failure":
        return sessions >= 2 or most_in_one >= 3
    return sessions >= 2


def room(new_this_session: int, pending: int) -> bool:
    """Whether the caps leave room for one more proposal."""
    return new_this_session < NEW_PER_SESSION and pending < PENDING_PER_SCOPE
