"""Text a shell runs that the command makes when it runs, pure: `printf … | bash`,
`echo cm0g… | base64 -d | sh`, `eval "$(…)"`, `bash <(…)`, `C='…'; eval "$C"`, and the words
spelled in the shell's ANSI-C quoting (`$'\\x2ecortex'`).

Text the hook can work out (guard.selfguard.made_text) is judged as commands of the agent's;
text it cannot is refused where what makes it names the guard or decodes hidden text (`… |
base64 -d | sh`, `eval "$(cat x | rev)"`), never for an everyday `eval "$(ssh-agent -s)"` or `curl
… | sh`: what those run is only known when they run, and a change they make to the guard is for the
check that detects and undoes it.
"""

from __future__ import annotations

import re

from cortex_hooks.guard.selfguard.protected import Places, Refusal
from cortex_hooks.guard.shell import invocation, programs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cortex_hooks.guard.selfguard.bindings import Facts
    from cortex_hooks.guard.shell.invocation import Arg, Invocation
    from cortex_hooks.guard.shell.reader import Simple

    Judge = Callable[[str, Places, str, int], Refusal | None]


def decoded(call: Invocation, simple: Simple) -> Invocation:
    """The invocation with each `$'…'` word decoded as the shell will (`$'\\x2ecortex'` is
    `.cortex`), its words otherwise as the reader gave them."""
    command, program, _ = simple.parts  # type: ignore[misc]
    source = command.source  # the whole line: each word looks at its own quoted spans only
    words = command.words
    decoded: dict[int, Arg] = {}
    for index, word in enumerate(words):
        if any(source.startswith("$'", start) for start, _ in word.quoted):
            decoded[index] = _ansi_word(source, word)
    if not decoded:
        return call
    named = decoded.get(program, call.named) if program < len(words) else call.named
    args: list[Arg] = []
    redirects: list[tuple[str, Arg]] = []
    position = 0
    index = 0
    while index < len(words):
        if words[index].kind != 0:
            operator, _ = call.redirects[len(redirects)]
            redirects.append((operator, decoded.get(index + 1, call.redirects[len(redirects)][1])))
            index += 2
            continue
        if index > program:
            args.append(decoded.get(index, call.args[position]))
            position += 1
        index += 1
    return invocation.Invocation(named, args, redirects, call.wrappers, call.stdin, source=call.source)


def _ansi_word(source: str, word: object) -> Arg:
    from cortex_hooks.guard.selfguard.made_text import ansi_c

    start, end = word.start, word.end  # type: ignore[attr-defined]
    pieces: list[str] = []
    expands = False
    position = start
    for low, high in sorted(word.quoted):  # type: ignore[attr-defined]
        plain = source[position:low]
        expands = expands or bool(re.search(r"\$[\w{(@*#?$!-]|`", plain))
        pieces.append(programs.unquote(plain))
        quoted = source[low:high]
        if quoted.startswith("$'"):
            pieces.append(ansi_c(quoted[2:-1] if quoted.endswith("'") and len(quoted) > 2 else quoted[2:]))
        else:
            expands = expands or (quoted.startswith('"') and bool(re.search(r"\$[\w{(@*#?$!-]|`", quoted)))
            pieces.append(programs.unquote(quoted))
        position = max(position, high)
    plain = source[position:end]
    expands = expands or bool(re.search(r"\$[\w{(@*#?$!-]|`", plain))
    pieces.append(programs.unquote(plain))
    value = "".join(pieces)
    return invocation.Arg(
        value, expands=expands, globbed=any(c in plain for c in "*?["), tilde=value.startswith("~/")
    )


def runs_text(
    call: Invocation, simple: Simple, facts: Facts, bases: list[str], *, depth: int, judge: Judge
) -> Refusal | None:
    """A shell, `eval` or `source` running text made when the command runs: on its standard input
    (`printf … | bash`), as a substitution (`eval "$(…)"`, `bash -c "$(…)"`), a process
    substitution (`bash <(…)`, `source <(…)`), a variable set in the command. Text the hook works
    out is judged as commands (`judge`); text it cannot is refused where what makes it names the
    guard or decodes hidden text."""
    from cortex_hooks.guard.selfguard import made_text

    places = facts.places
    makers, made = _makers(call, simple, facts)
    for maker in makers:
        found = _made(maker, facts, 0)
        if found is not None:
            made.append(found)
            continue
        shown = _source_of(maker)
        if places.mentioned(made_text.folded(shown)) or "cortex" in shown or _decodes(maker, facts):
            return Refusal(
                "",
                "it runs text made only when the command runs, from text that names the guard or is encoded",
            )
    for each in made:
        again = judge(each, places, bases[0], depth + 1) if each.strip() else None
        if again is not None:
            return Refusal("", f"the text it runs is `{each.strip()[:200]}`: {again.why}")
    return None


def _makers(call: Invocation, simple: Simple, facts: Facts) -> tuple[list[Simple], list[str]]:
    """The commands whose output this shell, eval or source runs, and the texts it runs that the
    command sets in a variable."""
    values = call.values()
    if call.program not in programs.SHELLS:  # eval, source, .
        makers: list[Simple] = []
        made: list[str] = []
        for arg in call.args:
            if arg.expands or arg.value.startswith("<("):
                makers += _inside(simple, facts, arg)
                made += _assigned_text(arg, facts)
        return makers, made
    operand, stdin_shell = programs.shell_operand(lambda index: values[index], list(range(len(values))))
    if operand is None and not stdin_shell:  # `bash FILE`: the script is its first operand
        operand = next((at for at, value in enumerate(values) if not value.startswith(("-", "+"))), None)
    script = call.args[operand] if operand is not None else None
    if script is not None and (script.expands or script.value.startswith("<(")):
        return _inside(simple, facts, script), _assigned_text(script, facts)  # bash -c "$(…)", bash <(…)
    if (script is None and stdin_shell) or (script is not None and script.value in ("/dev/stdin", "-")):
        return _piped(simple, facts), []
    return [], []


def _piped(simple: Simple, facts: Facts) -> list[Simple]:
    piped = simple.parts[0].piped_from  # type: ignore[index]
    producer = facts.by_command.get(id(piped)) if piped is not None else None
    return [producer] if producer is not None else []


def _assigned_text(arg: Arg, facts: Facts) -> list[str]:
    """The text of a variable the command sets to a literal (`C='rm -rf .cortex'; eval "$C"`)."""
    found = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", arg.value)
    return list(facts.texts.get(found[1], [])) if found else []


def _inside(simple: Simple, facts: Facts, arg: Arg) -> list[Simple]:
    """The commands whose output a word's `$(…)`, backquotes or `<(…)` hold (their last one)."""
    command = simple.parts[0]  # type: ignore[index]
    found: list[Simple] = []
    for other in facts.simples:
        parts = other.parts[0]  # type: ignore[index]
        if parts.source is not command.source or not parts.words or other is simple:
            continue
        start = parts.words[0].start
        if any(word.start < start < word.end for word in command.words):
            found.append(other)
    if not found:
        return []
    fed = {id(other.parts[0].piped_from) for other in found}  # type: ignore[index]
    last = [other for other in found if id(other.parts[0]) not in fed]  # type: ignore[index]
    return last or found[-1:]


def _made(simple: Simple, facts: Facts, level: int) -> str | None:
    """The text a producer writes, when the command holds it (None: only run time knows)."""
    from cortex_hooks.guard.selfguard import made_text

    call = invocation.invocation(simple)
    if call is None or level > 6:
        return None
    call = decoded(call, simple)
    if any(arg.expands for arg in call.args):
        return None

    def fed() -> str | None:
        piped = simple.parts[0].piped_from  # type: ignore[index]
        producer = facts.by_command.get(id(piped)) if piped is not None else None
        return _made(producer, facts, level + 1) if producer is not None else None

    return made_text.produced(call, fed)


def _decodes(simple: Simple, facts: Facts) -> bool:
    """Whether a pipe into a shell passes its text through a decoder (`base64 -d`, `xxd -r`, `rev`)."""
    from cortex_hooks.guard.selfguard.made_text import DECODERS

    current: Simple | None = simple
    for _ in range(8):
        if current is None:
            return False
        call = invocation.invocation(current)
        if call is not None and call.program in DECODERS:
            return True
        piped = current.parts[0].piped_from  # type: ignore[index]
        current = facts.by_command.get(id(piped)) if piped is not None else None
    return False


def _source_of(simple: Simple) -> str:
    """The text of a producer and of what is piped into it, as written."""
    parts: list[str] = []
    command = simple.parts[0]  # type: ignore[index]
    for _ in range(8):
        if command is None or not command.words:
            break
        parts.append(command.source[command.words[0].start : command.words[-1].end])
        command = command.piped_from
    return " | ".join(reversed(parts))
