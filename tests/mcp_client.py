"""A minimal MCP client for tests: `cortex-hooks mcp` as a real process, one JSON line each way."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from support import script

REPLY_TIMEOUT = 60  # seconds: a bound on a hung server, never a measure of speed


class Server:
    """`cortex-hooks mcp` started as Claude Code starts it: in the project, CLAUDE_PROJECT_DIR set."""

    def __init__(self, project: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [script("cortex-hooks"), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**os.environ, "CLAUDE_PROJECT_DIR": str(project), **(env or {})},
        )
        self.replies: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.replies.put(line)
        self.replies.put(b"")  # end of output

    def send(self, data: bytes | str | dict[str, Any]) -> None:
        assert self.process.stdin is not None
        if isinstance(data, dict):
            data = json.dumps(data)
        if isinstance(data, str):
            data = data.encode()
        self.process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        line = self.replies.get(timeout=REPLY_TIMEOUT)
        assert line, f"the server ended: {self.stderr()}"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.next_id += 1
        self.send(message)
        answer = self.reply()
        assert answer["id"] == message["id"], answer
        return answer

    def initialize(self) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "2.1.197"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name: str, **arguments: Any) -> tuple[str, bool]:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        (block,) = result["content"]
        assert block["type"] == "text"
        return block["text"], result["isError"]

    def close(self) -> int:
        """End of input: the server's exit status."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.wait()

    def wait(self) -> int:
        return self.process.wait(timeout=REPLY_TIMEOUT)

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return "(running)"
        return self.process.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
