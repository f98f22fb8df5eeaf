"""The one redactor (cortex_hooks.redact, docs/guide/selfguard.md items 4 and 5), measured on the
labelled set of tests/redaction_corpus.py against the kinds gitleaks' default rule set names.

gitleaks' rules are read from ../shared/corpora/gitleaks/gitleaks.toml (CI has it; where it is
absent the tests that need it skip and say why): every rule is either claimed, with examples of
our own that its own regex recognises, or named below with the reason it is not.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from redaction_corpus import HAND_WRITTEN, PLAIN, Secret, figures, labelled

from cortex_hooks.redact import MASK, is_secret, redact

CORPORA = Path(os.environ.get("CORTEX_CORPORA") or Path(__file__).resolve().parents[2] / "shared" / "corpora")
GITLEAKS = CORPORA / "gitleaks" / "gitleaks.toml"

# Rules of gitleaks' set this redactor does not claim, and why.
NOT_CLAIMED = {
    "pkcs12-file": "a rule on file names (.p12, .pfx), not on text",
    "adobe-client-id": "a client id: public, an identifier (a 32-digit hex like a hash)",
    "asana-client-id": "a client id: public, an identifier",
    "bitbucket-client-id": "a client id: public, an identifier",
    "discord-client-id": "a client id: public, an identifier (an 18-digit number)",
    "linkedin-client-id": "a client id: public, an identifier",
    "looker-client-id": "a client id: public, an identifier",
    "messagebird-client-id": "a client id: public, an identifier (a UUID)",
    "plaid-client-id": "a client id: public, an identifier",
    "sendbird-access-id": "an application id: public, an identifier (a UUID)",
    "sumologic-access-id": "an access id: the public half of a pair, an identifier",
    "new-relic-user-api-id": "an account id, not the key",
}
# Kinds of the labelled set no rule can promise: measured and reported, not held to 100 %.
HARD = {"password in prose": 0.0, "short random value, no name": 0.0}


@pytest.fixture(scope="module")
def gitleaks_rules() -> dict[str, dict[str, Any]]:
    if not GITLEAKS.is_file():
        pytest.skip(f"gitleaks' rule set is not at {GITLEAKS} (../shared/corpora)")
    with GITLEAKS.open("rb") as handle:
        return {rule["id"]: rule for rule in tomllib.load(handle)["rules"]}


def test_every_gitleaks_rule_is_claimed_with_examples_or_named_with_a_reason(
    gitleaks_rules: dict[str, dict[str, Any]],
) -> None:
    claimed = {example.rule for example in labelled() if example.rule}
    assert claimed <= set(gitleaks_rules), claimed - set(gitleaks_rules)
    assert set(NOT_CLAIMED) <= set(gitleaks_rules)
    assert not claimed & set(NOT_CLAIMED)
    assert set(gitleaks_rules) - claimed - set(NOT_CLAIMED) == set()
    assert len(claimed) >= 200  # of the 222


def test_each_example_is_recognised_by_the_gitleaks_rule_it_claims(
    gitleaks_rules: dict[str, dict[str, Any]],
) -> None:
    """The examples are of the kind they claim: gitleaks' own regex finds the secret in them."""
    for example in labelled():
        if example.rule is None:
            continue
        found = regex.search(gitleaks_rules[example.rule]["regex"], example.filled)
        assert found is not None, (example.rule, example.filled)
        start = example.filled.index(example.secret)
        assert found.start() < start + len(example.secret), example  # the match holds the secret
        assert start < found.end(), example


def test_recall_per_kind_and_no_false_redaction() -> None:
    kinds, (changed, plain) = figures()
    for kind, (found, total) in kinds.items():
        assert found / total >= HARD.get(kind, 1.0), (kind, found, total)
    assert set(HARD) <= set(kinds)
    assert sum(total for _, total in kinds.values()) >= 450
    assert changed == 0, [text for _, text in PLAIN if redact(text) != text]
    assert plain >= 75


@pytest.mark.parametrize(
    "example",
    [example for example in HAND_WRITTEN if example.kind not in HARD],
    ids=lambda example: f"{example.kind}: {example.text[:40]}",
)
def test_each_hand_written_secret_is_redacted_and_its_context_kept(example: Secret) -> None:
    redacted = redact(example.filled)
    assert example.secret not in redacted
    assert MASK in redacted
    before = example.text.partition("{secret}")[0]
    assert before.rstrip("'\"(").split(" ")[0] in redacted  # the command or the name stays
    assert is_secret(example.secret) or is_secret(example.filled)


@pytest.mark.parametrize(("kind", "text"), PLAIN, ids=[f"{kind}: {text[:40]}" for kind, text in PLAIN])
def test_text_without_a_secret_is_unchanged(kind: str, text: str) -> None:
    assert redact(text) == text


SECRETS = [example for example in labelled() if example.kind not in HARD]
WORDS = st.lists(
    st.sampled_from(["make", "test", "ok", "the", "deploy", "log", "3", "x.py", "-v", "&&"]), max_size=6
)


@given(st.sampled_from(SECRETS), WORDS, WORDS, st.sampled_from([" ", "\n", " ; "]))
def test_a_secret_is_redacted_whatever_surrounds_it(
    example: Secret, before: list[str], after: list[str], glue: str
) -> None:
    text = glue.join([*before, example.filled, *after])
    assert example.secret not in redact(text)


@given(st.text(max_size=300))
def test_redacting_is_idempotent_and_never_fails(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(st.sampled_from(SECRETS + [Secret("plain", text, "") for _, text in PLAIN]))
def test_redacting_twice_changes_nothing_more(example: Secret) -> None:
    once = redact(example.filled)
    assert redact(once) == once


# The redactor tests what a text must hold before it compiles or runs a pattern (a kept tool call
# is redacted on every match PreToolUse records). Each test is a necessary condition: were one
# wrong, a secret would pass unredacted, so they are held to the patterns themselves.


def _widths_and_blanks(source: str) -> tuple[int, bool]:
    """The shortest match of a pattern, and whether any match can hold a blank."""
    import importlib

    C = importlib.import_module("re._constants")
    _parser = importlib.import_module("re._parser")

    blanks = " \t\n\r\f\v"

    def blank(items: Any) -> bool:
        for op, av in items:
            if op is C.ANY or op is C.NOT_LITERAL or (op is C.LITERAL and chr(av) in blanks):
                return True
            if op is C.IN:
                for kind, value in av:
                    if kind is C.NEGATE or (kind is C.LITERAL and chr(value) in blanks):
                        return True
                    if kind is C.CATEGORY and value in (
                        C.CATEGORY_SPACE,
                        C.CATEGORY_NOT_WORD,
                        C.CATEGORY_NOT_DIGIT,
                    ):
                        return True
                    if kind is C.RANGE and any(value[0] <= ord(char) <= value[1] for char in blanks):
                        return True
            if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and blank(av[2]):
                return True
            if op is C.SUBPATTERN and blank(av[-1]):
                return True
            if op is C.BRANCH and any(blank(branch) for branch in av[1]):
                return True
        return False

    parsed = _parser.parse(source)
    return parsed.getwidth()[0], blank(parsed)


def test_a_token_or_a_long_word_holds_no_blank_and_is_as_long_as_the_redactor_assumes() -> None:
    from cortex_hooks import redact as module

    assert _widths_and_blanks(module._SOURCES["token"]) == (module._TOKEN_WIDTH, False)
    long_width, long_blank = _widths_and_blanks(module._SOURCES["long"])
    assert (long_width, long_blank) == (module._LONG_WIDTH, False)


@pytest.mark.parametrize(
    "text", [*(example.filled for example in labelled()), *(text for _kind, text in PLAIN)]
)
def test_no_pattern_finds_a_secret_its_hint_would_skip(text: str) -> None:
    from cortex_hooks import redact as module

    lowered = text.lower()
    hints = {
        "header": any(hint in lowered for hint in module._HEADER_HINTS),
        "named": any(hint in lowered for hint in module._NAME_HINTS),
        "commands": any(name in text for name in module._COMMANDS),
        "setting": "value" in lowered,
        "fed": any(hint in lowered for hint in module._FED_HINTS),
        "netrc": "password" in lowered and ("machine" in lowered or "default" in lowered),
        "expect": "send" in lowered and "expect" in lowered,
        "prose": any(word in lowered for word in ("password", "passphrase", "passcode", "passwd", "pwd")),
        "heroku": "heroku" in lowered,
    }
    for name, hinted in hints.items():
        if module._pattern(name).search(text):
            assert hinted, (name, text)
