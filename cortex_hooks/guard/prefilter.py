"""Index keys that let PreToolUse skip learnings that cannot match, without compiling them.

When a learning is saved, its regex is parsed once for the literals every match must contain:
one per alternative, e.g. `git push (-f|--force)` needs "git push ". Each such literal is stored
as one short *key* (its rarest substring of up to four characters), prefixed by the learning's
target and by `=` (matched as written) or `~` (matched case-insensitively, in lower case).
A learning whose literals cannot be known gets the key `<target>*` and is always a candidate.

At a tool call, every substring of up to four characters of each target text is looked up in
that index, so the cost follows the size of the tool call, not the number of learnings. The
learnings it finds are then checked against *all* their required literals (stored beside them
as `literals`: every clause of the pattern, each a list of alternatives) by plain substring
tests, so only learnings that can really match have their regex compiled.

Keys and literals only ever let too many learnings through, never too few: the regex decides.

A Bash command is matched simple command by simple command, as the shell reads it
(docs/guide/command-reader.md): `"git" reset` is read as `git reset`, `git reset` as `git reset`.
The text a regex meets is then no substring of the raw command, yet the prefilter must decide on
the raw command alone (reading it costs more than a whole call that matches nothing). It does so
on *loosened* texts: quotes, backslashes, `$` and whitespace deleted from both the literal and the
command. The reader only ever deletes those characters, inserts spaces, or cuts a command into
stretches (a heredoc shown after the program that runs it is the stretch that follows the
program's last word), so a literal of a simple command's text, loosened, is always in the loosened
raw command. Learnings of target content and raw carry keys of both kinds: `c` (as written, for
every other tool) and `b` (loosened, for Bash).

The same keys decide, once, both the hook's lookup (stored per learning, looked up in SQL by the
grams of the call's texts) and the test of a transcript's line (`line_grams`, `loosen_json`):
replay and SessionEnd's outcomes pass over a line none of whose loosened grams it holds.
"""

from __future__ import annotations

import functools
import json
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

TYPE_CHECKING = False  # typing itself costs PreToolUse more than all of this module
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

TARGET_LETTER = {"content": "c", "path": "p", "input": "i", "raw": "c"}
LOOSE = "b"  # the letter of loosened keys: a Bash command's content and raw learnings
LOOSENED = "'\"\\$ \t\n\r\x0b\x0c\x00"  # what loosening deletes: quotes, backslashes, `$`, whitespace
_LOOSENED = str.maketrans("", "", LOOSENED)
GRAM = 4  # four characters: at 10,000 learnings far fewer chance hits than three, for little more work
SCAN_ABOVE = 4096  # longer texts are checked key by key instead of gram by gram

# Under `(?i)` these ASCII letters also match non-ASCII letters (K: KELVIN SIGN, s: LONG S,
# i: dotted/dotless I), so lower-casing the text would not find them: they never go into a key.
_AMBIGUOUS_FOLD = frozenset("ikIKS" + "s")
_COMMON = frozenset("etaoinshrdlucm ")
_VERBOSE_FLAG = "x"  # crude but safe: any inline flag group could turn verbose mode on

Needle = tuple[str, bool]  # (literal, case-insensitive)
Clause = list[Needle]  # every match contains at least one of these


def keys(pattern: str | None, target: str) -> list[str]:
    """The index keys of a learning: one per alternative of its most selective clause, or
    `<target>*` when nothing can be known; learnings that may meet a Bash command (targets
    content and raw) also get the loosened keys (letter `b`)."""
    clauses = requirements(pattern)
    found = _keys(clauses, TARGET_LETTER[target])
    if target in ("content", "raw"):
        found += _keys(_loosened(clauses), LOOSE)
    return sorted(found)


def _keys(clauses: list[Clause] | None, letter: str) -> list[str]:
    if not clauses:
        return [letter + "*"]
    best = max(clauses, key=_quality)
    return sorted({letter + ("~" if folded else "=") + _rarest(text) for text, folded in best})


_LOOSE_LITERALS: dict[str, str] = {}  # learnings share literals (`git push `): loosened once


def _loose_literal(text: str) -> str:
    found = _LOOSE_LITERALS[text] = text.translate(_LOOSENED) or ""
    return found


def loosen(text: str) -> str:
    """A text without quotes, backslashes, `$` and whitespace (see the module docstring)."""
    return text.translate(_LOOSENED)


# JSON escapes as `loosen` treats what they stand for: a quote, a backslash and whitespace are
# deleted, the rest kept (\u escapes are not worked out: `loosen_json` cannot tell).
_LOOSENED_BYTES = LOOSENED.encode()
_JSON_ESCAPES = ((b'\\"', b""), (b"\\n", b""), (b"\\t", b""), (b"\\r", b""), (b"\\f", b""), (b"\\b", b"\x08"))


def loosen_json(raw: bytes) -> bytes | None:
    """Raw JSON (a transcript's line, a string as written in it) as `loosen` would leave the
    strings in it once decoded, or None when it cannot tell (a \\u escape). Escaped backslashes
    go first, pair by pair as a JSON reader pairs them, so every backslash left starts one escape."""
    text = raw.replace(b"\\\\", b"")
    if b"\\u" in text:
        return None
    for escape, meaning in _JSON_ESCAPES:
        text = text.replace(escape, meaning)
    return text.translate(None, _LOOSENED_BYTES)


def line_grams(keys: Iterable[str]) -> tuple[set[str], set[str]] | None:
    """The grams (exact, folded in lower case) a Bash command's loosened text holds one of
    whenever a learning with these keys is a candidate for it: its loosened keys' grams; None when
    no gram can tell (a `*` key; a folded gram that is not ASCII, which lower-casing bytes does
    not fold)."""
    exact: set[str] = set()
    folded: set[str] = set()
    for key in keys:
        if key[0] != LOOSE:
            continue
        gram = key[2:]
        if key[1] == "*" or not gram or (key[1] == "~" and not gram.isascii()):
            return None
        (folded if key[1] == "~" else exact).add(gram)
    return exact, folded


def _loosened(clauses: list[Clause] | None) -> list[Clause] | None:
    """The clauses as loosened texts hold them; a clause one of whose literals loosens to
    nothing says nothing, and is dropped."""
    if not clauses:
        return None
    kept = [[(loosen(text), folded) for text, folded in clause] for clause in clauses]
    return [clause for clause in kept if all(text for text, _ in clause)] or None


def lookup(target: str, tool_name: str, fragments: Sequence[str]) -> tuple[str, list[str]]:
    """The key letter and the texts a tool call's target is looked up with: loosened for a
    Bash command of target content or raw."""
    if tool_name == "Bash" and target in ("content", "raw"):
        return LOOSE, [loosen(fragment) for fragment in fragments]
    return TARGET_LETTER[target], list(fragments)


def literals(pattern: str | None) -> str | None:
    """The stored form of a pattern's requirements (JSON), or None when nothing can be known."""
    clauses = requirements(pattern)
    return json.dumps(clauses, ensure_ascii=False) if clauses else None


def satisfied(stored: str | None, fragments: Sequence[str], *, loose: bool = False) -> bool:
    """Whether one text holds every clause of a learning's stored literals (or none are known);
    `loose`: the fragments are loosened (see `lookup`), and so are the literals."""
    if not stored:
        return True
    clauses, folds = _clauses_of(stored, loose)
    for fragment in fragments:
        lowered = fragment.lower() if folds else ""
        if all(
            any((text in lowered) if folded else (text in fragment) for text, folded in clause)
            for clause in clauses
        ):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _clauses_of(stored: str, loose: bool) -> tuple[list[list[list[Any]]], bool]:
    """A learning's stored literals read (loosened with `loose`), and whether one is folded: kept
    per process, as a replay meets the same learnings at every call."""
    clauses: list[list[list[Any]]] = json.loads(stored)
    if loose:
        kept = []
        for clause in clauses:
            loosened = [
                [_LOOSE_LITERALS.get(text) or _loose_literal(text), folded] for text, folded in clause
            ]
            if all(text for text, _ in loosened):  # a literal of only quotes or blanks says nothing
                kept.append(loosened)
        clauses = kept
    return clauses, any(folded for clause in clauses for _, folded in clause)


def text_keys(letter: str, fragments: Sequence[str]) -> list[str]:
    """The keys of this letter a learning could have if it matches one of these texts (as
    `lookup` gives them); a target names its own letter."""
    letter = TARGET_LETTER.get(letter, letter)
    found = {letter + "*"}
    for fragment in fragments:
        for mode, text in (("=", fragment), ("~", fragment.lower())):
            prefix = letter + mode
            for size in range(1, GRAM + 1):
                found.update(prefix + text[i : i + size] for i in range(len(text) - size + 1))
    return sorted(found)


def present_keys(keys: Iterable[str], fragments: Sequence[str]) -> list[str]:
    """The keys that occur in the texts (`present`), each text lowered once for all the folded
    keys rather than once per key: over a long text that is most of the work. Many keys over a
    long text are looked for in its distinct stretches only (`_distinct`)."""
    keys = list(keys)
    if len(keys) > FEW_KEYS:
        fragments = [
            _distinct(fragment, keys) if len(fragment) > DEDUPE_ABOVE else fragment for fragment in fragments
        ]
    lowered: list[str] | None = None
    found = []
    for key in keys:
        if key[1] == "*":
            found.append(key)
        elif key[1] == "~":
            lowered = lowered if lowered is not None else [fragment.lower() for fragment in fragments]
            if any(key[2:] in fragment for fragment in lowered):
                found.append(key)
        elif any(key[2:] in fragment for fragment in fragments):
            found.append(key)
    return found


FEW_KEYS = 16  # fewer keys are looked for in the whole text: cutting it costs more than they do
DEDUPE_ABOVE = 64 * 1024
_SEPARATORS = ",;()[]{}<>|&!?*#@%^+"


def _distinct(text: str, keys: list[str]) -> str:
    """A text that holds exactly the keys this one holds: its stretches between one character no
    key holds, each once (a megabyte of generated rows is a few distinct stretches). A key never
    spans that character, so it lies in a stretch, and the stretches are joined by it again."""
    usable = [char for char in _SEPARATORS if not any(char in key[2:] for key in keys)]
    if not usable:
        return text
    separator = max(usable, key=text.count)
    if text.count(separator) < 64:
        return text
    return separator.join(set(text.split(separator)))


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
    return max(grams, key=_uncommon)


def _uncommon(gram: str) -> int:
    return sum(char not in _COMMON for char in gram)


def requirements(pattern: str | None) -> list[Clause] | None:
    """The clauses every match satisfies (all of them, each by one of its literals), or None
    when they cannot be known.

    Parsed with the standard library's own regex parser (private, but stable since 3.11 and
    exactly the grammar `regex` shares in its default VERSION0). Anything outside the plain
    common ground (inline flags `re` does not know, POSIX classes, `{`-syntax `regex` reads
    differently) makes the answer None, which is always safe.
    """
    if not pattern or any(marker in pattern for marker in ("[:", "[=", "[.")):
        return None
    if (
        "(?" in pattern
        and _VERBOSE_FLAG in pattern
        and any(char.isspace() and char not in _parser.WHITESPACE for char in pattern)
    ):
        return None  # in verbose mode `regex` skips all Unicode whitespace, `re` only ASCII
    import warnings

    try:
        with warnings.catch_warnings():  # `re`'s FutureWarnings are not the user's business
            warnings.simplefilter("ignore")
            parsed = _parser.parse(pattern)
    except Exception:  # any pattern `re` cannot read: always a candidate
        return None
    try:
        return _clauses(parsed.data, bool(parsed.state.flags & sre.SRE_FLAG_IGNORECASE))
    except _Unsafe:
        return None


class _Unsafe(Exception):
    """The pattern uses something whose meaning may differ between `re` and `regex`."""


def _clauses(items: Sequence[tuple[object, Any]], folded: bool) -> list[Clause]:
    """The clauses every match of this sequence of parsed items satisfies."""
    clauses: list[Clause] = []
    run: list[str] = []
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
            clauses.append([("".join(run), folded)])
            run = []
        clauses += _item(op, argument, folded)
    if run:
        clauses.append([("".join(run), folded)])
    return clauses


def _item(op: object, argument: Any, folded: bool) -> list[Clause]:
    if op is sre.SUBPATTERN:
        _group, added, removed, sub = argument
        ignorecase = sre.SRE_FLAG_IGNORECASE
        return _clauses(sub.data, (folded or bool(added & ignorecase)) and not removed & ignorecase)
    if op is sre.ATOMIC_GROUP:
        return _clauses(argument.data, folded)
    if op is sre.BRANCH:
        # Each alternative must bring a clause; one clause of each, joined, is then implied.
        options = [_clauses(alternative.data, folded) for alternative in argument[1]]
        if not all(options):
            return []
        return [[needle for option in options for needle in max(option, key=_quality)]]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, sub = argument
        inner = _clauses(sub.data, folded)
        return inner if low >= 1 else []
    # Items that carry no literal of their own are still searched for unsafe syntax.
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        _clauses(argument[1].data, folded)
    elif op is sre.GROUPREF_EXISTS:
        for branch in argument[1:]:
            if branch is not None:
                _clauses(branch.data, folded)
    return []


def _quality(needles: Clause) -> tuple[int, int, int]:
    """Longer shortest literal first (up to a full gram), then fewer alternatives, then rarer
    keys: `git push\\s.*release-927` is keyed `-927`, which few commands hold, not `git `."""
    return (
        min(min(len(text), GRAM) for text, _ in needles),
        -len(needles),
        min(_uncommon(_rarest(text)) for text, _ in needles),
    )
