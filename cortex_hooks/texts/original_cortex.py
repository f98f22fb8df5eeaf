"""The text of `import --from cortex`: what was imported, what changed on the way, what was not."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean, count


def imported(result: dict[str, Any]) -> str:
    where = clean(result["source"], one_line=True)
    counts = ", ".join(count(n, kind) for kind, n in result["imported"].items())
    verb = "Would import" if result["dry_run"] else "Imported"
    lines = [
        f"{verb} {counts} of the original Cortex (schema {result['schema']}) from {where} "
        f"({result['scope']}); {len(result['not_imported'])} not imported."
    ]
    for item in result["changed"]:
        regex, reason = clean(item["regex"], one_line=True), clean(item["reason"], one_line=True)
        lines.append(f"  {item['table']} #{item['id']}: imported without its regex {regex}: {reason}")
    for item in result["not_imported"]:
        lines.append(f"  not imported: {clean(item['reason'], one_line=True)}")
    if result["left"]:
        left = ", ".join(f"{table} ({n})" for table, n in result["left"].items())
        lines.append(f"  left as they are (nothing of ours holds them): {left}")
    return "\n".join(lines)
