"""The configuration in force: plain values, the defaults or those of `.cortex/config.toml`.

The file itself is read and validated by cortex_hooks.config_file; location.config_for finds it.
"""

from __future__ import annotations

from cortex_hooks import confidence

# Half-lives in days by type; None: never decays (configurable: `[half_lives]` in config.toml).
HALF_LIVES: dict[str, float | None] = {
    "architecture": None,
    "decision": 180.0,
    "pattern": 90.0,
    "gotcha": 60.0,
    "context": 30.0,
    "progress": 7.0,
    "code_description": None,
    "code": None,
}


class Config:
    """Plain values, so the PreToolUse path never pays for pydantic when there is no config."""

    __slots__ = (
        "capture",
        "capture_llm",
        "context_budget",
        "embeddings",
        "half_lives",
        "policy",
        "prune",
        "prune_rarely_used_accesses",
        "prune_rarely_used_days",
        "prune_unused_days",
        "regex_timeout",
        "regex_timeout_per_mib",
        "snapshot",
        "surface",
        "surface_budget",
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
        surface: bool = True,
        surface_budget: int = 2000,
        embeddings: str = "auto",
        half_lives: dict[str, float | None] | None = None,
        capture: bool = True,
        capture_llm: str = "off",
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
        self.surface = surface  # SessionEnd writes the push surface (docs/guide/surface.md)
        self.surface_budget = surface_budget
        self.embeddings = embeddings  # the backend setting of semantic recall (docs/guide/embeddings.md)
        # days per memory type, None: never decays (docs/guide/aging.md; cortex_hooks.memory.decay)
        self.half_lives = dict(HALF_LIVES if half_lives is None else half_lives)
        self.capture = capture  # SessionEnd scans the transcript for proposals (docs/guide/capture.md)
        self.capture_llm = capture_llm  # "off" or "claude-cli" (docs/guide/capture.md)


DEFAULT = Config()
