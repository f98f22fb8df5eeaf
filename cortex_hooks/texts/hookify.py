"""The text of `import --from hookify`: each rule imported, each one not and why."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean, count


def imported(result: dict[str, Any]) -> str:
    where = clean(result["folder"], one_line=True)
    lines = [
        f"Imported {count(len(result['imported']), 'rules')} of hookify from {where} ({result['scope']}); "
        f"{len(result['not_imported'])} not imported."
    ]
    for item in result["imported"]:
        lines.append(
            f"  #{item['id']} {clean(item['name'], one_line=True)} [{item['action']}, {item['tool']}, "
            f"{item['target']}]: {clean(item['regex'], one_line=True)}"
        )
    for item in result["not_imported"]:
        lines.append(
            f"  not imported: {clean(item['file'], one_line=True)}: {clean(item['reason'], one_line=True)}"
        )
    return "\n".join(lines)
