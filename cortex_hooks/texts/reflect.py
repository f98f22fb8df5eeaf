"""The texts of reflect: each memory decayed, each pair of near-duplicates."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean, memories


def decayed(entities: list[dict[str, Any]], *, days: int, scope: str, dry_run: bool) -> str:
    lines = [
        f"#{entity['id']} {entity['old_confidence']:.2f} -> {entity['new_confidence']:.2f}  "
        f"{clean(entity['name'], one_line=True)[:80]}"
        for entity in entities
    ]
    verb = "Would decay" if dry_run else "Decayed"
    lines.append(f"{verb} {memories(len(entities))} not accessed for {days} days ({scope}).")
    return "\n".join(lines)


def similar(found: list[dict[str, Any]], threshold: float) -> str:
    if not found:
        return f"No pairs at or above {threshold:g}."
    return "\n".join(
        f"{pair['similarity']:.2f}  {pair['kind']} #{pair['entity1_id']} ({pair['scope1']}) ~ "
        f"#{pair['entity2_id']} ({pair['scope2']})\n"
        f"      {clean(pair['entity1_name'], one_line=True)[:80]}\n"
        f"      {clean(pair['entity2_name'], one_line=True)[:80]}"
        for pair in found
    )
