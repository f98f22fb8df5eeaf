"""The Bash calls that would switch the guard off, pure: each simple command the
shell would run, read by the command reader (guard.shell.reader: wrappers removed, `bash -c`, `eval` and a
heredoc fed to a shell read again, data never taken for a command), judged by what its program
does to the files it names — a word the command itself binds judged by what it is bound to
(guard.selfguard.bindings).

- the CLI's weakening commands (guard.selfguard.own_cli), however it is started: by path, through
  `sudo`, `xargs`, a runner (`uv run`, `pipx run` …), `python -m cortex_hooks`, the plugin's
  launcher; the session hooks themselves (a session end decays every learning);
- a write redirection onto a protected file;
- `sqlite3` on a database unless `-readonly`, or told to write one of the guard's files (`.once
  FILE`, `.output FILE`); inline code (`python -c`, `perl -e`, `awk`, a heredoc fed to an
  interpreter) that names one, once its strings are joined and decoded, or deletes a path it builds;
- text a shell runs that the hook can work out (`printf … | bash`, `base64 -d | sh` of text in the
  command, `$'\\x2e…'`: guard.selfguard.made_text) is read as commands; text it cannot work out is
  refused where what makes it names the guard or decodes it (`… | base64 -d | sh`, `eval "$(cat
  x | rev)"`), never for an everyday `eval "$(ssh-agent -s)"` or `curl … | sh`;
- the commands git, an archiver or an environment variable runs (`-c alias.x='!…'`, `GIT_PAGER=…`);
- what a program does to the files it is given (guard.selfguard.file_effects).
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard import archives, file_effects, git, inline_code, own_cli, runtime
from cortex_hooks.guard.selfguard.protected import FOLDER_KIND, UNKNOWN, Places, Refusal
from cortex_hooks.guard.shell import invocation, programs, reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.selfguard.bindings import Facts
    from cortex_hooks.guard.selfguard.word_paths import Context
    from cortex_hooks.guard.shell.invocation import Arg, Invocation
    from cortex_hooks.guard.shell.reader import Simple

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
SOURCES = frozenset({"source", "."})
MAX_AGAIN = 4  # how deep a string a program hands to a shell (`watch`, `su -c`) is read again


def refusal(command: str, places: Places, cwd: str, depth: int = 0) -> Refusal | None:
    """Why the agent may not run this Bash command (None: it may): the first simple command that
    would weaken the guard."""
    from cortex_hooks.guard.selfguard.bindings import Facts
    from cortex_hooks.guard.selfguard.runtime import decoded

    reading = reader.read(command)
    if reading.raw:
        return Refusal("this command", "it is too large for the hook to read before it runs")
    facts = Facts(reading, places, cwd, command)
    bases = [cwd]
    for simple in reading.commands:
        if simple.wrapped or simple.pipeline:
            continue  # the same command again, as written from its wrapper or with its pipeline
        call = invocation.invocation(simple)
        if call is None:
            return Refusal("this command", "it nests too deep for the hook to read before it runs")
        call = decoded(call, simple)
        if call.program in ("cd", "pushd") and call.args:
            _moved(call.args[-1], places, bases)
        context = facts.context(simple, places, bases)
        found = _written(call, places, bases, context) or _judged(
            call, simple, facts=facts, context=context, bases=bases, raw=command, depth=depth
        )
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


def _written(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """A write redirection onto one of the guard's files."""
    for operator, target in call.redirects:
        if operator in WRITE_REDIRECTIONS and not target.value.isdigit() and target.value != "-":
            found = places.named(target, bases, context=context)
            if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
                return Refusal("", f"it writes the guard's {found[0]} {found[1]}")
    return None


def _judged(
    call: Invocation,
    simple: Simple,
    *,
    facts: Facts,
    context: Context,
    bases: list[str],
    raw: str,
    depth: int,
) -> Refusal | None:
    places = facts.places
    for text in _commands_run(call, simple):
        again = refusal(text, places, bases[0], depth + 1) if depth < MAX_AGAIN else None
        if again is not None:
            return Refusal("", f"it has this run: `{text[:200]}` — {again.why}")
    if call.named is None:
        return None
    name = call.program
    if call.named.expands:
        return _hidden_program(call, places, bases)
    own = _own(name, call.args, places, bases)
    if own is not False:
        return own  # type: ignore[return-value]
    return _program(call, simple, facts=facts, context=context, bases=bases, raw=raw, depth=depth)


def _program(
    call: Invocation,
    simple: Simple,
    *,
    facts: Facts,
    context: Context,
    bases: list[str],
    raw: str,
    depth: int,
) -> Refusal | None:
    """What this program, none of ours, would do to the guard's places."""

    places, name = facts.places, call.program
    judge = refusal if depth < MAX_AGAIN else _nothing
    if name in SQLITE:
        return inline_code.sqlite(call, places, bases, raw)
    if name in programs.SHELLS or name in ("eval", *SOURCES):
        found = runtime.runs_text(call, simple, facts, bases, depth=depth, judge=judge)
        if found is not None or (name in programs.SHELLS and _runs_a_string(call)):
            return found  # `sh -c SCRIPT ARGS`: ARGS are the script's, judged where it uses them
    if programs.is_interpreter(name) or name in inline_code.AWKS:
        found = inline_code.inline(call, places, bases, raw, depth=depth, judge=judge)
        if found is not None or programs.is_interpreter(name):
            return found or _judged_program(call, places, bases, context)
    if name in STRING_RUNNERS or name == "watch":
        again = _runs_string(name, call.values())
        if again is not None and depth < MAX_AGAIN:
            return refusal(again, places, bases[0], depth + 1)
    if name in RUNNERS:
        return None  # what it runs was looked for by _own; it writes nothing itself
    return _judged_program(call, places, bases, context)


def _judged_program(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:

    return file_effects.judged(call, places, bases, context)


def _runs_a_string(call: Invocation) -> bool:
    values = call.values()
    operand, _ = programs.shell_operand(lambda index: values[index], list(range(len(values))))
    return operand is not None


def _nothing(command: str, places: Places, cwd: str, depth: int) -> Refusal | None:
    return None  # past the depth read again


def _commands_run(call: Invocation, simple: Simple) -> list[str]:
    """The command lines this command has another program run: an environment variable set for it
    (`GIT_PAGER='…' git log`), git's aliases and settings, an archiver's."""

    found: list[str] = []
    command, program, _ = simple.parts  # type: ignore[misc]
    for word in command.words[:program]:
        text = command.source[word.start : word.end]
        if word.kind == 0 and programs.ASSIGNMENT.match(text):
            name, _, value = text.partition("=")
            found += git.variable_commands(name, programs.unquote(value))
    if call.program == "git":
        found += git.commands_run(call)
    elif call.program in archives.PROGRAMS:
        found += archives.commands_run(call)
    elif call.program in ("export", "env", "declare") or call.program == "":
        for value in call.values():
            name, equals, assigned = value.partition("=")
            if equals:
                found += git.variable_commands(name, assigned)
    return found


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
