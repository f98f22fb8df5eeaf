"""The one exception type for expected failures, worded for a person."""

from __future__ import annotations

USAGE = 2  # invalid input: usage, invalid regex, value out of range, unknown id
FAILURE = 1  # anything else: unusable database, unreadable file, ...


class CortexError(Exception):
    """An expected failure: its message is shown as one line, its code is the exit status."""

    def __init__(self, message: str, code: int = FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def unknown(kind: str, row_id: int) -> CortexError:
    """Invalid input: no `kind` (learning, decision, …) has this id."""
    return CortexError(f"no {kind} with id {row_id}", USAGE)
