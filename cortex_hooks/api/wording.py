"""The small words every text uses: stored text made safe to show, counts, values in a cell."""

from __future__ import annotations

from cortex_hooks import sanitize


def clean(text: str | None, *, one_line: bool = False) -> str:
    """Text safe for a terminal and the model (see cortex_hooks.sanitize)."""
    return sanitize.line(text) if one_line else sanitize.clean(text)


def fit(text: str, room: int | None) -> str:
    """The text within `room` characters, cut with `…` (None: the whole text, for a pipe or a file)."""
    if room is None or len(text) <= room:
        return text
    return text[: max(room - 1, 0)] + "…"


def count(number: int, kind: str) -> str:
    """`1 learning`, `2 learnings`: `kind` is given in the plural."""
    return f"{number} {kind.removesuffix('s') if number == 1 else kind}"


def times(number: int) -> str:
    return "once" if number == 1 else f"{number} times"


def memory_count(number: int) -> str:
    return f"{number} {'memory' if number == 1 else 'memories'}"


def value(shown: object) -> str:
    """A field's value in a table cell or a detail line."""
    if isinstance(shown, bool):
        return "yes" if shown else "no"
    if shown is None:
        return "-"
    if isinstance(shown, list):
        return ", ".join(value(item) for item in shown)
    if hasattr(shown, "model_dump"):
        return " ".join(f"{v}" for v in shown.model_dump().values())
    return str(shown)
