"""Rendering pydantic validation errors once, as one line, for the CLI and the hooks alike."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from cortex_hooks.errors import USAGE, CortexError


def explain(error: ValidationError, *, most: int | None = None, whole: str = "value") -> str:
    """A ValidationError as one line of `field: message` parts, the field named as pydantic does
    (`whole`: the name of a problem of the value as a whole); the first `most` of them, if given."""
    parts = []
    for problem in error.errors(include_url=False)[:most]:
        where = ".".join(str(part) for part in problem["loc"]) or whole
        message = str(problem["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def validated(model: type[BaseModel], data: Any, what: str, code: int = USAGE, context: Any = None) -> Any:
    """`model` validated from data (its validators given `context`), or CortexError naming every
    offending field."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as error:
        raise CortexError(f"{what}: {explain(error)}", code) from None
