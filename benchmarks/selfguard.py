"""How many safe everyday one-liners the built-in protection denies (docs/internals/integrity.md
item 6),
on public corpora of real shell commands read from checkouts beside this one, never copied here:

- tldr-pages (CC BY 4.0): every example of pages/common, pages/linux and pages/osx, its
  `{{placeholders}}` filled with what they say (`{{path/to/file}}` → `path/to/file`,
  `{{[-r|--recursive]}}` → `-r`);
- NL2Bash (MIT): data/bash/all.cm, one command a line.

Each command is judged as the hook judges a Bash call (location.names_own_place, then
guard.selfguard.tool_calls.refusal) in a project /home/dev/code/app with its `.cortex/` and
`.claude/`, the user's `~/.claude/`, and the global database; no file is read.

A command is labelled safe unless it would change one of the guard's places run from the
project's folder: the hand labels of benchmarks/selfguard_labels.toml (by a hash of the
command, each with its reason; no command text of the corpora is kept here) say which denied
commands are destructive. Commands are split by that hash into a tuning part and a held-out
part (a quarter), which was labelled only once the rule was done.

    .venv/bin/python benchmarks/selfguard.py --tldr ../tldr --nl2bash ../nl2bash
    .venv/bin/python benchmarks/selfguard.py … --show denied --part tuning   # what to label
    .venv/bin/python benchmarks/selfguard.py … --redaction                   # and the redactor

(CORTEX_TLDR_PAGES and CORTEX_NL2BASH name the checkouts too.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import posixpath
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABELS = Path(__file__).resolve().parent / "selfguard_labels.toml"
GOAL = 0.003  # at most this share of the safe one-liners denied
HOME = "/home/dev"
PROJECT = f"{HOME}/code/app"
HELD_OUT = 4  # one command in this many (by its hash) is held out


def key(command: str) -> str:
    return hashlib.sha256(command.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def held_out(command: str) -> bool:
    return int(key(command), 16) % HELD_OUT == 0


_CHOICE = re.compile(r"\{\{\[([^\]|]*)\|[^\]]*\]\}\}")
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")


def tldr(folder: Path) -> list[str]:
    """The examples of tldr-pages' common, linux and osx pages, placeholders filled."""
    found: list[str] = []
    for platform in ("common", "linux", "osx"):
        for page in sorted((folder / "pages" / platform).glob("*.md")):
            for line in page.read_text(encoding="utf-8").splitlines():
                if line.startswith("`") and line.endswith("`") and len(line) > 2:
                    example = _CHOICE.sub(r"\1", line[1:-1])
                    found.append(_PLACEHOLDER.sub(r"\1", example))
    return found


def nl2bash(folder: Path) -> list[str]:
    path = folder / "data" / "bash" / "all.cm"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def places() -> object:
    from cortex_hooks.guard.selfguard import protected

    databases = [f"{PROJECT}/.cortex/cortex.db", f"{HOME}/.claude/memory/cortex-global.db"]
    settings = [f"{folder}/.claude/{name}" for folder in (PROJECT, HOME) for name in protected.SETTINGS_NAMES]
    return protected.Places(
        databases=databases,
        settings=settings,
        home=HOME,
        variables={"HOME": HOME, "PWD": PROJECT},
        real=posixpath.normpath,
    )


def denial(command: str, where: object) -> str | None:
    """The built-in protection's reason for denying this Bash call (None: it passes)."""
    from cortex_hooks import location
    from cortex_hooks.guard.selfguard import tool_calls

    tool_input: dict[str, object] = {"command": command}
    if not location.names_own_place(tool_input, PROJECT):
        return None
    refused = tool_calls.refusal(
        "Bash",
        tool_input,
        where,  # type: ignore[arg-type]
        PROJECT,
        current=lambda path: None,
        settings_lost=lambda before, after: [],
    )
    return None if refused is None else f"{refused.what}: {refused.why}"


def labels() -> dict[str, str]:
    """Hash of a command → "destructive", "runtime" or "safe", as labelled by hand (the others:
    safe)."""
    if not LABELS.exists():
        return {}
    with open(LABELS, "rb") as stream:
        return {entry["key"]: entry["label"] for entry in tomllib.load(stream).get("label", [])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tldr", type=Path, default=os.environ.get("CORTEX_TLDR_PAGES"))
    parser.add_argument("--nl2bash", type=Path, default=os.environ.get("CORTEX_NL2BASH"))
    parser.add_argument("--part", choices=("tuning", "held-out", "all"), default="all")
    parser.add_argument("--show", choices=("denied", "unlabelled"), help="list these commands")
    parser.add_argument(
        "--redaction", action="store_true", help="also count the commands the one redactor changes"
    )
    options = parser.parse_args(argv)
    corpora = {}
    if options.tldr:
        corpora["tldr-pages"] = tldr(options.tldr)
    if options.nl2bash:
        corpora["NL2Bash"] = nl2bash(options.nl2bash)
    if not corpora:
        parser.error("name at least one corpus: --tldr DIR (tldr-pages), --nl2bash DIR (NL2Bash)")
    labelled = labels()
    where = places()
    failed = False
    print(
        f"{'corpus':<12} {'part':<9} {'commands':>8} {'destructive':>11} {'run-time':>8} {'safe':>6} "
        f"{'safe denied':>16} {'strict':>16}"
    )
    for name, commands in corpora.items():
        unique = list(dict.fromkeys(commands))
        for part in ("tuning", "held-out", "all"):
            if options.part != "all" and part not in (options.part, "all"):
                continue
            chosen = [c for c in unique if part == "all" or held_out(c) == (part == "held-out")]
            counts = {"destructive": 0, "runtime": 0, "safe": 0}
            denied = {"destructive": 0, "runtime": 0, "safe": 0}
            for command in chosen:
                reason = denial(command, where)
                label = labelled.get(key(command), "safe")
                counts[label] += 1
                denied[label] += reason is not None
                shown = options.show == "denied" or (
                    options.show == "unlabelled" and key(command) not in labelled
                )
                if part != "all" and reason is not None and shown and label != "destructive":
                    print(f"  {key(command)} {label:<8} {command[:160]!r}\n      {reason[:200]}")
            share = denied["safe"] / counts["safe"] if counts["safe"] else 0.0
            strict_all = counts["safe"] + counts["runtime"]
            strict_denied = denied["safe"] + denied["runtime"]
            strict = strict_denied / strict_all if strict_all else 0.0
            failed = failed or (part == "all" and share > GOAL)
            print(
                f"{name:<12} {part:<9} {len(chosen):>8} {counts['destructive']:>11} {counts['runtime']:>8} "
                f"{counts['safe']:>6} {denied['safe']:>5} ({share:6.2%}) {strict_denied:>5} "
                f"({strict:6.2%})"
            )
    print(
        f"goal: at most {GOAL:.1%} of the safe one-liners denied: {'FAIL' if failed else 'PASS'} "
        "(strict: run-time labelled commands counted as safe)"
    )
    if options.redaction:
        from cortex_hooks.redact import redact

        every = list(dict.fromkeys(command for commands in corpora.values() for command in commands))
        changed = [command for command in every if redact(command) != command]
        print(
            f"redactor: {len(changed)} of {len(every)} commands changed (a secret or its placeholder masked)"
        )
        if options.show:
            for command in changed:
                print(f"  {command[:160]!r}\n      {redact(command)[:160]!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
