"""The texts of decisions, errors and todos: a plain table, one record in full, what was done."""

from __future__ import annotations

from collections.abc import Sequence

from cortex_hooks.texts.words import clean, value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pydantic import BaseModel

    from cortex_hooks.api.kinds import Added, Kind

COLUMNS = {  # the columns of each kind's list, after the id
    "decisions": ("title", "category", "superseded_by"),
    "errors": ("message", "severity", "occurrences"),
    "todos": ("text", "priority", "done"),
}
_VERBS = {"archive": "Archived", "restore": "Restored", "done": "Done:"}


def table(what: str, columns: tuple[str, ...], records: Sequence[BaseModel]) -> str:
    """A plain table: the id, then the given columns, each cut to a readable width."""
    if not records:
        return f"No {what}."
    rows = [
        [
            str(record.model_dump()["id"]),
            *(clean(value(getattr(record, c)), one_line=True)[:60] for c in columns),
        ]
        for record in records
    ]
    header = ["ID", *(column.upper().replace("_", " ") for column in columns)]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    )


def detail(title: str, record: BaseModel) -> str:
    """Every field but the id, one per line, control characters stripped."""
    fields = record.model_dump(exclude={"id"})
    body = "\n".join(
        f"  {name.replace('_', ' '):<14} {clean(value(shown))}"
        for name, shown in fields.items()
        if shown not in (None, [], "")
    )
    return f"{title}\n{body}"


def added(kind: Kind, result: Added) -> str:
    row_id = result.record.model_dump()["id"]
    if result.again:
        return f"Error #{row_id} seen again."
    return f"Recorded {kind.singular} #{row_id}."


def changed(kind: Kind, what: str, row_id: int) -> str:
    return f"{_VERBS[what]} {kind.singular} #{row_id}."
