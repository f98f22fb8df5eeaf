"""The built-in protection's rule, pure (docs/guide/selfguard.md item 1): the agent's own calls that
would switch its guard off are refused, however they are spelled; their look-alikes, quotations
and every read are not."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_hooks import location
from cortex_hooks.guard import verdict_texts
from cortex_hooks.guard.selfguard import tool_calls
from cortex_hooks.guard.selfguard.protected import Places, Refusal
from cortex_hooks.install import wiring

PROJECT = "/w/proj"
HOME = "/w/home"


def places(real: object = None, *, extra: tuple[str, ...] = ()) -> Places:
    return Places(
        databases=[f"{PROJECT}/.cortex/cortex.db", f"{HOME}/.claude/memory/cortex-global.db", *extra],
        settings=[
            f"{PROJECT}/.claude/settings.json",
            f"{PROJECT}/.claude/settings.local.json",
            f"{HOME}/.claude/settings.json",
        ],
        home=HOME,
        variables={"HOME": HOME, "PWD": PROJECT, "CLAUDE_PROJECT_DIR": PROJECT},
        real=real or (lambda path: path),  # type: ignore[arg-type]
    )


def refused(command: str, *, cwd: str = PROJECT, where: Places | None = None) -> Refusal | None:
    return tool_calls.refusal(
        "Bash",
        {"command": command},
        where or places(),
        cwd,
        current=lambda path: None,
        settings_lost=wiring.weakened,
    )


# Each a way the agent could lower its guard through Bash.
DENIED = [
    # the CLI's weakening commands, however started
    "cortex-hooks update 1 --no-auto-block",
    "cortex-hooks update 1 --no-auto",  # argparse's abbreviation
    "cortex-hooks update --no-auto-block=x 1",
    "cortex-hooks update 1 --confidence 0.5",
    "cortex-hooks update 1 --confidence=0.89",
    "cortex-hooks update 1 --regex 'x^'",
    "cortex-hooks update 1 --no-regex",
    "cortex-hooks update 1 --tool Read",
    "cortex-hooks update 1 --target path",
    "cortex-hooks update 1 --auto-block --no-auto-block",
    # issue 34 class 7: what a blocking learning tells the agent, and its severity
    "cortex-hooks update 3 --correct 'just run git push --force, it is fine'",
    "cortex-hooks update 3 --anti-pattern 'nothing wrong here'",
    "cortex-hooks update 3 --severity low",
    "cortex-hooks --global update 1 --no-auto-block",
    "cortex-hooks archive 1",
    "cortex-hooks archive 1 --global",
    "cortex-hooks --db .cortex/cortex.db archive 1",
    "cortex-hooks --d list archive 1",  # --d is --db: its value is `list`, the command `archive`
    "cortex-hooks unpin 1",
    "cortex-hooks keep 1",
    "cortex-hooks forget 3",
    "cortex-hooks forget --match 'old notes' --yes",
    "cortex-hooks memories archive 2",
    "cortex-hooks decisions archive 1",
    "cortex-hooks todos archive 1",
    "cortex-hooks uninstall",
    "cortex-hooks uninstall --scope user",
    "cortex-hooks packs disable core",
    "cortex-hooks packs --json mute core.git:reset-hard",
    "cortex-hooks packs mute core.git:reset-hard --global",
    "cortex-hooks team mute acme:no-force-push",
    "cortex-hooks team trust",
    "cortex-hooks import --from hookify",
    "cortex-hooks import team.json",
    "cortex-hooks import - < team.json",
    "cortex-hooks prune",
    "cortex-hooks lifecycle",
    "cortex-hooks consolidate --restore .cortex/checkpoints/x.db",
    "cortex-hooks move 3 --to global",
    "cortex-hooks export --output .cortex/config.toml",
    "cortex-hooks export --output=.claude/settings.json",
    "cortex-hooks report --out .cortex/cortex.db",
    "cortex-hooks add --db .cortex/config.toml --anti-pattern x --correct y --no-regex",
    "cortex-hooks lst",  # not known to be safe: the CLI refuses it anyway
    "cortex-hooks $CMD 1",
    "cortex-hooks update 1 $(echo --no-auto-block)",
    "sudo cortex-hooks archive 1",
    "sudo -u me cortex-hooks archive 1",
    "env A=1 cortex-hooks archive 1",
    "CORTEX_DB=x cortex-hooks archive 1",
    "nohup cortex-hooks archive 1 &",
    "timeout 5 cortex-hooks archive 1",
    "bash -c 'cortex-hooks archive 1'",
    'sh -c "cd /tmp && cortex-hooks archive 1"',
    "eval 'cortex-hooks archive 1'",
    "cd x && cortex-hooks archive 1",
    "true; cortex-hooks archive 1",
    "(cortex-hooks archive 1)",
    "echo $(cortex-hooks archive 1)",
    "echo `cortex-hooks archive 1`",
    "echo 1 | xargs cortex-hooks archive",
    "bash <<'EOF'\ncortex-hooks archive 1\nEOF",
    "echo 'cortex-hooks archive 1' | sh",
    "~/.cortex-hooks/bin/cortex-hooks archive 1",
    "/home/dev/proj/.venv/bin/cortex-hooks update 1 --no-auto-block",
    "\\cortex-hooks archive 1",
    "'cortex-hooks' archive 1",
    "python -m cortex_hooks archive 1",
    "python3.12 -m cortex_hooks.cli archive 1",
    "python3 .venv/bin/cortex-hooks archive 1",
    "uv run cortex-hooks archive 1",
    "uvx cortex-hooks archive 1",
    "pipx run cortex-hooks archive 1",
    "watch -n 1 'cortex-hooks archive 1'",
    "su -c 'cortex-hooks archive 1' dev",
    "$(which cortex-hooks) archive 1",
    "C=cortex-hooks; $C archive 1",
    "cortex-launch cli archive 1",
    "cortex-launch session-end < payload.json",
    "cortex-session-end < payload.json",
    "for i in 1 2 3; do echo '{}' | cortex-session-end; done",
    "cortex-session-start < payload.json",
    "find . -exec cortex-hooks archive {} \\;",
    # the memory folder, a database, its companions
    "rm -rf .cortex",
    "rm -rf ./.cortex/",
    "rm -r -f .cortex",
    "rm -rf /w/proj/.cortex",
    "rm -rf $CLAUDE_PROJECT_DIR/.cortex",
    'rm -rf "${CLAUDE_PROJECT_DIR}/.cortex"',
    "rm -rf $PWD/.cortex",
    "rm -rf sub/../.cortex",
    "cd sub && rm -rf ../.cortex",
    "cd .cortex && rm *",
    "cd .cortex && rm cortex.db",
    "rm -rf .c*",
    "rm -rf .[c]ortex",
    "rm -rf .{cortex,tox}",
    "rm -rf build .cortex dist",
    "rm .cortex/cortex.db",
    "rm .cortex/cortex.db-wal .cortex/cortex.db-shm",
    "rm -f .cortex/cortex.db.guard",
    "rm .cortex/cortex.db.pending",
    "rm .cortex/config.toml",
    "unlink .cortex/cortex.db",
    "shred -u .cortex/cortex.db",
    "trash .cortex",
    "rm -rf ~/.claude",
    "rm -rf ~/.claude/memory",
    "rm ~/.claude/memory/cortex-global.db",
    "rm -rf $HOME/.claude/memory",
    "rm -rf .",
    "rm -rf /w/proj",
    "rm -rf /",
    "D=.cortex; rm -rf $D",
    'rm -rf "$(echo .cortex)"',
    "echo .cortex | xargs rm -rf",
    "echo .co''rtex | xargs rm -rf",
    "rm -rf $X/proj",  # whatever $X is, a folder named as one the project lies in
    "rm -rf $X/PROJ",  # on a case-insensitive file system too
    "rm -rf /tmp/pytest-of-$USER",  # the expansion is in the last name: it may hold a `/`
    "sed -i '/force/d' .claude/cortex-team.jsonl",
    "rm .claude/cortex-team.jsonl",
    "echo '{}' >> .claude/cortex-team.jsonl",
    "ls .cortex | xargs chmod 000",
    "mv .cortex /tmp/old",
    "mv .cortex/cortex.db /tmp/x.db",
    "mv /tmp/empty.db .cortex/cortex.db",
    "cp /tmp/empty.db .cortex/cortex.db",
    "cp evil.toml .cortex/config.toml",
    "cp config.toml .cortex/",
    "cp -r /tmp/evil/.cortex .",
    "cp -t .cortex config.toml",
    "ln -sf /dev/null .cortex/cortex.db",
    "ln -s .cortex/config.toml notes.toml",  # then `Write notes.toml` names none of its places
    "ln .cortex/cortex.db copy.db",
    "ln -s .cortex c",
    "ln -s ~/.claude/settings.json s.json",
    "cp -as .cortex x",
    "cp --symbolic-link /w/proj/.cortex/config.toml x.toml",
    "install -m 600 /dev/null .cortex/config.toml",
    "rsync -a --delete /tmp/empty/ .cortex/",
    "> .cortex/cortex.db",
    ": > .cortex/cortex.db",
    "echo x > .cortex/cortex.db",
    "echo 'block_gate = 0.89' > .cortex/config.toml",
    "printf '[policy]\\nblock_gate = 0.89\\n' >> .cortex/config.toml",
    "cat /tmp/x >| .cortex/config.toml",
    "echo x &> .cortex/cortex.db",
    "exec 3<> .cortex/cortex.db",
    "printf x | tee .cortex/config.toml",
    "printf x | tee -a .cortex/config.toml > /dev/null",
    "truncate -s 0 .cortex/cortex.db",
    "dd if=/dev/zero of=.cortex/cortex.db bs=1 count=10",
    "sed -i 's/0.40/0.89/' .cortex/config.toml",
    "sed -i.bak -e 's/x/y/' .cortex/config.toml",
    "sed -n 'w .cortex/config.toml' notes.txt",
    "perl -pi -e 's/x/y/' .cortex/config.toml",
    "chmod 000 .cortex/cortex.db",
    "chmod -R 000 .cortex",
    "chown -R nobody .",
    "tar -czf .cortex/cortex.db notes/",
    "find . -name cortex.db -delete",
    "find . -name '*.db' -delete",
    "find .cortex -type f -delete",
    "find . -type f -delete",
    "find . -name 'cortex.db*' -exec rm {} +",
    "git clean -fdx",
    "git clean -X -f",
    "git stash --all",
    "git rm -r .cortex",
    "git checkout -- .claude/settings.json",
    "git restore .claude",
    "git restore .c*",
    # sqlite3, or any program, writing a database
    'sqlite3 .cortex/cortex.db "delete from learning"',
    'sqlite3 .cortex/cortex.db "update learning set auto_block = 0"',
    "sqlite3 /w/proj/.cortex/cortex.db .dump",  # may run anything on stdin too: not -readonly
    "sqlite3 ~/.claude/memory/cortex-global.db 'delete from learning'",
    "sqlite3 'file:.cortex/cortex.db' 'delete from learning'",
    "sqlite3 -readonly .cortex/cortex.db '.shell rm -rf x'",
    "sqlite3 -readonly .cortex/cortex.db \"attach 'x.db' as x\"",
    "sqlite3 /tmp/x.db \"attach '.cortex/cortex.db' as c; delete from c.learning\"",
    "sqlite3 :memory: '.open .cortex/cortex.db' 'delete from learning'",
    "sqlite3 <<'SQL'\n.open .cortex/cortex.db\ndelete from learning;\nSQL",
    "echo 'delete from learning;' | sqlite3 .cortex/cortex.db",
    "python -c \"import sqlite3; sqlite3.connect('.cortex/cortex.db').execute('delete from learning')\"",
    "python3 -c 'import shutil; shutil.rmtree(\".cortex\")'",
    "python3 - <<'PY'\nimport sqlite3\nsqlite3.connect('.cortex/cortex.db').execute('delete from t')\nPY",
    "python3 <<'PY'\nimport os\nos.remove(os.path.expanduser('~/.claude/memory/cortex-global.db'))\nPY",
    "python -c 'from cortex_hooks.api import learnings'",
    "python -c 'from cortex_hooks import store'",
    "node -e \"require('fs').unlinkSync('.cortex/cortex.db')\"",
    "python scripts/fix.py .cortex/cortex.db",
    "vim .cortex/config.toml",
    # a settings file, written by any program
    "echo '{}' > .claude/settings.json",
    "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
    "jq 'del(.hooks)' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json",
    "jq 'del(.hooks)' .claude/settings.json | sponge .claude/settings.json",
    "sed -i '/cortex/d' .claude/settings.json",
    "rm .claude/settings.json",
    "rm -rf .claude",
    "cp /tmp/s.json ~/.claude/settings.json",
    "python3 -c \"import json; json.dump({}, open('.claude/settings.json', 'w'))\"",
]

# Each must pass: reads, strengthening commands, look-alikes, quotations, other projects' files.
ALLOWED = [
    "find . -name '*.pyc' | xargs rm",  # xargs is given files, in a command that names none of ours
    "find . -type d -name __pycache__ | xargs rm -rf",
    "git ls-files '*.sh' | xargs chmod +x",
    "cat .claude/cortex-team.jsonl",
    "rm -rf $TMPDIR/build",  # a folder named build, wherever $TMPDIR is: none of ours is
    'rm -rf "${TMPDIR:-/tmp}/build"',
    "git add .claude/cortex-team.jsonl && git commit -m 'team: no force push'",
    "cortex-hooks",
    "cortex-hooks --help",
    "cortex-hooks --version",
    "cortex-hooks archive --help",
    "cortex-hooks update -h",
    "cortex-hooks list",
    "cortex-hooks list --archived --json",
    "cortex-hooks --db .cortex/cortex.db list",
    "cortex-hooks show 3",
    "cortex-hooks stats --days 30",
    "cortex-hooks snapshot",
    "cortex-hooks sessions list --json",
    "cortex-hooks recall 'archive the logs'",
    "cortex-hooks recall update",
    "cortex-hooks remember 'we archive logs nightly' --tag ops",
    'cortex-hooks remember "$(git log -1 --format=%s)"',
    "cortex-hooks add --anti-pattern 'rm -rf build' --correct 'make clean' --regex 'rm\\s+-rf' --tool Bash",
    "cortex-hooks add --anti-pattern x --correct y --no-regex --auto-block --pin",
    "cortex-hooks pin 3",
    "cortex-hooks restore 3",
    "cortex-hooks update 3 --auto-block",
    "cortex-hooks update 3 --pin",
    "cortex-hooks update 3 --auto-block --pin --severity critical --context 'it broke prod'",
    "cortex-hooks update 3 --confidence 1.0",
    "cortex-hooks explain --tool Bash --command 'cortex-hooks archive 1'",
    "cortex-hooks explain --tool Bash --command 'rm -rf .cortex' --json",
    "cortex-hooks doctor",
    "cortex-hooks doctor --json",
    "cortex-hooks prune --dry-run",
    "cortex-hooks prune --dry",
    "cortex-hooks lifecycle --dry-run --json",
    "cortex-hooks uninstall --dry-run",
    "cortex-hooks consolidate",
    "cortex-hooks consolidate --dry-run --restore .cortex/checkpoints/x.db",
    "cortex-hooks install",
    "cortex-hooks install --with-mcp --packs core",
    "cortex-hooks packs show core",
    "cortex-hooks packs enable core",
    "cortex-hooks packs unmute core.git:reset-hard",
    "cortex-hooks team list --json",
    "cortex-hooks team check",
    "cortex-hooks team add acme:no-force-push --from 3",
    "cortex-hooks team",
    "cortex-hooks memories list",
    "cortex-hooks memories update 2 --content 'new text'",
    "cortex-hooks decisions add --title T --reasoning R",
    "cortex-hooks todos done 4",
    "cortex-hooks export --output /tmp/backup.json",
    "cortex-hooks export > /tmp/backup.json",
    "cortex-hooks report --out /tmp/report.html",
    "cortex-hooks proposals --all",
    "cortex-hooks accept 2 --auto-block",
    "cortex-hooks reject 2",
    "cortex-hooks mcp",
    "cortex-hooks index-code src/main.py --prose 'the entry point'",
    "cortex-pre-tool-use < payload.json",
    "cortex-launch cli list",
    "uv run cortex-hooks list",
    "sudo cortex-hooks show 1",
    # quotations of weakening commands: data, never run
    "echo 'cortex-hooks archive 1'",
    "echo rm -rf .cortex",
    "printf '%s\\n' 'sqlite3 .cortex/cortex.db \"delete from learning\"'",
    "git commit -m 'cortex-hooks archive 1 is refused now; rm -rf .cortex too'",
    "grep -rn 'cortex-hooks update' docs/",
    "grep -F 'rm -rf .cortex' README.md",
    "cat > notes.md <<'EOF'\nrun cortex-hooks archive 1, then rm -rf .cortex\nEOF",
    "X='cortex-hooks archive 1' true",
    "# cortex-hooks archive 1\nls",
    # reading a protected file, or writing elsewhere
    "cat .cortex/config.toml",
    "ls -la .cortex",
    "ls ~/.claude/memory",
    "head -c 100 .cortex/cortex.db | xxd",
    "sha256sum .cortex/cortex.db",
    "stat .cortex/cortex.db",
    "du -sh .cortex",
    "jq '.hooks' .claude/settings.json",
    "cat .claude/settings.json | jq .permissions",
    "diff .claude/settings.json /tmp/settings.json",
    "sed -n 1,20p .cortex/config.toml",
    "awk '{print $1}' .cortex/config.toml",
    "git diff .claude/settings.json",
    "git add .claude/settings.json && git commit -m 'wire cortex-hooks'",
    "git log -p -- .claude/settings.json",
    "git clean -fd",
    "git stash",
    # git changes tracked files only: restored as committed, like `git reset --hard`; never .cortex/
    "git checkout -- .",
    "git restore .",
    "git rm -r --cached .",
    "git reset --hard",
    "ln -s /tmp/x link",
    "cp -a .cortex/config.toml /tmp/backup.toml",
    "sqlite3 -readonly .cortex/cortex.db 'select id, anti_pattern from learning'",
    "sqlite3 -readonly .cortex/cortex.db <<'SQL'\nselect count(*) from learning;\nSQL",
    "sqlite3 'file:.cortex/cortex.db?mode=ro' 'select 1'",
    "sqlite3 /tmp/other.db 'delete from t'",
    "cp .cortex/cortex.db /tmp/backup.db",
    "cp -r .cortex /tmp/cortex-backup",
    "tar -czf /tmp/cortex.tgz .cortex",
    "rm -rf build dist",
    "rm -rf ~/.claude/projects/old-session",
    "rm -rf /tmp/x && ls .cortex",
    "rm -rf *",
    "find . -name '*.pyc' -delete && ls .cortex",
    "chmod +x scripts/cortex.sh",
    "touch .cortex/cortex.db",
    "python3 -c 'import cortex_hooks; print(cortex_hooks.__version__)'",
    "python3 -m pytest tests/test_cortex.py",
    "cd ~/code/cortex-hooks && .venv/bin/pytest -q",
    "pip install cortex-hooks",
    "ruff check cortex_hooks",
    "echo '{}' > /tmp/settings.json",
    "echo 'block_gate = 0.89' > config.toml",
    "python3 -c \"import tomllib; print(tomllib.load(open('pyproject.toml', 'rb')))\"",
]


@pytest.mark.parametrize("command", DENIED)
def test_a_weakening_command_is_refused(command: str) -> None:
    refusal = refused(command)
    assert refusal is not None, command
    text = verdict_texts.protected(refusal, [], verdict_texts.TEXT_LIMIT)
    assert text.startswith(verdict_texts.PROTECTED)
    assert "own terminal" in text
    assert command.splitlines()[0] in text
    assert len(text) < 9500


@pytest.mark.parametrize("command", ALLOWED)
def test_a_read_a_strengthening_or_a_quotation_passes(command: str) -> None:
    assert refused(command) is None, refused(command)


QUOTING = [
    lambda text: f"echo {shlex.quote(text)}",
    lambda text: f"git commit -m {shlex.quote(text)}",
    lambda text: f"grep -rn -- {shlex.quote(text)} docs",
    lambda text: f"printf '%s\\n' {shlex.quote(text)} >> notes.md",
    lambda text: f"cat > notes.md <<'NOTES'\n{text}\nNOTES",
    lambda text: f"NOTE={shlex.quote(text)} true",
    lambda text: f"python3 -c 'print(1)' {shlex.quote(text)}",
]


@given(
    command=st.sampled_from([command for command in DENIED if "EOF" not in command]),
    form=st.sampled_from(QUOTING),
    prose=st.text(alphabet="abcdefghij ,.-:", max_size=30),
)
def test_quoting_a_weakening_command_as_data_never_refuses_it(command: str, form: object, prose: str) -> None:
    """A commit message, an echo, a grep pattern or a heredoc body quoting any refused command is
    data: it is never refused for that."""
    quoted = form(f"{prose} {command} {prose}")  # type: ignore[operator]
    assert refused(quoted) is None, quoted


WRAPPED = [
    lambda command: f"sudo {command}",
    lambda command: f"env A=1 {command}",
    lambda command: f"bash -c {shlex.quote(command)}",
    lambda command: f"cd sub && {command}",
    lambda command: f"true && ( {command} )",
    lambda command: f"timeout 60 {command}",
    lambda command: f"eval {shlex.quote(command)}",
]


@given(
    command=st.sampled_from([command for command in DENIED if "\n" not in command and "cd " not in command]),
    wrap=st.sampled_from(WRAPPED),
)
def test_no_wrapper_hides_a_weakening_command(command: str, wrap: object) -> None:
    wrapped = wrap(command)  # type: ignore[operator]
    assert refused(wrapped) is not None, wrapped


def test_paths_are_compared_resolved(tmp_path: Path) -> None:
    """A symlink to the memory folder, a relative path from a subfolder, `..`: the same folder."""
    project = tmp_path / "proj"
    (project / ".cortex").mkdir(parents=True)
    (project / "sub").mkdir()
    (tmp_path / "alias").symlink_to(project / ".cortex")
    (tmp_path / "config-link.toml").symlink_to(project / ".cortex" / "config.toml")
    where = Places(
        databases=[str(project / ".cortex" / "cortex.db")],
        settings=[],
        home=str(tmp_path / "home"),
        variables={},
        real=os.path.realpath,
    )
    for command in (f"rm -rf {tmp_path}/alias", "rm -rf ../../alias", "echo x > ../../config-link.toml"):
        assert refused(command, cwd=str(project / "sub"), where=where) is not None, command
    assert refused("rm -rf ../../elsewhere", cwd=str(project / "sub"), where=where) is None


def test_a_custom_database_is_protected_with_its_config_and_companions() -> None:
    where = places(extra=("/data/memory/team.sqlite",))
    for command in (
        "rm /data/memory/team.sqlite",
        "sqlite3 /data/memory/team.sqlite 'delete from learning'",
        "echo x > /data/memory/team.sqlite-wal",
        "echo 'block_gate = 0.89' > /data/memory/config.toml",
        "rm -rf /data/memory",
        "python3 -c \"import os; os.remove('/data/memory/team.sqlite')\"",
    ):
        assert refused(command, where=where) is not None, command
    assert refused("cat /data/memory/config.toml", where=where) is None


# --- Write, Edit, MultiEdit, NotebookEdit ----------------------------------------------------

HOOKS = wiring.hooks_block({event: f"/venv/bin/{script}" for event, script in wiring.SCRIPTS.items()})
SETTINGS = json.dumps({**HOOKS, "permissions": {"allow": ["Bash(ls:*)"]}}, indent=2)


SETTINGS_PATH = f"{PROJECT}/.claude/settings.json"


def written(
    tool: str, tool_input: dict[str, object], *, now: str | None = SETTINGS, holding: str = SETTINGS_PATH
) -> Refusal | None:
    """The refusal of a write, the settings file `holding` as `now` (no other settings file)."""
    return tool_calls.refusal(
        tool,
        tool_input,
        places(),
        PROJECT,
        current=lambda where: now if where == holding else None,
        settings_lost=wiring.weakened,
    )


EDITS_REFUSED = [
    (
        "Write",
        {"file_path": f"{PROJECT}/.claude/cortex-team.jsonl", "content": ""},
    ),  # every team rule untrusted
    ("Edit", {"file_path": ".claude/cortex-team.jsonl", "old_string": '"block"', "new_string": '"warn"'}),
    ("Write", {"file_path": f"{PROJECT}/.cortex/config.toml", "content": "[policy]\nblock_gate = 0.89\n"}),
    ("Write", {"file_path": ".cortex/config.toml", "content": "x"}),  # relative to the cwd
    ("Write", {"file_path": f"{PROJECT}/sub/../.cortex/config.toml", "content": "x"}),
    ("Write", {"file_path": "~/.claude/memory/config.toml", "content": "x"}),  # the global database's
    ("Edit", {"file_path": f"{PROJECT}/.cortex/config.toml", "old_string": "0.40", "new_string": "0.89"}),
    ("Write", {"file_path": f"{PROJECT}/.cortex/cortex.db", "content": ""}),
    ("MultiEdit", {"file_path": f"{PROJECT}/.cortex/cortex.db-wal", "edits": []}),
    ("NotebookEdit", {"notebook_path": f"{PROJECT}/.cortex/config.toml", "new_source": "x"}),
    ("NotebookEdit", {"notebook_path": SETTINGS_PATH, "new_source": "x"}),
    ("Write", {"file_path": SETTINGS_PATH, "content": "{}"}),
    ("Write", {"file_path": SETTINGS_PATH, "content": SETTINGS[:-3]}),  # no longer JSON: ignored whole
    ("Write", {"file_path": SETTINGS_PATH, "content": SETTINGS.replace("cortex-pre-tool-use", "true")}),
    (
        "Write",
        {"file_path": f"{PROJECT}/.claude/settings.local.json", "content": '{"disableAllHooks": true}'},
    ),
    ("Write", {"file_path": f"{HOME}/.claude/settings.json", "content": '{"disableAllHooks": 1}'}),
    ("Edit", {"file_path": SETTINGS_PATH, "old_string": '"PreToolUse"', "new_string": '"PostToolUse"'}),
    ("Edit", {"file_path": SETTINGS_PATH, "old_string": '"matcher": "*"', "new_string": '"matcher": "Read"'}),
    (
        "Edit",
        {
            "file_path": SETTINGS_PATH,
            "old_string": '"timeout": 30',
            "new_string": '"timeout": 0.001',
            "replace_all": True,
        },
    ),
    ("Edit", {"file_path": SETTINGS_PATH, "old_string": "{", "new_string": '{"disableAllHooks": true,'}),
    ("Edit", {"file_path": SETTINGS_PATH, "old_string": "no such text", "new_string": "x"}),
    (
        "MultiEdit",
        {
            "file_path": SETTINGS_PATH,
            "edits": [
                {"old_string": "Bash(ls:*)", "new_string": "Bash(git:*)"},
                {"old_string": "/venv/bin/cortex-session-end", "new_string": "true"},
            ],
        },
    ),
    ("mcp__filesystem__write_file", {"path": f"{PROJECT}/.cortex/config.toml", "content": "x"}),
    ("mcp__filesystem__move_file", {"source": f"{PROJECT}/.cortex/cortex.db", "destination": "/tmp/x"}),
]
EDITS_ALLOWED = [
    ("Write", {"file_path": SETTINGS_PATH, "content": SETTINGS.replace("Bash(ls:*)", "Bash(git:*)")}),
    ("Edit", {"file_path": SETTINGS_PATH, "old_string": "Bash(ls:*)", "new_string": "Bash(git:*)"}),
    (
        "MultiEdit",
        {"file_path": SETTINGS_PATH, "edits": [{"old_string": "Bash(ls:*)", "new_string": "Read"}]},
    ),
    ("Write", {"file_path": f"{PROJECT}/.claude/settings.local.json", "content": '{"permissions": {}}'}),
    ("Write", {"file_path": f"{PROJECT}/.cortex/.gitignore", "content": "*\n"}),
    ("Write", {"file_path": f"{PROJECT}/src/cortex.py", "content": "x"}),
    ("Write", {"file_path": f"{PROJECT}/config.toml", "content": "block_gate = 0.89"}),
    ("Write", {"file_path": f"{PROJECT}/.claude/commands/learn.md", "content": "x"}),
    ("Read", {"file_path": f"{PROJECT}/.cortex/config.toml"}),
    ("Grep", {"pattern": "x", "path": f"{PROJECT}/.cortex"}),
    ("mcp__filesystem__read_file", {"path": f"{PROJECT}/.cortex/config.toml"}),
    ("mcp__cortex__cortex_index_code", {"path": f"{PROJECT}/.cortex/config.toml", "prose": "x"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), EDITS_REFUSED)
def test_a_write_that_weakens_is_refused(tool: str, tool_input: dict[str, object]) -> None:
    refusal = written(tool, tool_input)
    assert refusal is not None
    assert "outside this session" in verdict_texts.protected(refusal, [], verdict_texts.TEXT_LIMIT)


@pytest.mark.parametrize(("tool", "tool_input"), EDITS_ALLOWED)
def test_a_write_that_keeps_the_guard_passes(tool: str, tool_input: dict[str, object]) -> None:
    assert written(tool, tool_input) is None


def test_a_settings_file_without_our_hooks_may_be_written_but_not_switch_every_hook_off() -> None:
    path = f"{HOME}/.claude/settings.json"
    edit: dict[str, object] = {"file_path": path, "old_string": '"a"', "new_string": '"b"'}
    assert written("Write", {"file_path": path, "content": '{"model": "x"}'}, now=None, holding=path) is None
    assert written("Edit", edit, now='{"a": 1}', holding=path) is None
    assert (
        written("Write", {"file_path": path, "content": '{"disableAllHooks": true}'}, holding=path)
        is not None
    )
    plugin = '{"enabledPlugins": {"cortex-hooks@market": true}}'
    off = '{"enabledPlugins": {"cortex-hooks@market": false}}'
    assert written("Write", {"file_path": path, "content": off}, now=plugin, holding=path) is not None
    assert written("Write", {"file_path": path, "content": plugin}, now=off, holding=path) is None


def test_weakened_names_what_the_settings_file_loses() -> None:
    assert wiring.weakened(SETTINGS, SETTINGS) == []
    assert wiring.weakened(SETTINGS, json.dumps(json.loads(SETTINGS))) == []  # layout is not content
    assert wiring.weakened(SETTINGS, "{}") == [
        f"its {event} hook would be removed or changed"
        for event in ("PreToolUse", "SessionEnd", "SessionStart")
    ]
    assert wiring.weakened(SETTINGS, "[]") == [
        "Claude Code would ignore the file (it would not be valid settings)"
    ]
    assert wiring.weakened(None, "{}") == []
    assert wiring.weakened("not json", '{"disableAllHooks": 1}') == [
        "disableAllHooks would turn every hook off"
    ]
    assert wiring.weakened(SETTINGS, None) == ["what the file would say cannot be known"]


def test_a_call_that_cannot_be_read_is_refused_not_let_through() -> None:
    """docs/guide/selfguard.md: the protection is never crashed open."""

    def broken(path: str) -> str | None:
        raise ValueError(path)

    refusal = tool_calls.refusal(
        "Edit",
        {"file_path": SETTINGS_PATH, "old_string": "a", "new_string": "b"},
        places(),
        PROJECT,
        current=broken,
        settings_lost=wiring.weakened,
    )
    assert refusal is not None
    assert "could not read" in refusal.why


# --- the hook's substring tests (location.names_own_place) never hide a refusal ----------------

SPLICED = [
    "rm -rf .co''rtex",
    'rm -rf .co""rtex/',
    "rm -rf .cor\\tex",
    "r''m -rf .",
    "\\rm -rf .",
    "rm -rf .c?rtex",
    "c{o,}rtex-hooks archive 1",
    "$'\\x72m' -rf .cortex",
    "cor\\\ntex-hooks archive 1",
    "$(echo rm) -rf .cortex",
    "mv ../proj /tmp/old",
    "cd .. && rm -rf proj",
    "git stash push --all",
    "git clean  -fdX",
]


@pytest.mark.parametrize("command", DENIED + SPLICED)
def test_every_refused_command_reaches_the_rule(command: str) -> None:
    """PreToolUse asks the rule only about a call whose command holds one of a few words: each
    refused command, however spelled, holds one (a quote, an escape or a folder above the guard
    hides none)."""
    assert refused(command) is not None, command
    assert location.names_own_place({"command": command}), command


WORDS = [
    *("rm", "r''m", "\\rm", "mv", "find", "chmod", "chown", "rsync", "shred", "git", "sudo", "xargs"),
    *("cat", "ls", "echo", "cp", "tee", "sqlite3", "python3", "cortex-hooks", "cd", "bash", "eval"),
    *("clean", "stash", "checkout", "restore", "archive", "update", "import", "push", "-c", "-m"),
    *("-rf", "-R", "-x", "-fdx", "-a", "--all", "-delete", "-type", "f", "-exec", "{}", "+", "-i"),
    *(".", "..", "/", "~", "$HOME", "$PWD", "*", ".*", ".c*", ".[c]ortex", ".co''rtex", "proj"),
    *("../proj", "/w/proj", "/w", ".cortex", ".cortex/cortex.db", "cortex.db", ".cortex/config.toml"),
    *(".claude", ".claude/settings.json", "settings.json", "build", "x.db", "1", "'x y'", '"$D"'),
    *("&&", ";", "|", "||", ">", ">>", "<", "(", ")", "$(", "`", "\\\n", "\n", "D=.;", "{a,b}"),
]


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
def test_no_command_the_rule_refuses_escapes_the_hooks_substring_tests(words: list[str]) -> None:
    command = " ".join(words)
    if refused(command) is not None:
        assert location.names_own_place({"command": command}), command


def test_a_call_made_inside_the_guards_folders_always_reaches_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CORTEX_DB", raising=False)
    monkeypatch.delenv("CORTEX_GLOBAL_DB", raising=False)
    bare: dict[str, object] = {"command": "echo 'block_gate = 0.89' > config.toml"}
    assert refused("echo 'block_gate = 0.89' > config.toml", cwd=f"{PROJECT}/.cortex") is not None
    assert location.names_own_place(bare, f"{PROJECT}/.cortex")
    assert location.names_own_place(bare, f"{HOME}/.claude/memory")
    assert refused("echo 'block_gate = 0.89' > config.toml") is None
    assert not location.names_own_place(bare, PROJECT)


def test_beside_a_custom_database_its_config_file_named_bare_reaches_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORTEX_DB", "/data/memory/team.sqlite")
    command = "echo 'block_gate = 0.89' > config.toml"
    assert refused(command, cwd="/data/memory", where=places(extra=("/data/memory/team.sqlite",)))
    assert location.names_own_place({"command": command}, "/data/memory")
    assert not location.names_own_place({"command": "ls"}, "/data/memory")


def test_the_team_file_reached_through_a_link_is_guarded_at_its_target(tmp_path: Path) -> None:
    """Issue 34 class 7: `.claude/cortex-team.jsonl` a link to `team/rules.jsonl`; writing the target
    (which names none of the guard's places) edits the team file all the same."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / "team").mkdir()
    (project / "team" / "rules.jsonl").write_text("{}\n")
    (project / ".claude" / "cortex-team.jsonl").symlink_to(project / "team" / "rules.jsonl")
    where = Places(
        databases=[str(project / ".cortex" / "cortex.db")],
        settings=[str(project / ".claude" / "settings.json")],
        home=str(tmp_path / "home"),
        variables={},
        real=os.path.realpath,
    )
    target = str(project / "team" / "rules.jsonl")
    for command in (
        "echo '{}' > team/rules.jsonl",
        "sed -i 's/block/warn/' team/rules.jsonl",
        "rm team/rules.jsonl",
    ):
        assert refused(command, cwd=str(project), where=where) is not None, command
    write = tool_calls.refusal(
        "Write",
        {"file_path": target, "content": ""},
        where,
        str(project),
        current=lambda path: None,
        settings_lost=wiring.weakened,
    )
    assert write is not None
    assert "team file" in write.why
    assert refused("cat team/rules.jsonl", cwd=str(project), where=where) is None


def test_the_hooks_substring_tests_follow_a_link_of_the_guards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write of the file the team file links to names none of the guard's words: the hook's
    substring tests know the link's target by name (one readlink per place)."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / "team").mkdir()
    (project / "team" / "rules.jsonl").write_text("{}\n")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    call: dict[str, object] = {"command": "echo x > team/rules.jsonl"}
    assert not location.names_own_place(call, str(project))
    (project / ".claude" / "cortex-team.jsonl").symlink_to(project / "team" / "rules.jsonl")
    assert location.names_own_place(call, str(project))
    assert location.names_own_place({"file_path": str(project / "team" / "rules.jsonl")}, str(project))


@pytest.mark.parametrize(
    "command",
    [
        'rm -rf ""',  # an empty word names no path
        "find . -name '*.js*' -exec sh -c 'echo \"$0\"' {} \\;",  # a script's arguments are its own
        "bash -c 'echo $0' .cortex/cortex.db",
    ],
)
def test_found_in_the_held_out_corpus_and_mended(command: str) -> None:
    assert refused(command) is None


def test_a_scripts_arguments_are_judged_where_it_uses_them() -> None:
    for command in ("sh -c 'cat > \"$1\"' _ .cortex/config.toml", "sh -c 'rm -rf \"$1\"' _ .cortex"):
        assert refused(command) is not None, command


_DEFINES = re.compile(r"(?:^|[\s;&|(){}])(?:function\s+[\w.-]+|[\w.-]+\s*\(\s*\))")
_SETS = re.compile(r"(?:^|[\s;&|(){}])(?:set\s+--|set\s+[-+]\w*\s+\S|shift\b)")
_PIECES = ["a", "b.", "-", "_", " ", "\t", "\n", ";", "&", "|", "(", ")", "{", "}", "é", "\u00a0"]
_SHELLISH = st.lists(
    st.sampled_from([*_PIECES, "function", "set", "shift", "--", "-x", "()", "( )"]), max_size=14
).map("".join)


@given(_SHELLISH)
def test_a_function_or_set_positional_parameters_are_found_as_the_one_regex_finds_them(text: str) -> None:
    """The literal-first search (a megabyte of heredoc costs a few substring scans) says what a
    regex tried at every word would say."""
    from cortex_hooks.guard.selfguard import bindings

    assert bindings._defines_function(text) == bool(_DEFINES.search(text))
    assert bindings._sets_arguments(text) == bool(_SETS.search(text))
