"""What a learning is matched against: tool matchers (Claude Code's, and the agent-neutral kinds),
target texts, timed regexes."""

from __future__ import annotations

import functools
import json
import re

from cortex_hooks.errors import USAGE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.shell.bash_command import BashCommand

TARGETS = ("content", "path", "input", "raw")
READ_TOOL = "Bash"  # the tool whose `command` is read as the shell reads it (target content)

# The agent-neutral tool kinds: every agent's tool call reaches the judge under the
# name of Claude Code's tool of the same kind (cortex_hooks.agents), and a learning may name a
# kind where it names a tool: `shell` accepts Bash in Claude Code, Codex's Bash, Gemini CLI's
# run_shell_command, Copilot's bash and Cursor's Shell alike; `mcp` every MCP server's tools.
KINDS = {
    "Bash": "shell",
    "PowerShell": "shell",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Read": "read",
    "NotebookRead": "read",
    "Grep": "read",
    "Glob": "read",
    "LS": "read",
}
KIND_NAMES = frozenset({"shell", "write", "edit", "read", "mcp"})
TOOL_OF_KIND = {"shell": "Bash", "write": "Write", "edit": "Edit", "read": "Read"}  # a kind's call, named
MCP_PREFIX = "mcp__"  # an MCP tool's name in every agent's call: mcp__SERVER__TOOL


def kind_of(tool_name: str) -> str | None:
    """The kind of a tool (shell, write, edit, read, mcp), or None for any other tool."""
    found = KINDS.get(tool_name)
    if found is None and tool_name.startswith(MCP_PREFIX):
        return "mcp"
    return found


# Claude Code reads a matcher made only of these characters as exact tool names separated by
# `|` or `,`; anything else is an unanchored, case-sensitive regular expression. (A set, not a
# compiled pattern: compiling one at import would cost every PreToolUse call.)
_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_- ,|")
_LITERAL_CHARACTERS = _NAME_CHARACTERS - frozenset(" ,|")  # each stands for itself in a regex

_CONTENT_FIELD = {
    "Bash": "command",
    "PowerShell": "command",
    "Write": "content",
    "Edit": "new_string",
    "NotebookEdit": "new_source",
}
_PATH_FIELDS = ("file_path", "notebook_path", "path")
# the tools whose path fields Claude Code defines; an MCP tool's `path` may be anything
_PATH_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Grep", "Glob"})


def tool_accepts(matcher: str, tool_name: str) -> bool:
    """Whether a learning's `tool` matcher accepts this tool, as Claude Code's hook matchers do;
    a name that is a kind (shell, write, edit, read, mcp) accepts every tool of that kind."""
    matcher = matcher.strip()
    if matcher in ("", "*"):
        return True
    if _NAME_CHARACTERS.issuperset(matcher):
        names = {name.strip() for name in matcher.replace(",", "|").split("|")}
        return tool_name in names or (not names.isdisjoint(KIND_NAMES) and kind_of(tool_name) in names)
    if matcher.endswith(".*") and _LITERAL_CHARACTERS.issuperset(matcher[:-2]):
        return matcher[:-2] in tool_name  # `mcp__github__.*` searched for: no pattern compiled
    try:
        return re.search(matcher, tool_name) is not None
    except re.error:
        return False


def check_tool_matcher(matcher: str) -> str:
    """A matcher as given, or CortexError when it is a permission rule or a regular expression
    that does not compile."""
    rule = permission_rule(matcher)
    if rule is not None:
        raise CortexError(
            f"tool matcher {matcher!r} looks like a permission rule, which never matches a tool name;"
            " a tool matcher is a name (Bash) or a kind (shell, write, edit, read, mcp), names joined"
            " by | (Edit|Write), a regex (mcp__.*) or *;"
            f" to match what it names use --tool {rule[0]} and a --regex{_example(*rule)}",
            USAGE,
        )
    if matcher.strip() not in ("", "*") and not _NAME_CHARACTERS.issuperset(matcher.strip()):
        try:
            re.compile(matcher)
        except re.error as error:
            raise CortexError(f"tool matcher {matcher!r} is not a valid regex: {error}", USAGE) from None
    return matcher


def permission_rule(matcher: str) -> tuple[str, str] | None:
    """(tool, specifier) when the matcher, or one of its |/, alternatives, is written as a
    permission rule: `Bash(git:*)`, `Read(./x)`, `WebFetch(domain:…)`. Claude Code's tools are
    CamelCase words and MCP rules take no parentheses, so a capitalised word followed by a
    parenthesised tail is not a useful matcher, unless the tail is a group of tool-name endings
    (`Notebook(Edit|Read)`); `mcp__x__(a|b)` is a regex too."""
    for part in (matcher, *re.split(r"[|,]", matcher)):
        found = re.fullmatch(r"\s*([A-Z][A-Za-z]*)\((.*)\)\s*", part)
        if found and not re.fullmatch(r"[A-Z][A-Za-z]*(\|[A-Z][A-Za-z]*)*", found[2]):
            return found[1], found[2]
    return None


def _example(tool: str, specifier: str) -> str:
    """` (--tool Bash --regex '^git\\b')` for a command rule such as `Bash(git:*)`."""
    command = specifier.removesuffix("*").removesuffix(":").strip()
    if tool in ("Bash", "PowerShell") and re.fullmatch(r"[\w-]+", command):
        return f" (--tool {tool} --regex '^{command}\\b')"
    return ""


def mistyped(tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """What is wrong with the fields a learning reads from this tool's input, if anything."""
    field = _CONTENT_FIELD.get(tool_name)
    if field is not None and field in tool_input and not isinstance(tool_input[field], str):
        return f"tool_input.{field} must be a string"
    if tool_name == "MultiEdit" and "edits" in tool_input:
        edits = tool_input["edits"]
        if not isinstance(edits, list) or not all(
            isinstance(edit, dict) and isinstance(edit.get("new_string"), str) for edit in edits
        ):
            return "tool_input.edits must be a list of objects with a string new_string"
    for name in _PATH_FIELDS:
        if tool_name in _PATH_TOOLS and name in tool_input and not isinstance(tool_input[name], str):
            return f"tool_input.{name} must be a string"
    return None


def compact(tool_input: dict[str, Any]) -> str:
    """The compact JSON of a tool input, non-ASCII kept as it is so literals match; at any depth."""
    try:
        return json.dumps(tool_input, separators=(",", ":"), ensure_ascii=False)
    except RecursionError:  # deeper than the C encoder goes (docs/guide/selfguard.md): written with a stack
        from cortex_hooks import json_values

        return json_values.compact(tool_input)


def fragments(target: str, tool_name: str, tool_input: dict[str, Any]) -> list[str]:
    """The raw texts of a learning of this target: what the prefilter reads, and what
    the regex is matched against, except a Bash command of target content (see `subject`)."""
    if target == "input":
        return [compact(tool_input)]
    if target == "path":
        return [value for field in _PATH_FIELDS if isinstance(value := tool_input.get(field), str)][:1]
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list):
            return []
        return [
            edit["new_string"]
            for edit in edits
            if isinstance(edit, dict) and isinstance(edit.get("new_string"), str)
        ]
    field = _CONTENT_FIELD.get(tool_name)
    if field is None:
        return [compact(tool_input)]
    value = tool_input.get(field)
    return [value] if isinstance(value, str) else []


def subject(target: str, tool_name: str, texts: list[str]) -> list[str] | BashCommand:
    """What a learning's regex searches: the raw texts, or for a Bash command and target content
    the command as the shell reads it (docs/guide/command-reader.md; read only when first searched)."""
    if target == "content" and tool_name == READ_TOOL and texts:
        from cortex_hooks.guard.shell.bash_command import BashCommand

        return BashCommand(texts[0])
    return texts


# Compiling is not covered by `regex`'s timeout, and counted repeats are unrolled when compiled:
# `(?:a{1}b?|…|a{2000}b?)+` takes a gigabyte. Patterns past these bounds are refused.
MAX_PATTERN = 100_000  # characters
MAX_REPEATS = 5_000  # the sum of every {m,n} bound in the pattern
_BOUNDS = r"\{(\d*),?(\d*)\}"  # compiled when first used (`re` caches it): not by a call that matches nothing


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """A compiled `regex` pattern; CortexError (invalid input) when it does not compile or would
    cost too much to compile. Kept per process (a failure is not kept): a replay meets the same
    learnings' patterns at every call, and `regex`'s own cache holds only a few hundred."""
    repeats = sum(int(low or 0) + int(high or 0) for low, high in re.findall(_BOUNDS, pattern))
    if len(pattern) > MAX_PATTERN or repeats > MAX_REPEATS:
        raise CortexError(
            f"regex too costly to compile (over {MAX_PATTERN:,} characters or {MAX_REPEATS:,} "
            "counted repeats); split it or simplify it",
            USAGE,
        )
    try:
        import regex
    except ImportError:  # the plugin's first minute (hooks.packs_only): `re`, the call bounded whole
        try:
            return _Plain(re.compile(pattern))
        except (re.error, ValueError, OverflowError, RecursionError) as error:
            raise CortexError(f"invalid regex {pattern!r}: {error}", USAGE) from None
    try:
        return regex.compile(pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as error:
        raise CortexError(f"invalid regex {pattern!r}: {error}", USAGE) from None


class _Plain:
    """A pattern of `re` searched as one of `regex` is (its `timeout` is then the caller's: the
    plugin's first-minute hook bounds the whole call with an alarm)."""

    __slots__ = ("compiled", "pattern")

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self.compiled = compiled
        self.pattern = compiled.pattern

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(
        self, text: str, pos: int = 0, endpos: int | None = None, *, timeout: float | None = None
    ) -> Any:
        end = len(text) if endpos is None else endpos
        return self.compiled.search(text, pos, end)


class Unusable(CortexError):
    """A learning's regex that cannot decide: it does not compile, costs too much, or timed out."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message, USAGE)
        self.timed_out = timed_out


def evaluate(
    pattern: str, texts: list[str] | BashCommand, base_timeout: float, timeout_per_mib: float
) -> bool:
    """Whether a learning's regex occurs in the texts (any of them), or in a simple command of a
    Bash command outside its data. The one evaluation the hook, explain and doctor share."""
    return where(pattern, texts, base_timeout, timeout_per_mib) is not None


def where(
    pattern: str,
    texts: list[str] | BashCommand,
    base_timeout: float,
    timeout_per_mib: float,
    literals: str | None = None,
) -> int | None:
    """The index of the text (or of the Bash command's simple command) the regex matches, or
    None: compiled, then searched under the timeout; Unusable when it cannot decide (the
    learning is then skipped, and the others still decide). `literals`: the pattern's, as stored
    with its learning (bash_command.locate)."""
    try:
        compiled = compile_pattern(pattern)
    except CortexError as error:
        raise Unusable(error.message) from None
    try:
        if isinstance(texts, list):
            return _first(compiled, texts, base_timeout, timeout_per_mib)
        from cortex_hooks.guard.shell import bash_command

        return bash_command.locate(compiled, texts, base_timeout, timeout_per_mib, literals)
    except TimeoutError:
        raise Unusable("its regex timed out", timed_out=True) from None


def search(compiled: Any, texts: list[str], base_timeout: float, timeout_per_mib: float) -> bool:
    """Whether the pattern occurs in any text; TimeoutError past a budget that grows with the text.

    The timeout bounds pathological patterns, not honest work: a plain pattern over a Write of
    tens of megabytes still runs to the end.
    """
    return _first(compiled, texts, base_timeout, timeout_per_mib) is not None


def _first(compiled: Any, texts: list[str], base_timeout: float, timeout_per_mib: float) -> int | None:
    for index, text in enumerate(texts):
        timeout = base_timeout + timeout_per_mib * len(text) / 1_048_576
        if compiled.search(text, timeout=timeout) is not None:
            return index
    return None
