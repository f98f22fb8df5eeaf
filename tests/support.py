"""Test support: the CLI in-process or as the installed console script, real payloads, running a
hook as Claude Code does."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPTS = Path(sys.executable).parent  # the console scripts installed beside this interpreter

Stdin = bytes | str | dict[str, Any] | None


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
    """What a run left: its exit status and both streams, decoded."""

    def __init__(self, code: int, stdout: bytes, stderr: bytes) -> None:
        self.code = code
        self.stdout = stdout.decode("utf-8", "replace")
        self.stderr = stderr.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.stdout)


def _stdin_bytes(stdin: Stdin) -> bytes:
    if isinstance(stdin, dict):
        stdin = json.dumps(stdin)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    return stdin if stdin is not None else b""


def run(
    name: str,
    *args: str,
    stdin: Stdin = None,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 60,
) -> Result:
    """Run an installed console script as Claude Code would: stdin in, exit code and streams out."""
    completed = subprocess.run(
        [script(name), *args],
        input=_stdin_bytes(stdin),
        capture_output=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


_IN_PROCESS = threading.Lock()  # the streams, os.environ and the cwd are per process: one call at a time


@contextlib.contextmanager
def _warnings_as_a_process_shows_them() -> Iterator[None]:
    """Python's default filters, each warning printed to (the captured) stderr every time: pytest
    would otherwise collect them, and a stray warning is a second stderr line the CLI must not print."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.filterwarnings("ignore", category=category)
        warnings.showwarning = _show_warning
        yield


def _show_warning(  # noqa: PLR0917 (warnings.showwarning's signature)
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextlib.contextmanager
def _environment(env: dict[str, str] | None, cwd: Path | str | None) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in env or {}}
    here = os.getcwd()
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def in_process(
    *args: str,
    stdin: Stdin = None,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
) -> Result:
    """`cortex-hooks ARGS` run by `cortex_hooks.cli.main` in this process, as the installed script
    would run it: the same argv[0], env and cwd applied for the call and restored after, stdin fed
    as bytes, stdout and stderr captured with the encodings a UTF-8 locale gives a pipe."""
    from cortex_hooks import cli, config_file

    def stream(data: bytes, errors: str) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, newline=None)

    stdin_stream = stream(_stdin_bytes(stdin), "surrogateescape")
    stdout, stderr = stream(b"", "surrogateescape"), stream(b"", "backslashreplace")
    streams = (sys.stdin, sys.stdout, sys.stderr, sys.argv)
    with _IN_PROCESS, _environment(env, cwd), _warnings_as_a_process_shows_them():
        config_file.forget()  # a new process: an invalid config file is reported again
        sys.stdin, sys.stdout, sys.stderr = stdin_stream, stdout, stderr
        sys.argv = [script("cortex-hooks"), *args]
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # --help, --version: argparse exits, as the console script would
            if isinstance(exit_.code, str):
                print(exit_.code, file=sys.stderr)
            code = 1 if isinstance(exit_.code, str) else (exit_.code or 0)
        finally:
            sys.stdin, sys.stdout, sys.stderr, sys.argv = streams
            config_file.forget()
        stdout.flush()
        stderr.flush()
    return Result(code, stdout.buffer.getvalue(), stderr.buffer.getvalue())  # type: ignore[attr-defined]


def stored_as_of_old(database: Path | str, learning_id: int, **columns: object) -> None:
    """Change a stored learning as a database written before today's rules may hold it (a tool
    in the wrong case, nested quantifiers: refused at `add` now), through the store, so that its
    derived prefilter data follows as it would have."""
    from contextlib import closing

    from cortex_hooks.store import learnings
    from cortex_hooks.store.connection import Transaction, open_database

    with closing(open_database(str(database))) as connection, Transaction(connection):
        learnings.update(connection, learning_id, columns)


def reminder_unless_regex(options: tuple[str, ...] | list[str]) -> list[str]:
    """The options of an `add`, with `--no-regex` when they give no regex: a learning without one
    is refused unless it says so (docs/guide/selfguard.md)."""
    given = list(options)
    if any(option.startswith("--regex") or option == "--no-regex" for option in given):
        return given
    return [*given, "--no-regex"]


def cli(*args: str, process: bool = False, **kwargs: Any) -> Result:
    """`cortex-hooks ARGS`, in-process; with `process=True` through the installed console script
    (where the process itself is under test: exit status, streams, locale, signals, concurrency)."""
    if process or "timeout" in kwargs:  # a timeout bounds a process that might hang
        return run("cortex-hooks", *args, **kwargs)
    return in_process(*args, **kwargs)


def cli_process(*args: str, **kwargs: Any) -> Result:
    """`cortex-hooks ARGS` through the installed console script, in a process of its own."""
    return run("cortex-hooks", *args, **kwargs)


def cli_json(*args: str, **kwargs: Any) -> Any:
    result = cli(*args, "--json", **kwargs)
    assert result.code == 0, result.stderr
    return result.json()


def added(
    *options: str,
    anti: str = "an anti-pattern",
    correct: str = "the correct way",
    regex: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """A new learning through `cortex-hooks add --json` (`kwargs` as `cli` takes them): the record
    it prints. Without a regex, as `regex` or among the options, it is added with --no-regex."""
    given = [*options, *([f"--regex={regex}"] if regex is not None else [])]
    record: dict[str, Any] = cli_json(
        "add", "--anti-pattern", anti, "--correct", correct, *reminder_unless_regex(given), **kwargs
    )
    return record


def add(
    *options: str,
    anti: str = "an anti-pattern",
    correct: str = "the correct way",
    regex: str | None = None,
    **kwargs: Any,
) -> int:
    """A new learning, as `added` makes it: its id."""
    return int(added(*options, anti=anti, correct=correct, regex=regex, **kwargs)["id"])


# The line a hook says, by design, when another process holds the write lock past its bound: its
# write kept for later (store.pending; applied by the next that gets the lock, so every count holds).
# On a loaded machine the bound is reached; a test of writes at once accepts this line and no other.
BUSY_LINES = ("kept for later",)


def unexpected_lines(stderr: str) -> list[str]:
    """The lines of a process's stderr other than the designed BUSY_LINES."""
    return [line for line in stderr.splitlines() if not line.endswith(BUSY_LINES)]


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A file `build` makes, made once per test run and shared by every xdist worker: the first to
    get here builds it under a lock, the others wait for it. Tests copy it; they never change it."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the basetemp of the whole run, shared by its workers
    path = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            work = root / f"{name}.building"
            work.mkdir(exist_ok=True)
            build(work / name)
            os.replace(work / name, path)
    return path
