"""cortex_hooks.frozen.Record: what typing.NamedTuple gives a class of annotated fields, without
typing (the hooks' records are declared this way)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from cortex_hooks.frozen import Record
from cortex_hooks.stored import Candidate, Learning, columns


class Point(Record):
    """A point, for the tests."""

    x: int
    y: int = 0
    label: str = "origin"

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


def test_fields_by_position_by_name_and_by_default() -> None:
    assert Point(1) == (1, 0, "origin")
    assert Point(1, 2, "a") == Point(x=1, y=2, label="a") == Point(1, label="a", y=2)
    assert (Point(3).x, Point(3).y, Point(3).label) == (3, 0, "origin")
    assert Point._fields == ("x", "y", "label")
    assert Point._field_defaults == {"y": 0, "label": "origin"}


def test_the_class_keeps_its_methods_properties_name_and_docstring() -> None:
    assert Point(1, 2).moved(3) == Point(4, 2)
    assert Point(-2, 3).norm == 5
    assert (Point.__name__, Point.__qualname__, Point.__module__) == ("Point", "Point", __name__)
    assert Point.__doc__ == "A point, for the tests."
    assert repr(Point(1)) == "Point(x=1, y=0, label='origin')"


@pytest.mark.parametrize(
    ("args", "named", "said"),
    [((), {}, "Point needs x"), ((1,), {"z": 2}, "Point takes x, y, label"), ((1, 2, "a", 4), {}, "takes")],
)
def test_a_wrong_call_is_refused(args: tuple[object, ...], named: dict[str, object], said: str) -> None:
    with pytest.raises(TypeError, match=said):
        Point(*args, **named)  # type: ignore[arg-type]


def test_it_is_frozen_and_a_tuple() -> None:
    point = Point(1)
    with pytest.raises(AttributeError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 2  # type: ignore[attr-defined]
    assert isinstance(point, tuple)
    assert hash(point) == hash((1, 0, "origin"))
    x, y, label = point
    assert (x, y, label) == (1, 0, "origin")


def test_asdict_replace_make_and_pickle() -> None:
    point = Point(1, 2)
    assert point._asdict() == {"x": 1, "y": 2, "label": "origin"}
    assert point._replace(label="b") == Point(1, 2, "b")
    with pytest.raises(ValueError, match="no field z"):
        point._replace(z=1)  # type: ignore[call-arg]
    assert Point._make([5, 6, "c"]) == Point(5, 6, "c")
    assert pickle.loads(pickle.dumps(point)) == point
    assert type(pickle.loads(pickle.dumps(point))) is Point


def test_the_store_selects_a_records_fields_in_order() -> None:
    assert columns(Candidate, "l") == "l.id, l.regex, l.tool, l.target, l.literals, l.rewrite"
    selected = columns(Learning, "l", confidence="c.confidence").split(", ")
    assert len(selected) == len(Learning._fields)
    assert "c.confidence AS confidence" in selected
    assert selected[0] == "l.id"


def test_declaring_records_imports_no_typing() -> None:
    program = "import sys, cortex_hooks.frozen, cortex_hooks.stored; print('typing' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
