"""The ways a person installs cortex-hooks without a checkout of their own, each run for real from
a clone of this repository (its committed state: what a clone or a git URL gives): the wheel and
the sdist `python -m build` makes (every data file of the package in both), `pipx install` and
`uv tool install` from a clone and from a git URL (a local bare repository), and the README's
first command in a fresh HOME. Each ends with the installed hooks denying a command.

pip, pipx and uv find packages as this machine's pip configuration (or PIP_* / UV_* variables)
says; `.ci/run` passes its pip settings on as PIP_* variables.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from support import payload

ROOT = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT = 600  # seconds for a build or an install to finish: a bound on a hang, not a goal
SCRIPTS = Path(sys.executable).parent  # where the test extra put pipx, uv and build


def git() -> str:
    found = shutil.which("git")
    if found is None:
        pytest.skip("git is absent: the clone and git-URL installs need it")
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: nothing to clone")
    return found


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository of this checkout's HEAD, as a git URL would serve it."""
    repository = tmp_path_factory.mktemp("origin") / "cortex-hooks.git"
    subprocess.run([git(), "clone", "--quiet", "--bare", str(ROOT), str(repository)], check=True, timeout=120)
    return repository


def clone(bare: Path, where: Path) -> Path:
    """A person's clone (the checkout they install from, with `.`)."""
    target = where / "cortex-hooks"
    subprocess.run([git(), "clone", "--quiet", str(bare), str(target)], check=True, timeout=120)
    return target


def tool(name: str) -> str:
    found = shutil.which(name, path=str(SCRIPTS)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is absent: it comes with the test extra (pip install '.[test]')")
    return found


def environment(home: Path, **more: str) -> dict[str, str]:
    """A fresh HOME; PATH without our own scripts (the installed ones must be the new ones)."""
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != SCRIPTS)
    return {**os.environ, "HOME": str(home), "PATH": path, **more}


def installed(command: list[str], env: dict[str, str], cwd: Path | None = None) -> None:
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def guards(bin_dir: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """The installed cortex-hooks wires a project, records a learning, and its PreToolUse denies."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {**env, "CORTEX_DB": ""}  # the project's own .cortex/, as a person's install uses
    cli = str(bin_dir / "cortex-hooks")
    rule = ["--anti-pattern", "npm install", "--correct", "pnpm install", "--regex", r"\bnpm install\b"]
    for args in (["install"], ["add", *rule, "--tool", "Bash", "--auto-block"]):
        done = subprocess.run(
            [cli, *args], cwd=project, env=env, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert Path(command).resolve() == (bin_dir / "cortex-pre-tool-use").resolve(), command
    call = payload("pre_tool_use.bash", cwd=str(project))
    call["tool_input"] = {"command": "npm install left-pad"}
    hook = subprocess.run(
        [command],
        input=json.dumps(call),
        env={**env, "CLAUDE_PROJECT_DIR": str(project)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert hook.returncode == 0, hook.stderr
    assert json.loads(hook.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def package_data() -> set[str]:
    """The package's files that are not Python source, as a clone has them (git's list)."""
    listed = subprocess.run(
        [git(), "-C", str(ROOT), "ls-files", "cortex_hooks"], capture_output=True, text=True, check=True
    ).stdout.split()
    return {name for name in listed if not name.endswith(".py")}


def test_the_package_has_data_files_to_look_for() -> None:
    found = package_data()
    for needed in (
        "cortex_hooks/guard/packs/core.git.jsonl",
        "cortex_hooks/capture/benign.txt",
        "cortex_hooks/embeddings/data/tokenizer.json",
        "cortex_hooks/report/style.css",
    ):
        assert needed in found


def test_the_wheel_and_the_sdist_hold_every_data_file(bare: Path, tmp_path: Path) -> None:
    source = clone(bare, tmp_path)
    dist = tmp_path / "dist"
    if importlib.util.find_spec("build") is None:
        pytest.skip("build is absent: it comes with the test extra (pip install '.[test]')")
    build = [sys.executable, "-m", "build", "--outdir", str(dist), str(source)]
    installed(build, environment(tmp_path / "fresh-home"))  # the wheel is built from the sdist
    (wheel,) = dist.glob("cortex_hooks-*.whl")
    (sdist,) = dist.glob("cortex_hooks-*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {re.sub(r"^[^/]+/", "", name) for name in archive.getnames()}
    wanted = package_data() | {"cortex_hooks/__main__.py", "cortex_hooks/cli/__init__.py"}
    assert wanted - in_wheel == set()
    assert wanted - in_sdist == set()
    entry_points = next(name for name in in_wheel if name.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    for script in ("cortex-hooks", "cortex-pre-tool-use", "cortex-session-start", "cortex-session-end"):
        assert f"{script} = " in scripts


@pytest.mark.parametrize("origin", ["clone", "git URL"])
def test_pipx_installs_it_and_its_hooks_guard(bare: Path, tmp_path: Path, origin: str) -> None:
    home = tmp_path / "fresh-home"
    bin_dir = home / ".local" / "bin"
    env = environment(home, PIPX_HOME=str(home / "pipx"), PIPX_BIN_DIR=str(bin_dir))
    target = str(clone(bare, tmp_path)) if origin == "clone" else f"git+file://{bare}"
    installed([tool("pipx"), "install", target], env)
    guards(bin_dir, tmp_path, env)


@pytest.mark.parametrize("origin", ["clone", "git URL"])
def test_uv_tool_installs_it_and_its_hooks_guard(bare: Path, tmp_path: Path, origin: str) -> None:
    home = tmp_path / "fresh-home"
    bin_dir = home / ".local" / "bin"
    env = environment(home, UV_TOOL_DIR=str(home / "uv-tools"), UV_TOOL_BIN_DIR=str(bin_dir), **uv_indexes())
    target = str(clone(bare, tmp_path)) if origin == "clone" else f"git+file://{bare}"
    installed([tool("uv"), "tool", "install", target], env)
    guards(bin_dir, tmp_path, env)


def uv_indexes() -> dict[str, str]:
    """pip's settings of where packages are (PIP_*, as `.ci/run` passes them on), in uv's words:
    uv reads no pip configuration."""
    names = {"PIP_INDEX_URL": "UV_INDEX_URL", "PIP_EXTRA_INDEX_URL": "UV_EXTRA_INDEX_URL"}
    names["PIP_FIND_LINKS"] = "UV_FIND_LINKS"
    return {uv: os.environ[pip] for pip, uv in names.items() if os.environ.get(pip)}


def first_command() -> str:
    """The README's first command: the one that installs from a clone and wires a project."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert lines[0].startswith("PROJECT="), lines
    return "\n".join(lines)


def shells(home: Path, path: str) -> dict[str, list[str]]:
    """What a new login shell and a new interactive bash find for python3, pip and cortex-hooks."""
    found = {}
    for flags in ("-lc", "-ic"):
        done = subprocess.run(
            ["bash", flags, "for name in python3 pip cortex-hooks; do command -v $name || echo -; done"],
            env={"HOME": str(home), "PATH": path, "LANG": "C.UTF-8", "TERM": "dumb"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        found[flags] = done.stdout.split()
    return found


@pytest.mark.parametrize("skeleton", ["empty", "debian"])
def test_the_readmes_first_command_works_in_a_fresh_home(bare: Path, tmp_path: Path, skeleton: str) -> None:
    """It installs, wires the project, and puts cortex-hooks on PATH in new shells, login and
    interactive, while python3 and pip stay the ones found before (a HOME with nothing in it, and
    one with Debian's ~/.profile and ~/.bashrc, which a new account gets from /etc/skel)."""
    source = clone(bare, tmp_path)
    home = tmp_path / "fresh-home"
    if skeleton == "debian":
        if not Path("/etc/skel/.profile").is_file():
            pytest.skip("no /etc/skel/.profile on this machine")
        shutil.copytree("/etc/skel", home)
    else:
        home.mkdir()
    env = environment(home)
    before = shells(home, env["PATH"])
    assert all(found[2] == "-" for found in before.values()), before  # no cortex-hooks yet
    # Twice in Debian's home: nothing is added to the shells' files a second time (its ~/.profile
    # names ~/.local/bin already, its ~/.bashrc gets our line; the empty home's files get the same).
    for _ in range(2 if skeleton == "debian" else 1):
        done = subprocess.run(
            ["bash", "-c", first_command()],
            cwd=source,
            env=env,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Installed the cortex-hooks hooks in" in done.stdout or "already in" in done.stdout
    after = shells(home, env["PATH"])
    for flags, found in after.items():
        assert found[:2] == before[flags][:2], (flags, before, after)  # python3 and pip as they were
        assert found[2] == str(home / ".local" / "bin" / "cortex-hooks"), (flags, after)
    linked = sorted(path.name for path in (home / ".local" / "bin").iterdir())
    assert linked == ["cortex-hooks", "cortex-pre-tool-use", "cortex-session-end", "cortex-session-start"]
    for rc in (".bashrc", ".profile"):
        named = (home / rc).read_text().count(".local/bin")
        assert named == 1 or (skeleton == "debian" and named <= 2), rc  # ours once, or the distribution's
    project = home / "code" / "my-app"
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert command == str(home / ".cortex-hooks" / "bin" / "cortex-pre-tool-use")  # the venv's, not the link
    shutil.rmtree(project)  # guards() wires a project of its own, with the same installation
    guards(home / ".local" / "bin", tmp_path, env)
