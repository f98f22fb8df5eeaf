"""Code a program runs that names the guard's places, pure: SQL given to `sqlite3`
(a database opened to write, `.once FILE` onto one of the guard's files) and inline code of an
interpreter (`python -c`, `perl -e`, `node -e`, `awk '…'`, a heredoc fed to one), read with its
string literals joined and decoded (guard.selfguard.made_text).
"""

from __future__ import annotations

import re

from cortex_hooks.guard.selfguard.protected import FOLDER_KIND, UNKNOWN, Places, Refusal
from cortex_hooks.guard.shell import invocation, programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cortex_hooks.guard.shell.invocation import Arg, Invocation

    Judge = Callable[[str, Places, str, int], Refusal | None]

_SQLITE_VALUED = frozenset(
    {"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-mmap", "-pagecache", "-lookaside"}
    | {"-heap", "-vfs", "-maxsize", "-escape", "-A", "-ascii"}
)
_SQLITE_RISKY = (
    r"(?i)(?:^|[\s;])\.(?:open|shell|system|restore|read|load|import|save|clone|backup)\b|\battach\b"
)
# sqlite3's dot-commands that write the file they name
_SQLITE_WRITES = re.compile(
    r"(?im)(?:^|[\s;'\"])\.(?:once|output|save|backup|clone|excel|log|dump)\s+(?:-\S+\s+)*"
    r"(?:'([^']*)'|\"([^\"]*)\"|([^\s;'\"]+))"
)
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_LIBRARY = r"cortex_hooks\s*(?:\.|import)\s*(?:api|store|cli|mcp|install|hooks)\b"


def sqlite(call: Invocation, places: Places, bases: list[str], raw: str) -> Refusal | None:
    """`sqlite3 DB SQL…`: a protected database opened to write (no `-readonly`, no `mode=ro`), or
    SQL, a `-cmd` or a script on standard input that opens, attaches or shells out to one, or has
    sqlite3 write one of the guard's files (`.once FILE`, `.output FILE`)."""
    values = call.values()
    readonly = any(value in ("-readonly", "--readonly") for value in values)
    database, scripts = _sqlite_words(call)
    texts = [*scripts, raw] if call.stdin is not None else scripts
    for text in texts:
        for written in _SQLITE_WRITES.finditer(text):
            target = written[1] or written[2] or written[3] or ""
            hit = places.named(invocation.Arg(target, tilde=target.startswith("~/")), bases)
            if hit is not None and hit[0] not in (UNKNOWN, FOLDER_KIND):
                return Refusal("", f"sqlite3 is told to write the guard's {hit[0]} {hit[1]}")
    if database is not None:
        path = database.value
        if path.startswith("file:"):
            uri, _, query = path[5:].partition("?")
            readonly = readonly or "mode=ro" in query or "immutable=1" in query
            database = invocation.Arg(uri, expands=database.expands, tilde=uri.startswith("~"))
        found = places.named(database, bases)
        if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
            if not readonly:
                return Refusal(
                    "", f"sqlite3 opens the guard's {found[0]} {found[1]} to write (-readonly reads it)"
                )
            if any(re.search(_SQLITE_RISKY, text) for text in texts):
                return Refusal("", "sqlite3 is told to open, attach or shell out beside the guard's database")
            return None
    if any(places.mentioned(text) for text in texts):
        return Refusal("", "its SQL names the guard's database")
    return None


def _sqlite_words(call: Invocation) -> tuple[Arg | None, list[str]]:
    """sqlite3's database and the SQL and dot-commands it is given (`-cmd` ones too)."""
    values = call.values()
    valued = {option.lstrip("-") for option in _SQLITE_VALUED}
    database: Arg | None = None
    scripts: list[str] = []
    index = 0
    while index < len(values):
        value = values[index]
        if value.startswith("-") and value.lstrip("-") in valued:
            if value.lstrip("-") == "cmd" and index + 1 < len(values):
                scripts.append(values[index + 1])
            index += 2
            continue
        if not (value.startswith("-") and database is None):
            if database is None:
                database = call.args[index]
            else:
                scripts.append(value)
        index += 1
    return database, scripts


def inline(
    call: Invocation, places: Places, bases: list[str], raw: str, *, depth: int, judge: Judge
) -> Refusal | None:
    """Inline code (`python -c`, `node -e`, `awk '…'`), or code on standard input (a heredoc), that
    names a protected file once its strings are joined and decoded, drives cortex-hooks' library,
    hands a shell a command that would be refused, or deletes or moves a path it builds at run
    time (as `rm -rf "$DIR"`) or one of the guard's."""
    from cortex_hooks.guard.selfguard import made_text as text

    for code in _codes(call, raw):
        folded = text.folded(code)
        if (
            places.mentioned(folded)
            or re.search(_LIBRARY, folded)
            or re.search(r"from\s+cortex_hooks\s+import", folded)
        ):
            return Refusal("", "its code names the guard's files or drives cortex-hooks' library")
        if folded != code:
            for again in programs.shell_outs(folded):
                found = judge(again, places, bases[0], depth + 1)
                if found is not None:
                    return Refusal("", f"its code has a shell run `{again[:200]}`: {found.why}")
        for call_name, path in text.deletions(folded):
            if path is None:
                built = f"a path it builds when it runs ({call_name})"
                return Refusal("", f"its code deletes or moves {built}: it could be the guard's")
            whole = "tree" in call_name or "rm_r" in call_name
            whole = whole or call_name.endswith(("move", "rename", "replace", "rmSync", "mv"))
            hit = places.named(invocation.Arg(path, tilde=path.startswith("~/")), bases, whole=whole)
            if hit is not None and hit[0] != UNKNOWN:
                return Refusal("", f"its code deletes or moves the guard's {hit[0]} {hit[1]}")
    return None


def _codes(call: Invocation, raw: str) -> list[str]:
    """The code an interpreter is given in the command: `-c CODE`, awk's program, a heredoc."""
    values = call.values()
    if call.program in AWKS:
        index = 0
        while index < len(values):
            value = values[index]
            if value in ("-f", "--file"):
                return []  # the program is in a file
            if value in ("-F", "-v", "--assign", "--field-separator"):
                index += 2
                continue
            if not value.startswith("-"):
                return [value]
            index += 1
        return []
    code = programs.code_argument(lambda at: values[at], list(range(len(values))))
    if code is not None:
        return [values[code]]
    script = next((value for value in values if not value.startswith("-")), None)
    if (script is None or script == "-") and call.stdin is not None:
        return [raw]  # the code comes on standard input: the heredoc is in the command
    return []
