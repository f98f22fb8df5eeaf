"""A Bash command as a learning's regex sees it (docs/guide/command-reader.md): read by the
command reader once, the first time a regex needs it, and searched simple command by simple
command, where a match that begins inside data (a quoted word, a here-string) is no match.

Nothing here is imported by a call that matches no learning: the prefilter decides that on the
raw string (guard.prefilter.loosen), so the reader is only loaded, and the command only read,
once a candidate is left.
"""

from __future__ import annotations

import functools
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.shell.reader import Reading, Simple


class BashCommand:
    """A Bash `command`, read when first asked (guard.shell.reader.read); cached for every learning."""

    __slots__ = ("_reading", "raw")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self._reading: Reading | None = None

    @property
    def reading(self) -> Reading:
        if self._reading is None:
            from cortex_hooks.guard.shell import reader

            self._reading = reader.read(self.raw)
        return self._reading


def locate(
    compiled: Any,
    command: BashCommand,
    base_timeout: float,
    timeout_per_mib: float,
    literals: str | None = None,
) -> int | None:
    """The index of the first simple command of `command` in which the pattern matches outside
    data, or None; TimeoutError past a budget that grows with the text, as matching.search's:
    each search has the timeout of its own text, and all of them together twenty times the base
    (time spent searching: a pathological pattern over a 5,000-command chain is stopped within a
    second, not 250). `literals`: the pattern's required literals as stored with its learning
    (guard.prefilter.literals), which spare parsing the pattern again."""
    from cortex_hooks.guard import prefilter

    reading = command.reading
    stored = _literals(compiled.pattern) if literals is None else literals
    size = sum(len(simple.text) for simple in reading.commands)
    budget = [20 * base_timeout + timeout_per_mib * size / 1_048_576]
    for index, simple in enumerate(reading.commands):
        # The pattern's required literals first (guard.prefilter: plain substring tests, sound):
        # of a 5,000-command chain, only the few that could match meet the regex.
        if prefilter.satisfied(stored, (simple.text,)) and _found(
            compiled, simple, base_timeout, timeout_per_mib, budget
        ):
            return index
    return None


def first_match(compiled: Any, simple: Simple, base_timeout: float, timeout_per_mib: float) -> Any:
    """The first match of the pattern in one simple command that begins outside data (a `regex`
    match object), or None; TimeoutError as `locate`'s: what a rewrite replaces."""
    return _found(compiled, simple, base_timeout, timeout_per_mib, [20 * base_timeout])


def _found(
    compiled: Any, simple: Simple, base_timeout: float, timeout_per_mib: float, budget: list[float]
) -> Any:
    """The first match that begins outside every data span, or None: after a match that begins
    inside one, the search goes on from the span's end (every match beginning inside it is no
    match)."""
    text, data = simple.text, simple.data
    own = base_timeout + timeout_per_mib * len(text) / 1_048_576
    position = 0
    while position <= len(text):
        if budget[0] <= 0:
            raise TimeoutError
        started = time.monotonic()
        found = compiled.search(text, position, timeout=own)
        budget[0] -= time.monotonic() - started
        if found is None:
            return None
        start = found.start()
        inside = next((end for low, end in data if low <= start < end), None)
        if inside is None:
            return found
        position = inside
    return None


@functools.lru_cache(maxsize=4096)
def _literals(pattern: str) -> str | None:
    """The literals a match of `pattern` must contain, in the form stored with a learning
    (guard.prefilter.literals), for a pattern given without them (kept per process: parsing a
    pattern costs more than searching a command)."""
    from cortex_hooks.guard import prefilter

    return prefilter.literals(pattern)
