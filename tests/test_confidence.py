"""The confidence model of docs/guide/confidence.md: exact hundredths, the block gate and the review
threshold."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_hooks import confidence
from cortex_hooks.confidence import DEFAULT, Policy


@pytest.mark.parametrize(
    ("before", "after"),
    [(30, 40), (40, 50), (70, 80), (79, 89), (80, 90), (81, 90), (89, 90), (90, 90)],
)
def test_boost_adds_ten_hundredths_capped_at_the_ceiling(before: int, after: int) -> None:
    assert confidence.boosted(before) == after


@pytest.mark.parametrize(("before", "after"), [(90, 89), (70, 69), (41, 40), (40, 39), (31, 30), (30, 30)])
def test_decay_takes_one_hundredth_not_below_the_floor(before: int, after: int) -> None:
    assert confidence.decayed(before) == after


def test_boost_never_lowers_and_decay_never_raises_out_of_range_values() -> None:
    assert confidence.boosted(95) == 95
    assert confidence.decayed(25) == 25


@pytest.mark.parametrize(
    ("before", "denies"), [(30, False), (39, False), (40, False), (41, True), (50, True), (90, True)]
)
def test_block_gate_is_strictly_above_forty_before_the_boost(before: int, denies: bool) -> None:
    assert confidence.blocks(before) is denies


def test_a_learning_at_the_gate_is_warned_then_blocks_on_its_next_match() -> None:
    first = 40
    assert not confidence.blocks(first)
    second = confidence.boosted(first)
    assert second == 50
    assert confidence.blocks(second)


@pytest.mark.parametrize(
    ("value", "pinned", "archived", "awaits"),
    [
        (30, False, False, True),
        (39, False, False, True),
        (40, False, False, True),
        (41, False, False, False),
        (70, False, False, False),
        (40, True, False, False),
        (40, False, True, False),
        (30, True, True, False),
    ],
)
def test_review_threshold_is_at_or_below_forty_unpinned_and_active(
    value: int, pinned: bool, archived: bool, awaits: bool
) -> None:
    assert confidence.awaits_review(value, pinned=pinned, archived=archived) is awaits


def test_policy_constants_change_the_thresholds() -> None:
    policy = Policy(start=60, floor=20, ceiling=95, boost=5, decay=2, block_gate=50)
    assert confidence.boosted(93, policy) == 95
    assert confidence.decayed(21, policy) == 20
    assert not confidence.blocks(50, policy)
    assert confidence.blocks(51, policy)


def test_default_policy_is_the_spec_table() -> None:
    assert (DEFAULT.start, DEFAULT.floor, DEFAULT.ceiling) == (70, 30, 90)
    assert (DEFAULT.boost, DEFAULT.decay) == (10, 1)
    assert (DEFAULT.block_gate, DEFAULT.review_threshold) == (40, 40)


@pytest.mark.parametrize(
    ("text", "hundredths"),
    [
        ("0.7", 70),
        ("0.70", 70),
        ("0.75", 75),
        ("0.3", 30),
        ("0.9", 90),
        (" 0.41 ", 41),
        ("1", 100),
        ("0", 0),
        ("1e-2", 1),
    ],
)
def test_parse_reads_decimals_as_hundredths(text: str, hundredths: int) -> None:
    assert confidence.parse(text) == hundredths


@pytest.mark.parametrize(
    "text",
    [
        *("0.705", "0.001", "0.333", "abc", "", "nan", "inf", "-inf", "0.7.0", "1e-3"),
        # beyond the decimal context: an overflow, a signalling NaN, an underflow to 0
        *("1e999999999", "-1e999999999", "sNaN", "1e-999999999"),
    ],
)
def test_parse_refuses_what_is_not_hundredths(text: str) -> None:
    with pytest.raises(ValueError, match=r"not a number|more than two decimals|out of range"):
        confidence.parse(text)


@pytest.mark.parametrize(
    ("hundredths", "text"), [(70, "0.70"), (5, "0.05"), (40, "0.40"), (100, "1.00"), (0, "0.00")]
)
def test_show_prints_two_decimals(hundredths: int, text: str) -> None:
    assert confidence.show(hundredths) == text


def test_thirty_decays_take_seventy_to_exactly_forty() -> None:
    value = DEFAULT.start
    for _ in range(30):
        value = confidence.decayed(value)
    assert value == 40
    assert confidence.show(value) == "0.40"
    assert confidence.awaits_review(value, pinned=False, archived=False)
    assert not confidence.blocks(value)


def test_a_thirty_first_decay_goes_below_the_threshold_and_the_floor_holds() -> None:
    value = DEFAULT.start
    for _ in range(100):
        value = confidence.decayed(value)
    assert value == DEFAULT.floor


OPERATIONS = st.lists(st.sampled_from(["boost", "decay", "keep"]), max_size=200)


@settings(max_examples=400, deadline=None)
@given(start=st.integers(min_value=30, max_value=90), operations=OPERATIONS)
def test_confidence_stays_integral_and_in_range(start: int, operations: list[str]) -> None:
    value = start
    for operation in operations:
        if operation == "boost":
            value = confidence.boosted(value)
        elif operation == "decay":
            value = confidence.decayed(value)
        else:
            value = DEFAULT.start
        assert type(value) is int
        assert DEFAULT.floor <= value <= DEFAULT.ceiling


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=100))
def test_show_and_parse_round_trip(hundredths: int) -> None:
    assert confidence.parse(confidence.show(hundredths)) == hundredths


@settings(max_examples=300, deadline=None)
@given(
    whole=st.integers(min_value=0, max_value=9),
    decimals=st.text(alphabet="0123456789", min_size=3, max_size=8).filter(
        lambda digits: digits.rstrip("0")[2:] != ""
    ),
)
def test_parse_refuses_more_than_two_decimals(whole: int, decimals: str) -> None:
    text = f"{whole}.{decimals}"
    assert Decimal(text) * 100 != int(Decimal(text) * 100)  # the input really has a third decimal
    with pytest.raises(ValueError, match="more than two decimals"):
        confidence.parse(text)


@settings(max_examples=200, deadline=None)
@given(
    value=st.integers(min_value=0, max_value=100),
    pinned=st.booleans(),
    archived=st.booleans(),
    floor=st.integers(min_value=0, max_value=60),
    decay=st.integers(min_value=1, max_value=20),
    threshold=st.integers(min_value=0, max_value=100),
)
def test_the_sql_forms_of_decay_and_review_are_the_python_rules(  # noqa: PLR0917 (hypothesis)
    value: int, pinned: bool, archived: bool, floor: int, decay: int, threshold: int
) -> None:
    """confidence.DECAYS_SQL / DECAYED_SQL / AWAITS_REVIEW_SQL, evaluated by SQLite, agree with
    decayed() and awaits_review() for every value and policy."""
    import sqlite3

    policy = Policy(floor=floor, decay=decay, review_threshold=threshold)
    parameters = {**confidence.sql_parameters(policy), "value": value, "pinned": pinned, "archived": archived}
    columns = {"confidence": ":value", "pinned": ":pinned", "archived": ":archived"}
    forms = (confidence.DECAYS_SQL, confidence.DECAYED_SQL, confidence.AWAITS_REVIEW_SQL)
    sql = "SELECT " + ", ".join(form.format(**columns) for form in forms)
    decays, decayed, review = sqlite3.connect(":memory:").execute(sql, parameters).fetchone()
    python = confidence.decayed(value, policy)
    assert bool(decays) == (python != value)
    if decays:
        assert decayed == python
    assert bool(review) == confidence.awaits_review(value, pinned=pinned, archived=archived, policy=policy)


@pytest.mark.parametrize("pinned", [0, 1])
@pytest.mark.parametrize("archived_at", [None, "2026-01-01T00:00:00Z"])
def test_the_sql_form_of_who_is_exempt_from_decay_is_the_python_rule(
    pinned: int, archived_at: str | None
) -> None:
    """confidence.EXEMPT_SQL over a learning row agrees with exempt() (store.pending decides with
    the Python form while another process holds the lock; the session end's UPDATE with the SQL)."""
    import sqlite3

    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE learning (pinned INTEGER, archived_at TEXT)")
    connection.execute("INSERT INTO learning VALUES (?, ?)", (pinned, archived_at))
    (sql,) = connection.execute(f"SELECT {confidence.EXEMPT_SQL} FROM learning").fetchone()
    assert bool(sql) == confidence.exempt(pinned=bool(pinned), archived=archived_at is not None)
