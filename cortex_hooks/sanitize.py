"""Text as cortex-hooks shows it: one sanitizer for everything a person or a model reads.

Stored text stays verbatim (`--json` and export print it as stored). Whatever is *shown* — a
deny reason, a warning, the session context, the human output of the CLI — goes through here,
so no escape sequence can drive a terminal and no zero-width or bidi control can hide or reorder
what the agent or the user reads.
"""

from __future__ import annotations

# Control characters (C0 but tab and newline, DEL, C1) become a space: a word on either side
# stays a word. Invisible format characters — zero-width, bidi embeddings, overrides and
# isolates, the word joiner, the byte order mark — are dropped.
_CONTROLS = {code: " " for code in (*range(0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))}
_INVISIBLE = dict.fromkeys(
    (*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2070), 0xFEFF, 0x061C)
)
_LINE_SEPARATORS = {0x2028: "\n", 0x2029: "\n"}
_TABLE = {**_CONTROLS, **_INVISIBLE, **_LINE_SEPARATORS, 0x09: "    "}


def clean(text: str | None) -> str:
    """Text safe to show, lines kept: no control or invisible format character, tabs as spaces."""
    return (text or "").translate(_TABLE)


def line(text: str | None, limit: int | None = None) -> str:
    """One line of clean text, its whitespace collapsed; its first `limit` characters, then `…`
    when cut."""
    text = " ".join(clean(text).split())
    return text if limit is None or len(text) <= limit else text[:limit] + "…"


# Claude Code 2.1.197 reads a memory file (CLAUDE.md, CLAUDE.local.md and what they import) with
# the `marked` lexer and follows `(?:^|\s)@path` in every text token: a token starts right after
# `**bold**`, a code span, an HTML tag, a link, an escape (`\*`) or an HTML comment, so an `@`
# after any of them, or after a space of any kind (no-break, ideographic, tab), is an import.
# Checked with the real client: only the ASCII `@` counts (U+FF20, `&#64;`, `&commat;`, `\@` do
# not), so writing every `@` as U+FF20, the fullwidth at sign that reads the same, makes no
# import possible, whatever surrounds it. `<!--` and `-->` are broken apart so nothing closes
# our markers.
_INERT = {0x40: "\uff20"}


def inert(text: str) -> str:
    """Text for a memory file Claude Code reads (the push surface: docs/guide/surface.md): no `@` it
    could follow as an import, no HTML comment marker."""
    return text.replace("<!--", "<! --").replace("-->", "-- >").translate(_INERT)


def well_formed(text: str) -> str:
    """The text with each lone surrogate (a `\\udXXX` JSON escape without its pair) as U+FFFD:
    what Claude Code's runtime writes in its place when it hands the text on (a Bash command
    reaches the shell that way, checked with the real client)."""
    import re

    return re.sub("[\ud800-\udfff]", "\ufffd", text)
