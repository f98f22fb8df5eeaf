"""Regexes for proposals, narrow by construction and verified against examples (SPEC §10.2).

Every literal is escaped; a command word is matched only at command position (the start of the
line or after an operator), an argument only as a whole word of that command's segment. A regex
is proposed only when it matches every failed example, no corrected one, none of the shipped
universal commands, and (for failed-then-fixed) hardly any of the project's successful calls.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

from cortex_hooks.redact import MASK

# A command word stands at the start of a line or after an operator, after the variables set
# for it (`PGPASSWORD=… psql`): their values are not part of the rule.
COMMAND_POSITION = r"(?:^|[;&|(\n])\s*(?:[A-Za-z_]\w*=(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"])*\s+)*"
# What a redacted secret stands for in a regex: any value. A regex never holds a secret, nor the
# mask that replaced it (which no command holds): it matches the command it came from (SPEC §19).
SECRET = ".+?"
WORD_END = r"(?=[\s;&|)]|$)"
TIMEOUT = 0.05  # seconds per search: the patterns are plain, the texts short
SUCCESS_LIMIT = 3  # matching this many of the project's successful calls refuses a regex...
SUCCESS_SHARE = 0.05  # ...and so does matching this share of them


def literal(text: str) -> str:
    """Text as a regex matches it: escaped, a redacted secret standing for any value."""
    return SECRET.join(re.escape(part) for part in text.split(MASK))


def command_word(word: str) -> str:
    """A regex for a command run as `word` (not `word3`, not as an argument of another)."""
    return f"{COMMAND_POSITION}{literal(word)}{WORD_END}"


def command_words(words: list[str]) -> str:
    """A regex for a command line beginning with these words, at command position."""
    return COMMAND_POSITION + r"\s+".join(literal(word) for word in words) + WORD_END


def argument(command: str, word: str) -> str:
    """A regex for `word` given as a whole argument to `command`, within one segment."""
    return rf"{COMMAND_POSITION}{literal(command)}\s(?:[^;&|\n]*\s)?{literal(word)}{WORD_END}"


def phrase(text: str) -> str:
    """A regex for a literal span of words (a backticked referent), on word boundaries."""
    return rf"(?<![\w-]){literal(text)}(?![\w-])"


@cache
def benign() -> tuple[str, ...]:
    """The shipped list of universal commands (capture/benign.txt)."""
    text = resources.files("cortex_hooks.capture").joinpath("benign.txt").read_text(encoding="utf-8")
    return tuple(line for line in text.splitlines() if line.strip() and not line.startswith("#"))


def compiled(pattern: str) -> Any:
    import regex

    return regex.compile(pattern)


def matches(pattern: Any, text: str) -> bool:
    """Whether the pattern matches a Bash command as PreToolUse would match a learning of target
    content: simple command by simple command, never inside data (guard.shell.bash_command)."""
    from cortex_hooks.guard.shell.bash_command import BashCommand, locate

    try:
        return locate(pattern, BashCommand(text), TIMEOUT, 0) is not None
    except TimeoutError:
        return True  # a pattern that cannot decide quickly is treated as too broad


def refusal(
    pattern: str,
    failed: list[str],
    corrected: list[str],
    successes: list[str] | None = None,
) -> str | None:
    """Why the regex may not be proposed, or None when it passes every check. `successes` are
    the project's successful calls of earlier sessions (None: not checked, for corrections)."""
    try:
        found = compiled(pattern)
    except Exception as error:  # regex.error and its kin: any failure to compile refuses
        return f"regex does not compile ({error})"
    if not all(matches(found, text) for text in failed):
        return "regex misses a failed example"
    if any(matches(found, text) for text in corrected):
        return "regex matches a corrected example"
    if any(matches(found, text) for text in benign()):
        return "regex matches a universal benign command"
    if successes:
        hits = sum(1 for text in successes if matches(found, text))
        if hits >= SUCCESS_LIMIT or hits >= SUCCESS_SHARE * len(successes):
            return f"regex matches {hits} of the project's {len(successes)} successful calls"
    return None


def duplicate(failed: list[str], active: list[tuple[int, str]]) -> int | None:
    """The id of an active learning whose regex already matches every failed example."""
    for learning_id, pattern in active:
        try:
            found = compiled(pattern)
        except Exception:  # a broken stored regex is doctor's business, not a duplicate
            continue
        if all(matches(found, text) for text in failed):
            return learning_id
    return None
