"""The settings in force: defaults, or `.cortex/config.toml` beside the database (SPEC §7)."""

from __future__ import annotations

import os

from cortex_hooks import confidence

CONFIG_NAME = "config.toml"


class Settings:
    """Plain values, so the PreToolUse path never pays for pydantic when there is no config."""

    __slots__ = (
        "context_budget",
        "policy",
        "prune",
        "prune_rarely_used_accesses",
        "prune_rarely_used_days",
        "prune_unused_days",
        "regex_timeout",
        "regex_timeout_per_mib",
        "snapshot",
    )

    def __init__(
        self,
        *,
        policy: confidence.Policy = confidence.DEFAULT,
        regex_timeout: float = 0.05,
        regex_timeout_per_mib: float = 0.5,
        context_budget: int = 6000,
        snapshot: bool = True,
        prune: bool = True,
        prune_unused_days: int = 90,
        prune_rarely_used_days: int = 365,
        prune_rarely_used_accesses: int = 3,
    ) -> None:
        self.policy = policy
        self.regex_timeout = regex_timeout
        self.regex_timeout_per_mib = regex_timeout_per_mib
        self.context_budget = context_budget
        self.snapshot = snapshot
        self.prune = prune
        self.prune_unused_days = prune_unused_days
        self.prune_rarely_used_days = prune_rarely_used_days
        self.prune_rarely_used_accesses = prune_rarely_used_accesses


DEFAULT = Settings()


def for_database(database: str) -> Settings:
    """The settings of the project whose database this is; defaults when there is no config file."""
    path = os.path.join(os.path.dirname(os.path.abspath(database)), CONFIG_NAME)
    if not os.path.exists(path):
        return DEFAULT
    from cortex_hooks import config

    return config.load(path)
