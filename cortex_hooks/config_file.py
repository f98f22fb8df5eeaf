"""`.cortex/config.toml`, validated by pydantic into the Config in force (SPEC §7).

    [confidence]          # decimals, as shown everywhere
    start = 0.70
    floor = 0.30
    ceiling = 0.90
    boost = 0.10
    decay = 0.01
    block_gate = 0.40
    review_threshold = 0.40

    [regex]
    timeout = 0.05          # seconds per match, plus:
    timeout_per_mib = 0.5   # seconds per MiB of text matched

    [snapshot]
    enabled = true
    budget = 6000           # characters of SessionStart context (at most 9000)

    [pruning]
    enabled = true
    unused_days = 90
    rarely_used_days = 365
    rarely_used_accesses = 3

An invalid file is reported once on stderr and the defaults are used: a typo in a config file
must not switch the memory off.
"""

from __future__ import annotations

import sys
import tomllib
from functools import cache
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from cortex_hooks import confidence, config
from cortex_hooks.validation import explain


def _hundredths(value: object) -> int:
    hundredths = confidence.of_value(value)
    if not 0 <= hundredths <= 100:
        raise ValueError("must lie in [0, 1]")
    return hundredths


Hundredths = Annotated[int, BeforeValidator(_hundredths)]
_DEFAULT_POLICY = confidence.DEFAULT
_DEFAULT = config.DEFAULT


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfidenceSection(_Section):
    start: Hundredths = _DEFAULT_POLICY.start
    floor: Hundredths = _DEFAULT_POLICY.floor
    ceiling: Hundredths = _DEFAULT_POLICY.ceiling
    boost: Hundredths = _DEFAULT_POLICY.boost
    decay: Hundredths = _DEFAULT_POLICY.decay
    block_gate: Hundredths = _DEFAULT_POLICY.block_gate
    review_threshold: Hundredths = _DEFAULT_POLICY.review_threshold

    @model_validator(mode="after")
    def _ordered(self) -> ConfidenceSection:
        if not self.floor <= self.start <= self.ceiling:
            raise ValueError("floor <= start <= ceiling must hold")
        return self


class RegexSection(_Section):
    timeout: float = Field(default=_DEFAULT.regex_timeout, gt=0, le=60)
    timeout_per_mib: float = Field(default=_DEFAULT.regex_timeout_per_mib, ge=0, le=60)


class SnapshotSection(_Section):
    enabled: bool = _DEFAULT.snapshot
    budget: int = Field(default=_DEFAULT.context_budget, ge=500, le=9000)


class PruningSection(_Section):
    enabled: bool = _DEFAULT.prune
    unused_days: int = Field(default=_DEFAULT.prune_unused_days, ge=1)
    rarely_used_days: int = Field(default=_DEFAULT.prune_rarely_used_days, ge=1)
    rarely_used_accesses: int = Field(default=_DEFAULT.prune_rarely_used_accesses, ge=1)


class ConfigFile(_Section):
    confidence: ConfidenceSection = ConfidenceSection()
    regex: RegexSection = RegexSection()
    snapshot: SnapshotSection = SnapshotSection()
    pruning: PruningSection = PruningSection()

    def values(self) -> config.Config:
        return config.Config(
            policy=confidence.Policy(**self.confidence.model_dump()),
            regex_timeout=self.regex.timeout,
            regex_timeout_per_mib=self.regex.timeout_per_mib,
            context_budget=self.snapshot.budget,
            snapshot=self.snapshot.enabled,
            prune=self.pruning.enabled,
            prune_unused_days=self.pruning.unused_days,
            prune_rarely_used_days=self.pruning.rarely_used_days,
            prune_rarely_used_accesses=self.pruning.rarely_used_accesses,
        )


@cache
def load(path: str) -> config.Config:
    """The configuration of a config file; the defaults, reported once, when it is unreadable or invalid."""
    try:
        with open(path, "rb") as file:
            return ConfigFile.model_validate(tomllib.load(file)).values()
    except ValidationError as error:
        problem = explain(error)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        problem = str(error)
    print(f"cortex-hooks: ignoring invalid {path} ({problem}); using the defaults", file=sys.stderr)
    return config.DEFAULT
