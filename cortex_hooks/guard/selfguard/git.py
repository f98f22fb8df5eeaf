"""What git does to the guard's places, pure: `git clean -x` and `git stash
--all` delete the ignored `.cortex/`; `git rm`, `checkout`, `restore` and `mv` of a protected
path change it; and the commands git itself runs — an alias (`-c alias.x='!rm -rf .cortex'`), a
pager, an editor, an ssh command, a filter — given on its command line or set with `git config`
for a later call, are commands of the agent's like any other (commands_run).
"""

from __future__ import annotations

import re

from cortex_hooks.guard.selfguard.protected import UNKNOWN, Places, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.selfguard.word_paths import Context
    from cortex_hooks.guard.shell.invocation import Invocation

# Settings whose value git runs as a shell command (a value starting with `!` for alias and
# credential.helper), by name; a `*` stands for any subsection.
RUNS = re.compile(
    r"(?i)^(?:alias\.[^.]+|core\.(?:pager|editor|sshcommand|fsmonitor|askpass|gitproxy)"
    r"|pager\.[^.]+|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)"
    r"|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver|credential(?:\..+)?\.helper"
    r"|gpg(?:\.[^.]+)?\.program|difftool\..+\.cmd|mergetool\..+\.cmd|uploadpack\.packobjectshook"
    r"|sendemail\.(?:smtpserver|tocmd|cccmd)|web\.browser|browser\..+\.cmd|man\..+\.cmd)$"
)
# The environment variables a command runs the value of (git's, and the shell's and pagers').
RUN_VARIABLES = frozenset(
    {
        *("GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SSH_COMMAND", "GIT_SSH"),
        *("GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_SEQUENCE_EDITOR", "LESSOPEN"),
        *("LESSCLOSE", "MANPAGER", "BASH_ENV", "ENV", "PROMPT_COMMAND", "GIT_PROXY_COMMAND"),
    }
)
_VALUED = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env")


def commands_run(call: Invocation) -> list[str]:
    """The command lines this git call runs or has a later git call run (`!`-aliases as shell
    commands, other aliases as git's own commands)."""
    values = call.values()
    found: list[str] = []
    index = 0
    while index < len(values) and values[index].startswith("-"):
        if values[index] == "-c" and index + 1 < len(values):
            found += _setting(values[index + 1])
        index += 2 if values[index] in _VALUED else 1
    if index < len(values) and values[index] == "config":
        rest = [value for value in values[index + 1 :] if not value.startswith("-")]
        if len(rest) >= 2:
            found += _setting(f"{rest[0]}={rest[1]}")
    return found


def variable_commands(name: str, value: str) -> list[str]:
    """The command lines an environment variable hands to a program (`GIT_PAGER='…' git log`)."""
    if name in RUN_VARIABLES:
        return [value]
    if re.fullmatch(r"GIT_CONFIG_VALUE_\d+", name):
        return [value.removeprefix("!")]
    if name == "GIT_CONFIG_PARAMETERS":
        found: list[str] = []
        for item in re.findall(r"'([^']*)'", value):
            found += _setting(item)
        return found
    return []


def _setting(text: str) -> list[str]:
    key, equals, value = text.partition("=")
    if not equals or not RUNS.match(key):
        return []
    if key.lower().startswith("alias.") and not value.startswith("!"):
        return [f"git {value}"]
    return [value.removeprefix("!")]


def judged(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`git clean -x`, `git stash --all`; `git rm|checkout|restore|mv` of a protected path."""
    from cortex_hooks.guard.selfguard.operands import named, operands

    values = [arg.value for arg in call.args]
    index = 0
    while index < len(values) and values[index].startswith("-"):
        index += 2 if values[index] in _VALUED else 1
    if index >= len(values):
        return None
    command, rest = values[index], call.args[index + 1 :]
    options = [arg.value for arg in rest if arg.value.startswith("-")]
    if command == "clean" and any(
        option[:2] != "--" and ("x" in option or "X" in option) for option in options
    ):
        return Refusal("", "git clean -x deletes the ignored files, the guard's .cortex/ folder with them")
    if command == "stash" and any(option in ("-a", "--all") for option in options):
        return Refusal(
            "", "git stash --all takes the ignored files away, the guard's .cortex/ folder with them"
        )
    staged = "--cached" in options or (
        command == "restore" and "--staged" in options and "--worktree" not in options
    )
    if command in ("rm", "checkout", "restore", "mv") and not staged:
        for arg in operands(rest):
            found = places.named(arg, bases, whole=True)
            # Only tracked files change: a folder above (`git checkout .`) restores them as
            # committed, as `git reset --hard` does, and never reaches the ignored `.cortex/`.
            if (
                found is not None
                and found[0] != UNKNOWN
                and (arg.globbed or found[1] in (places.paths(arg, bases) or []))
            ):
                return named("changes", found)
    return None
