"""The pieces the packs' regexes are written with. Each regex meets one simple command as the
command reader shows it (SPEC §13): its words joined by single spaces, quoted words as written, the
program by its base name, redirections as an operator word and its target (`2> /dev/null`). The
same text also comes as a whole pipeline (`git branch | cut -d ' ' -f 2`): a word here never holds
an unquoted `|`, so no rule reads past the command it begins at.

A brace, even `[{]`, is a literal the prefilter refuses (regex may read it as fuzzy matching):
`[{\x00]` is a class it reads, and a NUL never reaches a simple command's text."""

from __future__ import annotations

# One shell word as written: never an unquoted `|`; a `$( )` or backticks inside it (`$(docker ps
# -q)`) are part of the word, their words no options of the command.
T = r"""(?:"[^"]*"|'[^']*'|\$\([^()]*\)|`[^`]*`|[^\s"'|(`])+"""
Q = r"""["']?"""  # an optional quote around a word
END = r"""["']?(?=\s|$)"""  # the end of a word
# Words are joined by blanks on the command's line: the scans stop at a newline, where a heredoc's
# body begins (the reader shows it after the command it feeds, as data).
SP = r"[ \t]+"
ARGS = r"(?:" + SP + T + r")*?"  # any words before (in a lookahead)
# Any words, outside a lookahead: the reader joins words with one space, and a fixed blank keeps
# the repeat from looking ambiguous to the check of nested quantifiers (guard.unmatchable).
WORDS = r"(?:[ \t]" + T + r")*?"
OPTS = r"(?:" + SP + r"(?!--(?:\s|$))" + T + r")*?"  # any words before, none of them `--`


def has(opt: str) -> str:
    """An option somewhere among the arguments before `--` (after it, `-rf` is a file's name)."""
    return r"(?=" + OPTS + SP + Q + opt + END + r")"


def hasnt(opt: str) -> str:
    return r"(?!" + OPTS + SP + Q + opt + END + r")"


def any_word(word: str) -> str:
    """A word anywhere among the arguments (an operand, `--` or not)."""
    return r"(?=" + ARGS + SP + Q + word + END + r")"


def no_word(word: str) -> str:
    return r"(?!" + ARGS + SP + Q + word + END + r")"


def lacks(word: str) -> str:
    """No such word on the command's line (a quoted one counts too): for --help and --dry-run,
    where a cheaper scan than `hasnt`'s word by word is close enough, and compiles in less."""
    return r"(?![^|\n]*?[ \t]" + Q + r"(?:" + word + r")" + END + r")"


HELP = lacks(r"--help|-h|-help|help")


def short(letters: str, valued: str = "") -> str:
    """A cluster of short options holding one of these letters (`-fd`, `-xdf`); `valued`: the
    letters whose option takes a value, so that what follows one is its value, not options
    (`git checkout -bfeature` is `-b feature`, not `-f`)."""
    before = r"[a-zA-Z]" if not valued else r"(?:(?![" + valued + r"])[a-zA-Z])"
    return r"-" + before + r"*[" + letters + r"][a-zA-Z]*"


# An option word, maybe with its value after it (`-n prod`, `--context x`, `--force`): what may
# stand between a program and its subcommand, or between a subcommand and the word that matters.
OPTION = r"""["']?-[^\s|]*(?:[ \t]+(?!-)""" + T + r")?"


def program(*names: str) -> str:
    """A simple command run by one of these programs (as the reader names it: its base name)."""
    return r"^(?:" + "|".join(names) + r")(?=\s|$)"


def then(word: str) -> str:
    """The next word that is no option (a subcommand, a kind), past options and their values."""
    return r"(?:" + SP + OPTION + r")*?" + SP + Q + r"(?:" + word + r")" + END


def flag(option: str) -> str:
    """An option among the arguments, `--opt` or `--opt=VALUE`, before `--`."""
    return has(r"(?:" + option + r")(?:=\S*)?")


def no_flag(option: str) -> str:
    return lacks(r"(?:" + option + r")(?:=\S*)?")


def after(*names: str) -> str:
    """Right after one of these program names (a lookbehind of each: `re`, which the prefilter
    parses patterns with, takes only a fixed width in one)."""
    return r"(?:" + "|".join(r"(?<=" + name + r")" for name in names) + r")"
