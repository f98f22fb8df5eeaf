"""What a replay counts: per learning the calls it matched and what it answered each, what the
agent did after its catches (docs/guide/outcomes.md), with its latest examples (redacted), and per
call what the guard answered; merged across transcripts."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from cortex_hooks.guard import matching
from cortex_hooks.redact import redact  # the one redactor (docs/guide/secrets.md)
from cortex_hooks.transcripts import call_log

if TYPE_CHECKING:
    from cortex_hooks.guard.catch_outcomes import Watch
    from cortex_hooks.replay.worker_rules import Judged

EXAMPLES = 3  # per learning and answer
SHOWN = 300  # characters of a call kept in an example
ANSWERS = ("deny", "ask", "rewrite", "warn")
Key = tuple[str, int]  # a rule: (scope, learning id), or replay.rules.BUILT_IN


class Tally:
    """Counts and examples, small whatever the history: merged from one per transcript."""

    __slots__ = ("answers", "calls", "examples", "learnings", "outcomes", "problems", "transcripts")

    def __init__(self) -> None:
        self.transcripts = 0
        self.calls = 0
        self.answers: Counter[str] = Counter()  # per call: deny, ask, rewrite, warn, allow
        self.learnings: dict[Key, Counter[str]] = {}  # per rule: matched and each answer
        self.examples: dict[tuple[Key, str], list[dict[str, Any]]] = {}
        # per rule: what the agent did after its catches (guard.catch_outcomes): followed, retried,
        # asked; the latest retried calls are kept among the examples, as answer "retried"
        self.outcomes: dict[Key, Counter[str]] = {}
        self.problems: list[tuple[str, str]] = []  # (path, what was left out)

    def count(self, call: call_log.Call, judged: Judged) -> None:
        self.calls += 1
        self.answers[judged.answer] += 1
        for key, answer, corrected in judged.answers:
            counts = self.learnings.setdefault(key, Counter())
            counts["matched"] += 1
            counts[answer] += 1
            kept = self.examples.get((key, answer), [])
            if len(kept) < EXAMPLES or call.at > kept[0]["at"]:
                self._keep(key, answer, _example(call, answer, corrected))

    def settle(self, watch: Watch) -> None:
        """The outcomes the transcript decided (the catches left open stay unknown)."""
        for catch, (result, event) in watch.decided:
            key: Key = catch.key  # type: ignore[assignment]  # replay's catches are keyed by their rule
            self.outcomes.setdefault(key, Counter())[result] += 1
            source = event.source if event is not None else None
            if result == "retried" and isinstance(source, call_log.Call):
                self._keep(key, "retried", _example(source, "retried", None))

    def _keep(self, key: Key, answer: str, example: dict[str, Any]) -> None:
        kept = self.examples.setdefault((key, answer), [])
        if len(kept) < EXAMPLES or example["at"] > kept[0]["at"]:
            kept.append(example)
            kept.sort(key=lambda one: one["at"])
            del kept[:-EXAMPLES]

    def seal(self) -> None:
        """Redact and cut the examples kept (once per transcript, not per call: a learning that
        matches a thousand calls is redacted three times)."""
        for examples in self.examples.values():
            for example in examples:
                if example.pop("raw", False):
                    example["call"] = shown(example["call"])
                    if example["corrected"] is not None:
                        example["corrected"] = shown(example["corrected"])

    def merge(self, other: Tally) -> None:
        self.transcripts += other.transcripts
        self.calls += other.calls
        self.answers.update(other.answers)
        for rule, counts in other.learnings.items():
            self.learnings.setdefault(rule, Counter()).update(counts)
        for rule, counts in other.outcomes.items():
            self.outcomes.setdefault(rule, Counter()).update(counts)
        for pair, examples in other.examples.items():
            kept = self.examples.setdefault(pair, [])
            kept += examples
            kept.sort(key=lambda example: (example["at"], example["transcript"], example["line"]))
            del kept[:-EXAMPLES]
        self.problems += other.problems


def _example(call: call_log.Call, answer: str, corrected: str | None) -> dict[str, Any]:
    """One call as a report shows it: the command (or the compact input), redacted and cut
    once sealed."""
    command = call.input.get("command")
    text = command if call.tool == matching.READ_TOOL and isinstance(command, str) else None
    return {
        "answer": answer,
        "tool": call.tool,
        "call": text if text is not None else matching.compact(call.input)[: SHOWN * 8],
        "corrected": corrected,
        "raw": True,  # not redacted yet: see Tally.seal
        "session": call.session,
        "at": call.at,
        "transcript": call.path,
        "line": call.line,
    }


def shown(text: str) -> str:
    """A text redacted (before it is cut: a secret cut in two would no longer be seen) and cut."""
    cleaned = redact(text[: SHOWN * 8])
    return cleaned if len(cleaned) <= SHOWN else cleaned[: SHOWN - 1] + "…"
