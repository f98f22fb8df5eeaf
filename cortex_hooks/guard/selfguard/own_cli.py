"""The `cortex-hooks` commands the agent may run through Bash, pure: an allow-list.

A command that reads, adds or strengthens runs (list, show, recall, remember, add, pin, restore,
explain, stats, packs enable …); one that lowers protection or hides a record is the person's to
run (update that weakens, unpin, keep, archive, forget, prune, uninstall, packs disable|mute,
import, move …); so is a command this list does not know, so that a command added later is
refused until it is judged here (tests/test_self_protection_cli.py holds the list to the CLI's
parser). `update` is judged by the one rule of what lowers a learning (guard.weakening.lowered),
against the learning at its most protective, since the hook does not read the database first.

The words are read as the CLI's argparse reads them: options before or after the command,
`--opt=value`, an unambiguous prefix of an option (`--no-auto` is `--no-auto-block`).
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard.protected import DATABASE, Places, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.shell.invocation import Arg

GROUPS = frozenset(
    {"memories", "reflect", "decisions", "errors", "todos", "sessions", "packs", "team", "integrity"}
)
SAFE = frozenset(
    {
        *("add", "list", "show", "pin", "restore", "remember", "index-code", "link", "recall", "embed"),
        *("surface", "consolidate", "stats", "snapshot", "export", "explain", "doctor", "mcp", "capture"),
        *("proposals", "accept", "reject", "report", "install", "sessions list", "replay"),
        *("reflect decay", "reflect similar", "packs list", "packs show", "packs enable", "packs unmute"),
        "packs check",
        *("team list", "team check", "team add", "team unmute"),
        *(f"memories {action}" for action in ("list", "show", "update", "pin", "unpin", "restore")),
        *(
            f"{kind} {action}"
            for kind in ("decisions", "errors", "todos")
            for action in ("add", "list", "show", "restore")
        ),
        "todos done",
    }
)
_HIDES = "it hides a record from the memory (the person restores it)"
WEAKENING = {
    "update": "",  # judged by guard.weakening.lowered
    "unpin": "an unpinned learning decays again, down to where it no longer blocks",
    "keep": "it sets a learning's confidence to the start value, which may be lower than it is",
    "archive": "an archived learning no longer matches",
    "forget": "it archives a memory",
    "memories archive": "it archives a memory",
    **{f"{kind} archive": _HIDES for kind in ("decisions", "errors", "todos")},
    "prune": "it archives learnings",
    "lifecycle": "it archives memories and deletes those archived long ago",
    "uninstall": "it removes cortex-hooks' hooks from Claude Code's settings",
    "packs disable": "it archives a pack's learnings",
    "packs mute": "a muted pack learning never matches",
    "team mute": "a muted team learning never matches",
    "team trust": "it lets the team file's blocks, asks and rewrites act: the person reviews the file first",
    "import": "an imported learning can take a pack's place (one rule per slug), archived or never matching",
    "move": "a learning or memory moved out of its scope no longer serves it",
    "integrity accept": "it makes for real a change to the guard's files that the keeper put back",
}
DRY_RUN = frozenset({"prune", "lifecycle", "uninstall", "consolidate"})  # --dry-run makes them read only
RISKY = {  # an option that makes a safe command weaken
    "consolidate": ("--restore", "it puts an older checkpoint of the database in its place"),
}
ANY_ARGUMENT = SAFE - {"export", "report", "consolidate"}  # no option of theirs weakens
WRITES = {"export": "--output", "report": "--out"}  # the file each writes

_TOP = {
    "-h": False,
    "--help": False,
    "--db": True,
    "--global": False,
    "--global-db": True,
    "--version": False,
}
_GROUP = {"-h": False, "--help": False, "--db": True, "--global": False, "--global-db": True, "--json": False}
_UPDATE = {
    **_GROUP,
    **dict.fromkeys(("--no-regex", "--auto-block", "--no-auto-block", "--pin", "--no-rewrite"), False),
    **dict.fromkeys(("--anti-pattern", "--correct", "--regex", "--tool", "--target"), True),
    **dict.fromkeys(("--action", "--rewrite", "--deny-example", "--allow-example"), True),
    **dict.fromkeys(("--severity", "--confidence", "--context"), True),
}


def refusal(args: list[Arg], places: Places, bases: list[str]) -> Refusal | None:
    """Why the agent may not run `cortex-hooks ARGS` (None: it may)."""
    words = [arg.value for arg in args]
    end = words.index("--") if "--" in words else len(words)
    if any(_prefix(word, "--help") or _prefix(word, "--version") or word == "-h" for word in words[:end]):
        return None  # argparse prints the help or version and runs nothing
    found = _command(args)
    if not isinstance(found, tuple):
        return found
    key, position = found
    given = words[position + 1 : max(end, position + 1)]  # its options, up to a `--`
    if key not in ANY_ARGUMENT and any(arg.expands or arg.globbed for arg in args):
        return Refusal(f"`cortex-hooks {key}`", "its arguments are only known when the shell runs it")
    if key == "update":
        return _update(args[position + 1 :])
    dry = key in DRY_RUN and any(len(word) > 3 and _prefix(word, "--dry-run") for word in given)
    if key in WEAKENING:
        return None if dry else Refusal(f"`cortex-hooks {key}`", WEAKENING[key])
    risky = RISKY.get(key)
    if risky is not None and not dry and any(_prefix(word, risky[0]) for word in given):
        return Refusal(f"`cortex-hooks {key} {risky[0]}`", risky[1])
    return _paths(args, key, places, bases)


def _command(args: list[Arg]) -> tuple[str, int] | Refusal | None:
    """The command the words name (`packs disable` for a group's action) and the position of its
    last word; None when there is none (argparse prints its usage), a Refusal for one unknown."""
    position, problem = _skip(args, 0, _TOP)
    if problem is not None:
        return _unknown(problem)
    if position >= len(args):
        return None
    key, named = args[position].value, [args[position]]
    if key in GROUPS:
        position, problem = _skip(args, position + 1, _GROUP)
        if problem is not None:
            return _unknown(f"{key} {problem}")
        if position >= len(args):
            return None  # no action: argparse refuses
        key, named = f"{key} {args[position].value}", [*named, args[position]]
    if any(arg.expands or arg.globbed for arg in named):
        return _unknown(key)  # a command word only the shell knows
    if key not in SAFE and key not in WEAKENING:
        return _unknown(key)
    return key, position


def _prefix(word: str, option: str) -> bool:
    """Whether argparse may read `word` (`--name` or `--name=value`) as `option`."""
    name = word.split("=", 1)[0]
    return len(name) > 2 and option.startswith(name)


def _resolve(name: str, table: dict[str, bool]) -> str | None:
    """The option argparse reads `name` as: itself, or the one option it abbreviates."""
    if name in table:
        return name
    found = [
        option for option in table if option.startswith("--") and len(name) > 2 and option.startswith(name)
    ]
    return found[0] if len(found) == 1 else None


def _skip(args: list[Arg], position: int, table: dict[str, bool]) -> tuple[int, str | None]:
    """The position of the next positional word past the options of `table`; or a problem: an
    option argparse would not read as one of them (the CLI refuses it; so does the agent's call)."""
    while position < len(args):
        word = args[position].value
        if word == "--":
            return position + 1, None
        if not word.startswith("-") or word == "-":
            return position, None
        name, equals, _ = word.partition("=")
        option = _resolve(name, table)
        if option is None:
            return position, f"with the option {name}"
        position += 2 if table[option] and not equals else 1
    return position, None


def _unknown(what: str) -> Refusal:
    return Refusal(
        f"`cortex-hooks {what}`",
        "only the commands that read or strengthen the guard are the agent's to run, and this one "
        "is not known to be one of them",
    )


def _paths(args: list[Arg], key: str, places: Places, bases: list[str]) -> Refusal | None:
    """A database option naming a protected file that is no database, or an output option
    naming any protected file: the command would write it."""
    written = WRITES.get(key)
    for index, arg in enumerate(args):
        name, equals, value = arg.value.partition("=")
        options = [option for option in ("--db", "--global-db", written) if option and _prefix(name, option)]
        if not options or (not equals and index + 1 >= len(args)):
            continue
        target = _word(value) if equals else args[index + 1]
        found = places.named(target, bases)
        if found is None:
            continue
        kind, path = found
        if kind != DATABASE or any(option == written for option in options):
            return Refusal(f"`cortex-hooks {key}` writing {path}", f"it would overwrite the guard's {kind}")
    return None


def _word(value: str) -> Arg:
    """The value of `--option=value`, as a word of its own."""
    from cortex_hooks.guard.shell.invocation import Arg

    return Arg(value, expands="$" in value or "`" in value, tilde=value == "~" or value.startswith("~/"))


def _update(args: list[Arg]) -> Refusal | None:
    """`update`'s options as a change of a learning at its most protective, judged by the one rule."""
    from cortex_hooks.guard.actions import is_action
    from cortex_hooks.guard.weakening import Protection, lowered

    given: dict[str, str | bool] = {}
    position = 0
    while position < len(args):
        word = args[position].value
        if word == "--":
            break
        if word.startswith("-") and word != "-":
            name, equals, value = word.partition("=")
            option = _resolve(name, _UPDATE)
            if option is None:
                return _unknown(f"update with the option {name}")
            if _UPDATE[option] and not equals:
                position += 1
                value = args[position].value if position < len(args) else ""
            given[option] = value if _UPDATE[option] else True
        position += 1
    # At its most protective a learning blocks and has a rewrite of its own: any rewrite given or
    # removed is a change of what runs instead of the agent's command.
    strongest = Protection(
        "\0", "\0", "\0", "block", confidence=100, pinned=True, archived=False, rewrite="\0"
    )._replace(correct="\0", anti="\0", severity="critical")
    action = str(given.get("--action", "warn" if "--no-auto-block" in given else "block"))
    after = strongest._replace(
        regex=None if "--no-regex" in given else str(given.get("--regex", strongest.regex)),
        tool=str(given.get("--tool", strongest.tool)),
        target=str(given.get("--target", strongest.target)),
        action=action if is_action(action) else "warn",  # a value the CLI refuses: judged as the weakest
        confidence=_hundredths(given["--confidence"]) if "--confidence" in given else strongest.confidence,
        rewrite=None if "--no-rewrite" in given else str(given.get("--rewrite", strongest.rewrite)),
        correct=str(given.get("--correct", strongest.correct)),
        anti=str(given.get("--anti-pattern", strongest.anti)),
        severity=str(given.get("--severity", strongest.severity)),
    )
    reasons = lowered(strongest, after)
    if not reasons:
        return None
    options = sorted(option for option in given if option not in _GROUP)
    return Refusal(
        f"`cortex-hooks update` with {', '.join(options)}",
        f"judged against a learning at its most protective (whatever it is now): {'; '.join(reasons)}",
    )


def _hundredths(value: str | bool) -> int:
    try:
        return round(float(str(value)) * 100)
    except ValueError:
        return 0
