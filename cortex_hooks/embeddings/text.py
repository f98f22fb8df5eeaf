"""What an item gives its embedding, pure (docs/guide/embeddings.md): its prose, never code."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

MAX_CHARS = 2000  # the local model reads 256 tokens; Voyage is billed by the token


def text_of(kind: str, row: Mapping[str, object] | sqlite3.Row) -> str:
    """The text embedded for an item as store.vectors.sources reads it (a `code` memory is
    never read there, and `remember` never asks for one)."""
    parts: list[object]
    if kind == "memory":
        content, summary = str(row["content"]), str(row["summary"])
        parts = [content] if content.startswith(summary) else [summary, content]
    elif kind == "learning":
        parts = [row["anti_pattern"], row["correct_pattern"], row["context"]]
    elif kind == "decision":
        parts = [row["title"], row["reasoning"]]
    elif kind == "error":
        parts = [row["message"], row["fix"]]
    else:
        parts = [row["text"]]
    return "\n".join(str(part) for part in parts if part)[:MAX_CHARS]
