"""Stored text as the report shows it: through the one redactor and the one sanitizer, cut, and
escaped for HTML. Nothing of what is stored reaches the page any other way."""

from __future__ import annotations

import html

from cortex_hooks import sanitize
from cortex_hooks.redact import redact  # the one redactor (docs/guide/selfguard.md)

CELL = 200  # characters of stored text in a table cell
DETAIL = 600  # characters in an expanded detail (evidence, a memory's summary)


def text(value: object, limit: int = CELL) -> str:
    """Plain text, safe to show: secrets masked, no control, bidi or zero-width character, one
    line, at most `limit` characters (a 1 MB memory is read no further than it is shown)."""
    raw = "" if value is None else str(value)
    return sanitize.line(redact(raw[: limit * 4]), limit)


def escaped(value: object, limit: int = CELL) -> str:
    """`text` escaped for HTML text and attribute values alike."""
    return html.escape(text(value, limit), quote=True)


def instant(value: object) -> str:
    """A stored instant as a person reads it (`2026-11-20 10:01`; UTC, as the page says), escaped;
    anything else as text."""
    shown = text(value, 40)
    if len(shown) == 20 and shown[10] == "T" and shown.endswith("Z"):
        shown = f"{shown[:10]} {shown[11:16]}"
    return html.escape(shown, quote=True)
