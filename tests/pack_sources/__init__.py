"""The shipped packs, written as readable pieces of regex (issues 24 and 37): the data files in
cortex_hooks/guard/packs/ are what this writes (`python tests/pack_sources` rewrites them;
tests/test_judgment.py holds the files to it). One module per pack, each with its policy (the
first line of its file), its rules and every rule's examples; each pack's labelled corpus is
tests/corpora/pack_NAME.toml."""

from __future__ import annotations

from types import ModuleType

PACKS = ("containers", "kubernetes", "infrastructure", "databases", "cloud", "publishing")
DEFAULTS = {"tool": "Bash", "target": "content", "action": "block", "context": None, "rewrite": None}


def records(name: str, policy: str, items: list[dict[str, object]]) -> str:
    """A pack's file: its policy line, then its learnings, in the shared format's canonical form."""
    from cortex_hooks.guard.packs import shared_format

    head = shared_format.PackPolicy.model_validate(
        {"kind": "policy", "pack": name, "policy": policy}, context={"pack": name}
    )
    learnings = [shared_format.SharedLearning.model_validate({**DEFAULTS, **item}) for item in items]
    return shared_format.dump(learnings, policy=head)


def modules() -> dict[str, tuple[ModuleType, str, str]]:
    """Each pack's name: the module that writes it, and the names of its policy and its rules."""
    import importlib

    from pack_sources import core

    found = {"core.git": (core, "GIT_POLICY", "git_pack"), "core.filesystem": (core, "FS_POLICY", "fs_pack")}
    for name in PACKS:
        found[name] = (importlib.import_module(f"pack_sources.{name}"), "POLICY", "rules")
    return found


def build() -> dict[str, str]:
    """Each pack's file, by name."""
    return {
        name: records(name, getattr(module, policy), getattr(module, rules))
        for name, (module, policy, rules) in modules().items()
    }
