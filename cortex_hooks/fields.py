"""Field types every record shares (pydantic annotations): non-empty text, an ISO-8601 instant."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from cortex_hooks import clock


def _instant(text: str) -> str:
    """Any ISO-8601 instant, stored in the one form every comparison relies on."""
    try:
        return clock.iso(clock.parse(text))
    except ValueError:
        raise ValueError(f"not an ISO-8601 time: {text!r}") from None


def _text(text: str) -> str:
    # Field(min_length=1) says the same, but importing Field costs every command 20 ms.
    if not text:
        raise ValueError("String should have at least 1 character")
    return text


Text = Annotated[str, AfterValidator(_text)]
Instant = Annotated[str, AfterValidator(_instant)]
