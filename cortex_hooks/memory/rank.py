"""How a memory is ranked (docs/guide/memories.md, the plan's FR-022), pure: one formula for every kind.

    rank = confidence·0.5 + priority/10·0.2 + centrality·0.15 + log(access_count+1)/max_log·0.15

`max_log` is the largest log(access_count+1) among the ranked set (0: that term is 0). Part I's
kinds rank with their own values: a learning's confidence as stored, decisions, errors and todos
0.70; priority 5 (todos: high 8, medium 5, low 2); centrality 0.
"""

from __future__ import annotations

import math

PART_ONE_CONFIDENCE = 70  # hundredths
PART_ONE_PRIORITY = 5
TODO_PRIORITY = {"high": 8, "medium": 5, "low": 2}


def access_log(access_count: int) -> float:
    return math.log(max(access_count, 0) + 1)


def rank(confidence: int, priority: int, centrality: float, access_count: int, max_log: float) -> float:
    """The rank score of one item: confidence in hundredths, priority 1-10, centrality 0-1."""
    usage = access_log(access_count) / max_log if max_log > 0 else 0.0
    return confidence / 100 * 0.5 + priority / 10 * 0.2 + centrality * 0.15 + usage * 0.15


def centrality(in_degree: int, max_in_degree: int) -> float:
    """In-degree in the edge graph over the largest in-degree (0 when there are no edges)."""
    return in_degree / max_in_degree if max_in_degree > 0 else 0.0
