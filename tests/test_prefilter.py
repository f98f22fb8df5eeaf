"""The PreToolUse prefilter (cortex_hooks.guard.prefilter) against brute force: it may let too many
learnings through, never too few. Whenever `regex.search(pattern, text)` finds a match, the
learning must be a candidate by both lookups: the grams of a short text and `present` for long ones,
for a Bash command (loosened keys) as for any other tool's text. (The same against the command
reader's texts: tests/test_prefilter_reader.py.)
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import pytest
import regex
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from cortex_hooks.guard import prefilter

BOUNDED = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Letters whose case-insensitive matches reach beyond ASCII, and those non-ASCII letters themselves.
TRICKY = "kKsSiI\u212a\u017f\u0130\u0131"
ALPHABET = "abgtu-x " + TRICKY + "é\u00df{}.\t\u00a0\u2028"
# What a case-insensitive match of each letter may meet in the text.
FOLDS = {
    "k": "kK\u212a",
    "K": "kK\u212a",
    "\u212a": "kK\u212a",
    "s": "sS\u017f",
    "S": "sS\u017f",
    "\u017f": "sS\u017f",
    "i": "iI\u0130",
    "I": "iI\u0131",
    "\u0130": "i\u0130",
    "\u0131": "I\u0131",
    "a": "aA",
    "b": "bB",
    "x": "xX",
    "é": "éÉ",
}
SPECIAL = set(".^$*+?{}[]\\|()#")


def regex_matches(pattern: str, text: str) -> bool:
    try:
        return regex.search(pattern, text, timeout=1.0) is not None
    except TimeoutError:
        return False


def is_candidate(pattern: str, target: str, fragments: list[str], tool: str = "Write") -> bool:
    """The way PreToolUse looks a learning up — by grams for a text up to SCAN_ABOVE, key by
    key (`present`) beyond it (judging.in_force); on a short text both are asked and must agree —
    then the check of all its required literals before the regex is compiled."""
    letter, looked = prefilter.lookup(target, tool, fragments)
    stored = [key for key in prefilter.keys(pattern, target) if key[0] == letter]
    by_scan = any(prefilter.present(key, looked) for key in stored)
    if sum(map(len, looked)) <= prefilter.SCAN_ABOVE:
        by_grams = bool(set(stored) & set(prefilter.text_keys(letter, looked)))
        assert by_grams == by_scan, (stored, fragments)
    return by_scan and prefilter.satisfied(
        prefilter.literals(pattern), looked, loose=letter == prefilter.LOOSE
    )


def check(pattern: str, text: str) -> None:
    """The invariant: a text the regex matches makes the learning a candidate, for every target
    (a Bash command's raw string included: target raw)."""
    if regex_matches(pattern, text):
        for target in prefilter.TARGET_LETTER:
            for tool in ("Write", "Bash"):
                assert is_candidate(pattern, target, [text], tool), (pattern, text, tool)
                assert is_candidate(pattern, target, ["unrelated", text], tool), (pattern, text, tool)


@dataclass
class Piece:
    """A piece of pattern with a text it should match (the regex has the last word)."""

    pattern: str
    sample: str


def _escape(char: str) -> str:
    return "\\" + char if char in SPECIAL else char


@st.composite
def literal(draw: st.DrawFn) -> Piece:
    char = draw(st.sampled_from(ALPHABET))
    sample = draw(st.sampled_from(FOLDS.get(char, char)))
    return Piece(_escape(char), sample)


@st.composite
def atom(draw: st.DrawFn) -> Piece:
    kind = draw(st.integers(min_value=-3, max_value=9))
    if kind < 0:  # a run of literals, the kind of text keys are made of
        parts = draw(st.lists(literal(), min_size=2, max_size=6))
        return Piece("".join(p.pattern for p in parts), "".join(p.sample for p in parts))
    if kind <= 4:
        return draw(literal())
    if kind == 5:
        return draw(st.sampled_from([Piece(r"\d", "7"), Piece(r"\w", "k"), Piece(r"\s", " ")]))
    if kind == 6:
        members = draw(st.text(alphabet="abkKs-\u212a\u017f", min_size=1, max_size=3))
        negated = draw(st.booleans())
        sample = draw(st.sampled_from("xyz" if negated else members))
        return Piece("[" + ("^" if negated else "") + members.replace("-", r"\-") + "]", sample)
    if kind == 7:
        return Piece(".", draw(st.sampled_from("xk\u212a")))
    if kind == 8:
        return draw(st.sampled_from([Piece("^", ""), Piece("$", ""), Piece(r"\b", "")]))
    return Piece(r"\.", ".")


def _combine(children: st.SearchStrategy[Piece]) -> st.SearchStrategy[Piece]:
    return st.one_of(
        st.lists(children, min_size=1, max_size=4).map(
            lambda parts: Piece("".join(p.pattern for p in parts), "".join(p.sample for p in parts))
        ),
        st.lists(children, min_size=2, max_size=3).flatmap(
            lambda options: st.integers(0, len(options) - 1).map(
                lambda chosen: Piece(
                    "(?:" + "|".join(o.pattern for o in options) + ")", options[chosen].sample
                )
            )
        ),
        st.tuples(children, st.sampled_from(["(", "(?:", "(?i:", "(?-i:", "(?>", "(?x:"])).map(
            lambda pair: Piece(pair[1] + pair[0].pattern + ")", pair[0].sample)
        ),
        st.tuples(children, st.sampled_from(["?", "*", "+", "{2}", "{0,3}", "??", "+?", "*+"])).map(
            lambda pair: Piece(
                "(?:" + pair[0].pattern + ")" + pair[1],
                pair[0].sample * (2 if pair[1] == "{2}" else 1),
            )
        ),
        # A backreference right after its group: the group's text twice.
        st.tuples(children, st.text(alphabet="abcdefgh", min_size=8, max_size=8)).map(
            lambda pair: Piece(f"(?P<g{pair[1]}>{pair[0].pattern})(?P=g{pair[1]})", pair[0].sample * 2)
        ),
        st.tuples(children, st.sampled_from(["(?=", "(?!", "(?<=", "(?<!"])).map(
            lambda pair: (
                Piece(
                    pair[1] + pair[0].pattern + ")" + ("" if "<" in pair[1] else pair[0].pattern),
                    pair[0].sample,
                )
                if "<" not in pair[1]
                else Piece(pair[0].pattern + pair[1] + pair[0].pattern + ")", pair[0].sample)
            )
        ),
    )


PIECES = st.recursive(atom(), _combine, max_leaves=12)
GLOBAL_FLAGS = st.sampled_from(["", "", "", "(?i)", "(?x)", "(?ix)", "(?s)", "(?a)", "(?ai)"])


@st.composite
def refolded(draw: st.DrawFn, text: str) -> str:
    """The text with some letters swapped for others a case-insensitive match accepts."""
    return "".join(
        draw(st.sampled_from(FOLDS[char])) if char in FOLDS and draw(st.booleans()) else char for char in text
    )


@st.composite
def pattern_and_texts(draw: st.DrawFn) -> tuple[str, list[str]]:
    piece = draw(PIECES)
    pattern = draw(GLOBAL_FLAGS) + piece.pattern
    noise = st.text(alphabet=ALPHABET, max_size=4)
    texts = [
        draw(noise) + piece.sample + draw(noise),
        draw(noise) + draw(refolded(piece.sample)) + draw(noise),
        draw(st.text(alphabet=ALPHABET, max_size=12)),
    ]
    # No st.from_regex here: its padding is filtered by searching the pattern with `re`, and a
    # drawn pattern with nested quantifiers can backtrack for hours on that search.
    return pattern, texts


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern)
    except Exception:
        return False
    return True


@BOUNDED
@given(pattern_and_texts())
@example(("(?x)ab\u00a0*", ["a"]))  # regex skips any whitespace in verbose mode, `re` only ASCII
@example(("(?x)a\u2028b", ["ab"]))
@example(("(?x:a\x1cb)", ["ab"]))
@example(("(?i)k", ["\u212a"]))
@example(("(?i)s", ["\u017f"]))
@example(("(?i)I", ["\u0131"]))
@example(("(?i)i", ["\u0130"]))
@example(("(?i:\u212a)", ["k"]))
@example(("(?i)ab\u0130", ["AB\u0130"]))
def test_every_regex_match_is_a_candidate(case: tuple[str, list[str]]) -> None:
    pattern, texts = case
    assume(_compiles(pattern))
    for text in texts:
        check(pattern, text)


LITERAL_FREE = st.recursive(
    st.sampled_from([r"\d", r"\w", r"\s", ".", "[a-z]", "[^x]", r"\b", "^", "$", r"\W"]),
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=3).map("".join),
        st.tuples(children, st.sampled_from(["?", "*", "+", "{2}", "{0,3}"])).map(
            lambda pair: "(?:" + pair[0] + ")" + pair[1]
        ),
        st.lists(children, min_size=2, max_size=3).map(lambda o: "(" + "|".join(o) + ")"),
    ),
    max_leaves=6,
)


@BOUNDED
@given(LITERAL_FREE, st.text(max_size=10))
def test_a_pattern_without_literals_is_always_a_candidate(pattern: str, text: str) -> None:
    for target, letter in prefilter.TARGET_LETTER.items():
        loose = [prefilter.LOOSE + "*"] if target in ("content", "raw") else []
        assert prefilter.keys(pattern, target) == sorted([letter + "*", *loose])
        assert is_candidate(pattern, target, [text])
        assert is_candidate(pattern, target, [text], "Bash")
    check(pattern, text)


@BOUNDED
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=12), st.data())
@example("(?x)k\u00a0+", None)
def test_arbitrary_strings_as_patterns(pattern: str, data: st.DataObject | None) -> None:
    for target in prefilter.TARGET_LETTER:
        assert prefilter.keys(pattern, target)  # never crashes, never empty
    assume(_compiles(pattern))
    texts = [pattern, pattern.lower(), pattern.upper()]
    if data is not None:
        texts.append(data.draw(st.text(alphabet=ALPHABET + pattern, max_size=12)))
        with contextlib.suppress(Exception):  # not every pattern `regex` reads is one it knows
            texts.append(data.draw(st.from_regex(pattern)))
    for text in texts:
        check(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "target", "expected"),
    [
        ("git push --force", "content", {"c="}),
        (r"git\s+push\s+(-f|--force)", "content", {"c="}),
        ("(?i)DROP TABLE", "content", {"c~"}),
        ("(?i:drop) TABLE", "content", {"c~", "c="}),
        ("a|", "content", {"c*"}),
        ("foo{e<=1}", "content", {"c*"}),
        (r"\.env$", "path", {"p="}),
        ('"url":"http:', "input", {"i="}),
        (r"\d+", "content", {"c*"}),
        ("", "content", {"c*"}),
        ("(?i)kiss", "content", {"c*"}),
        ("[[:alpha:]]+", "content", {"c*"}),
        (r"\p{L}rm -rf", "content", {"c*"}),
        ("rm(", "content", {"c*"}),
    ],
)
def test_keys_of_common_patterns(pattern: str, target: str, expected: set[str]) -> None:
    letter = prefilter.TARGET_LETTER[target]
    found = [key for key in prefilter.keys(pattern, target) if key[0] == letter]
    assert found
    kinds = {key[:2] if key[1] != "*" else key for key in found}
    if expected == {"c~", "c="}:
        assert kinds, found
        assert kinds <= expected, found
    else:
        assert kinds == expected, found
    for key in found:
        assert key[0] == prefilter.TARGET_LETTER[target]
        assert len(key) <= 2 + prefilter.GRAM


def test_a_literal_key_is_a_rare_gram_of_the_required_text() -> None:
    loose, key = prefilter.keys("git push --force", "content")
    assert key.startswith("c=")
    assert key[2:] in "git push --force"
    assert len(key[2:]) == prefilter.GRAM
    assert loose.startswith("b=")
    assert loose[2:] in "gitpush--force"  # the loosened literal: no whitespace
    loose, folded = prefilter.keys("(?i)DROP TABLE", "content")
    assert folded.startswith("c~")
    assert folded[2:] in "drop table"
    assert loose.startswith("b~")
    assert loose[2:] in "droptable"


def test_of_clauses_alike_the_key_comes_from_the_rarest() -> None:
    """Learnings that share a prefix (`git push`) and differ in a name: each is keyed by its name,
    so a call with the prefix alone does not make every one of them a candidate."""
    assert prefilter.keys(r"git push\s.*release-927", "input") == ["i=-927"]
    assert prefilter.keys(r"release-927.*\sgit push", "input") == ["i=-927"]  # whatever the order
    assert not is_candidate(r"git push\s.*release-927", "content", ["git push --force origin main"])
    assert is_candidate(r"git push\s.*release-927", "content", ["git push origin release-927"])


def test_alternatives_each_give_a_key() -> None:
    found = [key for key in prefilter.keys("(?:curl|wget) ", "content") if key[0] == "c"]
    assert len(found) >= 2 or found == ["c= "]
    assert is_candidate("(?:curl|wget) ", "content", ["wget x"])
    assert is_candidate("(?:curl|wget) ", "content", ["curl x"])


def test_keys_let_unrelated_texts_through_only_by_accident() -> None:
    pattern = "git push --force"
    assert not is_candidate(pattern, "content", ["ls -la"])
    assert is_candidate(pattern, "content", ["git push --force origin"])
    # A content key never matches the path or input index.
    assert not set(prefilter.keys(pattern, "content")) & set(
        prefilter.text_keys("path", ["git push --force"])
    )


def test_folded_keys_find_any_case() -> None:
    assert is_candidate("(?i)DROP TABLE", "content", ["drop table users"])
    assert is_candidate("(?i)drop table", "content", ["DROP TABLE users"])
    assert not is_candidate("(?i)DROP TABLE", "content", ["select 1"])


def test_present_checks_long_texts_key_by_key() -> None:
    long_text = "x" * (prefilter.SCAN_ABOVE + 10) + "git push --force"
    _loose, key = prefilter.keys("git push --force", "content")
    assert prefilter.present(key, [long_text])
    assert not prefilter.present(key, ["x" * (prefilter.SCAN_ABOVE + 10)])
    assert prefilter.present("c*", ["anything"])


@pytest.mark.parametrize("pattern", ["[[a]x", "[a--b]x", "[a&&b]x", "[a||b]x"])
def test_parsing_a_pattern_prints_no_warning(pattern: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = prefilter.keys(pattern, "content")
    assert found
    assert [str(warning.message) for warning in caught] == []


@BOUNDED
@given(
    st.lists(
        st.text(alphabet="ab;,(x", min_size=1, max_size=4), min_size=prefilter.FEW_KEYS + 1, max_size=40
    ),
    st.lists(st.text(alphabet="ab;,(x\n", max_size=12), min_size=1, max_size=8),
    st.integers(1, 200),
)
def test_many_keys_over_a_long_text_are_found_exactly_as_one_by_one(
    literals: list[str], pieces: list[str], times: int
) -> None:
    """with many keys, a long text is looked in through its distinct stretches between a
    character no key holds (a megabyte of repeated rows shrinks to a few); the keys found are
    exactly those a search of the whole text finds."""
    keys = sorted({"c=" + literal for literal in literals} | {"c~" + literal.lower() for literal in literals})
    text = "".join(pieces) * times
    text = text + "x" * max(0, prefilter.DEDUPE_ABOVE + 1 - len(text)) + "".join(pieces)
    whole = [key for key in keys if (key[2:] in text.lower() if key[1] == "~" else key[2:] in text)]
    assert prefilter.present_keys(keys, [text]) == whole


def test_a_megabyte_of_repeated_rows_is_looked_in_as_a_few_stretches() -> None:
    row = "INSERT INTO audit (id, note) VALUES (1, 'a note');\n"
    keys = [f"c=k{number:03d}" for number in range(40)] + ["c=audi", "c~note"]
    assert prefilter.present_keys(keys, [row * 20_000]) == ["c=audi", "c~note"]
    assert len(prefilter._distinct(row * 20_000, keys)) < 200
    # the stretches keep their separator: joined without it, "a" and "b" would make an "ab"
    assert prefilter.present_keys([*keys, "c=ab", "c=b\na"], ["a;b\n" * 20_000]) == ["c=b\na"]
