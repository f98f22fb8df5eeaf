"""The PreToolUse decision (guard.judge on given matches): deny behind the gate, warn otherwise,
texts that fit."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_hooks import stored
from cortex_hooks.confidence import Policy
from cortex_hooks.guard.call import Call
from cortex_hooks.guard.hits import Hit
from cortex_hooks.guard.judge import Candidate, Judgment, judge
from cortex_hooks.judging import protocol

LIMIT = 9500  # docs/internals/guarantees.md: Claude Code replaces longer hook output by a file reference


def hit(
    id: int,
    *,
    auto_block: bool = False,
    before: int = 70,
    anti: str | None = None,
    correct: str | None = None,
    severity: str = "medium",
) -> Hit:
    return Hit(
        id=id,
        anti_pattern=anti if anti is not None else f"anti pattern {id}",
        correct_pattern=correct if correct is not None else f"correct way {id}",
        severity=severity,
        auto_block=auto_block,
        before=before,
    )


class Given:
    """Rules whose every learning matches: the judge's view (guard.judge.Rules) of these hits."""

    def __init__(self, hits: list[Hit]) -> None:
        self.given = hits
        self.problems: list[str] = []

    def protection(self, call: Call) -> None:
        return None

    def candidates(self, call: Call) -> list[Candidate]:
        return [
            Candidate(stored.Candidate(hit.id, "x", "*", "input", None, None), 0, hit.scope, (1.0, 1.0))
            for hit in self.given
        ]

    def hits(self, found: object) -> list[Hit]:
        return list(self.given)

    def one_per_id(self, hits: list[Hit]) -> list[Hit]:
        return hits


def decide(hits: list[Hit], policy: Policy | None = None) -> Judgment:
    """The judge's verdict on a call these learnings all match (each by its scope's policy, or `policy`)."""
    for hit in hits:
        hit.policy = policy or hit.policy
    return judge(Call("Bash", {"command": "x"}), Given(hits))


def output(hits: list[Hit], policy: Policy | None = None) -> dict[str, Any]:
    """The hook's wire output for these hits (the judge, then the protocol)."""
    decided = decide(hits, policy)
    assert decided.answer != "allow"
    wire = protocol.pre_tool_use(decided)
    assert set(wire) == {"hookSpecificOutput"}
    specific: dict[str, Any] = wire["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    return specific


def names(text: str, learning_id: int) -> bool:
    return re.search(rf"#{learning_id}(?!\d)", text) is not None


def test_no_hits_no_output() -> None:
    assert decide([]).answer == "allow"


@pytest.mark.parametrize(
    ("auto_block", "before", "denies"),
    [
        (True, 90, True),
        (True, 70, True),
        (True, 41, True),
        (True, 40, False),  # at the gate: warned, not blocked
        (True, 39, False),
        (True, 30, False),
        (False, 90, False),
        (False, 70, False),
        (False, 41, False),
    ],
)
def test_deny_only_for_auto_block_above_the_gate(auto_block: bool, before: int, denies: bool) -> None:
    specific = output([hit(7, auto_block=auto_block, before=before)])
    if denies:
        assert specific["permissionDecision"] == "deny"
        assert names(specific["permissionDecisionReason"], 7)
        assert "additionalContext" not in specific
    else:
        assert "permissionDecision" not in specific
        assert "permissionDecisionReason" not in specific
        assert names(specific["additionalContext"], 7)


def test_the_deny_reason_names_id_anti_pattern_correct_pattern_and_confidence() -> None:
    specific = output(
        [hit(12, auto_block=True, before=70, anti="git push --force", correct="git push --force-with-lease")]
    )
    reason = specific["permissionDecisionReason"]
    assert names(reason, 12)
    assert "git push --force" in reason
    assert "git push --force-with-lease" in reason
    assert "0.70" in reason


def test_the_warning_names_anti_pattern_correct_pattern_and_confidence() -> None:
    specific = output([hit(3, before=55, anti="rm -rf /tmp/x", correct="use trash")])
    context = specific["additionalContext"]
    assert names(context, 3)
    assert "rm -rf /tmp/x" in context
    assert "use trash" in context
    assert "0.55" in context


def test_deny_and_warning_in_the_same_output() -> None:
    specific = output(
        [
            hit(1, auto_block=True, before=80),
            hit(2, auto_block=False, before=80),
            hit(3, auto_block=True, before=40),
        ]
    )
    assert specific["permissionDecision"] == "deny"
    reason = specific["permissionDecisionReason"]
    context = specific["additionalContext"]
    assert names(reason, 1)
    assert not names(reason, 2)
    assert not names(reason, 3)
    assert names(context, 2)
    assert names(context, 3)
    assert not names(context, 1)


def test_the_gate_follows_the_policy() -> None:
    strict = Policy(block_gate=60)
    assert "permissionDecision" not in output([hit(1, auto_block=True, before=60)], strict)
    assert output([hit(1, auto_block=True, before=61)], strict)["permissionDecision"] == "deny"


def _shown_and_left_out(text: str, total: int) -> None:
    shown = len(re.findall(r"learning #\d+", text))
    left = re.search(r"(\d+) more", text)
    assert left is not None, text[-300:]
    assert shown + int(left.group(1)) == total


@pytest.mark.parametrize("auto_block", [False, True])
def test_five_hundred_huge_learnings_fit_and_say_how_many_were_left_out(auto_block: bool) -> None:
    hits = [
        hit(i, auto_block=auto_block, before=80, anti="A" * 3000 + str(i), correct="C" * 3000)
        for i in range(1, 501)
    ]
    specific = output(hits)
    key = "permissionDecisionReason" if auto_block else "additionalContext"
    text = specific[key]
    assert 0 < len(text) < LIMIT
    _shown_and_left_out(text, 500)
    for value in specific.values():
        assert len(value) < LIMIT


def test_many_small_learnings_fit_and_say_how_many_were_left_out() -> None:
    hits = [hit(i, before=60) for i in range(1, 501)]
    text = output(hits)["additionalContext"]
    assert len(text) < LIMIT
    _shown_and_left_out(text, 500)


def test_deny_and_warning_together_stay_within_the_limit() -> None:
    hits = [
        hit(i, auto_block=i % 2 == 0, before=80, anti="x" * 5000, correct="y" * 5000) for i in range(1, 201)
    ]
    specific = output(hits)
    assert specific["permissionDecision"] == "deny"
    assert len(specific["permissionDecisionReason"]) < LIMIT
    assert len(specific["additionalContext"]) < LIMIT


HITS = st.lists(
    st.builds(
        hit,
        st.integers(min_value=1, max_value=10**6),
        auto_block=st.booleans(),
        before=st.integers(min_value=30, max_value=90),
        anti=st.text(min_size=1, max_size=300),
        correct=st.text(min_size=1, max_size=300),
        severity=st.sampled_from(["low", "medium", "high", "critical"]),
    ),
    min_size=1,
    max_size=20,
    unique_by=lambda h: h.id,
)


@settings(max_examples=300, deadline=None)
@given(HITS)
def test_a_deny_always_has_a_reason_naming_each_blocking_learning(hits: list[Hit]) -> None:
    specific = output(hits)
    blocking = [h.id for h in hits if h.auto_block and h.before > 40]
    for value in specific.values():
        assert len(value) < LIMIT
    if not blocking:
        assert "permissionDecision" not in specific
        assert all(names(specific["additionalContext"], h.id) for h in hits)
        return
    assert specific["permissionDecision"] == "deny"
    reason = specific["permissionDecisionReason"]
    assert reason.strip()
    for learning_id in blocking:
        assert names(reason, learning_id), (learning_id, reason)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(min_value=30, max_value=90), st.integers(0, 6000)),
        min_size=1,
        max_size=12,
    )
)
def test_a_deny_names_each_blocking_learning_even_when_texts_are_long(
    shapes: list[tuple[bool, int, int]],
) -> None:
    hits = [
        hit(i, auto_block=auto, before=before, anti="a" * size or "a", correct="c" * size or "c")
        for i, (auto, before, size) in enumerate(shapes, start=1)
    ]
    specific = output(hits)
    for value in specific.values():
        assert len(value) < LIMIT
    blocking = [h.id for h in hits if h.auto_block and h.before > 40]
    if blocking:
        reason = specific["permissionDecisionReason"]
        for learning_id in blocking:
            assert names(reason, learning_id), (learning_id, reason[-400:])


def test_a_call_judged_again_is_read_for_the_guards_places_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook judges a match again inside its write transaction: the rows may have changed, the
    call has not, and reading it for the guard's places (a 1 MB heredoc: ~15 ms) is done once."""
    from cortex_hooks import location
    from cortex_hooks.judging.in_force import InForce

    read: list[str] = []
    names_own_place = location.names_own_place

    def reading(tool_input: dict[str, Any], cwd: object = None) -> bool:
        read.append(tool_input["command"])
        return names_own_place(tool_input, cwd)

    asked: list[str] = []

    def protection(tool: str, tool_input: dict[str, Any], cwd: object) -> None:
        asked.append(tool_input["command"])

    monkeypatch.setattr(location, "names_own_place", reading)
    rules = InForce([], protection=protection)
    for command in ("ls -la", "rm -rf .cortex"):
        call = Call("Bash", {"command": command}, "/home/dev/proj")
        assert rules.protection(call) is None
        assert rules.protection(call) is None
    assert read == ["ls -la", "rm -rf .cortex"]
    assert asked == ["rm -rf .cortex"]  # the one that names a place of the guard's, asked once
