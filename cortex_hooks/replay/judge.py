"""The PreToolUse decision on one past tool call, read only: the hook's own evaluation
(guard.matching, guard.rewrite, guard.verdict), with the learnings held in memory.

The prefilter is the hook's (guard.prefilter: the same keys and literals, looked up in a dict
instead of the database's index); like the hook's, it only ever lets too many learnings through,
and the regex decides. Nothing is boosted between calls: every call is judged on the learnings
as they are now.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cortex_hooks.guard import matching, prefilter, rewrite, verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.confidence import Policy


class Learned(NamedTuple):
    """One learning replayed: its row as the hook reads it (id, regex, tool, target, literals,
    action, rewrite, confidence, the texts), its prefilter keys, and its scope's settings."""

    row: dict[str, Any]
    keys: tuple[str, ...]
    scope: str
    policy: Policy
    timeouts: tuple[float, float]  # the regex timeout and its growth per MiB


class Judged(NamedTuple):
    """What one call got: each matching learning's own answer (by its index), the call's answer
    (deny, ask, rewrite, warn or none) and, for a rewrite, the command that would have run."""

    answers: list[tuple[int, str, str | None]]  # (learning, answer, its corrected command)
    answer: str
    corrected: str | None


class Guard:
    """The learnings replayed, indexed by prefilter key, per tool (as the hook's candidate query
    drops the keys of learnings for other tools before it reads a learning)."""

    def __init__(self, learned: list[Learned]) -> None:
        self.learned = learned
        self._tools: dict[str, _Index] = {}

    def _index(self, tool: str) -> _Index:
        index = self._tools.get(tool)
        if index is None:
            index = self._tools[tool] = _Index(
                [
                    (number, one.keys)
                    for number, one in enumerate(self.learned)
                    # as the hook's candidate query: no regex, or muted, never matches
                    if one.row["regex"]
                    and not one.row.get("muted")
                    and matching.tool_accepts(one.row["tool"], tool)
                ]
            )
        return index

    def judge(self, tool: str, tool_input: dict[str, Any]) -> Judged:
        """The decision PreToolUse would make on this call (nothing recorded)."""
        if matching.mistyped(tool, tool_input):
            return Judged([], "none", None)  # the hook refuses such a payload: no decision
        hits, answers = self._hits(tool, tool_input, corrections=True)
        decided = verdict.decide(hits)
        if decided is None:
            return Judged([], "none", None)
        if decided.answer == "rewrite":
            corrected_input = {**tool_input, "command": decided.corrected}
            again, _ = self._hits(tool, corrected_input, corrections=False)
            decided = verdict.recheck(decided, again, tool_input, str(tool_input.get("command")))
        corrected = decided.corrected if decided.updated_input is not None else None
        return Judged(answers, decided.answer, corrected)

    def _hits(
        self, tool: str, tool_input: dict[str, Any], *, corrections: bool
    ) -> tuple[list[verdict.Hit], list[tuple[int, str, str | None]]]:
        texts = {target: matching.fragments(target, tool, tool_input) for target in matching.TARGETS}
        looked = {target: prefilter.lookup(target, tool, texts[target]) for target in matching.TARGETS}
        subjects: dict[str, Any] = {}
        hits: list[verdict.Hit] = []
        answers: list[tuple[int, str, str | None]] = []
        for number in self._index(tool).candidates(looked):
            one = self.learned[number]
            row = one.row
            letter, fragments = looked[row["target"]]
            if not prefilter.satisfied(row["literals"], fragments, loose=letter == prefilter.LOOSE):
                continue
            target = row["target"]
            if target not in subjects:
                subjects[target] = matching.subject(target, tool, texts[target])
            try:
                where = matching.where(row["regex"], subjects[target], *one.timeouts)
            except matching.Unusable:
                continue  # the hook skips it too (and says so on stderr)
            if where is None:
                continue
            correction = None
            command = tool_input.get("command")
            if (
                corrections
                and row["rewrite"] is not None
                and tool == matching.READ_TOOL
                and isinstance(command, str)
            ):
                correction = rewrite.correct(
                    row["regex"],
                    row["rewrite"],
                    command,
                    subjects[target],
                    index=where,
                    timeouts=one.timeouts,
                )
            hit = verdict.Hit.of(row, scope=one.scope, policy=one.policy, correction=correction)
            hits.append(hit)
            answers.append((number, verdict.answer(hit), correction.command if correction else None))
        return hits, answers


class _Index:
    """One tool's learnings by prefilter key, the gram sizes of each key prefix, and the keys of
    each letter (for texts too long to cut into grams)."""

    __slots__ = ("by_key", "letter_keys", "sizes")

    def __init__(self, keyed: list[tuple[int, tuple[str, ...]]]) -> None:
        self.by_key: dict[str, list[int]] = {}
        self.sizes: dict[str, set[int]] = {}
        self.letter_keys: dict[str, list[str]] = {}
        for number, keys in keyed:
            for key in keys:
                self.by_key.setdefault(key, []).append(number)
                self.letter_keys.setdefault(key[0], []).append(key)
                if key[1] != "*":
                    self.sizes.setdefault(key[:2], set()).add(len(key) - 2)

    def candidates(self, looked: dict[str, tuple[str, list[str]]]) -> list[int]:
        found: set[int] = set()
        for letter, fragments in {pair[0]: pair[1] for pair in looked.values()}.items():
            for key in self._keys(letter, fragments):
                found.update(self.by_key[key])
        return sorted(found)  # in the order the learnings were given: project first, by id

    def _keys(self, letter: str, fragments: list[str]) -> set[str] | list[str]:
        """The keys of this letter these texts hold, as the hook looks them up: every gram of a
        short text (of the sizes some key has), the keys themselves in a long one."""
        if sum(map(len, fragments)) > prefilter.SCAN_ABOVE:
            return prefilter.present_keys(dict.fromkeys(self.letter_keys.get(letter, ())), fragments)
        grams = {letter + "*"}
        for mode in ("=", "~"):
            prefix = letter + mode
            for size in self.sizes.get(prefix, ()):
                for fragment in fragments:
                    text = fragment.lower() if mode == "~" else fragment
                    grams.update(prefix + text[i : i + size] for i in range(len(text) - size + 1))
        return grams & self.by_key.keys()


def grams(learned: list[Learned]) -> tuple[list[str], list[str]] | None:
    """The loosened grams (exact, folded) a transcript line must hold one of for one of these
    learnings to match a call in it, or None when a line cannot be passed over unread: only
    learnings of Bash commands (a `*` key, a folded gram that is not ASCII, or learnings of
    other tools read every call)."""
    exact: list[str] = []
    folded: list[str] = []
    for one in learned:
        row = one.row
        if not row["regex"] or row.get("muted"):
            continue
        if row["tool"] != matching.READ_TOOL or row["target"] not in ("content", "raw"):
            return None
        for key in one.keys:
            if key[0] != prefilter.LOOSE:
                continue
            gram = key[2:]
            if key[1] == "*" or not gram or (key[1] == "~" and not gram.isascii()):
                return None
            (folded if key[1] == "~" else exact).append(gram)
    if len(exact) + len(folded) > 64:
        return None  # so many that nearly every line holds one: parse them all
    return sorted(set(exact)), sorted(set(folded))
