"""Commands named in prose, pure (SPEC §18): which words of a sentence of Claude Code's memory name
a command ("never run npm install here" names `npm install`), and the regex of such a command.

A command is named in backticks, or starts with a program of capture/commands.txt or of the
project's own successful calls (`known`) and goes on with up to MOST_WORDS of its subcommands and
options, never English glue ("in", "for", "the" …); a program that is also an English word
(`make`, `find`) names a command only after a run verb or with an option. An option alone
(`--no-verify`) is named too. Wrappers the command reader removes (`sudo`, `env`) never are: no
learning can match them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources

from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.capture import segments

MOST_WORDS = 4  # of a command named without backticks
OPTION = re.compile(r"--?[A-Za-z][\w-]*(?:=\S+)?")
_PROGRAM = re.compile(r"(?:\./|[\w.-]+/)*[A-Za-z_][\w.+-]*")
_WORD = re.compile(r"[\w./:@=+-]+")
_ARTICLE = re.compile(r"(?i)^(?:the|a|an|any)\s+")
_GLUE = frozenset(
    """in on for with when unless here there directly anymore again the a an to from this that it as
    because or and but since before after inside outside without within across by at of if while
    ever locally globally manually yourself please instead rather than over against into onto until
    till during through via like about around except between under upon toward towards near is are
    was be""".split()  # noqa: SIM905
)


def backticked(text: str) -> tuple[str, str] | None:
    """A text that opens with a backticked command (an article before it allowed): the command and
    the rest of the text; None for any other text."""
    text = _ARTICLE.sub("", text.strip())
    end = text.find("`", 1) if text.startswith("`") else -1
    if end < 2:
        return None
    span = text[1:end].strip()
    first = segments.words(span)[:1]
    if (
        not first
        or not (OPTION.fullmatch(first[0]) or _PROGRAM.fullmatch(first[0]))
        or first[0] in _wrappers()
    ):
        return None
    return span, text[end + 1 :]


def named(text: str, known: Callable[[str], bool], *, runs: bool) -> str | None:
    """The command a text opens with, by its words (`runs`: a run verb stood before it), or None."""
    words = _words(text)
    if not words:
        return None
    first = words[0]
    if OPTION.fullmatch(first):
        return first
    plain, english = _programs()
    if first.lower() in plain | english:
        first = words[0] = first.lower()  # "NPM" in prose is the program npm
    found = first in plain or known(first) or (first.startswith("./") and len(first) > 2)
    if not found and first in english:
        found = runs or any(OPTION.fullmatch(word) for word in words[1:])
    return " ".join(words) if found and first not in _wrappers() else None


def loosely(text: str) -> str | None:
    """The words a text opens with as a command, whatever they are (the right way a rule names:
    an example its regex must not match)."""
    span = _ARTICLE.sub("", text.strip())
    if span.startswith("`"):
        end = span.find("`", 1)
        return (span[1:end].strip() or None) if end > 1 else None
    return " ".join(_words(text)) or None


def regex_for(command: str) -> str | None:
    """The regex of a forbidden command: an option alone, anywhere in a command; a program with
    the words that follow it, then its options in order (each anywhere after those words)."""
    words = segments.words(command)
    if not words:
        return None
    if OPTION.fullmatch(words[0]):
        return synth.phrase(words[0]) if len(words) == 1 else None
    lead = next((index for index, word in enumerate(words) if word.startswith("-")), len(words))
    pattern = synth.COMMAND_POSITION + r"\s+".join(re.escape(word) for word in words[:lead])
    for option in words[lead:]:
        pattern += r"\s(?:[^;&|\n]*\s)?" + re.escape(option)
    return pattern + synth.WORD_END


def _words(text: str) -> list[str]:
    """A program's name and up to MOST_WORDS of its words: subcommands and options, until glue
    or a punctuation mark."""
    words: list[str] = []
    for raw in _ARTICLE.sub("", text.strip()).split():
        word = raw.rstrip(".,;:!)")
        if not _WORD.fullmatch(word) or (words and not _argument(word)):
            break
        words.append(word)
        if len(words) == MOST_WORDS or word != raw:
            break
    return words


def _argument(word: str) -> bool:
    """A word that can follow a program in a rule: a subcommand or an option, never English glue."""
    return bool(OPTION.fullmatch(word)) or (
        word.lower() not in _GLUE and word[:1].isalnum() and word.islower()
    )


@cache
def _programs() -> tuple[frozenset[str], frozenset[str]]:
    """The shipped program names (capture/commands.txt): plain ones, and those that are English too."""
    text = resources.files("cortex_hooks.capture").joinpath("commands.txt").read_text(encoding="utf-8")
    plain: set[str] = set()
    english: set[str] = set()
    section = "plain"
    for raw in text.splitlines():
        name = raw.strip()
        if name == "[english]":
            section = "english"
        elif name and not name.startswith("#"):
            (english if section == "english" else plain).add(name)
    return frozenset(plain), frozenset(english)


@cache
def _wrappers() -> frozenset[str]:
    from cortex_hooks.guard.shell.programs import WRAPPERS

    return WRAPPERS
