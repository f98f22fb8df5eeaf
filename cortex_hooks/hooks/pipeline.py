"""The pipeline every hook shares: read stdin, parse, open the database, handle, emit.

It is written once, with the failure policy of SPEC §4.4 in one place (cortex_hooks.boundary):
whatever goes wrong, one line on stderr and exit 1, which Claude Code reports as a non-blocking
hook error — the tool call is never blocked by a failure, only by a deliberate deny.
"""

from __future__ import annotations

import json
import os
import sys

from cortex_hooks import agents, boundary, location
from cortex_hooks.errors import FAILURE, CortexError
from cortex_hooks.keeper import environment
from cortex_hooks.store.connection import HOOK_WRITE_WAIT
from cortex_hooks.store.scopes import Scope, close, open_scopes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any, TypeVar

    Payload = dict[str, Any]
    Parsed = TypeVar("Parsed")


class Outcome:
    """What a hook has to say: JSON for Claude Code (or nothing); problems (a failure, unless
    there is a decision beside them) and notes (work done, something worth saying) for stderr."""

    __slots__ = ("notes", "output", "problems")

    def __init__(
        self,
        output: dict[str, Any] | None = None,
        problems: list[str] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.output = output
        self.problems = problems or []
        self.notes = notes or []


def run(
    event: str,
    parse: Callable[[Payload, ModuleType], Parsed | Outcome],
    handle: Callable[[Parsed, list[Scope]], Outcome],
    *,
    guard_files: bool = False,
    without_database: bool = False,
    kept: bool = False,
    agent: str = "claude",
) -> int:
    """One hook invocation behind the error boundary; the process exit status.

    `parse` validates the payload, as the agent's adapter (cortex_hooks.agents) reads it, before
    a database is looked at, so bad input is reported even in a project without one; it may
    decide from the payload alone, and then no database is opened at all. `handle` loads, decides
    and writes, scope by scope. With `guard_files`, a database another process holds unreadable
    reaches `handle` as its guard file (scopes.open_scopes). With `without_database`, `handle` is
    called even when neither scope has a database (PreToolUse: the built-in protection needs none).
    With `kept`, the keeper checks the guard's state first (SPEC §21: a weakening put back, and
    told beside the answer). A failure exits with the status the agent takes as a non-blocking
    error (the adapter's FAILED).
    """
    dropped = environment.drop_untrusted()  # before anything reads a CORTEX_* variable (SPEC §21)
    if boundary.is_child():
        return 0  # a process cortex-hooks started itself (SPEC §10.4): never recurse
    if dropped:
        print(f"cortex-hooks: {event}: {'; '.join(dropped)}", file=sys.stderr)
    status = boundary.guarded(
        lambda: _run(event, parse, handle, (guard_files, without_database, kept), agent),
        prefix=f"cortex-hooks: {event}",
        hook=True,
    )
    if status == FAILURE and agent != "claude":
        try:
            return int(agents.adapter(agent).FAILED)
        except CortexError:
            return status
    return status


def leave(status: int) -> int:
    """End the hook's process now, its output flushed, without the interpreter's teardown.

    Freeing every module and object at exit costs PreToolUse about 3 ms, a tenth of its whole
    run, for nothing: its connections are closed and its files written by then. Only a console
    script's entry point calls this, after `run`. Should a flush fail (a reader gone), the status
    is returned and the interpreter exits as it always does, reporting that as it always has.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: the interpreter says so at its exit
        return status
    os._exit(status)


def _run(
    event: str,
    parse: Callable[[Payload, ModuleType], Parsed | Outcome],
    handle: Callable[[Parsed, list[Scope]], Outcome],
    options: tuple[bool, bool, bool],
    agent: str,
) -> int:
    guard_files, without_database, kept = options
    adapter = agents.adapter(agent)
    payload, repaired = read_payload(event, adapter.EVENTS[event])
    folder = adapter.project(payload)
    if folder is not None:  # an agent that names no project: the one its adapter finds, for all below
        os.environ["CLAUDE_PROJECT_DIR"] = folder
    parsed = parse(payload, adapter)
    if isinstance(parsed, Outcome):  # decided before any database
        return _emit(event, parsed, repaired)
    project = location.hook_database(payload.get("cwd"))
    boundary.works_on(project)
    told: list[str] = []  # what the keeper put back: said beside the answer
    if kept:  # a kept database deleted or moved away is put back before it is looked for
        from cortex_hooks.keeper import check

        check.restore_missing([project, location.global_database()])
    scopes, skipped = open_scopes(project, busy=HOOK_WRITE_WAIT, guard_files=guard_files)
    if not scopes and not without_database:
        if skipped:
            raise CortexError("; ".join(skipped))
        return 0  # no database in either scope: hooks never create one, and stay silent
    try:
        if kept:
            told += check.check(scopes)
        outcome = handle(parsed, scopes)
    finally:
        if event != "PreToolUse":
            close(scopes)
        # PreToolUse's process ends right after (`leave`): its connections end with it, unclosed.
        # Closing the last one checkpoints the write-ahead log (16 ms after a boost); a commit
        # checkpoints it anyway once it grows, and nothing committed is lost either way.
    outcome.problems[:0] = skipped
    if told and agent == "claude":
        from cortex_hooks.judging import protocol

        outcome.output = protocol.told(event, outcome.output, told)
    elif told:  # another agent's answer takes no field it does not know (Codex would then run the call)
        outcome.notes += told
    return _emit(event, outcome, repaired)


def _emit(event: str, outcome: Outcome, repaired: str | None) -> int:
    if repaired:
        outcome.notes.insert(0, repaired)
    if outcome.output is not None:
        sys.stdout.write(json.dumps(outcome.output) + "\n")
    _report(event, outcome)
    return 0


def _report(event: str, outcome: Outcome) -> None:
    """At most one line on stderr. Problems without a decision are a hook error (exit 1); beside
    a decision they are only reported, so that Claude Code still acts on the JSON (it reads JSON
    reliably on exit 0); notes never change the exit status."""
    line = "; ".join(outcome.problems + outcome.notes)
    if outcome.problems and outcome.output is None:
        raise CortexError(line)
    if line:
        print(f"cortex-hooks: {event}: {' '.join(line.split())}"[:2000], file=sys.stderr)


def read_payload(event: str, names: tuple[str, ...] | None = None) -> tuple[Payload, str | None]:
    """The hook payload from stdin: a JSON object of this event (its `hook_event_name` one of
    `names`, Claude Code's name of the event by default; an agent whose payloads carry no event
    name gives none), or CortexError saying why not; and a note when a string had to be repaired.

    Only what a decision reads is checked, each field by the hook that reads it (SPEC §19: a
    decision never depends on what it does not read). Depth is no failure: a payload nested past
    the standard parser's limit is read by json_values. A lone surrogate (an invalid `\\udXXX`
    escape, which UTF-8 cannot store) is read as U+FFFD wherever it is: a command is matched as
    the shell will run it, since Claude Code hands it on with U+FFFD in that place.
    """
    stream = getattr(sys.stdin, "buffer", None)
    raw = stream.read() if stream is not None else b""
    if not raw.strip():
        raise CortexError("no payload on stdin (expected one JSON object from Claude Code)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CortexError(f"payload is not valid UTF-8 (byte {error.start})") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise _not_json(error) from None
    except RecursionError:  # deeper than the C parser goes: the same JSON, read with a stack
        from cortex_hooks import json_values

        try:
            payload = json_values.loads(text)
        except json.JSONDecodeError as error:
            raise _not_json(error) from None
    if not isinstance(payload, dict):
        raise CortexError(f"payload is a JSON {type(payload).__name__}, not an object")
    repaired = None
    if "\\ud" in text or "\\uD" in text:  # only a \u escape can make a lone surrogate
        repaired = _well_formed(payload)
    names = (event,) if names is None else names
    if not names:
        return payload, repaired
    name = payload.get("hook_event_name")
    if name is None:
        raise CortexError(f"invalid payload: hook_event_name is missing (expected {names[0]!r})")
    if name not in names:
        raise CortexError(
            f"got a payload of another event ({name!r}); this hook handles {' or '.join(names)}"
        )
    return payload, repaired


def _not_json(error: json.JSONDecodeError) -> CortexError:
    return CortexError(f"payload is not JSON: {error.msg} at line {error.lineno} column {error.colno}")


def _well_formed(payload: Payload) -> str | None:
    """Lone surrogates in the payload replaced by U+FFFD, in place; a note when there were some."""
    from cortex_hooks import json_values, sanitize

    if json_values.storable(payload):
        return None
    json_values.map_strings(payload, sanitize.well_formed)
    return "a lone surrogate (an invalid \\u escape) in the payload was read as U+FFFD"
