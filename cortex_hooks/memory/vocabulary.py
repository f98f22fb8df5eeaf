"""The closed sets of the memory model (SPEC §9.1, §9.7), without pydantic: the CLI's choices."""

from __future__ import annotations

TYPES = ("architecture", "decision", "pattern", "gotcha", "progress", "context", "code_description", "code")
EDGE_TYPES = (
    "relates_to",
    "derived_from",
    "contradicts",
    "exemplifies",
    "refines",
    "supersedes",
    "source_of",
)
LINKABLE = tuple(edge for edge in EDGE_TYPES if edge != "supersedes")  # supersedes: consolidation's own
