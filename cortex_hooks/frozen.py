"""Frozen records: a class of annotated fields is a tuple whose fields are read by name.

`class Point(Record)` with `x: int` and `y: int = 0` is, for mypy, a `typing.NamedTuple`; at run
time the same class body makes a plain tuple with a property per field, its defaults, its
methods, `_make`, `_asdict` and `_replace`. The hooks run on every tool call: `typing` costs
2.3 ms to import, a `typing.NamedTuple` class up to a millisecond more (each annotation compiled
as a forward reference), `collections.namedtuple` 65 µs a class; this, about 15 µs.
"""

from __future__ import annotations

from operator import itemgetter

__all__ = ["Record"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:

    class _Row(tuple):
        """What every record does: made by position or by name, read as a dict, shown by name."""

        __slots__ = ()  # each record class sets _fields and _field_defaults

        def __new__(cls, *values, **named):
            missing = cls._fields[len(values) :]
            if missing:
                defaults = cls._field_defaults
                try:
                    values += tuple(
                        named.pop(field) if field in named else defaults[field] for field in missing
                    )
                except KeyError as error:
                    raise TypeError(f"{cls.__name__} needs {error.args[0]}") from None
            if named or len(values) != len(cls._fields):
                raise TypeError(f"{cls.__name__} takes {', '.join(cls._fields)}")
            return tuple.__new__(cls, values)

        @classmethod
        def _make(cls, values):
            return tuple.__new__(cls, values)

        def _asdict(self):
            return dict(zip(self._fields, self, strict=True))

        def _replace(self, **changes):
            made = self._make(
                changes.pop(field, value) for field, value in zip(self._fields, self, strict=True)
            )
            if changes:
                raise ValueError(f"{type(self).__name__} has no field {', '.join(changes)}")
            return made

        def __repr__(self):
            shown = ", ".join(f"{field}={value!r}" for field, value in zip(self._fields, self, strict=True))
            return f"{type(self).__name__}({shown})"

        def __getnewargs__(self):
            return tuple(self)

    class _Fields(type):
        """`class X(Record)`: a `_Row` of X's annotated fields, with X's defaults and methods."""

        def __new__(cls, name, bases, namespace):
            if not bases:
                return super().__new__(cls, name, bases, namespace)
            fields = tuple(namespace.pop("__annotations__", ()))
            defaults = {field: namespace.pop(field) for field in fields if field in namespace}
            body = {field: property(itemgetter(index)) for index, field in enumerate(fields)}
            body.update(__slots__=(), _fields=fields, _field_defaults=defaults)
            return type(name, (_Row,), {**namespace, **body})

    class Record(metaclass=_Fields):
        pass
