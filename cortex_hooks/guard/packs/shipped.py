"""Packs (docs/guide/packs.md): shipped learnings that protect on day one, one data file per pack
(guard/packs/NAME.jsonl, in the shared format of guard.packs.shared_format). Pure: what a pack
holds, and what enabling or refreshing it changes in a scope, given what the scope holds."""

from __future__ import annotations

import hashlib
from importlib import resources

from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.guard import examples

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from cortex_hooks.guard.packs.shared_format import SharedLearning
    from cortex_hooks.stored import Learning

# What a pack learning is, whatever its file says: pinned (safety rules do not decay for lack
# of use), and trusted from the start; what it does is its file's `action` (block, ask
# or warn: docs/guide/actions.md) and `rewrite`.
DECLARED = (
    "anti_pattern",
    "correct_pattern",
    "regex",
    "tool",
    "target",
    "severity",
    "action",
    "rewrite",
    "context",
    "examples",
)


def names() -> list[str]:
    """The packs this version ships, by name (`core.git`, `core.filesystem`)."""
    folder = resources.files("cortex_hooks.guard").joinpath("packs")
    return sorted(
        item.name.removesuffix(".jsonl") for item in folder.iterdir() if item.name.endswith(".jsonl")
    )


def expand(name: str) -> list[str]:
    """A pack's name, or a group's (`core`: every `core.*` pack); CortexError when none."""
    shipped = names()
    found = [name] if name in shipped else [pack for pack in shipped if pack.startswith(name + ".")]
    if not found:
        raise CortexError(f"no pack named {name!r} (packs: {', '.join(shipped)})", USAGE)
    return found


def text(name: str) -> str:
    if name not in names():
        raise CortexError(f"no pack named {name!r} (packs: {', '.join(names())})", USAGE)
    return (
        resources.files("cortex_hooks.guard").joinpath("packs", f"{name}.jsonl").read_text(encoding="utf-8")
    )


def digest(content: str) -> str:
    """What says a pack changed: a hash of its file."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


def load(name: str) -> list[SharedLearning]:
    """A pack's learnings, validated by the shared format's model."""
    from cortex_hooks.guard.packs import shared_format

    return shared_format.read(text(name), f"pack {name}", pack=name)


def policy(name: str) -> str:
    """A pack's policy, in words: the first line of its file (validated with the rest)."""
    from cortex_hooks.guard.packs import shared_format

    records, said = shared_format.problems(text(name), f"pack {name}", pack=name)
    if said:
        raise CortexError(said[0], USAGE)
    return next(record.policy for record in records if isinstance(record, shared_format.PackPolicy))


def declared(record: SharedLearning) -> dict[str, object]:
    """The columns a pack learning takes from its pack (a new version changes these only)."""
    return {
        "anti_pattern": record.anti_pattern,
        "correct_pattern": record.correct_pattern,
        "regex": record.regex,
        "tool": record.tool,
        "target": record.target,
        "severity": record.severity,
        "action": record.action,
        "rewrite": record.rewrite,
        "context": record.context,
        "examples": examples.stored(record.examples),
    }


class Plan:
    """What enabling (or refreshing) one pack changes in one scope, by slug: learnings added,
    updated (their declaration changed, or they were archived by a disable), archived (gone from
    the pack). A learning's state — hits, confidence, muted — is never part of a change."""

    __slots__ = ("added", "archived", "unchanged", "updated")

    def __init__(self) -> None:
        self.added: list[SharedLearning] = []
        self.updated: list[tuple[int, SharedLearning]] = []
        self.archived: list[tuple[int, str]] = []
        self.unchanged = 0

    def changes(self) -> int:
        return len(self.added) + len(self.updated) + len(self.archived)


def plan(records: list[SharedLearning], stored: Mapping[str, Learning]) -> Plan:
    """The plan that brings a scope's learnings of one pack (`stored`, rows by slug) to `records`."""
    found = Plan()
    wanted = {record.id for record in records}
    for record in records:
        row = stored.get(record.id)
        if row is None:
            found.added.append(record)
            continue
        current = {column: getattr(row, column) for column in DECLARED}
        if current != declared(record) or row.archived_at is not None or not row.pinned:
            found.updated.append((row.id, record))
        else:
            found.unchanged += 1
    for slug, row in sorted(stored.items()):
        if slug not in wanted and row.archived_at is None:
            found.archived.append((row.id, slug))
    return found
