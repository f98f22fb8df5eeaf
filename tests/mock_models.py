"""Scripted mocks of three model APIs on 127.0.0.1 — OpenAI's Responses API (Codex CLI), OpenAI's
Chat Completions (Copilot CLI's provider mode) and Gemini's generateContent (Gemini CLI) — and a
launcher that runs a command (the real CLI) against one of them.

As tests/mock_anthropic.py does for Claude Code: the conversation's requests (those that offer
tools) are answered in order from a list of turns — `{"call": {"name": ..., "arguments": {...}}}`,
`{"custom": {"name": ..., "input": TEXT}}` (a freeform tool: Codex's and Copilot's apply_patch)
or `{"text": ...}` — streamed the way the real API streams them; once the turns run out, every
answer is a closing text. A side request without tools (a title, a classifier) gets a short
answer and uses up no turn. Every request body is recorded, so a test can assert what the model
was shown.

Launcher (run it inside a network namespace that has only loopback, so the mock and the CLI
share it and nothing can leave the machine):

    python mock_models.py --api responses|chat|gemini --turns TURNS.json --record REQUESTS.json \
        [--fill FILE …] --timeout S -- CMD ...

It starts the mock on a free port, puts the port where the client's configuration names it
(`@PORT@` in the command, the environment and each --fill file), runs CMD and exits with CMD's
status (124 when CMD overran the timeout).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CLOSING_TEXT = "Done."
APIS = ("responses", "chat", "gemini")


class MockModel:
    """The mock server of one API: `start()` it, point the client at `url`, read `requests`."""

    def __init__(self, api: str, turns: list[dict[str, Any]]) -> None:
        assert api in APIS, api
        self.api = api
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._served = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> MockModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, path: str, body: Any) -> dict[str, Any]:
        """The next turn for this request, recorded (a conversation request uses up one turn)."""
        with self._lock:
            conversation = _offers_tools(self.api, body)
            turn: dict[str, Any] = {"text": "ok"}
            if conversation:
                turn = self.turns[self._served] if self._served < len(self.turns) else {"text": CLOSING_TEXT}
                self._served += 1
            elif self.api == "gemini" and _wants_json(body):
                turn = {"text": json.dumps(_from_schema(_schema(body)))}
            self.requests.append({"path": path, "conversation": conversation, "body": body, "answer": turn})
            return {**turn, "index": len(self.requests)}


def _offers_tools(api: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if api == "gemini":
        return any(
            tool.get("functionDeclarations") for tool in body.get("tools") or [] if isinstance(tool, dict)
        )
    return bool(body.get("tools"))


def _wants_json(body: Any) -> bool:
    config = body.get("generationConfig") if isinstance(body, dict) else None
    return isinstance(config, dict) and bool(config.get("responseJsonSchema") or config.get("responseSchema"))


def _schema(body: dict[str, Any]) -> Any:
    config = body["generationConfig"]
    return config.get("responseJsonSchema") or config.get("responseSchema")


def _from_schema(schema: Any) -> Any:
    """A value that fits a JSON schema (a helper call's answer: the first choice, the least)."""
    if not isinstance(schema, dict):
        return "mock"
    if "enum" in schema:
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _from_schema(value) for name, value in properties.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return "mock"


def _handler_for(mock: MockModel) -> type[BaseHTTPRequestHandler]:
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
            known = {
                "responses": path.endswith("/responses"),
                "chat": path.endswith("/chat/completions"),
                "gemini": ":generateContent" in path or ":streamGenerateContent" in path,
            }[mock.api]
            if not known:
                mock.requests.append({"path": self.path, "conversation": False, "body": body})
                self._send(404, "application/json", b'{"error":{"message":"not found"}}')
                return
            turn = mock.answer(self.path, body)
            streaming = (isinstance(body, dict) and body.get("stream")) or "streamGenerateContent" in path
            if mock.api == "responses":
                self._events(responses_events(turn), named=True)
            elif mock.api == "chat" and streaming:
                self._events(chat_chunks(turn), named=False, done=True)
            elif mock.api == "chat":
                self._send(200, "application/json", json.dumps(chat_completion(turn)).encode())
            elif streaming:
                self._events([gemini_response(turn)], named=False, crlf=True)
            else:
                self._send(200, "application/json", json.dumps(gemini_response(turn)).encode())

        def do_GET(self) -> None:
            mock.requests.append({"path": self.path, "conversation": False, "body": None})
            if self.path.split("?", 1)[0].endswith("/models"):
                self._send(200, "application/json", json.dumps({"object": "list", "data": []}).encode())
                return
            self._send(404, "application/json", b'{"error":{"message":"not found"}}')

        def _events(
            self, events: list[dict[str, Any]], *, named: bool, done: bool = False, crlf: bool = False
        ) -> None:
            end = "\r\n\r\n" if crlf else "\n\n"
            text = "".join(
                (f"event: {event['type']}\n" if named else "") + f"data: {json.dumps(event)}{end}"
                for event in events
            )
            if done:
                text += f"data: [DONE]{end}"
            self._send(200, "text/event-stream", text.encode())

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the recorded requests are the log

    return Handler


# --- OpenAI Responses API (Codex CLI) ---------------------------------------------------------


def responses_events(turn: dict[str, Any]) -> list[dict[str, Any]]:
    """The SSE events of one response: created, the output item, completed."""
    index = turn["index"]
    response_id = f"resp_mock_{index}"
    if "custom" in turn:  # a freeform tool's call (Codex's apply_patch): its input is plain text
        custom = turn["custom"]
        item: dict[str, Any] = {
            "type": "custom_tool_call",
            "id": f"ctc_mock_{index}",
            "call_id": custom.get("id", f"call_mock_{index}"),
            "name": custom["name"],
            "input": custom["input"],
            "status": "completed",
        }
    elif "call" in turn:
        call = turn["call"]
        item = {
            "type": "function_call",
            "id": f"fc_mock_{index}",
            "call_id": call.get("id", f"call_mock_{index}"),
            "name": call["name"],
            "arguments": json.dumps(call["arguments"]),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_mock_{index}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": turn["text"], "annotations": []}],
        }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    return [
        {"type": "response.created", "response": {"id": response_id, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {
            "type": "response.completed",
            "response": {"id": response_id, "status": "completed", "output": [item], "usage": usage},
        },
    ]


# --- OpenAI Chat Completions (Copilot CLI) ----------------------------------------------------


def _chat_message(turn: dict[str, Any]) -> dict[str, Any]:
    if "custom" in turn:  # a freeform tool's call (Copilot's apply_patch for OpenAI models)
        custom = turn["custom"]
        call_id = custom.get("id", f"call_mock_{turn['index']}")
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "custom",
                    "custom": {"name": custom["name"], "input": custom["input"]},
                }
            ],
        }
    if "call" in turn:
        call = turn["call"]
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call.get("id", f"call_mock_{turn['index']}"),
                    "type": "function",
                    "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
                }
            ],
        }
    return {"role": "assistant", "content": turn["text"]}


def chat_completion(turn: dict[str, Any]) -> dict[str, Any]:
    message = _chat_message(turn)
    return {
        "id": f"chatcmpl-mock-{turn['index']}",
        "object": "chat.completion",
        "created": 1_800_000_000,
        "model": "gpt-5.5",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "stop" if "text" in turn else "tool_calls"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def chat_chunks(turn: dict[str, Any]) -> list[dict[str, Any]]:
    message = _chat_message(turn)
    base = {
        "id": f"chatcmpl-mock-{turn['index']}",
        "object": "chat.completion.chunk",
        "created": 1_800_000_000,
    }
    base["model"] = "gpt-5.5"
    if "call" in turn or "custom" in turn:
        calls = [{"index": 0, **call} for call in message["tool_calls"]]
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": message["content"]}
        finish = "stop"
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    ]


# --- Gemini generateContent (Gemini CLI) ------------------------------------------------------


def gemini_response(turn: dict[str, Any]) -> dict[str, Any]:
    if "call" in turn:
        call = turn["call"]
        part: dict[str, Any] = {"functionCall": {"name": call["name"], "args": call["arguments"]}}
    else:
        part = {"text": turn["text"]}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-pro",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a command against a scripted model API.")
    parser.add_argument("--api", choices=APIS, required=True)
    parser.add_argument("--turns", required=True, help="JSON file: the list of turns")
    parser.add_argument("--record", required=True, help="where to write the recorded requests")
    parser.add_argument("--fill", action="append", default=[], help="a file whose @PORT@ is replaced")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    with open(args.turns, encoding="utf-8") as handle:
        mock = MockModel(args.api, json.load(handle)).start()
    status = 0
    try:
        for path in args.fill:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text.replace("@PORT@", str(mock.port)))
        env = {**os.environ, "MOCK_MODEL_PORT": str(mock.port)}
        env = {name: value.replace("@PORT@", str(mock.port)) for name, value in env.items()}
        try:
            command = [word.replace("@PORT@", str(mock.port)) for word in args.command]
            status = subprocess.run(
                command, env=env, timeout=args.timeout, check=False, stdin=subprocess.DEVNULL
            ).returncode
        except subprocess.TimeoutExpired:
            print(f"mock_models: command overran {args.timeout} s", file=sys.stderr)
            status = 124
    finally:
        with open(args.record, "w", encoding="utf-8") as handle:
            json.dump(mock.requests, handle, indent=1)
        mock.stop()
    return status


if __name__ == "__main__":
    sys.exit(main())
