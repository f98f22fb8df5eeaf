"""Test support: the installed console scripts, real payloads, running a script as Claude Code does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPTS = Path(sys.executable).parent  # the console scripts installed beside this interpreter


def script(name: str) -> str:
    """The installed console script `name` (never the checkout's bin/ shim)."""
    path = SCRIPTS / name
    assert path.exists(), f"{name} is not installed beside {sys.executable}: pip install '.[test]'"
    return str(path)


def payload(name: str, **changes: Any) -> dict[str, Any]:
    """A real payload captured from Claude Code (tests/fixtures/NAME.json), with fields changed."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    data.update(changes)
    return data


class Result:
    def __init__(self, completed: subprocess.CompletedProcess[bytes]) -> None:
        self.code = completed.returncode
        self.stdout = completed.stdout.decode("utf-8", "replace")
        self.stderr = completed.stderr.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.stdout)


def run(
    name: str,
    *args: str,
    stdin: bytes | str | dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 60,
) -> Result:
    """Run an installed console script as Claude Code would: stdin in, exit code and streams out."""
    if isinstance(stdin, dict):
        stdin = json.dumps(stdin)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    completed = subprocess.run(
        [script(name), *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Result(completed)


def cli(*args: str, **kwargs: Any) -> Result:
    return run("cortex-hooks", *args, **kwargs)


def cli_json(*args: str, **kwargs: Any) -> Any:
    result = cli(*args, "--json", **kwargs)
    assert result.code == 0, result.stderr
    return result.json()
