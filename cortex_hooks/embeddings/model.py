"""What every embedding backend is (docs/guide/embeddings.md), and the one error a remote one raises."""

from __future__ import annotations

from typing import Protocol


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: list[str], *, query: bool = False) -> list[bytes]: ...


class VoyageError(Exception):
    """A Voyage AI request that did not give one vector per text (defined here, not in `voyage`,
    so that catching it does not import urllib)."""
