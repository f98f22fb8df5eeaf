"""The texts of packs: the list, one pack shown, what enabling, disabling or muting did."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean, count


def listing(listed: list[dict[str, Any]]) -> str:
    lines = []
    for item in listed:
        where = [scope for scope in ("project", "global") if item[scope]]
        muted = f", {len(item['muted'])} muted" if item["muted"] else ""
        state = f"enabled ({' and '.join(where)}{muted})" if where else "not enabled"
        lines.append(f"{item['name']:<18} {count(item['learnings'], 'learnings'):<14} {state}")
    lines.append("Enable one: cortex-hooks packs enable NAME (core: every core pack; --global: all projects)")
    return "\n".join(lines)


def shown(pack: dict[str, Any]) -> str:
    lines = [f"{pack['name']}: {count(len(pack['learnings']), 'learnings')}"]
    for item in pack["learnings"]:
        lines.append(
            f"{item['id']}{' (muted)' if item['muted'] else ''} [{item['action']}, {item['severity']}]\n"
            f"    NEVER: {clean(item['anti_pattern'], one_line=True)}\n"
            f"    DO:    {clean(item['correct_pattern'], one_line=True)}"
        )
    return "\n".join(lines)


def enabled(summary: dict[str, Any]) -> str:
    verb = "would add" if summary["dry_run"] else "added"
    changes = f"{summary['added']} {verb}, {summary['updated']} updated, {summary['archived']} archived"
    head = "Would enable" if summary["dry_run"] else "Enabled"
    return f"{head} {summary['pack']} ({summary['scope']}): {changes}."


def disabled(summary: dict[str, Any]) -> str:
    archived = count(int(summary["archived"]), "learnings")
    return f"Disabled {summary['pack']} ({summary['scope']}): {archived} archived."


def muted(result: dict[str, Any]) -> str:
    return f"{'Muted' if result['muted'] else 'Unmuted'} {result['slug']} ({result['scope']})."


def checked(result: dict[str, Any]) -> str:
    """`packs check`: every rule proved on its examples, or each that is not."""
    if result["ok"]:
        return (
            f"{result['rules']} rules of {len(result['packs'])} packs: each fires on its deny examples only."
        )
    return "\n".join(clean(problem, one_line=True) for problem in result["problems"])
