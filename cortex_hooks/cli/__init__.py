"""The `cortex-hooks` management CLI: argument parsing and dispatch, behind the error boundary."""

from __future__ import annotations

import argparse
import io
import re
import sys
from typing import NoReturn

from cortex_hooks import __version__, boundary
from cortex_hooks.errors import USAGE, CortexError


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one `cortex-hooks:` line and exit 2, like every other error,
    and a mistyped command or option is answered with the one meant (`did you mean …?`)."""

    def error(self, message: str) -> NoReturn:
        invalid = re.fullmatch(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)", message)
        if invalid is not None:
            import difflib  # only for a mistake: a command that parses pays nothing for it

            choices = re.findall(r"'([^']*)'", invalid[3])
            meant = difflib.get_close_matches(invalid[2], choices, n=1, cutoff=0.6)
            if meant:
                message = f"argument {invalid[1]}: invalid choice: {invalid[2]!r}: did you mean {meant[0]}?"
        raise CortexError(f"{message} (see {self.prog} --help)", USAGE)

    def parse_known_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        try:
            parsed, extras = super().parse_known_args(args, namespace)
        except CortexError:
            self._suggest(args or [])
            raise
        self._suggest(extras)
        return parsed, extras

    def _suggest(self, words: list[str]) -> None:
        """A mistyped option among the words, answered with the option meant (argparse would say
        a required option is missing, or an argument is unrecognized)."""
        known = list(self._option_string_actions)
        for word in words:
            if word == "--":
                return
            option = re.fullmatch(r"(--?[A-Za-z][\w-]*)(=.*)?", word)
            if option is None or any(name.startswith(option[1]) for name in known):
                continue
            import difflib  # only for an option this parser does not know

            meant = difflib.get_close_matches(option[1], known, n=1, cutoff=0.7)
            if meant:
                raise CortexError(
                    f"unrecognized option {option[1]}: did you mean {meant[0]}? (see {self.prog} --help)",
                    USAGE,
                )


def main(argv: list[str] | None = None) -> int:
    _write_utf8()
    return boundary.guarded(lambda: _dispatch(sys.argv[1:] if argv is None else argv))


def _write_utf8() -> None:
    """Stored text is Unicode whatever the locale: under LC_ALL=C (and PYTHONUTF8=0) Python's
    streams are ASCII, and the first stored "é" would end a listing in an internal error."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and not stream.closed:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")


# Each command's module, imported only when that command runs (or for --help and usage errors,
# which list them all): a command pays for what it uses, and `recall` never imports pydantic.
MODULES = {
    **dict.fromkeys(
        ("add", "list", "show", "update", "pin", "unpin", "keep", "archive", "restore"), "learnings"
    ),
    **dict.fromkeys(("remember", "memories", "forget", "index-code", "link"), "memories"),
    "recall": "recall",
    "embed": "embed",
    "surface": "surface",
    "lifecycle": "lifecycle",
    "reflect": "reflect",
    "consolidate": "consolidate",
    "move": "move",
    **dict.fromkeys(("decisions", "errors", "todos"), "kinds"),
    **dict.fromkeys(("prune", "stats", "snapshot", "sessions"), "upkeep"),
    **dict.fromkeys(("export", "import"), "transfer"),
    **dict.fromkeys(("install", "uninstall"), "install"),
    "explain": "explain",
    "doctor": "doctor",
    "mcp": "mcp",
    **dict.fromkeys(("capture", "proposals", "accept", "reject"), "capture"),
    "report": "report",
    "packs": "packs",
    "team": "team",
}
_VALUED = ("--db", "--global-db")  # the options before a command that take a value


def _command(argv: list[str]) -> str | None:
    """The command named in argv: its first word that is neither an option nor an option's value."""
    words = iter(argv)
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _dispatch(argv: list[str]) -> int:
    command = _command(argv)
    args = parser([MODULES[command]] if command in MODULES else None).parse_args(argv)
    from cortex_hooks.cli import database

    boundary.works_on(database.path(args))
    result: int = args.run(args)
    return result


def parser(modules: list[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser with the commands of these modules (None: every command, as --help and a
    usage error list them all)."""
    import importlib

    names = modules if modules is not None else list(dict.fromkeys(MODULES.values()))
    common = _Parser(add_help=False)
    common.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help="the project's SQLite file")
    common.add_argument(
        "--global",
        dest="global_scope",
        action="store_true",
        default=argparse.SUPPRESS,
        help="act on the user-global database instead of the project's",
    )
    common.add_argument(
        "--global-db", metavar="PATH", default=argparse.SUPPRESS, help="the user-global SQLite file"
    )
    top = _Parser(
        prog="cortex-hooks",
        parents=[common],
        description="Manage the memory cortex-hooks keeps for Claude Code.",
    )
    top.add_argument("--version", action="version", version=f"cortex-hooks {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name in names:
        importlib.import_module(f"cortex_hooks.cli.{name}").register(commands, common)
    return top
