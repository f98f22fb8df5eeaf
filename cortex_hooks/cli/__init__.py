"""The `cortex-hooks` management CLI: argument parsing and dispatch, behind the error boundary."""

from __future__ import annotations

import argparse
import io
import re
import sys

from cortex_hooks import __version__, boundary
from cortex_hooks.errors import USAGE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one `cortex-hooks:` line and exit 2, like every other error,
    worded for a person: a mistyped command, option or choice is answered with the one meant
    (`did you mean …?`), and argparse's own phrases ("invalid choice", "the following arguments
    are required") are said in our words."""

    def error(self, message: str) -> NoReturn:
        raise CortexError(f"{self._reworded(message)} (see {self.prog} --help)", USAGE)

    def _reworded(self, message: str) -> str:
        invalid = re.fullmatch(r"argument (\S+): invalid choice: (.*) \(choose from .*\)", message)
        if invalid is not None:
            return self._not_a_choice(invalid[1], invalid[2])
        required = re.fullmatch(r"the following arguments are required: (.*)", message)
        if required is not None:
            return f"missing {_listed(required[1].split(', '), 'and')}"
        either = re.fullmatch(r"one of the arguments (.*) is required", message)
        if either is not None:
            return f"missing {_listed(either[1].split(' '), 'or')}"
        number = re.fullmatch(r"argument (\S+): invalid (int|float) value: (.*)", message)
        if number is not None:
            return f"{number[1]}: {number[3]} is not a {'whole ' if number[2] == 'int' else ''}number"
        valueless = re.fullmatch(r"argument (-\S+): expected one argument", message)
        if valueless is not None:
            name = valueless[1]
            return f"{name} needs a value (one that begins with '-' is given as {name}=-…)"
        unrecognized = re.fullmatch(r"unrecognized arguments: (\S+).*", message)
        if unrecognized is not None:
            word = unrecognized[1]
            return f"unrecognized option {word}" if word.startswith("-") else f"unexpected argument {word!r}"
        return re.sub(r"^argument (\S+): ", r"\1: ", message).replace(" with argument ", " with ")

    def _not_a_choice(self, name: str, given: str) -> str:
        """A value out of an argument's choices: an unknown command (or a command's action), or
        an option's value, with the closest choice when one is close."""
        action = next((a for a in self._actions if name in (a.metavar, a.dest, *a.option_strings)), None)
        choices = [str(choice) for choice in (action.choices or [])] if action is not None else []
        import difflib  # only for a mistake: a command that parses pays nothing for it

        meant = difflib.get_close_matches(given.strip("'"), choices, n=1, cutoff=0.6)
        if isinstance(action, argparse._SubParsersAction):
            said = f"unknown {name.lower()} {given}"
            if meant:
                return f"{said}: did you mean {meant[0]}?"
            return said if len(choices) > 12 else f"{said} (one of {_listed(choices, 'or')})"
        said = f"{name}: {given} is not one of {_listed(choices, 'or')}"
        return f"{said}: did you mean {meant[0]}?" if meant else said

    def parse_known_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = list(sys.argv[1:] if args is None else args)
        try:
            parsed, extras = super().parse_known_args(args, namespace)
        except CortexError:  # a word before the command may be what went wrong (a subparser's own
            command = self._command_parser(given)  # errors were worded by it)
            self._suggest(given[: given.index(command[0])] if command else given, given)
            raise
        self._suggest(extras, given)
        return parsed, extras

    def _suggest(self, words: list[str], given: list[str]) -> None:
        """A mistyped option among the words, answered with the option meant (argparse would say
        a required option is missing, or an argument is unrecognized); a command's option given
        before the command, answered with where it goes."""
        known = list(self._option_string_actions)
        command = self._command_parser(given)
        for word in words:
            if word == "--":
                return
            option = re.fullmatch(r"(--?[A-Za-z][\w-]*)(=.*)?", word)
            if option is None or any(name.startswith(option[1]) for name in known):
                continue
            if command is not None and option[1] in command[1]._option_string_actions:
                raise CortexError(
                    f"{option[1]} is an option of {command[0]}: put it after the command "
                    f"({self.prog} {command[0]} … {option[1]})",
                    USAGE,
                )
            import difflib  # only for an option this parser does not know

            candidates = known + (list(command[1]._option_string_actions) if command else [])
            meant = difflib.get_close_matches(option[1], candidates, n=1, cutoff=0.7)
            if meant:
                raise CortexError(
                    f"unrecognized option {option[1]}: did you mean {meant[0]}? (see {self.prog} --help)",
                    USAGE,
                )

    def _command_parser(self, given: list[str]) -> tuple[str, argparse.ArgumentParser] | None:
        """The command named among the words, with its parser, when this parser has commands."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word in given:
                    if word in action.choices:
                        return word, action.choices[word]
        return None


class _Top(_Parser):
    """The top-level parser: its help is the grouped page of cli.overview, not argparse's list."""

    def format_help(self) -> str:
        from cortex_hooks.cli import overview

        return overview.text()


def _listed(items: list[str], last: str) -> str:
    """`a, b or c`."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}"


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
        ("add", "list", "show", "update", "pin", "unpin", "keep", "archive", "restore"), "learning_commands"
    ),
    **dict.fromkeys(("remember", "memories", "forget", "index-code", "link"), "memory_commands"),
    "recall": "recall_command",
    "embed": "embed_command",
    "surface": "surface_command",
    "lifecycle": "lifecycle_command",
    "reflect": "reflect_command",
    "consolidate": "consolidate_command",
    "move": "move_command",
    **dict.fromkeys(("decisions", "errors", "todos"), "kind_commands"),
    **dict.fromkeys(("prune", "stats", "snapshot", "sessions"), "upkeep_commands"),
    **dict.fromkeys(("export", "import"), "transfer_commands"),
    **dict.fromkeys(("install", "uninstall"), "install"),
    "explain": "explain_command",
    "doctor": "doctor_command",
    "mcp": "mcp",
    **dict.fromkeys(("capture", "proposals", "accept", "reject"), "capture_commands"),
    "report": "report_command",
    "packs": "packs_command",
    "team": "team_command",
    "replay": "replay_command",
    "integrity": "integrity_command",
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
    args = parser(_modules(command, argv)).parse_args(argv)
    if "run" not in args:  # no command (bare `cortex-hooks`): where to start, not a usage error
        from cortex_hooks.cli import overview

        sys.stdout.write(overview.text())
        return 0
    from cortex_hooks.cli import database

    boundary.works_on(database.path(args))
    from cortex_hooks.store.connection import upgrade_notes

    try:
        result: int = args.run(args)
        if result == 0 and _changes_memories(command, args):
            from cortex_hooks.api import surface

            surface.follow(database.of(args), database.notes())
    finally:
        notes = upgrade_notes()  # said after a command that succeeded; a failure is its one line
    for note in notes:  # a database of an older version, migrated by this command
        print(f"cortex-hooks: {note}", file=sys.stderr)
    return result


def _modules(command: str | None, argv: list[str]) -> list[str] | None:
    """The command modules this argv needs: its command's; none for `--version` alone; every
    one for help, a bare `cortex-hooks` and an unknown command (they list them all)."""
    if command in MODULES:
        return [MODULES[command]]
    if command is None and "--version" in argv and not {"-h", "--help"} & set(argv):
        return []
    return None


# The commands that change a memory, in either scope: the project's push surface follows each
# (api.surface.follow), since Claude Code reads it when a session starts, before any hook runs.
CHANGES_MEMORIES = frozenset(
    {
        *("remember", "forget", "index-code", "link", "move", "import", "consolidate", "lifecycle"),
        *(f"memories {action}" for action in ("update", "pin", "unpin", "archive", "restore")),
        "reflect decay",
    }
)


def _changes_memories(command: str | None, args: argparse.Namespace) -> bool:
    action = getattr(args, "action", None)
    said = f"{command} {action}" if action and action != command else command
    return said in CHANGES_MEMORIES and not getattr(args, "dry_run", False)


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
    top = _Top(
        prog="cortex-hooks",
        parents=[common],
        description="Manage the memory cortex-hooks keeps for Claude Code.",
    )
    top.add_argument("--version", action="version", version=f"cortex-hooks {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in names:
        importlib.import_module(f"cortex_hooks.cli.{name}").register(commands, common)
    return top
