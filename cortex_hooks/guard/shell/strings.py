"""The strings programs other than the shells hand to a shell to run: `eval`'s words,
`env -S STRING`, what GNU `parallel` runs, the `-c` string of `script`, `flock`, `su`, `runuser`
and `npx`, the command `ssh` has the remote shell run, and the body of a string that is only
`$(cat <<EOF … EOF)`. Each is a stretch of the values of the command's words (only ever deleting
characters), so the prefilter's loosened texts still hold it."""

from __future__ import annotations

import functools
import re

from cortex_hooks.guard.shell import programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def strings_run(name: str, values: Callable[[int], str], indices: list[int]) -> list[str]:
    """The strings a program (not a shell) hands to a shell: `eval ARGS` (joined), `env -S
    STRING ARGS`, what `parallel` runs when it is no plain wrapper, `script -c`, `flock -c`,
    `su -c`, `runuser -c`."""
    if name == "eval":
        return [" ".join(values(index) for index in indices)]
    if name == "parallel":
        return parallel_strings(values, indices)
    if name == "ssh":
        return remote_command(values, indices)
    if name == "env":
        found = split_string(values, indices)
    elif name in programs.COMMAND_OPTION:
        found = command_string(values, indices)
    else:
        return []
    return [found] if found is not None else []


def split_string(values: Callable[[int], str], indices: list[int]) -> str | None:
    """The command `env -S STRING ARGS…` runs, as a text for a shell to read (env splits STRING
    into words much as a shell does), or None when env has no -S."""
    for position, index in enumerate(indices):
        value = values(index)
        if value == "--":
            return None
        if not programs.splits(value):
            continue
        if value.startswith("--split-string="):
            first, rest = value[len("--split-string=") :], position + 1
        elif value.endswith("S") or value == "--split-string":
            if position + 1 >= len(indices):
                return None
            first, rest = values(indices[position + 1]), position + 2
        else:
            first, rest = value[value.index("S") + 1 :], position + 1
        return " ".join([first, *(values(later) for later in indices[rest:])])
    return None


def command_string(values: Callable[[int], str], indices: list[int]) -> str | None:
    """The string `script -c STRING`, `flock FILE -c STRING` or `su -c STRING` hands to a shell."""
    for position, index in enumerate(indices):
        found = programs.command_option(values(index))
        if found == "" and position + 1 < len(indices):
            return values(indices[position + 1])
        if found:
            return found
    return None


def parallel_strings(values: Callable[[int], str], indices: list[int]) -> list[str]:
    """What GNU parallel has a shell run, when the reader cannot show it as a wrapper: its command
    words joined (`parallel 'rm -rf {}' ::: a b` → `rm -rf {} ::: a b`, the arguments kept in
    place so that the text stays a stretch of the command), or, with no command before the
    first `:::`, each argument (`parallel ::: 'rm -rf x' ls`: the arguments are the commands)."""
    position = programs.after_wrapper_options("parallel", values, indices)
    if position >= len(indices):
        return []
    if values(indices[position]) in programs.PARALLEL_SEPARATORS:
        found = []
        for index in indices[position + 1 :]:
            if values(index) in programs.PARALLEL_SEPARATORS:
                break
            found.append(values(index))
        return found
    return [" ".join(values(index) for index in indices[position:])]


def cat_heredoc(text: str) -> tuple[int, int] | None:
    """Where the body lies in a string that is only `$(cat <<EOF … EOF)`: what the shell
    substitutes, so `bash -c "$(cat <<EOF … EOF)"` runs the body (its (start, end)); else None."""
    if "<<" not in text or not text.lstrip().startswith("$("):
        return None
    found = _cat_heredoc_pattern().match(text)
    return (found.start(3), found.end(3)) if found else None


@functools.cache
def _cat_heredoc_pattern() -> re.Pattern[str]:
    return re.compile(
        r"\A\s*\$\(\s*cat\s*<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1[ \t]*\n"  # $(cat <<'EOF'
        r"((?:.*?\n)??)[ \t]*\2[ \t]*\n?\s*\)\s*\Z",  # the body, EOF on a line of its own, )
        re.DOTALL,
    )


_SSH_VALUED = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


def remote_command(values: Callable[[int], str], indices: list[int]) -> list[str]:
    """`ssh [options] DESTINATION COMMAND …`: the command, its words joined, that the remote shell
    runs (none for a login)."""
    position = 0
    while position < len(indices):
        value = values(indices[position])
        if value == "--":
            position += 1
            break
        if not value.startswith("-") or len(value) == 1:
            break
        taking = next((at for at, letter in enumerate(value[1:]) if letter in _SSH_VALUED), None)
        position += 2 if taking is not None and taking == len(value) - 2 else 1
    rest = [values(index) for index in indices[position + 1 :]]
    return [" ".join(rest)] if rest else []
