"""Which parser the command reader is built on: tree-sitter with tree-sitter-bash against
the standard-library reader of cortex_hooks.guard.shell.reader, measured on the same corpora, import time,
the time to read the benchmark's commands, and bad input.

tree-sitter is not a dependency: run this with a Python that has both it and cortex-hooks, e.g.

    python3 -m venv /tmp/ts && /tmp/ts/bin/pip install tree-sitter==0.26.1 tree-sitter-bash==0.25.1 .
    /tmp/ts/bin/python benchmarks/reader_choice.py

The tree-sitter reader below is a prototype of the same contract: each `command` node is a simple
command, its program unquoted and by base name, wrappers dropped (the stdlib reader's own table),
string nodes data, `bash -c` strings and heredoc bodies fed to a shell parsed again. Both readers
then go through the very same matching (data spans, required literals, regex timeouts).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402  (the benchmark's commands)
import judgment  # noqa: E402  (the corpora and learnings)

from cortex_hooks.guard import matching  # noqa: E402
from cortex_hooks.guard.shell import programs  # noqa: E402
from cortex_hooks.guard.shell import reader as shell  # noqa: E402
from cortex_hooks.guard.shell.bash_command import BashCommand  # noqa: E402

DATA = {"string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body"}


class TreeSitterReader:
    """Simple commands from tree-sitter-bash's syntax tree, in guard.shell.reader's output model."""

    def __init__(self) -> None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        self.parser = Parser(Language(tree_sitter_bash.language()))

    def read(self, command: str, depth: int = 0) -> list[shell.Simple]:
        source = command.encode("utf-8", "surrogatepass")
        tree = self.parser.parse(source)
        found: list[shell.Simple] = []
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            stack.extend(reversed(node.children))
            if node.type == "command":
                found += self._command(node, source, depth)
            elif node.type == "redirected_statement" and depth < shell.MAX_DEPTH:
                body = node.child_by_field_name("body")
                name = body.child_by_field_name("name") if body is not None else None
                program = name.text.decode(errors="replace").rsplit("/", 1)[-1] if name is not None else ""
                for child in node.children:
                    if child.type == "heredoc_redirect" and program in programs.SHELLS:
                        for part in child.children:
                            if part.type == "heredoc_body":
                                found += self.read(part.text.decode(errors="replace"), depth + 1)
        return found

    def _command(self, node: Any, source: bytes, depth: int) -> list[shell.Simple]:
        skipped = ("variable_assignment", "file_redirect")
        words = [child for child in node.children if child.type not in skipped]
        if not words:
            return []
        texts = [word.text.decode(errors="replace") for word in words]
        values = [programs.unquote(text) for text in texts]
        index = 0
        while index < len(words):
            following = programs.after_wrapper(
                programs.basename(values[index]), values.__getitem__, index, len(words)
            )
            if following is None:
                break
            index = following
        if index >= len(words):
            return []
        name = programs.basename(values[index])
        parts, data, offset = [name], [], len(name) + 1
        for word, text in zip(words[index + 1 :], texts[index + 1 :], strict=True):
            if word.type in DATA or any(child.type in DATA for child in word.children):
                data.append((offset, offset + len(text)))
            parts.append(text)
            offset += len(text) + 1
        found = [shell.Simple(" ".join(parts), tuple(data), depth, (0,))]
        if name in programs.SHELLS and depth < shell.MAX_DEPTH:
            arguments = list(range(index + 1, len(words)))
            operand, _stdin = programs.shell_operand(values.__getitem__, arguments)
            if operand is not None:
                found += self.read(values[operand], depth + 1)
        return found


class _Read(BashCommand):
    """A BashCommand read by another reader (for the comparison only)."""

    def __init__(self, raw: str, simples: list[shell.Simple]) -> None:
        super().__init__(raw)
        self._reading = shell.Reading(simples, raw=False)


def figures(reader: Any, learnings: list[dict[str, Any]], corpus: list[tuple[str, bool]]) -> tuple[int, int]:
    safe_denied = caught = 0
    for command, bad in corpus:
        subject = _Read(command, reader(command))
        hit = any(matching.evaluate(item["regex"], subject, 1.0, 1.0) for item in learnings)
        safe_denied += hit and not bad
        caught += hit and bad
    return safe_denied, caught


def import_ms(statement: str, runs: int = 15, before: str = "import cortex_hooks.guard.matching") -> float:
    """Median of the paired differences: `python -c "BEFORE; STATEMENT"` minus `python -c BEFORE`
    (what the deny path has imported already when it needs a reader)."""

    def once(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started

    pairs = [(once(f"{before}; {statement}"), once(before)) for _ in range(runs)]
    return 1000 * statistics.median(with_it - without for with_it, without in pairs)


def read_ms(reader: Any, command: str, runs: int = 5) -> str:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        try:
            reader(command)
        except Exception as error:  # the prototype's own failure is a figure too
            return f"fails ({type(error).__name__})"
        best = min(best, time.perf_counter() - started)
    return f"{1000 * best:.1f}"


def main() -> int:
    tree_sitter = TreeSitterReader()
    readers = {
        "stdlib (guard.shell.reader)": lambda command: shell.read(command).commands,
        "tree-sitter-bash": tree_sitter.read,
    }
    corpora = {
        "dcg": judgment.cases(judgment.dcg_folder()),
        "agent commands": judgment.cases(judgment.CORPORA / "agent_commands.toml"),
    }
    sets = {"careful": judgment.careful(), "core packs": judgment.core_packs()}
    print("| reader | learnings | corpus | safe denied | destructive denied |")
    print("|---|---|---|---|---|")
    for reader_name, reader in readers.items():
        for set_name, learnings in sets.items():
            for corpus_name, corpus in corpora.items():
                wrong, caught = figures(reader, learnings, corpus)
                safe = sum(1 for _, bad in corpus if not bad)
                row = f"{wrong}/{safe} | {caught}/{len(corpus) - safe}"
                print(f"| {reader_name} | {set_name} | {corpus_name} | {row} |")
    print()
    ts = (
        "import tree_sitter, tree_sitter_bash;"
        " tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))"
    )
    print("| import, once the hook's own modules are loaded (median of paired runs) | ms |")
    print("|---|---|")
    print(f"| cortex_hooks.guard.shell.reader | {import_ms('import cortex_hooks.guard.shell.reader'):.1f} |")
    print(f"| tree_sitter + tree_sitter_bash, parser ready | {import_ms(ts):.1f} |")
    print()
    cases = {
        "the deny benchmark's command": bench.DENY_COMMAND,
        "dcg's 354 commands, all": "\n".join(command for command, _ in corpora["dcg"]),
        "a 1 MB heredoc": bench.HEREDOC_COMMAND,
        "a 5,000-segment chain": bench.CHAIN_COMMAND,
        "10,000 nested $(": "$(" * 10_000,
        "an unclosed quote": "echo 'unclosed; rm -rf /",
    }
    print("| read | stdlib ms | tree-sitter ms |")
    print("|---|---|---|")
    for name, command in cases.items():
        ours, theirs = (
            read_ms(readers["stdlib (guard.shell.reader)"], command),
            read_ms(tree_sitter.read, command),
        )
        print(f"| {name} | {ours} | {theirs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
