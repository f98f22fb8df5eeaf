"""pydantic models of the edges between memories, as shown and as imported.

Apart from the memory records: the `from` alias needs pydantic's Field, whose import `remember`
need not pay.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from cortex_hooks.memory.records import _Given
from cortex_hooks.memory.vocabulary import EdgeType


class ImportedEdge(_Given):
    type: EdgeType
    from_: int = Field(alias="from")
    to: int
    strength: float = Field(default=1.0, ge=0, le=1)


class Edge(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    type: EdgeType
    from_: int = Field(alias="from", serialization_alias="from")
    to: int
    strength: float
