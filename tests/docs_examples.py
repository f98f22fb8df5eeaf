"""The docs' `console` examples: found in README.md and docs/, run by bash in a fresh project, and
compared with what they show (tests/test_docs_examples.py).

A page is one story: its blocks run in order in one bash process, in a fresh HOME
(`<tmp>/home/dev`) and project (`~/code/my-app`, where `cortex-hooks install --no-packs` has run, so
that a page's own learnings are numbered from 1), with the clock at EXAMPLE_NOW and this
installation as the README's install command leaves it: `~/.cortex-hooks` (a link to it), its
four commands linked into `~/.local/bin`, which ends PATH. A `$ ` line is a command (a trailing
`\\` continues it); the lines after it, up to the next command, are its output, stdout and
stderr together.

What a block may not show is said in an HTML comment on the lines right before it,
`<!-- setup: … -->`: bash run before the block, its output hidden (a setup that fails fails the
test). `fresh` starts the page's world again; `fresh --bare` without the install; `fresh --packs`
with the README's install as it is (the core packs enabled). A page whose examples
need an optional extra says so, `<!-- examples-need: MODULE -->`: without it the page is skipped.

The normalization, all of it: the temporary folder's path is removed (so
`<tmp>/home/dev/code/my-app` reads `/home/dev/code/my-app`), also where it is spelled as Claude
Code names a project's folder (`-tmp-…-home-dev-code-my-app` reads `-home-dev-code-my-app`);
trailing spaces and blank lines at the end are ignored; a line `…`
alone stands for any number of lines.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "docs"
EXAMPLE_NOW = "2026-11-22T09:00:00Z"
ELLIPSIS = "…"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)\s*$")
_NEED = re.compile(r"<!--\s*examples-need:\s*([\w.]+)\s*-->")
_SETUP = re.compile(r"<!--\s*setup:(?P<code>(?:(?!-->|<!--).)*)-->\s*$", re.DOTALL)


@dataclass(frozen=True)
class Command:
    text: str
    expected: tuple[str, ...]
    line: int  # in the page, 1-based


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    setup: str
    commands: tuple[Command, ...]


def pages() -> list[Path]:
    """Every page of the docs: the README and each Markdown file under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def fenced(text: str) -> list[tuple[str, int, list[str], str]]:
    """Each fenced block of a Markdown text: its language, the line of its opening fence, its
    lines (the fence's indentation removed) and the text before it."""
    lines = text.splitlines()
    found = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent = opening["indent"]
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = [line.removeprefix(indent) for line in lines[index + 1 : end]]
        found.append((opening["lang"], index + 1, body, "\n".join(lines[:index])))
        index = end + 1
    return found


def commands(body: list[str], first_line: int) -> tuple[Command, ...]:
    """The commands of a console block and the output shown after each."""
    found: list[Command] = []
    index = 0
    while index < len(body):
        line = body[index]
        if not line.startswith("$ "):
            raise ValueError(f"line {first_line + index}: output before any `$ ` command: {line!r}")
        start = index
        text = [line[2:]]
        while text[-1].endswith("\\") and index + 1 < len(body):
            index += 1
            text.append(body[index])
        index += 1
        output = []
        while index < len(body) and not body[index].startswith("$ "):
            output.append(body[index])
            index += 1
        found.append(Command("\n".join(text), tuple(output), first_line + start))
    return tuple(found)


def blocks(page: Path) -> list[Block]:
    """The console blocks of a page, each with the setup written right before it."""
    found = []
    for lang, line, body, before in fenced(page.read_text(encoding="utf-8")):
        if lang != "console":
            continue
        setup = _SETUP.search(before.rstrip())
        found.append(Block(page, line, setup["code"].strip() if setup else "", commands(body, line + 1)))
    return found


def missing(page: Path) -> list[str]:
    """The modules a page's examples need that this Python cannot import."""
    import importlib.util

    needed = _NEED.findall(page.read_text(encoding="utf-8"))
    return [name for name in needed if importlib.util.find_spec(name) is None]


def prelude(root: Path, venv: Path) -> str:
    """The bash that makes a page's world: a fresh HOME and project, this installation on PATH."""
    return f"""
exec 2>&1
export HOME={root}/home/dev
fresh() {{
    cd /
    rm -rf "$HOME"
    mkdir -p "$HOME/code/my-app"
    ln -s {venv} "$HOME/.cortex-hooks"
    mkdir -p "$HOME/.local/bin" && ln -s "$HOME/.cortex-hooks/bin/cortex-"* "$HOME/.local/bin/"
    export CORTEX_NOW={EXAMPLE_NOW}
    cd "$HOME/code/my-app"
    case ${{1:-}} in
        --bare) ;;
        --packs) cortex-hooks install >/dev/null 2>&1 || echo "cortex-hooks install failed" ;;
        *) cortex-hooks install --no-packs >/dev/null 2>&1 || echo "cortex-hooks install failed" ;;
    esac
}}
fresh
"""


def script(page_blocks: list[Block], root: Path, venv: Path, marker: str) -> str:
    """One bash script for a page: the prelude, then each block's setup and commands, a marker
    line before each command's output."""
    parts = [prelude(root, venv)]
    for number, block in enumerate(page_blocks):
        if block.setup:
            log = root / f"setup-{number}.log"
            failed = f"{{ printf '\\n%s\\n' '{marker} setup'; cat {log}; }}"
            parts.append(f"{{\n{block.setup}\n}} >{log} 2>&1 || {failed}")
        for index, command in enumerate(block.commands):
            parts.append(f"printf '\\n%s\\n' '{marker} {number} {index}'")
            parts.append(command.text)
    parts.append(f"printf '\\n%s\\n' '{marker} end'")
    return "\n".join(parts) + "\n"


def environment(root: Path) -> dict[str, str]:
    """What the page's bash starts with: nothing of the test's own environment but the basics."""
    return {
        "PATH": f"/usr/local/bin:/usr/bin:/bin:{root}/home/dev/.local/bin",  # as the README's install has it
        "HOME": f"{root}/home/dev",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleaved as a terminal shows them
        "CORTEX_EMBEDDINGS": "off",  # as the README's install (no embeddings extra) has it
        "TMPDIR": str(root / "tmp"),
    }


@dataclass(frozen=True)
class Outcome:
    block: Block
    command: Command
    actual: tuple[str, ...]


def normalized(output: str, root: Path) -> tuple[str, ...]:
    for prefix in {str(root), os.path.realpath(root)}:
        # the path, and its spelling as the name of Claude Code's folder for a project
        output = output.replace(prefix, "").replace(re.sub(r"[^A-Za-z0-9]", "-", prefix), "")
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def run(page: Path, root: Path, venv: Path, timeout: float = 600) -> list[Outcome]:
    """Run a page's console blocks; each command with the output it printed."""
    page_blocks = blocks(page)
    marker = f"@@example-{secrets.token_hex(8)}"
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    env = {**environment(root), "CORTEX_DOCS_FIXTURES": str(FIXTURES)}
    # The script is a file and stdin is empty: a command that reads stdin reads nothing, never the
    # rest of the script.
    path = root / "page.sh"
    path.write_text(script(page_blocks, root, venv, marker), encoding="utf-8")
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    chunks = result.stdout.split(f"\n{marker} ")
    head, rest = chunks[0], chunks[1:]
    if normalized(head, root):
        raise AssertionError(f"{page.name}: the prelude printed:\n{head}")
    outcomes = []
    for chunk in rest:
        label, _, output = chunk.partition("\n")
        if label == "setup":
            raise AssertionError(f"{page.name}: a setup failed:\n{output}")
        if label == "end":
            break
        number, index = map(int, label.split())
        block = page_blocks[number]
        outcomes.append(Outcome(block, block.commands[index], normalized(output, root)))
    expected = sum(len(block.commands) for block in page_blocks)
    if len(outcomes) != expected:
        tail = result.stdout[-2000:]
        raise AssertionError(f"{page.name}: {len(outcomes)} of {expected} commands ran:\n{tail}")
    return outcomes


def agrees(expected: tuple[str, ...], actual: tuple[str, ...]) -> bool:
    """The output shown and the output printed agree, a line `…` standing for any lines."""
    expected = tuple(line.rstrip() for line in expected)
    while expected and not expected[-1]:
        expected = expected[:-1]
    if ELLIPSIS not in expected:
        return expected == actual
    position = expected.index(ELLIPSIS)
    head, tail = expected[:position], expected[position + 1 :]
    if actual[:position] != head:
        return False
    rest = actual[position:]
    return any(agrees(tail, rest[start:]) for start in range(len(rest) + 1))


def difference(outcome: Outcome) -> str:
    """Where a command's output differs from what its page shows, as a diff."""
    import difflib

    command = outcome.command
    where = f"{outcome.block.page.relative_to(ROOT)}:{command.line}: $ {command.text}"
    diff = difflib.unified_diff(command.expected, outcome.actual, "shown", "printed", lineterm="")
    return "\n".join([where, *diff])


def accept(page: Path, outcomes: list[Outcome]) -> None:
    """Write what each command printed into the page in place of what it showed (a command whose
    output shows `…` is left alone): for a person to read in `git diff` before committing."""
    lines = page.read_text(encoding="utf-8").split("\n")
    for outcome in sorted(outcomes, key=lambda each: -each.command.line):
        command = outcome.command
        if ELLIPSIS in command.expected or agrees(command.expected, outcome.actual):
            continue
        start = command.line - 1 + command.text.count("\n") + 1
        shown = lines[command.line - 1]
        indent = shown[: len(shown) - len(shown.lstrip())]
        printed = [indent + line if line else line for line in outcome.actual]
        lines[start : start + len(command.expected)] = printed
    page.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str]) -> int:
    """Run pages (all without arguments) and print each command whose output differs; with
    --accept, write the printed output into the page (see accept)."""
    import sys
    import tempfile

    venv = Path(sys.executable).parent.parent
    write = "--accept" in argv
    chosen = [Path(name).resolve() for name in argv if name != "--accept"] or pages()
    failed = 0
    for page in chosen:
        with tempfile.TemporaryDirectory() as folder:
            outcomes = run(page, Path(folder), venv)
        wrong = [outcome for outcome in outcomes if not agrees(outcome.command.expected, outcome.actual)]
        for outcome in wrong:
            print(difference(outcome))
        if write and wrong:
            accept(page, outcomes)
        failed += len(wrong)
        print(f"-- {page.relative_to(ROOT)}: {len(outcomes)} commands, {len(wrong)} differ", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
