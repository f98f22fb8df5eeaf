"""Connections kept open between commands (store.connection.keep_open, the MCP server's): lent to
one command at a time, opened anew when the file was replaced, all closed at the end."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from support import cli

from cortex_hooks.errors import CortexError
from cortex_hooks.store.connection import SCHEMA_VERSION, keep_open, open_database


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "cortex.db"
    assert cli("remember", "the staging cluster is called blue", env={"CORTEX_DB": str(path)}).code == 0
    return path


def test_a_command_gets_the_connection_the_last_one_gave_back(database: Path) -> None:
    with keep_open():
        first = open_database(str(database))
        first.close()
        second = open_database(str(database))
        assert second is first
        assert second.execute("SELECT count(*) FROM memory").fetchone()[0] == 1
        second.close()
    with pytest.raises(sqlite3.ProgrammingError):  # really closed at the end
        first.execute("SELECT 1")


def test_the_same_file_opened_twice_in_one_command_is_two_connections(database: Path) -> None:
    with keep_open():
        first = open_database(str(database))
        second = open_database(str(database))
        assert second is not first
        second.close()
        with pytest.raises(sqlite3.ProgrammingError):  # the plain second one is closed at once
            second.execute("SELECT 1")
        first.execute("BEGIN IMMEDIATE")  # the kept one stays usable, and holds no lock of its own
        first.execute("ROLLBACK")
        first.close()


def test_a_transaction_left_open_is_rolled_back_when_given_back(database: Path) -> None:
    with keep_open():
        connection = open_database(str(database))
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("UPDATE memory SET content = 'changed'")
        connection.close()
        again = open_database(str(database))
        assert again.execute("SELECT content FROM memory").fetchone()[0] != "changed"
        again.close()


def test_a_file_put_in_place_of_the_kept_one_is_opened_anew(database: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    assert cli("remember", "a", env={"CORTEX_DB": str(other)}).code == 0
    assert cli("remember", "b", env={"CORTEX_DB": str(other)}).code == 0
    with keep_open():
        first = open_database(str(database))
        first.close()
        shutil.copyfile(other, tmp_path / "copy.db")
        os.replace(tmp_path / "copy.db", database)
        second = open_database(str(database))
        assert second is not first
        assert second.execute("SELECT count(*) FROM memory").fetchone()[0] == 2
        second.close()


def test_a_file_that_fails_its_checks_is_not_kept(database: Path) -> None:
    with keep_open():
        open_database(str(database)).close()
        with sqlite3.connect(database) as raw:
            raw.execute("PRAGMA user_version = 999")  # a newer cortex-hooks wrote it
        with pytest.raises(CortexError, match="newer"):
            open_database(str(database))
        with sqlite3.connect(database) as raw:
            raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        fresh = open_database(str(database))
        assert fresh.execute("SELECT count(*) FROM memory").fetchone()[0] == 1
        fresh.close()
