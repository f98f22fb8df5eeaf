"""A tool call as the judge reads it: the tool, its input, where it runs, and what each learning
target reads of it — worked out once per call, however many rules (and judgments) read it.

Cheap to make: nothing is read until a rule asks. A Bash command is read as the shell reads it
(guard.shell.bash_command) only when a candidate's regex first needs it, and each regex is searched once per
target: the hook judges a call a second time inside its write transaction (the gate reads the
confidence as the boost finds it) without running a regex again.
"""

from __future__ import annotations

from cortex_hooks.guard import matching

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cortex_hooks.guard.shell.bash_command import BashCommand


class Call:
    """One tool call: `tool` (the tool's name, as learnings' matchers name it: Claude Code's name
    of the tool's kind whatever agent made the call, see cortex_hooks.agents), `input` (its
    tool_input, in Claude Code's fields), `cwd` (where it runs, when the agent says: the built-in
    protection's base for relative paths, and where the team file is looked for), the `session`
    it belongs to and the `agent` that made it (claude, codex, gemini, copilot, cursor)."""

    __slots__ = ("_found", "_subjects", "_texts", "agent", "cwd", "input", "session", "tool")

    def __init__(
        self,
        tool: str,
        tool_input: dict[str, Any],
        cwd: object = None,
        *,
        session: object = None,
        agent: str = "claude",
    ) -> None:
        self.tool = tool
        self.input = tool_input
        self.cwd = cwd if isinstance(cwd, str) else None
        self.session = session if isinstance(session, str) else None
        self.agent = agent
        self._texts: dict[str, list[str]] = {}
        self._subjects: dict[str, list[str] | BashCommand] = {}
        self._found: dict[tuple[str, str, tuple[float, float]], int | matching.Unusable | None] = {}

    @property
    def kind(self) -> str | None:
        """The tool's agent-neutral kind: shell, write, edit, read, mcp (None: another tool)."""
        return matching.kind_of(self.tool)

    @property
    def command(self) -> str | None:
        """A Bash call's command (None for any other tool, or a command that is not a string)."""
        command = self.input.get("command")
        return command if self.tool == matching.READ_TOOL and isinstance(command, str) else None

    def texts(self, target: str) -> list[str]:
        """The raw texts a learning of this target reads (matching.fragments)."""
        found = self._texts.get(target)
        if found is None:
            found = self._texts[target] = matching.fragments(target, self.tool, self.input)
        return found

    def every_text(self) -> dict[str, list[str]]:
        return {target: self.texts(target) for target in matching.TARGETS}

    def subject(self, target: str) -> list[str] | BashCommand:
        """What a learning's regex searches: the raw texts, or a Bash command as the shell reads it."""
        found = self._subjects.get(target)
        if found is None:
            found = self._subjects[target] = matching.subject(target, self.tool, self.texts(target))
        return found

    def where(
        self, pattern: str, target: str, timeouts: tuple[float, float], literals: str | None = None
    ) -> int | None:
        """The index of the text (or simple command) the pattern matches in, None when it does not;
        matching.Unusable when it cannot decide. Searched once per pattern and target. `literals`:
        the pattern's, as stored with its learning (they spare parsing it)."""
        key = (pattern, target, timeouts)
        if key not in self._found:
            try:
                self._found[key] = matching.where(pattern, self.subject(target), *timeouts, literals)
            except matching.Unusable as error:
                self._found[key] = error
        found = self._found[key]
        if isinstance(found, matching.Unusable):
            raise found
        return found

    def corrected(self, command: str) -> Call:
        """This call with another command (a rewrite's correction), every other field kept."""
        return Call(
            self.tool, {**self.input, "command": command}, self.cwd, session=self.session, agent=self.agent
        )


class Origin:
    """Where a call was asked: its session, its id (Claude Code's `tool_use_id`) and the session's
    transcript. What the outcome of a deny, ask or rewrite is worked out from
    (docs/guide/outcomes.md); never read by the judge."""

    __slots__ = ("call_id", "session", "transcript")

    def __init__(self, session: str | None, call_id: str | None, transcript: str | None = None) -> None:
        self.session = session
        self.call_id = call_id
        self.transcript = transcript
