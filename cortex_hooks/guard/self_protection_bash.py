"""The Bash calls that would switch the guard off (SPEC §19), pure: each simple command the shell
would run, read by the command reader (guard.shell: wrappers removed, `bash -c`, `eval` and a
heredoc fed to a shell read again, data never taken for a command), judged by what its program
does to the files it names.

- the CLI's weakening commands (guard.self_protection_cli), however it is started: by path, through
  `sudo`, `xargs`, a runner (`uv run`, `pipx run` …), `python -m cortex_hooks`, the plugin's
  launcher; the session hooks themselves (a session end decays every learning);
- a write redirection onto a protected file;
- `sqlite3` on a database unless `-readonly`; inline code (`python -c`, a heredoc fed to an
  interpreter) that names one;
- what a program does to the files it is given (guard.self_protection_programs).
"""

from __future__ import annotations

from cortex_hooks.guard import self_protection_cli as own_cli
from cortex_hooks.guard import shell, shell_words
from cortex_hooks.guard import shell_programs as programs
from cortex_hooks.guard.protected import FOLDER_KIND, UNKNOWN, Places, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.shell_words import Arg, Invocation

CLI = frozenset({"cortex-hooks", "cortex-hooks.exe"})
SESSION_HOOKS = {
    "cortex-session-end": "a session end decays every learning, down to where none blocks",
    "cortex-session-start": "a session start prunes (archives) learnings",
}
LAUNCHER = "cortex-launch"  # the plugin's: `cortex-launch cli ARGS`, `cortex-launch session-end`
SQLITE = frozenset({"sqlite3", "sqlite"})
# Programs that run another program named among their arguments (`uv run cortex-hooks …`).
RUNNERS = frozenset(
    {
        *("uv", "uvx", "pipx", "poetry", "pdm", "hatch", "rye", "pixi", "conda", "mamba", "micromamba"),
        *("setsid", "strace", "ltrace", "flock", "chronic", "unbuffer", "taskset", "numactl", "chrt"),
        *("firejail", "valgrind", "faketime", "prlimit", "systemd-run", "caffeinate", "tini", "sg"),
    }
)
STRING_RUNNERS = frozenset({"su", "runuser", "script", "flock", "sg"})  # `-c STRING`: a shell runs it
WRITE_REDIRECTIONS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_SQLITE_VALUED = frozenset(
    {"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-mmap", "-pagecache", "-lookaside"}
    | {"-heap", "-vfs", "-maxsize", "-escape", "-A", "-ascii"}
)
_SQLITE_RISKY = (
    r"(?i)(?:^|[\s;])\.(?:open|shell|system|restore|read|load|import|save|clone|backup)\b|\battach\b"
)
MAX_AGAIN = 4  # how deep a string a program hands to a shell (`watch`, `su -c`) is read again


def refusal(command: str, places: Places, cwd: str, depth: int = 0) -> Refusal | None:
    """Why the agent may not run this Bash command (None: it may): the first simple command that
    would weaken the guard."""
    reading = shell.read(command)
    if reading.raw:
        return Refusal("this command", "it is too large for the hook to read before it runs")
    bases = [cwd]
    for simple in reading.commands:
        if simple.wrapped or simple.pipeline:
            continue  # the same command again, as written from its wrapper or with its pipeline
        call = shell_words.invocation(simple)
        if call is None:
            return Refusal("this command", "it nests too deep for the hook to read before it runs")
        if call.program in ("cd", "pushd") and call.args:
            _moved(call.args[-1], places, bases)
        found = _judged(call, places, bases, command, depth)
        if found is not None:
            if found.what == "":
                found.what = f"`{simple.text[:200]}`"
            found.simple = simple
            return found
    return None


def _moved(target: Arg, places: Places, bases: list[str]) -> None:
    """`cd DIR`: later relative paths may be relative to it (each folder the command may be in
    is kept: a relative path naming a protected file from any of them counts)."""
    for path in places.paths(target, bases) or []:
        if path not in bases:
            bases.append(path)


def _judged(call: Invocation, places: Places, bases: list[str], raw: str, depth: int) -> Refusal | None:
    for operator, target in call.redirects:
        if operator in WRITE_REDIRECTIONS and not target.value.isdigit() and target.value != "-":
            found = places.named(target, bases)
            if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
                return Refusal("", f"it writes the guard's {found[0]} {found[1]}")
    if call.named is None:
        return None
    name = call.program
    if call.named.expands:
        return _hidden_program(call, places, bases)
    own = _own(name, call.args, places, bases)
    if own is not False:
        return own  # type: ignore[return-value]
    if name in SQLITE:
        return _sqlite(call, places, bases, raw)
    if programs.is_interpreter(name):
        return _interpreter(call, places, bases, raw)
    if name in STRING_RUNNERS or name == "watch":
        again = _runs_string(name, call.values())
        if again is not None and depth < MAX_AGAIN:
            return refusal(again, places, bases[0], depth + 1)
    if name in RUNNERS:
        return None  # what it runs was looked for by _own; it writes nothing itself
    from cortex_hooks.guard import self_protection_programs as rules

    return rules.judged(call, places, bases)


def _own(name: str, args: list[Arg], places: Places, bases: list[str]) -> Refusal | bool | None:
    """The judgement on our own programs when this is one of them, or run by a runner; False when
    it is neither."""
    if name in CLI:
        return own_cli.refusal(args, places, bases)
    if name in SESSION_HOOKS:
        return Refusal(f"`{name}`", SESSION_HOOKS[name])
    if name == LAUNCHER:
        first = args[0].value if args else ""
        if first == "cli":
            return own_cli.refusal(args[1:], places, bases)
        script = f"cortex-{first}"
        return Refusal(f"`{LAUNCHER} {first}`", SESSION_HOOKS[script]) if script in SESSION_HOOKS else None
    if name in RUNNERS or programs.is_interpreter(name):
        for index, arg in enumerate(args):
            program = programs.basename(arg.value)
            if program in CLI or program in SESSION_HOOKS or program == LAUNCHER:
                return _own(program, args[index + 1 :], places, bases)
            if (
                programs.is_interpreter(name)
                and not arg.value.startswith("-")
                and index
                and args[index - 1].value != "-m"
            ):
                break  # the script an interpreter runs: its arguments are no program
        if programs.is_interpreter(name):
            values = [arg.value for arg in args]
            if "-m" in values[:-1] and values[values.index("-m") + 1] in ("cortex_hooks", "cortex_hooks.cli"):
                return own_cli.refusal(args[values.index("-m") + 2 :], places, bases)
    return False


def _hidden_program(call: Invocation, places: Places, bases: list[str]) -> Refusal | None:
    """A program only the shell knows (`$(which cortex-hooks) archive 1`, `$C archive 1`):
    refused when the words around it say it is ours, or it is given a protected file."""
    assert call.named is not None
    written = call.named.value
    first = call.args[0].value if call.args else ""
    if any(word in written for word in ("cortex-hooks", "cortex-launch", "cortex-session")) or (
        first in own_cli.WEAKENING or first in own_cli.GROUPS
    ):
        return Refusal(
            "", "which program runs is only known when the shell runs it, and it looks like cortex-hooks"
        )
    for arg in call.args:
        found = places.named(arg, bases)
        if found is not None and found[0] != UNKNOWN:
            return Refusal(
                "", f"a program only known when the shell runs it is given the guard's {found[0]} {found[1]}"
            )
    return None


def _sqlite(call: Invocation, places: Places, bases: list[str], raw: str) -> Refusal | None:
    """`sqlite3 DB SQL…`: a protected database opened to write (no `-readonly`, no `mode=ro`), or
    SQL, a `-cmd` or a script on standard input that opens, attaches or shells out to one."""
    import re

    values = call.values()
    readonly = any(value in ("-readonly", "--readonly") for value in values)
    database: Arg | None = None
    scripts: list[str] = []
    index = 0
    while index < len(values):
        value = values[index]
        if value.lstrip("-") in {option.lstrip("-") for option in _SQLITE_VALUED} and value.startswith("-"):
            if value.lstrip("-") == "cmd" and index + 1 < len(values):
                scripts.append(values[index + 1])
            index += 2
            continue
        if value.startswith("-") and database is None:
            index += 1
            continue
        if database is None:
            database = call.args[index]
        else:
            scripts.append(value)
        index += 1
    fed = call.stdin is not None
    if database is not None:
        path = database.value
        if path.startswith("file:"):
            uri, _, query = path[5:].partition("?")
            readonly = readonly or "mode=ro" in query or "immutable=1" in query
            database = shell_words.Arg(uri, expands=database.expands, tilde=uri.startswith("~"))
        found = places.named(database, bases)
        if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
            if not readonly:
                return Refusal(
                    "", f"sqlite3 opens the guard's {found[0]} {found[1]} to write (-readonly reads it)"
                )
            risky = [*scripts, raw] if fed else scripts
            if any(re.search(_SQLITE_RISKY, text) for text in risky):
                return Refusal("", "sqlite3 is told to open, attach or shell out beside the guard's database")
            return None
    if any(places.mentioned(text) for text in scripts) or (fed and places.mentioned(raw)):
        return Refusal("", "its SQL names the guard's database")
    return None


def _interpreter(call: Invocation, places: Places, bases: list[str], raw: str) -> Refusal | None:
    """Inline code (`python -c`, `node -e`), or code on standard input (a heredoc), that names a
    protected file or drives cortex-hooks' own library; then its arguments, as any program's."""
    import re

    values = call.values()
    code = programs.code_argument(lambda index: values[index], list(range(len(values))))
    texts = [values[code]] if code is not None else []
    script = next((value for value in values if not value.startswith("-")), None)
    if code is None and (script is None or script == "-") and call.stdin is not None:
        texts.append(raw)  # the code comes on standard input: the heredoc is in the command
    library = r"cortex_hooks\s*(?:\.|import)\s*(?:api|store|cli|mcp|upkeep|install|hooks)\b"
    for text in texts:
        if (
            places.mentioned(text)
            or re.search(library, text)
            or re.search(r"from\s+cortex_hooks\s+import", text)
        ):
            return Refusal("", "its code names the guard's files or drives cortex-hooks' library")
    from cortex_hooks.guard import self_protection_programs as rules

    return rules.judged(call, places, bases)


def _runs_string(name: str, values: list[str]) -> str | None:
    """The command line a program hands to a shell: `su -c STRING`, `watch [options] COMMAND…`."""
    if name == "watch":
        words: list[str] = []
        index = 0
        while index < len(values):
            value = values[index]
            if not words and value.startswith("-"):
                index += 2 if value in ("-n", "--interval", "-q", "--equexit") else 1
                continue
            words.append(value)
            index += 1
        return " ".join(words) or None
    for index, value in enumerate(values):
        if value in ("-c", "--command") and index + 1 < len(values):
            return values[index + 1]
        if value.startswith("--command="):
            return value.partition("=")[2]
    return None
