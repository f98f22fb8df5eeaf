"""The MCP server's JSON-RPC loop (docs/guide/mcp.md), through the installed `cortex-hooks mcp` process:
every method, notifications, id 0, bad input, end of input and signals."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_client import Server
from support import cli_json, script

from cortex_hooks.mcp import models, server, tools

SCHEMAS = {name: models.schema(name) for name in models.MODELS}
TOOL_NAMES = [
    "cortex_add_learning",
    "cortex_update_learning",
    "cortex_list_learnings",
    "cortex_run_pruning",
    "cortex_recall",
    "cortex_remember",
    "cortex_forget",
    "cortex_index_code",
    "cortex_consolidate",
    "cortex_reflect",
    "cortex_snapshot",
    "cortex_get_access_stats",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project whose database is the default one (the server finds it as Claude Code runs it)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.delenv("CORTEX_DB")
    monkeypatch.setenv("CORTEX_GLOBAL_DB", str(tmp_path / "global.db"))
    return root


@pytest.fixture
def mcp(project: Path) -> Iterator[Server]:
    running = Server(project)
    yield running
    running.kill()


def test_initialize_with_id_0_then_tools_list(mcp: Server) -> None:
    answer = mcp.initialize()
    assert answer["id"] == 0  # Claude Code's first id: never tested for truth
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert answer["result"]["serverInfo"]["name"] == "cortex"
    assert answer["result"]["capabilities"] == {"tools": {"listChanged": False}}
    listed = mcp.request("tools/list")["result"]["tools"]
    assert [tool["name"] for tool in listed] == TOOL_NAMES
    for tool in listed:
        assert tool["inputSchema"]["type"] == "object"
        assert tool["description"]
    assert mcp.close() == 0


def test_an_unknown_protocol_version_is_answered_with_ours(mcp: Server) -> None:
    answer = mcp.request("initialize", {"protocolVersion": "1999-01-01"})
    assert answer["result"]["protocolVersion"] == server.VERSIONS[0]
    older = mcp.request("initialize", {"protocolVersion": "2025-06-18"})
    assert older["result"]["protocolVersion"] == "2025-06-18"


def test_notifications_get_no_reply(mcp: Server) -> None:
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    mcp.send({"jsonrpc": "2.0", "method": "no/such/notification"})
    mcp.send({"jsonrpc": "2.0", "id": 5, "result": {}})  # a reply to a request: we made none
    assert mcp.request("ping") == {"jsonrpc": "2.0", "id": 0, "result": {}}  # the next reply is ping's


def test_string_ids_are_echoed(mcp: Server) -> None:
    mcp.send({"jsonrpc": "2.0", "id": "abc", "method": "ping"})
    assert mcp.reply() == {"jsonrpc": "2.0", "id": "abc", "result": {}}


@pytest.mark.parametrize(
    ("line", "code", "answer_id"),
    [
        (b"{not json", server.PARSE_ERROR, None),
        (b"\xff\xfe\x00", server.PARSE_ERROR, None),
        (b"[" * 100_000, server.PARSE_ERROR, None),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', server.INVALID_REQUEST, None),
        (b'"ping"', server.INVALID_REQUEST, None),
        (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', server.INVALID_REQUEST, None),
        (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', server.INVALID_REQUEST, None),
        (b'{"jsonrpc": "2.0", "id": 7}', server.INVALID_REQUEST, 7),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "resources/list"}', server.METHOD_NOT_FOUND, 7),
        (b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]}', server.INVALID_PARAMS, 7),
        (
            b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "cortex_nope"}}',
            server.INVALID_PARAMS,
            7,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
            b'"params": {"name": "cortex_recall", "arguments": ["npm"]}}',
            server.INVALID_PARAMS,
            7,
        ),
    ],
)
def test_bad_messages_get_the_standard_error_and_the_server_goes_on(
    mcp: Server, line: bytes, code: int, answer_id: object
) -> None:
    mcp.send(line)
    answer = mcp.reply()
    assert answer["id"] == answer_id
    assert answer["error"]["code"] == code
    assert mcp.request("ping")["result"] == {}


def test_a_message_past_the_limit_is_refused_without_being_held(mcp: Server) -> None:
    mcp.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "' + b"a" * (9 << 20) + b'"}}')
    answer = mcp.reply()
    assert answer["error"]["code"] == server.INVALID_REQUEST
    assert "longer than" in answer["error"]["message"]
    assert mcp.request("ping")["result"] == {}


def test_huge_arguments_are_stored_whole(mcp: Server, project: Path) -> None:
    content = "pnpm " + "x" * (2 << 20)
    text, is_error = mcp.call("cortex_remember", content=content)
    assert not is_error, text
    assert "#1" in text
    (memory,) = cli_json("memories", "list", env={"CLAUDE_PROJECT_DIR": str(project)})
    shown = cli_json("memories", "show", "1", env={"CLAUDE_PROJECT_DIR": str(project)})
    assert memory["id"] == 1
    assert shown["content"] == content


def test_end_of_input_ends_the_server_with_0(mcp: Server) -> None:
    mcp.initialize()
    assert mcp.close() == 0


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_waiting_ends_the_server_with_0(mcp: Server, number: int) -> None:
    mcp.initialize()  # the handlers are in place once it answers
    mcp.process.send_signal(number)
    assert mcp.wait() == 0
    assert mcp.stderr() == ""


def test_sigint_mid_call_loses_nothing_acknowledged_and_writes_nothing_half(
    mcp: Server, project: Path
) -> None:
    text, is_error = mcp.call(
        "cortex_add_learning", anti_pattern="npm install", correct_pattern="pnpm", regex="npm install"
    )
    assert not is_error, text
    database = project / ".cortex" / "cortex.db"
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the next add waits for this lock (up to 10 s)
    try:
        mcp.send(
            {
                "jsonrpc": "2.0",
                "id": 99,
                "method": "tools/call",
                "params": {
                    "name": "cortex_add_learning",
                    "arguments": {"anti_pattern": "a", "correct_pattern": "b", "regex": "a"},
                },
            }
        )
        time.sleep(0.5)  # either way round (read or not yet), the outcome below is the same
        mcp.process.send_signal(signal.SIGINT)
        # Ends before the 10 s lock wait is over: mid-call a signal keeps its default action.
        mcp.process.wait(timeout=8)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert mcp.replies.get(timeout=5) == b""  # no reply for the interrupted call
    rows = cli_json("list", "--all", env={"CORTEX_DB": str(database)})
    assert [row["anti_pattern"] for row in rows] == ["npm install"]
    with sqlite3.connect(database) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_child_of_ours_exits_at_once(project: Path) -> None:
    completed = subprocess.run(
        [script("cortex-hooks"), "mcp"],
        input=b'{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}\n',
        capture_output=True,
        cwd=project,
        env={**os.environ, "CORTEX_HOOKS_CHILD": "1"},
        timeout=60,
        check=False,
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, b"", b"")


def test_cortex_hooks_mcp_hands_over_to_the_server_and_nothing_in_the_project_shadows_it(
    project: Path,
) -> None:
    """`cortex-hooks mcp` becomes the server (`python -m cortex_hooks.mcp`, exec: Claude Code's
    process keeps its id), started in the project: a `cortex_hooks` package there is never run."""
    planted = project / "cortex_hooks" / "mcp"
    planted.mkdir(parents=True)
    marker = project / "ran"
    for folder in (project / "cortex_hooks", planted):
        (folder / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (planted / "__main__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    running = Server(project)
    try:
        assert running.initialize()["result"]["serverInfo"]["name"] == "cortex"
        command = Path(f"/proc/{running.process.pid}/cmdline").read_bytes().split(b"\0")
        assert command[-3:-1] == [b"-m", b"cortex_hooks.mcp"]  # the same process, now the server
        assert b"-P" in command
    finally:
        assert running.close() == 0
    assert not marker.exists()
    served = subprocess.run(
        [str(Path(script("cortex-hooks")).with_name("python")), "-m", "cortex_hooks.mcp", "--bogus"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (served.returncode, "unexpected argument" in served.stderr) == (2, True)


def test_tools_list_without_a_database_creates_none(mcp: Server, project: Path) -> None:
    mcp.initialize()
    assert len(mcp.request("tools/list")["result"]["tools"]) == len(TOOL_NAMES)
    text, is_error = mcp.call("cortex_list_learnings")
    assert not is_error
    assert (
        text
        == f"No learnings.\nNo database at {project / '.cortex' / 'cortex.db'} yet: nothing is stored there."
    )
    assert not (project / ".cortex").exists()


def test_tools_list_sends_each_models_schema_in_order() -> None:
    """tools/list builds each tool's schema from its model: the arguments of every tool, an
    optional one as its type alone (not "that type or null"), no titles."""
    server.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}, None)
    answer = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, None)
    assert answer is not None
    listed = answer["result"]["tools"]
    assert [tool["name"] for tool in listed] == [tool.name for tool in tools.TOOLS] == TOOL_NAMES
    assert all(tool["inputSchema"] == models.schema(tool["name"]) for tool in listed)
    recall = SCHEMAS["cortex_recall"]
    assert recall["required"] == ["query"]
    assert recall["properties"]["limit"]["type"] == "integer"
    assert not any("anyOf" in field or "title" in field for field in recall["properties"].values())
    assert recall["additionalProperties"] is False
    from cortex_hooks.mcp.handlers import CALLS

    assert list(CALLS) == TOOL_NAMES  # each tool calls the library


def test_initialize_never_imports_pydantic_and_tools_list_builds_the_schemas() -> None:
    """The server answers `initialize` without pydantic (the client waits for it); the schemas are
    built from the models when the client lists the tools."""
    probe = (
        "import sys, json; from cortex_hooks.mcp import server;"
        "server.handle({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize', 'params': {}}, None);"
        "before = 'pydantic' in sys.modules;"
        "r = server.handle({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list'}, None);"
        "print(json.dumps([len(r['result']['tools']), before]))"
    )
    completed = subprocess.run(
        [str(Path(script("cortex-hooks")).with_name("python")), "-c", probe],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert json.loads(completed.stdout) == [len(TOOL_NAMES), False]


@pytest.mark.parametrize(
    "message",
    [None, 3, [], {"id": 0, "method": "tools/call", "params": {"name": "cortex_recall", "arguments": None}}],
)
def test_handle_never_raises(message: object, tmp_path: Path) -> None:
    answer = server.handle(message)
    assert answer is None or "result" in answer or "error" in answer


def documented_tools() -> dict[str, tuple[set[str], set[str]]]:
    """The table of the MCP tools page (docs/guide/mcp.md): each tool's required and optional
    arguments."""
    page = Path(__file__).resolve().parent.parent / "docs" / "guide" / "mcp.md"
    section = page.read_text(encoding="utf-8").split("\n## ", 1)[0]
    found = {}
    for row in re.findall(r"^\| `(cortex_\w+)` \| (.*?) \|", section, flags=re.MULTILINE):
        name, cell = row
        cell = re.sub(r"\s*\(.*\)$", "", cell)  # a note on the arguments
        optional = set(re.findall(r"`(\w+)`", "".join(re.findall(r"\[(.*?)\]", cell))))
        every = set(re.findall(r"`(\w+)`", cell))
        found[name] = (every - optional, optional)
    return found


def test_the_docs_table_matches_tools_list() -> None:
    documented = documented_tools()
    assert list(documented) == TOOL_NAMES
    for name, (required, optional) in documented.items():
        schema = SCHEMAS[name]
        assert required == set(schema.get("required", [])), name
        assert required | optional == set(schema["properties"]), name


def test_a_database_kept_open_sees_other_writers_and_a_file_put_in_its_place(
    mcp: Server, project: Path
) -> None:
    """The server keeps each database open between calls: what another process commits is seen
    at the next call, and a file replaced meanwhile (a restore, a copy) is the one read."""
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    text, is_error = mcp.call("cortex_remember", content="deploys go through the blue fleet")
    assert not is_error, text
    database = project / ".cortex" / "cortex.db"
    before = database.with_name("before.db")
    with sqlite3.connect(database) as source, sqlite3.connect(before) as copy:
        source.backup(copy)
    cli_json("remember", "the kafka brokers live in eu-west-1", env=env, process=True)
    found, _ = mcp.call("cortex_recall", query="kafka brokers")
    assert "eu-west-1" in found
    os.replace(before, database)  # the file the server opened is gone: the new one is read
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    found, _ = mcp.call("cortex_recall", query="kafka brokers")
    assert "eu-west-1" not in found
    assert "Nothing found" in found
    found, _ = mcp.call("cortex_recall", query="blue fleet")
    assert "blue fleet" in found
    assert mcp.close() == 0


def test_a_config_edited_between_calls_is_read_again(mcp: Server, project: Path) -> None:
    """The running server reads config.toml as it is at each call, even rewritten at once with
    the same length (a cache keyed by the file's time and size would keep the old values)."""
    learning = {"anti_pattern": "npm install", "correct_pattern": "pnpm install", "regex": "npm"}
    config = project / ".cortex" / "config.toml"
    assert mcp.call("cortex_add_learning", **learning) == (
        f"Added learning #1.\ncreated the project database {config.with_name('cortex.db')}",
        False,
    )
    for number, start in enumerate(("0.50", "0.60", "0.45"), start=2):
        config.write_text(f"[confidence]\nstart = {start}\n")
        assert mcp.call("cortex_add_learning", **learning) == (f"Added learning #{number}.", False)
    env = {"CLAUDE_PROJECT_DIR": str(project)}
    assert [row["confidence"] for row in cli_json("list", env=env)] == [0.7, 0.5, 0.6, 0.45]
    config.write_text("[confidence]\nstart = zero\n")
    text, is_error = mcp.call("cortex_list_learnings", review=True)
    assert not is_error
    assert text.endswith(
        f"ignoring invalid {config} (not TOML: Invalid value (at line 2, column 9)); using the defaults"
    )


def test_a_tool_call_goes_through_the_library_never_the_cli(project: Path) -> None:
    """A tools/call builds no argv and runs no command: nothing of the CLI is imported."""
    probe = (
        "import sys; from cortex_hooks.mcp import tools;"
        "print(tools.call('cortex_remember', {'content': 'deploys go through fly.io'}));"
        "print(tools.call('cortex_recall', {'query': 'fly.io'})[0].splitlines()[0]);"
        "print(sorted(m for m in sys.modules if m.startswith('cortex_hooks.cli') or m == 'argparse'))"
    )
    completed = subprocess.run(
        [str(Path(script("cortex-hooks")).with_name("python")), "-c", probe],
        capture_output=True,
        cwd=project,
        timeout=60,
        check=True,
    )
    database = project / ".cortex" / "cortex.db"
    assert completed.stdout.decode().splitlines() == [
        f"('Remembered memory #1 (context, project).\\ncreated the project database {database}', False)",
        "#1 (project memory, context, score 0.67)",
        "[]",
    ]
