"""Index keys that let PreToolUse skip learnings that cannot match, without compiling them.

When a learning is saved, its regex is parsed once for the literals every match must contain:
one per alternative, e.g. `git push (-f|--force)` needs "git push ". Each such literal is stored
as one short *key* (its rarest substring of up to three characters), prefixed by the learning's
target and by `=` (matched as written) or `~` (matched case-insensitively, in lower case).
A learning whose literals cannot be known gets the key `<target>*` and is always a candidate.

At a tool call, every substring of up to three characters of each target text is looked up in
that index, so the cost follows the size of the tool call, not the number of learnings.
Keys only ever let too many learnings through, never too few: the regex decides.
"""

from __future__ import annotations

import warnings
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

TYPE_CHECKING = False  # typing itself costs PreToolUse more than all of this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

TARGET_LETTER = {"content": "c", "path": "p", "input": "i"}
GRAM = 3
SCAN_ABOVE = 4096  # longer texts are checked key by key instead of gram by gram

# Under `(?i)` these ASCII letters also match non-ASCII letters (K: KELVIN SIGN, s: LONG S,
# i: dotted/dotless I), so lower-casing the text would not find them: they never go into a key.
_AMBIGUOUS_FOLD = frozenset("ikIKS" + "s")
_COMMON = frozenset("etaoinshrdlucm ")
_VERBOSE_FLAG = "x"  # crude but safe: any inline flag group could turn verbose mode on

Needle = tuple[str, bool]  # (literal, case-insensitive)


def keys(pattern: str | None, target: str) -> list[str]:
    """The index keys of a learning: one per alternative, or `<target>*` when none can be known."""
    letter = TARGET_LETTER[target]
    needles = _required(pattern) if pattern else None
    if not needles:
        return [letter + "*"]
    return sorted({letter + ("~" if folded else "=") + _rarest(text) for text, folded in needles})


def text_keys(target: str, fragments: Sequence[str]) -> list[str]:
    """The keys a learning of this target could have if it matches one of these texts."""
    letter = TARGET_LETTER[target]
    found = {letter + "*"}
    for fragment in fragments:
        for mode, text in (("=", fragment), ("~", fragment.lower())):
            prefix = letter + mode
            for size in range(1, GRAM + 1):
                found.update(prefix + text[i : i + size] for i in range(len(text) - size + 1))
    return sorted(found)


def present(key: str, fragments: Iterable[str]) -> bool:
    """Whether one key occurs in the texts: the check for texts too long to cut into grams."""
    if key[1] == "*":
        return True
    gram = key[2:]
    if key[1] == "~":
        return any(gram in fragment.lower() for fragment in fragments)
    return any(gram in fragment for fragment in fragments)


def _rarest(literal: str) -> str:
    size = min(GRAM, len(literal))
    grams = [literal[i : i + size] for i in range(len(literal) - size + 1)]
    return max(grams, key=lambda gram: sum(char not in _COMMON for char in gram))


def _required(pattern: str) -> list[Needle] | None:
    """Literals one of which every match contains, or None when they cannot be known.

    Parsed with the standard library's own regex parser (private, but stable since 3.11 and
    exactly the grammar `regex` shares in its default VERSION0). Anything outside the plain
    common ground (inline flags `re` does not know, POSIX classes, `{`-syntax `regex` reads
    differently) makes the answer None, which is always safe.
    """
    if any(marker in pattern for marker in ("[:", "[=", "[.")):
        return None
    if (
        "(?" in pattern
        and _VERBOSE_FLAG in pattern
        and any(char.isspace() and char not in _parser.WHITESPACE for char in pattern)
    ):
        return None  # in verbose mode `regex` skips all Unicode whitespace, `re` only ASCII
    try:
        with warnings.catch_warnings():  # `re`'s FutureWarnings are not the user's business
            warnings.simplefilter("ignore")
            parsed = _parser.parse(pattern)
    except Exception:  # any pattern `re` cannot read: always a candidate
        return None
    try:
        found = _needles(parsed.data, bool(parsed.state.flags & sre.SRE_FLAG_IGNORECASE))
    except _Unsafe:
        return None
    return found


class _Unsafe(Exception):
    """The pattern uses something whose meaning may differ between `re` and `regex`."""


def _needles(items: Sequence[tuple[object, Any]], folded: bool) -> list[Needle] | None:
    """Literals one of which every match of this sequence of parsed items contains."""
    best: list[Needle] | None = None
    run: list[str] = []

    def consider(candidate: list[Needle] | None) -> None:
        nonlocal best
        if candidate and (best is None or _quality(candidate) > _quality(best)):
            best = candidate

    for op, argument in items:
        if op is sre.LITERAL:
            char = chr(argument)
            if char in "{}":  # `regex` may read braces as fuzzy matching, `re` as literals
                raise _Unsafe
            if not folded:
                run.append(char)
                continue
            if char.isascii() and char not in _AMBIGUOUS_FOLD:
                run.append(char.lower())
                continue
        if run:
            consider([("".join(run), folded)])
            run = []
        consider(_item(op, argument, folded))
    if run:
        consider([("".join(run), folded)])
    return best


def _item(op: object, argument: Any, folded: bool) -> list[Needle] | None:
    if op is sre.SUBPATTERN:
        _group, added, removed, sub = argument
        ignorecase = sre.SRE_FLAG_IGNORECASE
        return _needles(sub.data, (folded or bool(added & ignorecase)) and not removed & ignorecase)
    if op is sre.ATOMIC_GROUP:
        return _needles(argument.data, folded)
    if op is sre.BRANCH:
        options = [_needles(alternative.data, folded) for alternative in argument[1]]
        if any(option is None for option in options):
            return None
        return [needle for option in options for needle in option or ()]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, sub = argument
        return _needles(sub.data, folded) if low >= 1 else None
    # Items that carry no literal of their own are still searched for unsafe syntax.
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        _needles(argument[1].data, folded)
    elif op is sre.GROUPREF_EXISTS:
        for branch in argument[1:]:
            if branch is not None:
                _needles(branch.data, folded)
    return None


def _quality(needles: list[Needle]) -> tuple[int, int]:
    """Longer shortest literal first (up to a full gram), then fewer alternatives."""
    return (min(min(len(text), GRAM) for text, _ in needles), -len(needles))
