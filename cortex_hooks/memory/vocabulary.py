"""The closed sets of the memory model, without pydantic: the CLI's choices, the
stdlib checks' (memory.given) and the pydantic models' types (records, edges, the MCP arguments)."""

from __future__ import annotations

from typing import Literal, get_args

MemoryType = Literal[
    "architecture", "decision", "pattern", "gotcha", "progress", "context", "code_description", "code"
]
EdgeType = Literal[
    "relates_to", "derived_from", "contradicts", "exemplifies", "refines", "supersedes", "source_of"
]
TYPES: tuple[str, ...] = get_args(MemoryType)
EDGE_TYPES: tuple[str, ...] = get_args(EdgeType)
LINKABLE = tuple(edge for edge in EDGE_TYPES if edge != "supersedes")  # supersedes: consolidation's own
