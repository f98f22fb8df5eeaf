"""One redactor for everything stored or sent from a transcript or a prompt (docs/guide/selfguard.md
items 4, 5 and 8), end to end through the installed hooks and commands on real databases: the
session summary, capture's evidence and proposals, SessionStart's context, the drafting prompt
(on the child's stdin, never in its arguments), what older versions stored, and a proposal built
from redacted text that still matches the command it came from.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from support import cli, cli_json, payload, run
from transcripts import NOT_FOUND, Transcript

# Built here, so that no scanner takes this file for a leak.
AWS_KEY = "AKIA" + "ZQ7XK3MNB2VWYT4P"
GITHUB_TOKEN = "ghp_" + "Zx81kQm2Vn7bT0pLr4Yw9Cs6Hd3Jf5Ga2Ue8"
PASSWORDS = ["Tr0ub4dor-3", "s3cr3t-mysql", "hunter2secret"]


def end(path: Path, session: str) -> None:
    result = run(
        "cortex-session-end",
        stdin=payload("session_end.other", session_id=session, transcript_path=str(path)),
    )
    assert result.code == 0, result.stderr


def start_context() -> str:
    result = run("cortex-session-start", stdin=payload("session_start.startup", session_id="next"))
    assert result.code == 0, result.stderr
    return str(result.json()["hookSpecificOutput"]["additionalContext"]) if result.stdout.strip() else ""


def everything_stored(database: str) -> str:
    """Every value of every table, as text: what a secret would have to hide in."""
    with closing(sqlite3.connect(database)) as connection:
        return "\n".join(connection.iterdump())


@pytest.mark.parametrize(
    ("prompt", "secret"),
    [
        ("run echo 'Tr0ub4dor-7' | sudo -S apt-get install nginx for me", "Tr0ub4dor-7"),
        ("my github password is Spring2024! so log in and push", "Spring2024!"),
        ("add machine api.example.com login me password netrcPw-17 to ~/.netrc", "netrcPw-17"),
        ("set it with gh secret set DEPLOY_TOKEN --body dpl-tok-98765 please", "dpl-tok-98765"),
        ("export MY_API=sk_live9abc123def then run the server", "sk_live9abc123def"),
    ],
)
def test_issue_34s_secrets_are_kept_out_of_the_session_summary(
    db: Path, tmp_path: Path, prompt: str, secret: str
) -> None:
    """Issue 34 item 7: a password fed to sudo -S, one in prose, a .netrc line, gh secret set's
    body, an *_API* value — stored in no summary, shown at no start."""
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    end(Transcript("s1").prompt(prompt).bash("make deploy").write(tmp_path / "s1.jsonl"), "s1")
    (session,) = cli_json("sessions", "list")
    assert "[REDACTED]" in session["summary"]
    for shown in (json.dumps(session), start_context(), everything_stored(str(db))):
        assert secret not in shown


def test_the_session_summary_keeps_no_secret_of_the_first_prompt(db: Path, tmp_path: Path) -> None:
    """an AWS key and a ghp_ token were stored verbatim and shown at every start."""
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    prompt = f"deploy with AWS_ACCESS_KEY_ID={AWS_KEY} and push with {GITHUB_TOKEN} please"
    end(Transcript("s1").prompt(prompt).bash("make deploy").write(tmp_path / "s1.jsonl"), "s1")

    (session,) = cli_json("sessions", "list")
    assert session["summary"].startswith("deploy with AWS_ACCESS_KEY_ID=[REDACTED] and push with")
    for shown in (json.dumps(session), start_context(), cli("snapshot").stdout, everything_stored(str(db))):
        assert AWS_KEY not in shown
        assert GITHUB_TOKEN not in shown


def failing_and_fixed(session: str) -> Transcript:
    """Password options in calls that fail and are fixed: capture proposes from them."""
    transcript = Transcript(session).prompt(f"connect, the mysql password is -p{PASSWORDS[1]}")
    transcript.bash(f"sshpass -p {PASSWORDS[0]} sssh deploy@host", NOT_FOUND.format(word="sssh"), code=127)
    transcript.bash(f"sshpass -p {PASSWORDS[0]} ssh deploy@host")
    transcript.bash(
        f"mysql -u root -p{PASSWORDS[1]} --databse shop", "mysql: unknown option '--databse'", code=2
    )
    transcript.bash(f"mysql -u root -p{PASSWORDS[1]} --database shop")
    transcript.bash(
        f"PGPASSWORD={PASSWORDS[2]} psql -h db -c 'select 1'", NOT_FOUND.format(word="psql"), code=127
    )
    return transcript.bash(f"PGPASSWORD={PASSWORDS[2]} pgcli -h db -c 'select 1'")


def test_capture_keeps_no_password_option(db: Path, tmp_path: Path) -> None:
    """`sshpass -p`, `mysql -p…` reached the database, proposals and SessionStart."""
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    for session in ("s1", "s2"):
        end(failing_and_fixed(session).write(tmp_path / f"{session}.jsonl"), session)
    proposed = cli_json("proposals")
    assert len(proposed) == 3
    shown = [json.dumps(proposed), start_context(), cli("proposals").stdout, everything_stored(str(db))]
    for password in PASSWORDS:
        for text in shown:
            assert password not in text
    assert "sshpass -p [REDACTED] sssh" in json.dumps(proposed)


def test_a_proposal_from_redacted_text_matches_its_own_command(db: Path, tmp_path: Path) -> None:
    """accepting the `PGPASSWORD=… psql` proposal gave a regex with a literal
    `\\[REDACTED\\]`, which matches no command."""
    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    for session in ("s1", "s2"):
        end(failing_and_fixed(session).write(tmp_path / f"{session}.jsonl"), session)
    for proposal in cli_json("proposals"):
        assert "REDACTED" not in proposal["regex"]
        learning = cli_json("accept", str(proposal["id"]), "--auto-block")
        assert "REDACTED" not in learning["regex"]
    for command in (
        f"PGPASSWORD={PASSWORDS[2]} psql -h db -c 'select 1'",
        f"sshpass -p {PASSWORDS[0]} sssh deploy@host",
        f"mysql -u root -p{PASSWORDS[1]} --databse shop",
    ):
        result = run(
            "cortex-pre-tool-use", stdin=payload("pre_tool_use.bash", tool_input={"command": command})
        )
        assert result.code == 0, result.stderr
        assert result.json()["hookSpecificOutput"]["permissionDecision"] == "deny", command
    fixed = payload("pre_tool_use.bash", tool_input={"command": f"PGPASSWORD={PASSWORDS[2]} pgcli -h db"})
    assert run("cortex-pre-tool-use", stdin=fixed).stdout == ""


FAKE_CLAUDE = """#!/usr/bin/env python3
import json, sys
with open({record!r}, "w") as handle:
    json.dump({{"argv": sys.argv[1:], "stdin": sys.stdin.read()}}, handle)
wording = {{"anti_pattern": "a", "correct_pattern": "b", "regex": "never-matches-x"}}
print(json.dumps({{"result": json.dumps(wording)}}))
"""


def test_the_drafting_prompt_goes_on_stdin_redacted(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """the prompt was passed to `claude -p` in its arguments, visible in `ps`."""
    from cortex_hooks.capture import worker

    cli_json("add", "--anti-pattern", "a", "--correct", "b", "--no-regex")
    for session in ("s1", "s2"):
        end(failing_and_fixed(session).write(tmp_path / f"{session}.jsonl"), session)
    # a proposal an older version stored with a password in its evidence (its redactor missed it)
    with closing(sqlite3.connect(db)) as connection, connection:
        connection.execute(
            "UPDATE proposal_occurrence SET failed = failed || :more",
            {"more": "; sshpass -p OldLeak99 ssh h"},
        )
    record = tmp_path / "claude-call.json"
    fake = tmp_path / "claude"
    fake.write_text(FAKE_CLAUDE.format(record=str(record)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    (db.parent / "config.toml").write_text('[capture]\nllm = "claude-cli"\n')
    monkeypatch.setenv("CORTEX_CLAUDE_BIN", str(fake))
    worker.run(str(db))

    call: dict[str, Any] = json.loads(record.read_text())
    assert "sshpass" in call["stdin"] or "mysql" in call["stdin"] or "psql" in call["stdin"]
    assert "Evidence" not in " ".join(call["argv"])
    assert all(len(argument) < 100 for argument in call["argv"])  # flags only
    for secret in [*PASSWORDS, "OldLeak99"]:
        assert secret not in call["stdin"]


def test_no_process_we_start_carries_a_prompt_in_its_arguments() -> None:
    """The child's argv is fixed flags: a prompt can only reach it on stdin."""
    from cortex_hooks.capture import drafting

    argv = drafting.command(os.devnull)
    assert argv[1] == "-p"
    assert not any(" " in argument for argument in argv)
