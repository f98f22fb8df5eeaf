"""The stdio JSON-RPC loop of the MCP server: one JSON message a line in, one reply a line out.

`handle` decides the reply to one message and touches nothing but the tools; `serve` is the loop
around it; `run` the program (`python -m cortex_hooks.mcp`, what `cortex-hooks mcp` hands over
to). Written by hand rather than with the `mcp` SDK: Claude Code sends its first request
about 2 s after spawning its servers and leaves out any server not ready by then, and the SDK's
import alone takes half a second (and 28 packages).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from typing import Any, BinaryIO

from cortex_hooks import __version__, boundary, sanitize
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.mcp.tools import Options

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
LINE_LIMIT = 8 * 1024 * 1024  # bytes of one message; a longer one is refused, not read whole
INSTRUCTIONS = (
    "cortex keeps this project's memory: learnings (anti-patterns the hooks warn about or deny, each "
    "with the correct way) and memories (knowledge across sessions). Recall before guessing; add a "
    "learning when a mistake should not happen again; remember what the next session needs."
)


class Stop(BaseException):
    """SIGINT or SIGTERM while waiting for a message: the client is shutting the server down."""


def reply(message_id: object, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def failure(message_id: object, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}}


def respond(line: bytes, options: Options | None = None) -> dict[str, Any] | None:
    """The reply to one line of input, or None when it asks for none (a notification)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, or nested past the parser
        return failure(None, PARSE_ERROR, "Parse error: not a JSON message")
    return handle(message, options)


def handle(message: object, options: Options | None = None) -> dict[str, Any] | None:
    """The reply to one parsed message (None for notifications and for replies to us); the tools
    find their databases as `options` say."""
    if not isinstance(message, dict):
        return failure(None, INVALID_REQUEST, "Invalid Request: a message is one JSON object")
    if "id" not in message:  # a notification (`initialized`, `cancelled`, …): never answered
        return None
    message_id = message["id"]
    if isinstance(message_id, bool) or not isinstance(message_id, (int, str)):
        return failure(None, INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
    method = message.get("method")
    if method is None and ("result" in message or "error" in message):
        return None  # a reply to a request of ours: we send none
    if not isinstance(method, str):
        return failure(message_id, INVALID_REQUEST, "Invalid Request: no method")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return failure(message_id, INVALID_PARAMS, "Invalid params: params must be an object")
    answer = METHODS.get(method)
    if answer is None:
        return failure(message_id, METHOD_NOT_FOUND, f"Method not found: {method}")
    try:
        return answer(message_id, params, options)
    except (Stop, KeyboardInterrupt):
        raise
    except Exception as error:  # a defect of ours: the reply says so, the server goes on
        return failure(message_id, INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}")


def _initialize(message_id: object, params: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    asked = params.get("protocolVersion")
    version = asked if asked in VERSIONS else VERSIONS[0]
    return reply(
        message_id,
        {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "cortex", "version": __version__},
            "instructions": INSTRUCTIONS,
        },
    )


def _ping(message_id: object, params: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    return reply(message_id, {})


def _list_tools(message_id: object, params: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    from cortex_hooks.mcp import tools

    return reply(message_id, {"tools": tools.listing()})


def _call_tool(message_id: object, params: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    from cortex_hooks.mcp import tools

    name, arguments = params.get("name"), params.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(name, str) or name not in tools.BY_NAME:
        return failure(message_id, INVALID_PARAMS, f"Unknown tool: {name}")
    if not isinstance(arguments, dict):
        return failure(message_id, INVALID_PARAMS, "Invalid params: arguments must be an object")
    with _signals(signal.SIG_DFL):  # killed mid-call, SQLite rolls the open transaction back
        text, is_error = tools.call(name, arguments, options)
    return reply(message_id, {"content": [{"type": "text", "text": text}], "isError": is_error})


METHODS = {"initialize": _initialize, "ping": _ping, "tools/list": _list_tools, "tools/call": _call_tool}


class _signals:
    """SIGINT and SIGTERM handled by `handler` inside the block, by `_stop` again after it.

    A Python handler runs only between bytecodes, so during a call (which may wait up to 10 s in
    SQLite for another writer's lock) the signals keep their default action: the process ends at
    once, and whatever it had not committed, SQLite never shows.
    """

    def __init__(self, handler: Any) -> None:
        self.handler = handler

    def __enter__(self) -> None:
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, self.handler)

    def __exit__(self, *exc: object) -> None:
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, _stop)


def _stop(number: int, frame: object) -> None:
    raise Stop


TOO_LONG = b"too long"  # read_line's answer for a line past LINE_LIMIT (compared by identity)


def read_line(stream: BinaryIO) -> bytes | None:
    """One message line, None at end of input, or TOO_LONG for a line past LINE_LIMIT, which is
    skipped to its end without ever being held whole."""
    line = stream.readline(LINE_LIMIT + 1)
    if not line:
        return None
    if len(line) > LINE_LIMIT and not line.endswith(b"\n"):
        while True:
            rest = stream.readline(LINE_LIMIT)
            if not rest or rest.endswith(b"\n"):
                break
        return TOO_LONG
    return line


def serve(reader: BinaryIO, writer: BinaryIO, options: Options | None = None) -> int:
    """Answer every message until end of input (or SIGINT/SIGTERM): exit status 0. Once the
    client is answered its `initialize`, recall's model and vectors are loaded in a thread
    (api.recall.warm): the agent's first recall finds them warm. The thread is waited for at the
    exit (onnxruntime aborts a process that ends while one of its sessions is being opened)."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _stop)
    warming: threading.Thread | None = None
    try:
        while True:
            line = read_line(reader)
            if line is None:
                return 0
            answer: dict[str, Any] | None
            if line is TOO_LONG:
                answer = failure(None, INVALID_REQUEST, f"Invalid Request: longer than {LINE_LIMIT} bytes")
            elif not line.strip():
                continue
            else:
                answer = respond(line, options)
            if answer is not None and not _send(writer, answer):
                return 0
            if warming is None and answer is not None and "serverInfo" in answer.get("result", {}):
                warming = threading.Thread(target=_warm, args=(options,), name="warm recall")
                warming.start()
    except Stop:
        return 0


def _warm(options: Options | None) -> None:
    """What a first tool call loads (the tools' models, pydantic) and recall's model and vectors
    for the databases the tools use (after `initialize`: the imports hold the interpreter's lock
    a moment, and the handshake must not wait for them)."""
    from cortex_hooks.api.databases import find
    from cortex_hooks.api.recall import warm
    from cortex_hooks.mcp import handlers, models  # noqa: F401 (imported now, not at the first call)

    given = options or Options()
    try:
        databases = find(given.db, given.global_db)
    except Exception:  # a tool call will say what is wrong with the databases
        return
    warm(databases)


def _send(writer: BinaryIO, answer: dict[str, Any]) -> bool:
    """Write one reply line (ASCII JSON: a lone surrogate in stored text stays valid); False when
    the client has gone away."""
    try:
        writer.write(json.dumps(answer).encode("ascii") + b"\n")
        writer.flush()
    except (BrokenPipeError, ValueError):  # a closed pipe, or our stdout closed
        return False
    return True


def main(options: Options | None = None) -> int:
    return serve(sys.stdin.buffer, sys.stdout.buffer, options)


def run(argv: list[str]) -> int:
    """The server as a program, `[--db PATH] [--global-db PATH]`, behind the one error boundary:
    the environment a settings file gave it dropped first (Claude Code starts it with the
    settings' env), nothing served in a process cortex-hooks started (docs/guide/capture.md)."""
    return boundary.guarded(lambda: _program(argv))


def _program(argv: list[str]) -> int:
    from cortex_hooks.keeper import environment

    for dropped in environment.drop_untrusted():
        print(f"cortex-hooks: {sanitize.line(dropped)}", file=sys.stderr)
    if boundary.is_child():
        return 0
    if sys.stdin is None or sys.stdout is None:  # started with a closed stream: nothing to serve on
        raise CortexError("the MCP server talks over stdin and stdout, and one of them is closed")
    given = _options(argv)
    from cortex_hooks.store.connection import keep_open

    with keep_open():  # each database stays open from one tool call to the next
        return main(given)


def _options(argv: list[str]) -> Options:
    values: dict[str, str] = {}
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name not in ("--db", "--global-db"):
            raise CortexError(
                f"mcp: unexpected argument {word!r} (only --db PATH and --global-db PATH)", USAGE
            )
        given = value if equals else next(words, None)
        if not given:
            raise CortexError(f"mcp: {name} needs a value", USAGE)
        values[name] = os.path.abspath(given)
    return Options(values.get("--db"), values.get("--global-db"))
