"""A learning's action (docs/guide/actions.md), pure: `block`, `ask` or `warn`, and their order of strictness.

The one place that says which action is stronger: the verdict (several matches: block > ask >
warn), the team file's merge (the strictest holds) and the refusal of changes that weaken the
guard (an action lowered is a weakening) all read it here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

ACTIONS = ("warn", "ask", "block")  # weakest first: the order of strictness
GATED = frozenset({"block", "ask"})  # act only once the learning is trusted (confidence.blocks)
# What each action answers a tool call with, once its learning passes the gate.
ANSWERS = {"block": "deny", "ask": "ask", "warn": "warn"}


def is_action(value: object) -> bool:
    return value in ACTIONS


def strictness(action: str) -> int:
    """0 for warn, 1 for ask, 2 for block; ValueError for anything else."""
    return ACTIONS.index(action)


def strictest(actions: Iterable[str]) -> str:
    """The strongest of these actions (warn when there are none)."""
    return max(actions, key=strictness, default="warn")


def weakens(before: str, after: str) -> bool:
    """Whether changing a learning's action from `before` to `after` lowers its protection."""
    return strictness(after) < strictness(before)


def of_auto_block(auto_block: bool) -> str:
    """The action `auto_block` (the older flag, kept as an alias) stands for."""
    return "block" if auto_block else "warn"
