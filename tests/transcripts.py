"""Transcripts in Claude Code's real JSON-lines format (as in tests/fixtures/transcript.jsonl),
built call by call for the capture tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Transcript:
    def __init__(self, session: str = "session-1") -> None:
        self.session = session
        self.lines: list[dict[str, Any]] = []
        self.calls = 0

    def _line(self, kind: str, content: Any, **extra: Any) -> None:
        self.lines.append(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": kind,
                "message": {"role": kind, "content": content},
                "uuid": f"u-{len(self.lines)}",
                "timestamp": "2026-11-21T23:06:19.274Z",
                "cwd": "/home/dev/proj",
                "sessionId": self.session,
                "version": "2.1.197",
                **extra,
            }
        )

    def prompt(self, text: str, **extra: Any) -> Transcript:
        self._line("user", text, **extra)
        return self

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        output: str,
        *,
        error: bool = False,
        at: str | None = None,
    ) -> Transcript:
        self.calls += 1
        call_id = f"toolu_{self.session}_{self.calls}"
        when = {"timestamp": at} if at is not None else {}
        self._line(
            "assistant", [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}], **when
        )
        result: dict[str, Any] = {"type": "tool_result", "content": output, "tool_use_id": call_id}
        if error:
            result["is_error"] = True
        self._line("user", [result], toolUseResult=output, **when)
        return self

    def bash(self, command: str, output: str = "ok", *, code: int = 0, at: str | None = None) -> Transcript:
        if code:
            return self.tool("Bash", {"command": command}, f"Exit code {code}\n{output}", error=True, at=at)
        return self.tool("Bash", {"command": command}, output, at=at)

    def text(self, *, ascii_only: bool = True) -> str:
        """The JSON lines (`ascii_only=False`: non-ASCII as written, as Claude Code writes them)."""
        return "".join(
            json.dumps(line, separators=(",", ":"), ensure_ascii=ascii_only) + "\n" for line in self.lines
        )

    def write(self, path: Path) -> Path:
        path.write_text(self.text(), encoding="utf-8")
        return path


NOT_FOUND = "bash: line 1: {word}: command not found"
