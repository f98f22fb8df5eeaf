"""A scripted mock of the Anthropic Messages API on 127.0.0.1, and a launcher that runs a command
(the real Claude Code CLI) against it.

The conversation's requests (those that offer tools) are answered in order from a list of turns —
`{"tool_use": {"name": ..., "input": {...}}}` or `{"text": ...}` — streamed as Server-Sent Events
the way the real API streams them; once the turns run out, every answer is a closing text turn.
Side requests without tools (titles, summaries) get a short text and do not use up a turn.
Every request body is recorded, so a test can assert what the model was shown.

Launcher (run it inside a network namespace that has only loopback, so the mock and the CLI
share it and nothing can leave the machine):

    python mock_anthropic.py --turns TURNS.json --record REQUESTS.json --timeout S -- CMD ...

It starts the mock, runs CMD with ANTHROPIC_BASE_URL pointing at it, writes the recorded requests
and exits with CMD's status (124 when CMD overran the timeout).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-mock-1"
CLOSING_TEXT = "Done."


class MockAnthropic:
    """The mock server: `start()` it, point ANTHROPIC_BASE_URL at `url`, read `requests`."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._served = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> MockAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, path: str, body: Any) -> dict[str, Any]:
        """The next turn for this request, recorded (a conversation request uses up one turn)."""
        with self._lock:
            conversation = isinstance(body, dict) and bool(body.get("tools"))
            turn: dict[str, Any] = {"text": "ok"}
            if conversation:
                turn = self.turns[self._served] if self._served < len(self.turns) else {"text": CLOSING_TEXT}
                self._served += 1
            self.requests.append({"path": path, "conversation": conversation, "body": body, "answer": turn})
            return turn


def _handler_for(mock: MockAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw or b"null")
            except ValueError:
                body = raw.decode("utf-8", "replace")
            path = self.path.split("?", 1)[0]
            if path != "/v1/messages":
                mock.requests.append({"path": self.path, "conversation": False, "body": body})
                self._send(404, "application/json", b'{"type":"error","error":{"type":"not_found"}}')
                return
            turn = mock.answer(self.path, body)
            index = len(mock.requests)
            if isinstance(body, dict) and body.get("stream"):
                events = "".join(
                    f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                    for event in stream_events(turn, index)
                )
                self._send(200, "text/event-stream", events.encode())
            else:
                self._send(200, "application/json", json.dumps(message(turn, index)).encode())

        def do_GET(self) -> None:
            mock.requests.append({"path": self.path, "conversation": False, "body": None})
            self._send(404, "application/json", b'{"type":"error","error":{"type":"not_found"}}')

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", "req_mock")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the recorded requests are the log

    return Handler


def _block(turn: dict[str, Any], index: int) -> dict[str, Any]:
    if "tool_use" in turn:
        use = turn["tool_use"]
        return {
            "type": "tool_use",
            "id": use.get("id", f"toolu_mock_{index}"),
            "name": use["name"],
            "input": use["input"],
        }
    return {"type": "text", "text": turn["text"]}


def _usage() -> dict[str, int]:
    return {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def message(turn: dict[str, Any], index: int) -> dict[str, Any]:
    """The whole (non-streaming) Messages API response for a turn."""
    block = _block(turn, index)
    return {
        "id": f"msg_mock_{index}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": _usage(),
    }


def stream_events(turn: dict[str, Any], index: int) -> Iterator[dict[str, Any]]:
    """The SSE events of a turn, as the Messages API streams one content block."""
    whole = message(turn, index)
    block = whole["content"][0]
    yield {"type": "message_start", "message": {**whole, "content": [], "stop_reason": None}}
    if block["type"] == "tool_use":
        yield {"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        yield {"type": "content_block_start", "index": 0, "content_block": {**block, "text": ""}}
        delta = {"type": "text_delta", "text": block["text"]}
    yield {"type": "content_block_delta", "index": 0, "delta": delta}
    yield {"type": "content_block_stop", "index": 0}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": 5},
    }
    yield {"type": "message_stop"}


def main(argv: list[str] | None = None) -> int:
    sys.setrecursionlimit(50_000)  # a turn may hold a value nested thousands deep (json recurses)
    parser = argparse.ArgumentParser(description="Run a command against a scripted Messages API.")
    parser.add_argument("--turns", required=True, help="JSON file: the list of turns")
    parser.add_argument("--record", required=True, help="where to write the recorded requests")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    with open(args.turns, encoding="utf-8") as handle:
        mock = MockAnthropic(json.load(handle)).start()
    status = 0
    try:
        env = {**os.environ, "ANTHROPIC_BASE_URL": mock.url}
        try:
            status = subprocess.run(args.command, env=env, timeout=args.timeout, check=False).returncode
        except subprocess.TimeoutExpired:
            print(f"mock_anthropic: command overran {args.timeout} s", file=sys.stderr)
            status = 124
    finally:
        with open(args.record, "w", encoding="utf-8") as handle:
            json.dump(mock.requests, handle, indent=1)
        mock.stop()
    return status


if __name__ == "__main__":
    sys.exit(main())
