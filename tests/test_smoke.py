"""The installed scripts exist and a learning round-trips through add, a hook and list."""

from __future__ import annotations

from support import cli, cli_json, payload, run


def test_installed_scripts_deny_a_matching_bash_command() -> None:
    added = cli_json(
        "add",
        "--anti-pattern",
        "rm -rf",
        "--correct",
        "trash",
        "--regex",
        r"rm\s+-rf",
        "--auto-block",
        process=True,
    )
    result = run("cortex-pre-tool-use", stdin=payload("pre_tool_use.bash"))
    assert result.code == 0, result.stderr
    output = result.json()["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert f"#{added['id']}" in output["permissionDecisionReason"]
    assert cli_json("show", str(added["id"]), process=True)["confidence"] == 0.8
    assert cli("list", process=True).code == 0
