"""The decay of an agent whose session end is not awaited, or that has none (SPEC §22: Codex CLI,
Gemini CLI, Cursor): once per day the agent is used, at its first session start of the day, in
place of a session end's. Kept as a session of its own, `AGENT:day:YYYY-MM-DD` (reason "day of
use"), so that the decay is counted once whatever process gets there first, and is kept for the
next process that can write when another holds the database (the same pending "end" a session
end keeps: store.pending), and `sessions list` shows when it ran."""

from __future__ import annotations

from cortex_hooks import location
from cortex_hooks.store import learnings, pending, sessions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

    from cortex_hooks.store.scopes import Scope

REASON = sessions.DAY_OF_USE
SOURCE = "day-of-use"


def session_of(agent: str, now: datetime) -> str:
    """The day's session of an agent (the day in UTC, as every time the store keeps)."""
    return f"{agent}:day:{now.date().isoformat()}"


def decay(scope: Scope, agent: str, now: datetime, notes: list[str]) -> bool:
    """This scope's decay for the agent's day, unless it ran already; whether this call made it."""
    from cortex_hooks import clock

    policy = location.config_for(scope.path).policy
    session = session_of(agent, now)
    at = clock.iso(now)

    def end() -> bool:
        if sessions.has_ended(scope.connection, session):
            return False
        sessions.record_start(scope.connection, session, SOURCE, at)
        learnings.decay_all(scope.connection, policy, at)
        sessions.record_end(scope.connection, session, reason=REASON, now=at)
        return True

    done = pending.write_or_keep(
        scope.connection, scope.path, end, "end", session=session, reason=REASON, now=at
    )
    if done is None:
        notes.append(pending.kept_note(scope.name, "day's decay"))
    return done is True
