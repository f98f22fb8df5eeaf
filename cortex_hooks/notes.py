"""Notes: what a call of the library has to say beside its result (a scope skipped, a config file
ignored, an item left for `embed`). The CLI prints each on stderr as it comes; the MCP server
adds them, in order, to the tool's text."""

from __future__ import annotations

import sys

from cortex_hooks import sanitize


class Notes:
    """The notes of one call, in order; printed as they come when `printed` (the CLI's)."""

    __slots__ = ("printed", "said")

    def __init__(self, *, printed: bool = False) -> None:
        self.printed = printed
        self.said: list[str] = []

    def add(self, text: str) -> None:
        self.said.append(text)
        if self.printed:
            print(f"cortex-hooks: {sanitize.line(text)}", file=sys.stderr)

    def extend(self, texts: list[str]) -> None:
        for text in texts:
            self.add(text)
