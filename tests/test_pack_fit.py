"""Which packs fit a project (cortex_hooks.guard.packs.fit), and install and doctor saying
so, with the command that enables each; nothing enabled by itself (`core` stays the default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import cli, cli_json

from cortex_hooks.guard.packs import fit as pack_fit

FILES: list[tuple[dict[str, str], list[str]]] = [
    ({"Dockerfile": "FROM python:3.12\n"}, ["containers"]),
    ({"deploy/compose.yaml": "services: {}\n"}, ["containers"]),
    ({"k8s/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"}, ["kubernetes"]),
    ({"charts/api/Chart.yaml": "name: api\n"}, ["kubernetes"]),
    ({"config.yaml": "log_level: debug\n"}, []),  # a YAML file is no manifest by itself
    ({"infra/main.tf": 'resource "null_resource" "x" {}\n'}, ["infrastructure"]),
    ({"main.tf": 'provider "aws" {\n  region = "eu-west-1"\n}\n'}, ["cloud", "infrastructure"]),
    ({"Pulumi.yaml": "name: app\n"}, ["infrastructure"]),
    ({"db/schema.sql": "CREATE TABLE t (id int);\n"}, ["databases"]),
    ({"package.json": '{"name": "lib", "version": "1.0.0"}'}, ["publishing"]),
    ({"package.json": '{"name": "app", "version": "1.0.0", "private": true}'}, []),
    ({"pyproject.toml": '[project]\nname = "lib"\nversion = "1.0"\n'}, ["publishing"]),
    ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, []),  # tools' settings, no package
    ({"Cargo.toml": '[package]\nname = "x"\npublish = false\n'}, []),
    ({"node_modules/x/Dockerfile": "FROM x\n"}, []),  # a dependency's files are not the project's
    ({"a/b/c/d/main.tf": ""}, []),  # deeper than the walk goes
    ({"README.md": "docker system prune; terraform destroy\n"}, []),
]


@pytest.mark.parametrize(("files", "fit"), FILES, ids=lambda value: str(value)[:40])
def test_what_a_project_holds_says_which_packs_fit(
    tmp_path: Path, files: dict[str, str], fit: list[str]
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert [pack for pack, _seen in pack_fit.fitting(str(tmp_path))] == fit


def test_the_walk_is_bounded_and_never_fails(tmp_path: Path) -> None:
    for number in range(pack_fit.MAX_ENTRIES + 50):
        (tmp_path / f"f{number:05d}.txt").write_text("")
    (tmp_path / "zz.tf").write_text("")  # past the bound: not looked at
    assert pack_fit.fitting(str(tmp_path)) == []
    assert pack_fit.fitting(str(tmp_path / "missing")) == []


def test_the_line_names_each_pack_not_enabled_with_its_command() -> None:
    fits = [("containers", "a Dockerfile"), ("infrastructure", "*.tf files")]
    line = pack_fit.suggestion(fits, {"infrastructure"})
    assert line == (
        "Packs that fit this project, not enabled: containers (a Dockerfile); "
        "enable them with: cortex-hooks packs enable containers"
    )
    assert pack_fit.suggestion(fits, {"containers", "infrastructure"}) is None
    assert pack_fit.suggestion([]) is None


def test_install_and_doctor_suggest_the_packs_that_fit_and_enable_nothing(db: Path) -> None:
    project = Path.cwd()
    (project / "Dockerfile").write_text("FROM alpine\n")
    (project / "main.tf").write_text('resource "null_resource" "x" {}\n')
    (project / ".git").mkdir()
    installed = cli("install", "--packs", "core")
    assert installed.code == 0, installed.stderr
    said = [line for line in installed.stdout.splitlines() if line.startswith("Packs that fit")]
    assert said == [
        "Packs that fit this project, not enabled: containers (a Dockerfile), infrastructure (*.tf files);"
        " enable them with: cortex-hooks packs enable containers && cortex-hooks packs enable infrastructure"
    ]
    enabled = {item["name"] for item in cli_json("packs") if item["project"]}
    assert enabled == {"core.filesystem", "core.git"}  # core, as asked; the fitting ones only named
    cli("packs", "enable", "containers")
    checks = json.loads(cli("doctor", "--json").stdout)["checks"]
    fit = [check for check in checks if check["check"] == "packs that fit"]
    assert fit == [
        {
            "check": "packs that fit",
            "status": "ok",
            "detail": "Packs that fit this project, not enabled: infrastructure (*.tf files);"
            " enable them with: cortex-hooks packs enable infrastructure",
        }
    ]
