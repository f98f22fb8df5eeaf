"""A program's words as the built-in protection's rules read them, and the refusal they give,
pure: its options, its operands (all after `--`), an option's value in any of its
spellings, `name=value` as a word too."""

from __future__ import annotations

from cortex_hooks.guard.selfguard.protected import UNKNOWN, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.shell.invocation import Arg, Invocation


def options(call: Invocation) -> list[str]:
    values = [arg.value for arg in call.args]
    end = values.index("--") if "--" in values else len(values)
    return [value for value in values[:end] if value.startswith("-") and value != "-"]


def operands(args: list[Arg]) -> list[Arg]:
    """The words that are no option (all of them after `--`)."""
    found: list[Arg] = []
    for index, arg in enumerate(args):
        if arg.value == "--":
            return found + args[index + 1 :]
        if not arg.value.startswith("-") or arg.value == "-":
            found.append(arg)
    return found


def with_values(arg: Arg) -> list[Arg]:
    """A word, and the value of `name=value` in it (`of=FILE`, `--output=FILE`) as a word too."""
    if "=" not in arg.value:
        return [arg]
    from cortex_hooks.guard.shell.invocation import Arg

    value = arg.value.partition("=")[2]
    return [arg, Arg(value, expands=arg.expands, globbed=arg.globbed, tilde=value.startswith("~"))]


def option_value(args: list[Arg], short: str, long: str) -> Arg | None:
    """The value of an option: `-t DIR`, `-tDIR`, `--target-directory DIR` or `=DIR`; for a bundle
    of short flags ending in it (`tar -czf ARCHIVE`), the next word."""
    from cortex_hooks.guard.shell.invocation import Arg

    for index, arg in enumerate(args):
        value = arg.value
        following = args[index + 1] if index + 1 < len(args) else None
        if value == "--":
            return None
        if value == long and following is not None:
            return following
        if value.startswith(long + "="):
            return Arg(value.partition("=")[2], expands=arg.expands)
        if short and value[:1] == "-" and value[1:2] != "-" and short in value[1:]:
            rest = value[value.index(short, 1) + 1 :]
            return Arg(rest, expands=arg.expands) if rest else following
    return None


def named(verb: str, found: tuple[str, str]) -> Refusal:
    kind, path = found
    if kind == UNKNOWN:
        return Refusal(
            "", f"it {verb} {path}, which only the shell knows when it runs (it could be the guard's)"
        )
    return Refusal("", f"it {verb} the guard's {kind} {path}")
