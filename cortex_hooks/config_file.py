"""`.cortex/config.toml`, validated by pydantic into the Config in force (docs/reference/configuration.md).

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

    [surface]
    enabled = true          # SessionEnd refreshes .claude/cortex-memory.local.md
    budget = 2000           # characters between its markers (at most 8000)

    [embeddings]
    backend = "auto"        # "auto" | "voyage" | "local" | "off" (docs/guide/embeddings.md)
    [half_lives]            # days a memory's confidence takes to halve, by type (docs/guide/aging.md)
    decision = 180          # "none": never decays
    pattern = 90
    gotcha = 60
    context = 30
    progress = 7
    architecture = "none"
    code_description = "none"
    code = "none"
    [capture]
    enabled = true          # SessionEnd scans the transcript for proposals (docs/guide/capture.md)
    llm = "off"             # "off" or "claude-cli" (opt-in model drafting, docs/guide/capture.md)

Every value is bounded to what the code can compute and what makes sense beside the others, so a
file that validates never fails a hook later or silently switches a rule off:

    confidence      decimals in [0, 1] with at most two decimals, and
                    floor < start <= ceiling;
                    0 < boost < ceiling - floor, 0 < decay < ceiling - floor;
                    floor <= block_gate < ceiling (auto-block denies above the gate: at or above
                    the ceiling it never would);
                    floor <= review_threshold < start (below the floor nothing is ever reviewed;
                    at or above the start every new learning is, at once)
    regex           0 < timeout <= 60, 0 <= timeout_per_mib <= 60 (seconds, finite)
    snapshot        500 <= budget <= 9000 (characters; hook text stays under 9,500)
    pruning         1 <= unused_days <= rarely_used_days <= 36,500 (100 years: the cut-off dates
                    stay computable; unused_days above rarely_used_days would never decide);
                    1 <= rarely_used_accesses <= 1,000,000
    surface         500 <= budget <= 8000 (characters; 8,000 is about 2,000 tokens read at every
                    session start; below 500 the heading leaves room for hardly an entry)
    half_lives      0.01 <= days <= 36,500, or "none" (the curve's times stay computable)

The file is read only when it is a regular file (a FIFO or a link to /dev/zero is not waited
for, see cortex_hooks.regular_file) of at most 64 KiB of UTF-8 (a leading byte-order mark is
allowed). An invalid file is reported once on stderr and the defaults are used: a typo in a
config file must not switch the memory off. `read` is the one reading and validation, for the
hooks (through `load`) and `doctor` alike.
"""

from __future__ import annotations

import sys
import tomllib
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from cortex_hooks import confidence, config, regular_file
from cortex_hooks.validation import explain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.notes import Notes

MAX_BYTES = 64 * 1024
MAX_DAYS = 36_500
MAX_ACCESSES = 1_000_000


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
    def _coherent(self) -> ConfidenceSection:
        if not self.floor < self.start <= self.ceiling:
            raise ValueError("floor < start <= ceiling must hold")
        span = self.ceiling - self.floor
        for name, step in (("boost", self.boost), ("decay", self.decay)):
            if not 0 < step < span:
                raise ValueError(f"{name} must lie above 0 and below ceiling - floor")
        if not self.floor <= self.block_gate < self.ceiling:
            raise ValueError("block_gate must lie in [floor, ceiling): at the ceiling nothing ever blocks")
        if not self.floor <= self.review_threshold < self.start:
            raise ValueError(
                "review_threshold must lie in [floor, start): at the start every new learning awaits review"
            )
        return self


class RegexSection(_Section):
    timeout: float = Field(default=_DEFAULT.regex_timeout, gt=0, le=60, allow_inf_nan=False)
    timeout_per_mib: float = Field(default=_DEFAULT.regex_timeout_per_mib, ge=0, le=60, allow_inf_nan=False)


class SnapshotSection(_Section):
    enabled: bool = _DEFAULT.snapshot
    budget: int = Field(default=_DEFAULT.context_budget, ge=500, le=9000)


class PruningSection(_Section):
    enabled: bool = _DEFAULT.prune
    unused_days: int = Field(default=_DEFAULT.prune_unused_days, ge=1, le=MAX_DAYS)
    rarely_used_days: int = Field(default=_DEFAULT.prune_rarely_used_days, ge=1, le=MAX_DAYS)
    rarely_used_accesses: int = Field(default=_DEFAULT.prune_rarely_used_accesses, ge=1, le=MAX_ACCESSES)

    @model_validator(mode="after")
    def _ordered(self) -> PruningSection:
        if self.unused_days > self.rarely_used_days:
            raise ValueError("unused_days <= rarely_used_days must hold")
        return self


class SurfaceSection(_Section):
    enabled: bool = _DEFAULT.surface
    budget: int = Field(default=_DEFAULT.surface_budget, ge=500, le=8000)


class EmbeddingsSection(_Section):
    # auto: Voyage AI when VOYAGE_API_KEY is set, else the local model when the extra is
    # installed, else off (keyword recall).
    backend: Literal["auto", "voyage", "local", "off"] = "auto"


def _half_life(value: object) -> object:
    return None if value == "none" else value


HalfLife = Annotated[
    Annotated[float, Field(ge=0.01, le=MAX_DAYS, allow_inf_nan=False, strict=True)] | None,
    BeforeValidator(_half_life),
]
_HALF = config.HALF_LIVES


class HalfLivesSection(_Section):
    architecture: HalfLife = _HALF["architecture"]
    decision: HalfLife = _HALF["decision"]
    pattern: HalfLife = _HALF["pattern"]
    gotcha: HalfLife = _HALF["gotcha"]
    progress: HalfLife = _HALF["progress"]
    context: HalfLife = _HALF["context"]
    code_description: HalfLife = _HALF["code_description"]
    code: HalfLife = _HALF["code"]


class CaptureSection(_Section):
    enabled: bool = _DEFAULT.capture
    llm: Literal["off", "claude-cli"] = "off"


class ConfigFile(_Section):
    confidence: ConfidenceSection = ConfidenceSection()
    regex: RegexSection = RegexSection()
    snapshot: SnapshotSection = SnapshotSection()
    pruning: PruningSection = PruningSection()
    surface: SurfaceSection = SurfaceSection()
    embeddings: EmbeddingsSection = EmbeddingsSection()
    half_lives: HalfLivesSection = HalfLivesSection()
    capture: CaptureSection = CaptureSection()

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
            surface=self.surface.enabled,
            surface_budget=self.surface.budget,
            embeddings=self.embeddings.backend,
            half_lives=self.half_lives.model_dump(),
            capture=self.capture.enabled,
            capture_llm=self.capture.llm,
        )


_READ: dict[str, tuple[bytes, config.Config, str | None]] = {}  # path -> its content and what it says
_REPORTED: set[tuple[str, bytes]] = set()


def load(path: str, notes: Notes | None = None) -> config.Config:
    """The configuration of a config file; the defaults when it is unreadable or invalid, said in
    `notes`, else on stderr once per content of the file.

    The file is read at every call (at most 64 KiB) and parsed again only when its bytes changed:
    a long-running process (the MCP server) sees a config.toml edited between two calls, and one
    edited twice within a clock tick with the same size too, which a cache keyed by stat would miss.
    """
    try:
        content: bytes | None = regular_file.read_small(path, MAX_BYTES)
    except (OSError, ValueError):
        content = None  # read() says why
    kept = _READ.get(path)
    if content is not None and kept is not None and kept[0] == content:
        values, problem = kept[1], kept[2]
    else:
        values, problem = read(path) if content is None else parse(content)
        if content is not None:
            _READ[path] = (content, values, problem)
    if problem is not None:
        text = f"ignoring invalid {path} ({problem}); using the defaults"
        if notes is not None:
            if text not in notes.said:
                notes.add(text)
            _REPORTED.add((path, content or b""))
        elif (path, content or b"") not in _REPORTED:
            _REPORTED.add((path, content or b""))
            print(f"cortex-hooks: {text}", file=sys.stderr)
    return values


def forget() -> None:
    """Forget every file read and every problem reported, as a new process would (tests)."""
    _READ.clear()
    _REPORTED.clear()


def read(path: str) -> tuple[config.Config, str | None]:
    """The values of a config file and None; or the defaults and what is wrong with it, in words."""
    try:
        content = regular_file.read_small(path, MAX_BYTES)
    except OSError as error:
        return config.DEFAULT, error.strerror or str(error)
    except ValueError as error:  # a path open() refuses (a NUL byte)
        return config.DEFAULT, str(error)
    return parse(content)


def parse(content: bytes) -> tuple[config.Config, str | None]:
    """The values of a config file's content and None; or the defaults and what is wrong, in words."""
    try:
        text = content.decode("utf-8").removeprefix("\ufeff")  # a BOM, as some editors write
        return ConfigFile.model_validate(tomllib.loads(text)).values(), None
    except ValidationError as error:
        problem = explain(error)
    except UnicodeDecodeError as error:
        problem = f"not UTF-8 (byte {error.start})"
    except tomllib.TOMLDecodeError as error:
        problem = f"not TOML: {error}"
    except RecursionError:
        problem = "not TOML: nested too deeply"
    return config.DEFAULT, problem
