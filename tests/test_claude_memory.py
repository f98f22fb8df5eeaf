"""Claude Code's own memory (issue 26, docs/guide/claude-memory.md): the folder rule (install.claude_paths),
the chunks
(memory.claude_chunks), recall over the auto-memory and CLAUDE.md files — read-only, indexed by
mtime, within bounds, creating nothing — and the rules they hold proposed (signal `remembered`),
on a labelled set of memory lines and end to end through the installed hook. The real client
confirms the folder rule in tests/test_claude_code_memory.py."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import tomllib
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import Server
from support import cli, cli_json, payload, run

from cortex_hooks.api import claude_files as claude_memory
from cortex_hooks.capture import regex_synthesis as synth
from cortex_hooks.capture.recurrence import NEW_PER_SESSION
from cortex_hooks.capture.remembered import rule
from cortex_hooks.install import claude_paths
from cortex_hooks.memory.claude_chunks import CHUNK, chunks

CORPUS = Path(__file__).parent / "corpora" / "memory_lines.toml"
RULE_RECALL_FLOOR = 0.70  # measured 28 of 40 (0.70); the goal is 0 false proposals, this keeps the recall


def memory() -> Path:
    """The auto-memory folder of the test's working directory (HOME is the test's own)."""
    folder = claude_paths.auto_memory(os.getcwd())
    assert folder is not None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def topic(name: str, fact: str, description: str = "a fact") -> Path:
    """An auto-memory topic file as Claude Code writes one."""
    path = memory() / name
    path.write_text(
        f"---\nname: {name[:-3]}\ndescription: {description}\nmetadata:\n  type: feedback\n---\n\n{fact}\n"
    )
    return path


def make_database() -> None:
    """The project's database, with one note unrelated to any query here (hooks never create it)."""
    assert cli("todos", "add", "--text", "zzyzx").code == 0


def claude_code(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [result for result in found if result["source"] == "claude-code"]


# --- the folder rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/dev/proj", "-home-dev-proj"),
        ("/home/dev/my_proj.v2", "-home-dev-my-proj-v2"),
        ("/tmp/projé 😀 x", "-tmp-proj-----x"),  # é one unit, the emoji two (UTF-16), spaces
        ("/tmp/proje\u0301d", "-tmp-proje-d"),  # a decomposed é: the e stays, the accent goes
        ("/" + "a" * 199, "-" + "a" * 199),  # 200: not cut
        # seen with the real client (tests/test_claude_code_memory.py makes such a path)
        (
            "/tmp/ccm_exp/cases/" + "l" * 120 + "/" + "m" * 120,
            "-tmp-ccm-exp-cases-" + "l" * 120 + "-" + "m" * 60 + "-t4arwo",
        ),
    ],
)
def test_a_path_becomes_the_folder_name_claude_code_gives_it(path: str, name: str) -> None:
    assert claude_paths.folder_name(path) == name


@pytest.mark.parametrize(("text", "value"), [("", 0), ("a", 97), ("hello", 99162322), ("😀", 1772899)])
def test_the_hash_is_javas_string_hash(text: str, value: int) -> None:
    assert claude_paths.string_hash(text) == value


@given(st.text())
def test_a_folder_name_is_letters_digits_and_dashes_of_bounded_length(path: str) -> None:
    name = claude_paths.folder_name(path)
    assert all(char.isascii() and (char.isalnum() or char == "-") for char in name)
    assert len(name) <= claude_paths.NAME_LIMIT + 1 + 7  # "-" and at most 7 base-36 digits
    assert -(2**31) <= claude_paths.string_hash(path) < 2**31


def test_the_memory_folder_is_keyed_by_the_git_root_and_a_worktree_by_its_main_repository(
    tmp_path: Path,
) -> None:
    main = tmp_path / "main"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    git = ["git", "-C", str(main), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "worktree", "add", "-q", str(tmp_path / "tree")], check=True)
    (main / "sub").mkdir()
    (tmp_path / "tree" / "deep").mkdir()
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    expected = str(projects / claude_paths.folder_name(str(main)) / "memory")
    assert claude_paths.auto_memory(str(main / "sub")) == expected
    assert claude_paths.auto_memory(str(tmp_path / "tree" / "deep")) == expected
    # the transcripts stay with the folder the session starts in
    assert claude_paths.transcripts_folder(str(main / "sub")) == str(
        projects / claude_paths.folder_name(str(main / "sub"))
    )
    # a .git file that does not lead back to its worktree proves nothing: the root stays
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / ".git").write_text(f"gitdir: {main}/.git/worktrees/tree\n")
    assert claude_paths.project_folder(str(fake)) == str(fake)


def _settings(path: Path, values: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def test_settings_move_or_turn_off_the_memory_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    user = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    default = claude_paths.auto_memory(str(project))
    assert default is not None
    assert default.endswith("/memory")
    _settings(project / ".claude" / "settings.json", {"autoMemoryDirectory": str(tmp_path / "checked-in")})
    assert claude_paths.auto_memory(str(project)) == default  # a cloned repository points nowhere
    _settings(user, {"autoMemoryDirectory": "~/notes/memory/"})
    assert claude_paths.auto_memory(str(project)) == str(Path(os.environ["HOME"]) / "notes" / "memory")
    _settings(project / ".claude" / "settings.local.json", {"autoMemoryDirectory": str(tmp_path / "local")})
    assert claude_paths.auto_memory(str(project)) == str(tmp_path / "local")
    for refused in ("relative/dir", "~/../escape", "~", "/", "x\x00y", 7):
        _settings(project / ".claude" / "settings.local.json", {"autoMemoryDirectory": refused})
        assert claude_paths.auto_memory(str(project)) == str(Path(os.environ["HOME"]) / "notes" / "memory")
    _settings(project / ".claude" / "settings.json", {"autoMemoryEnabled": False})
    assert claude_paths.auto_memory(str(project)) is None
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")  # falsy: on, whatever the settings say
    assert claude_paths.auto_memory(str(project)) is not None
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "true")
    assert claude_paths.auto_memory(str(project)) is None
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    _settings(project / ".claude" / "settings.json", {})
    (project / ".claude" / "settings.local.json").write_text("{ not json")
    assert claude_paths.auto_memory(str(project)) == str(
        tmp_path / "config" / "projects" / claude_paths.folder_name(str(project)) / "memory"
    )


# --- chunks ------------------------------------------------------------------------------------


def test_a_topic_file_is_one_chunk_with_its_description_as_summary() -> None:
    text = (
        "---\nname: use-pnpm\ndescription: Use pnpm here\nmetadata:\n  type: feedback\n---\n\n"
        "Never npm.\n**Why:** lockfile.\n"
    )
    assert chunks(text) == [(8, "Use pnpm here", "Never npm.\n**Why:** lockfile.")]


def test_other_files_are_cut_at_their_headings_but_not_inside_code() -> None:
    text = (
        "Intro line\n\n# Commands\n- make check\n```sh\n# not a heading\n```\n## Style\r\nTabs.\n### Empty\n"
    )
    assert chunks(text) == [
        (1, "Intro line", "Intro line"),
        (4, "Commands", "- make check\n```sh\n# not a heading\n```"),
        (9, "Style", "Tabs."),
        (10, "Empty", "Empty"),
    ]


def test_a_long_section_is_cut_at_line_ends_and_nothing_blank_is_a_chunk() -> None:
    lines = [f"line {number} " + "x" * 90 for number in range(200)]
    found = chunks("# Long\n" + "\n".join(lines))
    assert len(found) > 1
    assert all(len(chunk.content) <= CHUNK for chunk in found)
    assert {chunk.summary for chunk in found} == {"Long"}
    assert "\n".join(chunk.content for chunk in found) == "\n".join(lines)
    assert chunks("\n  \n\t\n") == []


@given(st.text())
def test_chunks_never_fail_and_stay_within_bounds(text: str) -> None:
    for chunk in chunks(text):
        assert chunk.content.strip()
        assert len(chunk.content) <= CHUNK
        assert len(chunk.summary) <= 200
        assert chunk.line >= 1


# --- recall ------------------------------------------------------------------------------------


def test_recall_finds_the_auto_memory_and_the_claude_md_files_read_only(db: Path) -> None:
    fact = topic(
        "feedback_pnpm.md", "Never run `npm install` here; use `pnpm install`.", "Use pnpm, never npm"
    )
    (memory() / "MEMORY.md").write_text("- [Use pnpm](feedback_pnpm.md) — package installs\n")
    Path("CLAUDE.md").write_text("# Project\n\n## Deploys\nDeploys go to eu-west-1 through the pipeline.\n")
    remembered = cli_json("remember", "the pnpm store lives in ~/.pnpm-store")
    before = {path: path.stat().st_mtime_ns for path in (fact, memory() / "MEMORY.md", Path("CLAUDE.md"))}

    found = cli_json("recall", "pnpm install")
    ours = claude_code(found)
    assert {result["path"] for result in ours} == {str(fact), str(memory() / "MEMORY.md")}
    first = next(result for result in ours if result["path"] == str(fact))
    assert first["kind"] == "memory"
    assert first["scope"] == "project"
    assert first["line"] == 8
    assert first["summary"] == "Use pnpm, never npm"
    assert "pnpm install" in first["content"]
    assert first["linked"] == []
    assert first["origin"] == "auto-memory"
    assert [result["content"] for result in found if result["source"] == "cortex"] == [remembered["content"]]
    deploys = claude_code(cli_json("recall", "eu-west-1 deploys"))
    assert [(result["path"], result["line"], result["origin"]) for result in deploys] == [
        (str(Path("CLAUDE.md").resolve()), 4, "claude-md")
    ]
    text = cli("recall", "pnpm install").stdout
    assert "Claude Code auto memory (score" in text
    assert f"file: {fact}:8" in text
    assert {path: path.stat().st_mtime_ns for path in before} == before  # cortex never writes them


def test_a_changed_file_is_read_again_a_deleted_one_leaves_recall_and_mtime_decides(db: Path) -> None:
    make_database()
    fact = topic("project_ports.md", "The api listens on port 8080.")

    def contents(query: str) -> list[str]:
        return [result["content"] for result in claude_code(cli_json("recall", query))]

    assert contents("8080") == ["The api listens on port 8080."]
    stat = fact.stat()
    fact.write_text(fact.read_text().replace("8080", "9090"))  # same size: only the mtime tells
    os.utime(fact, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert contents("8080") == ["The api listens on port 8080."], "an unchanged stat is not read again"
    os.utime(fact, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert contents("8080") == []
    assert contents("9090") == ["The api listens on port 9090."]
    fact.unlink()
    assert contents("9090") == []
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT count(*) FROM claude_file").fetchone() == (0,)
        assert connection.execute("SELECT count(*) FROM claude_chunk").fetchone() == (0,)


def test_an_unchanged_index_costs_no_write(db: Path) -> None:
    make_database()
    topic("a.md", "The queue is drained nightly.")
    cli_json("recall", "queue drained")  # indexes
    with closing(sqlite3.connect(db)) as connection:
        version = connection.execute("PRAGMA data_version").fetchone()
        assert claude_code(cli_json("recall", "queue drained"))  # nothing changed: nothing written
        assert connection.execute("PRAGMA data_version").fetchone() == version
        topic("b.md", "The queue has a dead-letter twin.")
        assert len(claude_code(cli_json("recall", "queue"))) == 2
        assert connection.execute("PRAGMA data_version").fetchone() != version  # a new file: indexed


def test_a_pass_with_a_deadline_reads_one_file_at_least_and_leaves_the_rest_for_the_next(db: Path) -> None:
    """SessionEnd's bounded pass: past its deadline, the files not read stay as they were indexed
    (new ones unindexed), a file gone leaves the index whatever the deadline, and the next pass
    without one reads the rest."""
    make_database()
    for number in range(4):
        topic(f"t{number}.md", f"Fact number {number} about the ledger.")
    sources = claude_memory.sources(os.getcwd())
    with closing(sqlite3.connect(db)) as connection:
        assert claude_memory.refresh(connection, sources, "2026-11-24T00:00:00Z", deadline=0.0)
        assert len(claude_index_files(connection)) == 1
        (memory() / "t0.md").unlink()
        (memory() / "t3.md").unlink()
        sources = claude_memory.sources(os.getcwd())
        assert claude_memory.refresh(connection, sources, "2026-11-24T00:00:00Z", deadline=0.0)
        assert [Path(path).name for path in claude_index_files(connection)] == ["t1.md"]  # t0 left
        assert claude_memory.refresh(connection, sources, "2026-11-24T00:00:00Z")
        assert sorted(Path(path).name for path in claude_index_files(connection)) == ["t1.md", "t2.md"]
        assert not claude_memory.refresh(connection, sources, "2026-11-24T00:00:00Z")


def claude_index_files(connection: sqlite3.Connection) -> list[str]:
    return [row[0] for row in connection.execute("SELECT path FROM claude_file")]


def test_peek_reads_a_changed_file_and_writes_nothing(db: Path) -> None:
    make_database()
    fact = topic("a.md", "The queue is drained nightly.")
    cli_json("recall", "queue")
    fact.write_text(fact.read_text().replace("nightly", "hourly at half past"))
    with closing(sqlite3.connect(db)) as connection:
        before = connection.execute("SELECT * FROM claude_chunk").fetchall()
    assert claude_code(cli_json("recall", "hourly", "--peek"))
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT * FROM claude_chunk").fetchall() == before


def test_recall_without_a_database_reads_the_files_and_creates_nothing(db: Path) -> None:
    topic("a.md", "Feature flags live in LaunchDarkly.")
    found = cli_json("recall", "feature flags")
    assert [result["source"] for result in found] == ["claude-code"]
    assert not db.exists()
    assert not Path(".cortex").exists()


def test_scopes_kinds_and_types_choose_claude_codes_memory_like_context_memories(db: Path) -> None:
    topic("a.md", "Invoices are generated on the first of the month.")
    cli_json("remember", "invoices are emailed by the billing worker")
    assert claude_code(cli_json("recall", "invoices", "--project-only"))
    assert claude_code(cli_json("recall", "invoices", "--type", "context"))
    for chosen in (("--global-only",), ("--kind", "learning"), ("--type", "gotcha")):
        assert claude_code(cli_json("recall", "invoices", *chosen)) == [], chosen


def test_a_claude_code_result_counts_no_access_of_a_memory_with_the_same_id(db: Path) -> None:
    topic("a.md", "Releases are tagged vYYYY.MM.")
    memory_id = cli_json("remember", "nothing to do with the query")["id"]
    [found] = cli_json("recall", "releases tagged")
    assert found["source"] == "claude-code"
    assert found["id"] == memory_id
    assert cli_json("memories", "list")[0]["access_count"] == 0


def test_an_unreadable_or_missing_memory_folder_leaves_recall_working(db: Path) -> None:
    cli_json("remember", "the cache is warmed at boot")
    folder = Path(claude_paths.auto_memory(os.getcwd()) or "")
    assert [result["source"] for result in cli_json("recall", "cache warmed")] == ["cortex"]  # missing
    folder.parent.mkdir(parents=True)
    folder.symlink_to(folder)  # a loop: no one can list it, root included
    result = cli("recall", "cache warmed", "--json")
    assert result.code == 0
    assert [item["source"] for item in json.loads(result.stdout)] == ["cortex"]
    assert "Claude Code's memory folder" in result.stderr
    assert result.stderr.count("\n") == 1


def test_files_are_read_within_bounds(db: Path) -> None:
    huge = memory() / "huge.md"
    huge.write_text("# Huge\n" + "lorem ipsum dolor\n" * 100_000 + "# Late\nunreachable-words-here\n")
    os.mkfifo(memory() / "fifo.md")
    (memory() / "binary.md").write_bytes(b"\x00\xff\xfe binary hooks\x00")
    (memory() / "notes.txt").write_text("not markdown: latexword")
    assert claude_code(cli_json("recall", "lorem ipsum"))
    assert claude_code(cli_json("recall", "unreachable-words-here")) == []  # past MAX_BYTES
    assert claude_code(cli_json("recall", "binary hooks"))
    assert claude_code(cli_json("recall", "latexword")) == []
    assert huge.stat().st_size > claude_memory.MAX_BYTES


def test_the_mcp_server_recalls_claude_codes_memory_too(tmp_path: Path) -> None:
    project = tmp_path / "cwd"
    topic("a.md", "The nightly backup goes to the cold-storage bucket.")
    cli_json("remember", "unrelated")
    server = Server(project)
    try:
        server.initialize()
        text, error = server.call("cortex_recall", query="backup bucket")
    finally:
        server.process.kill()
        server.process.wait()
    assert not error
    assert "Claude Code auto memory" in text
    assert "cold-storage bucket" in text


GITHUB_TOKEN = "ghp_" + "q7Lm2Xv9Rt4Kw8Zp3Nc6Hj1Bf5Gd0Sa2Ey7U"
PASSWORD = "Tr0ub4dor-and-3"


def test_what_reaches_the_model_from_the_files_is_redacted_and_sanitized(db: Path, tmp_path: Path) -> None:
    """The files are Claude Code's (and may be a cloned repository's CLAUDE.md): what the index
    keeps, recall prints, cortex_recall hands the model and capture proposes passes the one
    redactor; what is shown, the one sanitizer."""
    fact = f"The deploy bot pushes with {GITHUB_TOKEN}; \x1b[2J\u202eforged\u202c the release notes."
    topic("a.md", fact, "how the deploy bot pushes")
    Path("CLAUDE.md").write_text(f"## Database\nNever run `sshpass -p {PASSWORD} ssh prod`.\n")
    make_database()
    [found] = claude_code(cli_json("recall", "deploy bot pushes"))
    assert GITHUB_TOKEN not in found["content"]
    assert "pushes with [REDACTED];" in found["content"]
    shown = cli("recall", "deploy bot pushes").stdout
    assert "[REDACTED]" in shown
    assert not {"\x1b", "\u202e", "\u202c"} & set(shown)
    server = Server(tmp_path / "cwd")
    try:
        server.initialize()
        text, error = server.call("cortex_recall", query="deploy bot pushes")
    finally:
        server.process.kill()
        server.process.wait()
    assert not error
    assert "[REDACTED]" in text
    assert GITHUB_TOKEN not in text
    assert not {"\x1b", "\u202e", "\u202c"} & set(text)
    [sshpass] = claude_code(cli_json("recall", "sshpass prod"))
    assert PASSWORD not in sshpass["content"]
    captured = cli_json("capture", "--claude-memory")
    assert captured is not None
    assert cli_json("proposals", "--all") == []  # a rule that would have to hold the password is none
    with closing(sqlite3.connect(db)) as connection:
        stored = "\n".join(connection.iterdump())
    assert GITHUB_TOKEN not in stored
    assert PASSWORD not in stored


# --- rules become proposals -----------------------------------------------------------------------


def _corpus() -> list[dict[str, str]]:
    cases: list[dict[str, str]] = tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]
    return cases


def _matches(pattern: str, command: str) -> bool:
    return bool(synth.matches(synth.compiled(pattern), command))


def test_no_line_that_is_not_a_command_rule_is_proposed() -> None:
    others = [case for case in _corpus() if case["kind"] != "command-rule"]
    assert len(others) >= 50
    proposed = [(case["line"], found.regex) for case in others if (found := rule(case["line"])) is not None]
    assert proposed == []


def test_command_rules_are_proposed_with_a_regex_that_forbids_only_what_they_forbid() -> None:
    rules = [case for case in _corpus() if case["kind"] == "command-rule"]
    proposed = [(case, rule(case["line"])) for case in rules]
    for case, found in proposed:
        if found is not None:
            assert _matches(found.regex, case["forbids"]), (case["line"], found.regex)
            assert not _matches(found.regex, case["allows"]), (case["line"], found.regex)
            assert synth.refusal(found.regex, [found.failed], []) is None
    share = sum(found is not None for _case, found in proposed) / len(rules)
    print(f"remembered: {share:.2f} of {len(rules)} command rules proposed")
    assert share >= RULE_RECALL_FLOOR


@given(st.text(max_size=400))
def test_any_line_gives_nothing_or_a_regex_that_passes_the_checks(line: str) -> None:
    found = rule(line)
    if found is not None:
        assert synth.refusal(found.regex, [found.failed], []) is None
        assert found.signal == "remembered"


def _session_end(session: str, cwd: Path) -> Any:
    return run(
        "cortex-session-end",
        stdin=payload("session_end.other", session_id=session, cwd=str(cwd), transcript_path=""),
        env={"CLAUDE_PROJECT_DIR": str(cwd)},
    )


def test_session_end_proposes_each_rule_once_within_the_caps(db: Path) -> None:
    make_database()
    here = Path.cwd()
    programs = ["yarn", "pip", "flake8", "python2", "bower", "ack", "gradle", "mvn"]
    rules = "".join(f"- Never use `{name}`.\n" for name in programs)
    # one section, one chunk: SessionEnd reads at least one chunk whatever its time budget
    Path("CLAUDE.md").write_text("# Rules\n- never run npm install; use pnpm install\n" + rules)
    ended = _session_end("s1", here)
    assert ended.code == 0, ended.stderr
    first = cli_json("proposals")
    assert len(first) == NEW_PER_SESSION
    assert {proposal["signal"] for proposal in first} == {"remembered"}
    assert any(_matches(proposal["regex"], "npm install") for proposal in first)
    assert _session_end("s1", here).code == 0  # the same session again: its cap holds
    assert len(cli_json("proposals")) == NEW_PER_SESSION
    assert _session_end("s2", here).code == 0
    every = cli_json("proposals")
    assert len(every) == 1 + len(programs)
    assert len({proposal["regex"] for proposal in every}) == len(every)
    [mvn] = [proposal for proposal in every if _matches(proposal["regex"], "mvn package")]
    assert mvn["evidence"][0]["fixed"] == "Never use `mvn`. (CLAUDE.md:10)"  # the rule's own line
    assert _session_end("s3", here).code == 0  # nothing new: nothing twice
    assert len(cli_json("proposals")) == len(every)


def test_a_rejected_rule_stays_rejected_and_an_accepted_one_denies(db: Path) -> None:
    make_database()
    here = Path.cwd()
    fact = topic("feedback_tools.md", "Never run `terraform apply` locally.\nUse `bun` rather than `npm`.")
    assert _session_end("s1", here).code == 0
    proposals = {proposal["regex"]: proposal for proposal in cli_json("proposals")}
    [terraform] = [p for regex, p in proposals.items() if _matches(regex, "terraform apply -auto-approve")]
    [npm] = [p for regex, p in proposals.items() if _matches(regex, "npm ci")]
    assert "feedback_tools.md:8" in terraform["evidence"][0]["fixed"]
    assert cli("reject", str(terraform["id"])).code == 0
    accepted = cli_json("accept", str(npm["id"]), "--auto-block")
    fact.write_text(fact.read_text() + "Also: never run `terraform apply` locally, really.\n")
    topic("other.md", "Don't use `npm`; use `bun`.")
    assert _session_end("s2", here).code == 0
    assert cli_json("proposals") == []  # rejected: never again; accepted: already a learning
    denied = run(
        "cortex-pre-tool-use",
        stdin=payload("pre_tool_use.bash", cwd=str(here), tool_input={"command": "npm ci"}),
        env={"CLAUDE_PROJECT_DIR": str(here)},
    )
    decision = json.loads(denied.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert f"learning #{accepted['id']}" in decision["permissionDecisionReason"]


def test_capture_claude_memory_now_and_its_dry_run(db: Path) -> None:
    topic("feedback.md", "Prefer ruff over flake8.")
    dry = cli_json("capture", "--claude-memory", "--dry-run")
    assert dry["proposed"] == []
    assert dry["candidates"] == 1
    assert cli_json("proposals") == []
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT count(*) FROM claude_file").fetchone() == (0,)
    done = cli_json("capture", "--claude-memory")
    [proposal] = done["proposed"]
    assert proposal["signal"] == "remembered"
    assert _matches(proposal["regex"], "flake8 src")
    text = cli("proposals").stdout
    assert "Claude Code's memory says: Prefer ruff over flake8. (feedback.md:8)" in text


def test_capture_switched_off_reads_no_memory_for_rules(db: Path) -> None:
    make_database()
    (db.parent / "config.toml").write_text("[capture]\nenabled = false\n")
    topic("feedback.md", "Prefer ruff over flake8.")
    assert _session_end("s1", Path.cwd()).code == 0
    assert cli_json("proposals") == []


def test_a_rule_an_active_learning_already_enforces_is_not_proposed(db: Path) -> None:
    learning = cli_json(
        "add", "--anti-pattern", "npm", "--correct", "pnpm", "--regex", r"\bnpm\b", "--tool", "Bash"
    )
    topic("feedback.md", "never run npm install; use pnpm install")
    done = cli_json("capture", "--claude-memory")
    assert done["proposed"] == []
    assert done["skipped"] == [
        {"reason": f"already learning #{learning['id']}: `npm install` (Claude Code's memory says not to)"}
    ]
