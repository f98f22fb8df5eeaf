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

# A wrapper: (short options that take a value, long options that take a value, positionals).
_WRAPPERS: dict[str, tuple[str, frozenset[str], int]] = {
    "sudo": ("ugCDprtTUR", frozenset({"--user", "--group", "--chdir", "--prompt", "--role", "--type"}), 0),
    "doas": ("uC", frozenset(), 0),
    "env": ("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0),
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
}


WRAPPERS = frozenset(_WRAPPERS)


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
    return min(index + positionals, count)


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


def is_interpreter(name: str) -> bool:
    """`python3.12`, `node`, `perl`…: a program that runs inline code (`-c`, `-e`)."""
    return name.rstrip("0123456789.") in _INTERPRETERS


def code_argument(values: Callable[[int], str], indices: list[int]) -> int | None:
    """The index of the inline code an interpreter runs (`python -c CODE`, `node -e CODE`)."""
    for position, index in enumerate(indices[:-1]):
        if values(index) in _CODE_OPTIONS:
            return indices[position + 1]
    return None


_SHELL_OUT = (  # compiled when first needed (functools.cache): the deny path rarely does
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
