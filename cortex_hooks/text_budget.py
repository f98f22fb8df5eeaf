"""A text within a character budget, pure: sections of one-line entries, cut least important first.

Every part is a Section of one-line entries ranked by importance. When the whole is over the
budget, entries are cut from the least important section first, and each cut section says how
many entries it left out and which command shows them, so nothing disappears without a trace.
"""

from __future__ import annotations


class Section:
    """A heading, one-line entries, and a closing line for what is left out."""

    def __init__(self, heading: str, entries: list[str], *, rank: int, more: str, hidden: int = 0) -> None:
        self.heading = heading
        self.entries = entries
        self.rank = rank  # 0 is the most important
        self.more = more  # the command that shows everything
        self.hidden = hidden  # entries that exist but are not listed
        self._entries_length = sum(len(entry) + 1 for entry in entries)

    def tail(self) -> str:
        return f"- … {self.hidden} more: `{self.more}`" if self.hidden else ""

    def length(self) -> int:
        if not self.entries and not self.hidden:
            return 0
        tail = self.tail()
        return len(self.heading) + 1 + self._entries_length + (len(tail) + 1 if tail else 0)

    def drop_last(self) -> None:
        self._entries_length -= len(self.entries.pop()) + 1
        self.hidden += 1

    def render(self) -> str:
        lines = [self.heading, *self.entries]
        if self.hidden:
            lines.append(self.tail())
        return "\n".join(lines)


def assemble(sections: list[Section], budget: int) -> str:
    """The sections in order, within `budget` characters: least important entries cut first."""
    live = [section for section in sections if section.length()]
    cap = max(1, budget // 20)  # no entry is shorter than 20 characters: a cheap first cut
    for section in live:
        while len(section.entries) > cap:
            section.drop_last()
    total = sum(section.length() for section in live) + 2 * (len(live) - 1)
    for section in sorted(live, key=lambda section: -section.rank):  # least important first
        while total > budget and section.entries:
            before = section.length()
            section.drop_last()
            total += section.length() - before
    text = "\n\n".join(section.render() for section in live)
    return text[:budget]
