"""What the command reader knows of programs: wrappers and their options, shells, interpreters
that hand a string to a shell, and the shell's own quote removal."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Reserved words that may stand before a command's program (`if git diff …; then rm …`).
RESERVED = frozenset(
    {"!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "esac"}
)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh"})
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_INTERPRETERS = frozenset({"python", "pypy", "node", "nodejs", "ruby", "perl", "php", "deno", "bun"})
_CODE_OPTIONS = frozenset({"-c", "-e", "-E", "-r", "--eval", "-p", "--print"})
# Programs that run what their standard input holds (a heredoc's body is their query, not data).
QUERY_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "sqlite3", "sqlite", "duckdb", "clickhouse-client", "sqlcmd", "cqlsh",
     "redis-cli", "valkey-cli", "mongo", "mongosh"}
)  # fmt: skip

# GNU parallel's long options that take a value. It runs its command words, joined, through a
# shell, once per argument (`:::` or standard input): a command written as one string is read
# again (guard.shell.strings).
_PARALLEL_VALUED = (
    "--arg-file --colsep --delimiter --eof --jobs --max-procs --profile --max-lines --max-args"
    " --max-replace-args --sshlogin --max-chars --joblog --results --res --tmpdir --workdir --wd --halt"
    " --timeout --delay --retries --env --basefile --bf --return --transfer-file --tf --memfree --load"
    " --nice --tagstring --tag-string --block --block-size --recstart --recend --termseq --sshloginfile"
    " --slf --rpl --limit --header --sql --sqlmaster --sqlworker"
)
_UVX_VALUED = (
    "--from --with --with-editable --with-requirements --python --index --default-index --index-url"
    " --extra-index-url --directory --project"
)
# A wrapper: (short options that take a value, long options that take a value, positionals).
_WRAPPERS: dict[str, tuple[str, frozenset[str], int]] = {
    "sudo": ("ugCDprtTUR", frozenset({"--user", "--group", "--chdir", "--prompt", "--role", "--type"}), 0),
    "doas": ("uC", frozenset(), 0),
    # `env -S STRING` splits STRING into the command: env is then the program (guard.shell.strings)
    "env": ("uCP", frozenset({"--unset", "--chdir"}), 0),
    "busybox": ("", frozenset(), 0),  # `busybox rm -rf x`: the applet is the program
    "toybox": ("", frozenset(), 0),
    "setsid": ("", frozenset(), 0),
    # `flock [options] FILE CMD …`; `flock FILE -c STRING` hands a string to a shell (guard.shell.strings)
    "flock": ("wE", frozenset({"--wait", "--timeout", "--conflict-exit-code"}), 1),
    "command": ("", frozenset(), 0),
    "builtin": ("", frozenset(), 0),
    "exec": ("a", frozenset(), 0),
    "nohup": ("", frozenset(), 0),
    "nice": ("n", frozenset({"--adjustment"}), 0),
    "time": ("fo", frozenset({"--format", "--output"}), 0),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0),
    "ionice": ("cnpPu", frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}), 0),
    "xargs": (
        "aEIdLnPsl",
        frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--max-lines"}),
        0,
    ),
    # GNU parallel: a wrapper, unless its command is one string (guard.shell.strings reads it)
    "parallel": ("aCdEIjJLnNPSs", frozenset(_PARALLEL_VALUED.split()), 0),
    # package runners: `npx cdk destroy`, `uvx twine upload` (`npx -c STRING`: a shell runs it)
    "npx": ("p", frozenset({"--package"}), 0),
    "pnpx": ("p", frozenset({"--package"}), 0),
    "bunx": ("p", frozenset({"--package"}), 0),
    "uvx": ("p", frozenset(_UVX_VALUED.split()), 0),
}
# Programs that hand one option's string to a shell (`script -c CMD`, `flock FILE -c CMD`, `su -c`).
COMMAND_OPTION = frozenset({"script", "flock", "su", "runuser", "npx"})
# Programs that hand a string of theirs to a shell, besides the shells (guard.shell.strings).
STRING_RUNNERS = COMMAND_OPTION | {"eval", "env", "parallel", "ssh"}
# A parallel's separators: what follows them is arguments, not its command.
PARALLEL_SEPARATORS = frozenset({":::", "::::", ":::+", "::::+"})


WRAPPERS = frozenset(_WRAPPERS)

# Programs that run a command of words elsewhere, in a container or a pod: per program,
# the options before its subcommand that take a value, and those of `exec` (see exec_command).
_EXEC: dict[str, tuple[str, str]] = {
    "docker": (
        "-H --host -c --context --config -l --log-level",
        "-e --env --env-file -u --user -w --workdir",
    ),
    "podman": (
        "--url --connection -c --root --runroot --log-level",
        "-e --env --env-file -u --user -w --workdir",
    ),
    "nerdctl": ("-n --namespace -a --address -H --host", "-e --env --env-file -u --user -w --workdir"),
    "docker-compose": (
        "-f --file -p --project-name --profile --env-file --project-directory",
        "-e --env -u --user -w --workdir --index",
    ),
    "kubectl": ("", ""),
    "oc": ("", ""),
}
EXEC_RUNNERS = frozenset(_EXEC)


def basename(value: str) -> str:
    """A program named by a path, named by its base name (`/usr/bin/git` → `git`)."""
    return value.rsplit("/", 1)[-1] if "/" in value.rstrip("/") else value


def after_wrapper(name: str, values: Callable[[int], str], index: int, count: int) -> int | None:
    """The index of the word after a wrapper's name and options (where its command begins), or
    None when `name` at `index` is no wrapper (or `command -v`: a lookup, not a run)."""
    spec = _WRAPPERS.get(name)
    if spec is None:
        return None
    with_value, long_with_value, positionals = spec
    index += 1
    while index < count:
        value = values(index)
        if name == "command" and value.startswith("-") and ("v" in value or "V" in value):
            return None
        if name == "env" and ASSIGNMENT.match(value):
            index += 1
            continue
        if name == "env" and value == "-":  # `env -`: `env -i`, an empty environment
            index += 1
            continue
        if name == "env" and splits(value):
            return None  # `env -S STRING`: the string is the command (split_string)
        if name in COMMAND_OPTION and command_option(value) is not None:
            return None  # `flock -c STRING`: a string for a shell (command_string)
        if value == "--":
            index += 1
            break
        if value.startswith("--") and len(value) > 2:
            index += 2 if "=" not in value and value in long_with_value else 1
            continue
        if value.startswith("-") and len(value) > 1:
            letters = value[1:]
            taking = next((at for at, letter in enumerate(letters) if letter in with_value), None)
            index += 2 if taking is not None and taking == len(letters) - 1 else 1
            continue
        break
    index = min(index + positionals, count)
    if name == "flock" and index < count and command_option(values(index)) is not None:
        return None  # `flock FILE -c STRING`
    if name == "parallel" and index < count and _parallel_string(values(index)):
        return None  # `parallel 'rm -rf {}' ::: …`, `parallel ::: CMD …`: read by parallel_string
    return index


def exec_command(name: str, values: Callable[[int], str], indices: list[int]) -> int | None:
    """Where, among a program's arguments, the command it runs in a container begins: `docker
    [options] [container|compose …] exec [options] NAME CMD …`, `kubectl exec … -- CMD …`; None
    when it runs none."""
    if name in ("kubectl", "oc"):
        words = [values(index) for index in indices]
        if "exec" not in words or "--" not in words[words.index("exec") :]:
            return None
        first = words.index("--", words.index("exec")) + 1
        return first if first < len(words) else None
    global_valued, exec_valued = (frozenset(option.split()) for option in _EXEC[name])
    compose_valued = frozenset(_EXEC["docker-compose"][0].split())
    position, compose = 0, name == "docker-compose"
    while position < len(indices):  # the options and words that lead to `exec`
        value = values(indices[position])
        if value == "exec":
            break
        if value in ("compose", "container") and not value.startswith("-"):
            compose = compose or value == "compose"
            position += 1
            continue
        if not value.startswith("-"):
            return None  # another subcommand
        valued = compose_valued if compose else global_valued
        position += 2 if value in valued else 1
    position += 1
    while position < len(indices) and values(indices[position]).startswith("-"):
        value = values(indices[position])
        position += 2 if value in exec_valued or value in compose_valued else 1
    position += 1  # the container, or the service
    return position if position < len(indices) else None


def splits(value: str) -> bool:
    """`-S`, `-SSTRING`, `--split-string[=STRING]`: env's option whose value is the command."""
    return value.startswith("--split-string") or (
        value.startswith("-") and not value.startswith("--") and "S" in value[1:]
    )


def command_option(value: str) -> str | None:
    """For `-c`, `--command`, a cluster ending in `c` (`-lc`): "" (the string is the next word);
    for `-cSTRING`, `--command=STRING`: the string; None for any other word."""
    if value == "--command":
        return ""
    if value.startswith("--command="):
        return value[len("--command=") :]
    if value.startswith("-") and not value.startswith("--") and "c" in value[1:]:
        return value[value.index("c", 1) + 1 :]
    return None


def _parallel_string(value: str) -> bool:
    """A parallel's first command word that only a shell can read: a separator (the arguments
    are the commands), or a string holding blanks or operators (`'rm -rf {}'`)."""
    return value in PARALLEL_SEPARATORS or any(char in value for char in " \t\n;&|<>()`$")


def shell_operand(values: Callable[[int], str], indices: list[int]) -> tuple[int | None, bool]:
    """For a shell's arguments (their word indices): the index of the `-c` string (None when
    there is none) and whether the shell reads its commands from standard input."""
    reads_string = stdin = False
    position = 0
    while position < len(indices):
        value = values(indices[position])
        if value in ("--", "-"):
            position += 1
            break
        if value.startswith("--"):
            position += 2 if value in ("--rcfile", "--init-file") else 1
            continue
        if value[:1] in ("-", "+") and len(value) > 1:
            letters = value[1:]
            reads_string = reads_string or (value[0] == "-" and "c" in letters)
            stdin = stdin or (value[0] == "-" and "s" in letters)
            position += 2 if ("o" in letters or "O" in letters) else 1
            continue
        break
    operand = indices[position] if position < len(indices) else None
    if reads_string:
        return operand, False
    return None, stdin or operand is None


def after_wrapper_options(name: str, values: Callable[[int], str], indices: list[int]) -> int:
    """The position (in `indices`) of the first word after a wrapper's options."""
    with_value, long_with_value, _positionals = _WRAPPERS[name]
    position = 0
    while position < len(indices):
        value = values(indices[position])
        if value == "--":
            return position + 1
        if value.startswith("--") and len(value) > 2:
            position += 2 if "=" not in value and value in long_with_value else 1
            continue
        if value.startswith("-") and len(value) > 1:
            letters = value[1:]
            taking = next((at for at, letter in enumerate(letters) if letter in with_value), None)
            position += 2 if taking is not None and taking == len(letters) - 1 else 1
            continue
        return position
    return position


def is_interpreter(name: str) -> bool:
    """`python3.12`, `node`, `perl`…: a program that runs inline code (`-c`, `-e`)."""
    return name.rstrip("0123456789.") in _INTERPRETERS


def reads_code(values: Callable[[int], str], indices: list[int]) -> bool:
    """Whether an interpreter runs what its standard input holds: no inline code, no module, and
    no script but `-` (`python3 <<EOF`, `python3 - <<EOF`, `node <<EOF`)."""
    for index in indices:
        value = values(index)
        if value in _CODE_OPTIONS or value == "-m":
            return False
        if value in {"-", "--"}:
            return True
        if not value.startswith("-"):
            return False  # a script: its standard input is its data
    return True


def code_argument(values: Callable[[int], str], indices: list[int]) -> int | None:
    """The index of the inline code an interpreter runs (`python -c CODE`, `node -e CODE`)."""
    for position, index in enumerate(indices[:-1]):
        if values(index) in _CODE_OPTIONS:
            return indices[position + 1]
    return None


_SHELL_OUT = (  # compiled when first needed: the deny path rarely does
    r"(?P<call>\b(?:system|popen|exec|execSync|spawnSync|execFileSync|check_output|check_call|call|run"
    r"|Popen|getoutput|getstatusoutput|shell_exec|passthru|proc_open)\s*\(\s*)"
    r"|(?P<delimited>(?:%x|\bqx\s*)[({\[/])|(?P<tick>`)"
)
_STRING = r"""(['"])((?:\\.|(?!\1).)*)\1"""
_CLOSER = {"(": ")", "{": "}", "[": "]", "/": "/", "`": "`"}


def shell_outs(code: str) -> list[str]:
    """The strings inline code hands to a shell: `os.system("…")`, `execSync('…')`, a call's
    first string argument, Ruby's and Perl's backticks, `%x( )` and `qx( )`. (A list of words,
    `run(["rm", "-rf", d])`, is not joined: the text read must be a stretch of the command.)"""
    found: list[str] = []
    for match in re.finditer(_SHELL_OUT, code):
        if match.group("call") is None:
            close = code.find(_CLOSER[match.group(0)[-1]], match.end())
            found.append(code[match.end() : close if close >= 0 else len(code)])
            continue
        string = re.compile(_STRING, re.DOTALL).match(code, match.end())
        if string is not None:
            found.append(string.group(2))
    return found


def unquote(text: str) -> str:
    """A word's value after the shell's quote removal (no expansion): quotes dropped, a
    backslash keeps the next character, `$'…'` and `$"…"` read as quoted text. Only ever deletes
    characters (quotes, backslashes, a `$` before a quote, line continuations): the prefilter's
    soundness rests on that (guard.prefilter.loosen)."""
    if not any(char in text for char in "'\"\\"):
        return text
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "\\":
            if index + 1 < size and text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
        elif char == "'":
            close = text.find("'", index + 1)
            close = size if close < 0 else close
            out.append(text[index + 1 : close])
            index = close + 1
        elif char == '"':
            index += 1
            while index < size and text[index] != '"':
                if text[index] == "\\" and index + 1 < size and text[index + 1] in '$`"\\\n':
                    if text[index + 1] != "\n":
                        out.append(text[index + 1])
                    index += 2
                    continue
                out.append(text[index])
                index += 1
            index += 1
        elif char == "$" and text[index + 1 : index + 2] in ("'", '"'):
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)
