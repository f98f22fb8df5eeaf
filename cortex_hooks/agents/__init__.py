"""Every coding agent's hooks, translated: one module per agent reads that agent's
payloads into the one internal call (guard.call: tool kind, input, working directory, session,
agent) and writes exactly the answer that agent honours — never a field it does not know (Codex
then runs the command). The judge, the rules in force and the record of a match are the same for
every agent (hooks.pre_tool_use); so is the store: a learning added in one agent blocks in the next.

The three hook scripts take `--agent NAME` (claude when absent): `cortex-pre-tool-use --agent
codex`. Each adapter module has
- `NAME`, and `EVENTS`: our event (PreToolUse, SessionStart, SessionEnd) → the names its payload
  carries in `hook_event_name` (empty: it carries none);
- `FAILED`: the exit status the agent takes as a non-blocking error (a hook failure never blocks
  the agent's work: docs/internals/guarantees.md; Copilot CLI denies a call whose hook exits
  non-zero, so 0 there);
- `DECAY`: "end" (its session end is awaited: decay there) or "day" (none that is awaited: decay
  once per day of use, at a session start);
- `calls(payload)`: the calls of a PreToolUse payload (one, or one per file of a patch) and
  whether the judge may correct them (a shell call's command, never a patch's file: the answer
  of an agent that cannot carry a rewrite turns it into a deny naming the corrected command);
  `pre_tool_use(judged, payload)`: the wire answer (None: print nothing);
- `project(payload)`: the project the hook works for when the agent names none (the pipeline
  names it CLAUDE_PROJECT_DIR for the process; None: Claude Code names its own);
- `payload(tool, tool_input, cwd)`: a PreToolUse payload as the agent sends it (explain's);
- `session(payload, event)`: a session payload in Claude Code's fields; `session_start(text,
  message)`: the wire answer that puts the context before the model.
"""

from __future__ import annotations

import sys

from cortex_hooks.errors import USAGE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

NAMES = ("claude", "codex", "gemini", "copilot", "cursor")
OPTION = "--agent"


def adapter(name: str) -> ModuleType:
    """The adapter module of an agent; CortexError for a name that is none."""
    if name not in NAMES:
        raise CortexError(f"unknown agent {name!r} (one of {', '.join(NAMES)})", USAGE)
    module = f"cortex_hooks.agents.{name}"
    __import__(module)  # not importlib: its import alone would cost every tool call ~0.3 ms
    return sys.modules[module]


def named(argv: list[str]) -> str:
    """The agent a hook script was started for: `--agent NAME` or `--agent=NAME` among its
    arguments, else claude. Read without argparse: it runs before every tool call."""
    for index, word in enumerate(argv):
        if word == OPTION and index + 1 < len(argv):
            return argv[index + 1]
        if word.startswith(OPTION + "="):
            return word[len(OPTION) + 1 :]
    return "claude"
