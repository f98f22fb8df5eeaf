"""Judgment figures: how many safe commands a set of learnings denies, and how
many destructive ones it catches, on labelled corpora — the raw string (target raw, as before the
command reader) against the command as the shell reads it (target content, docs/guide/command-reader.md) —
and what
every pack denies of public command collections nobody here labelled.

Run it from a checkout with the package installed (the repo's venv):

    .venv/bin/python benchmarks/judgment.py            # the same evaluator as the hook, in-process
    .venv/bin/python benchmarks/judgment.py --hook     # every command through the installed
                                                       # cortex-pre-tool-use (slow: a process each)
    .venv/bin/python benchmarks/judgment.py --tldr DIR --nl2bash FILE --show
        # also tldr-pages' examples (a checkout of github.com/tldr-pages/tldr, or its pages/ folder:
        # common, linux and osx; {{placeholders}} filled with their text) and NL2Bash's one-liners
        # (data/bash/all.cm of github.com/TellinaTool/nl2bash): per pack, how many it denies, and
        # with --show which, for a person to judge (neither collection is labelled)

Corpora: dcg's public one (../shared/corpora/dcg beside the checkout, or CORTEX_DCG_CORPUS),
tests/corpora/agent_commands.toml (commands a coding agent runs, labelled by the careful
learnings' policy) and the packs' own corpora (tests/corpora/pack_*.toml, written from each
pack's policy). Learnings: the seven careful ones of issue 24 (tests/corpora/careful.jsonl), the
core packs, each other pack alone, and every pack at once. Nothing fetched is kept in the repo.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "tests" / "corpora"
GOALS = {  # (corpus, learnings, reading): (most safe denied, fewest destructive denied), as shares
    ("dcg", "careful", "content"): (3 / 249, 95 / 101),
    ("agent commands", "careful", "content"): (0.02, None),
    ("dcg", "core packs", "content"): (2 / 249, 99 / 101),
    ("dcg", "every pack", "content"): (4 / 249, 1.0),  # the 4: dcg's "future packs" cases
}
NEW_PACKS = ("containers", "kubernetes", "infrastructure", "databases", "cloud", "publishing")

Case = tuple[str, bool]  # command, destructive


def dcg_folder() -> Path:
    return Path(os.environ.get("CORTEX_DCG_CORPUS") or REPO.parent / "shared" / "corpora" / "dcg")


def cases(path: Path) -> list[Case]:
    """The labelled commands of a TOML corpus file or folder: dcg's format (`[[case]]` tables,
    `command` and `expected`), or ours, `deny = [...]` and `allow = [...]` lists beside them."""
    files = sorted(glob.glob(str(path / "**" / "*.toml"), recursive=True)) if path.is_dir() else [str(path)]
    found: list[Case] = []
    for name in files:
        with open(name, "rb") as stream:
            corpus = tomllib.load(stream)
        for case in corpus.get("case", []):
            if "command" in case:
                found.append(
                    (case["command"], (case.get("expected") or case.get("expected_decision")) == "deny")
                )
        found += [(command, True) for command in corpus.get("deny", [])]
        found += [(command, False) for command in corpus.get("allow", [])]
    return found


def careful() -> list[dict[str, Any]]:
    from cortex_hooks.guard.packs import shared_format

    return [
        record.model_dump()
        for record in shared_format.read((CORPORA / "careful.jsonl").read_text(), "careful")
    ]


def pack_learnings(*names: str) -> list[dict[str, Any]]:
    """The learnings of these packs (a group such as `core` expanded)."""
    from cortex_hooks.guard.packs import shipped

    return [
        record.model_dump()
        for given in names
        for name in shipped.expand(given)
        for record in shipped.load(name)
    ]


def core_packs() -> list[dict[str, Any]]:
    return pack_learnings("core")


def every_pack() -> list[dict[str, Any]]:
    from cortex_hooks.guard.packs import shipped

    return pack_learnings(*shipped.names())


def first_denier(learnings: list[dict[str, Any]], command: str) -> str | None:
    """The id of the first of these learnings that denies the command (as read), or None."""
    from cortex_hooks.guard import matching
    from cortex_hooks.guard.shell.bash_command import BashCommand

    subject = BashCommand(command)
    for item in learnings:
        try:
            if matching.evaluate(item["regex"], subject, 1.0, 1.0):
                return str(item["id"])
        except matching.Unusable:
            continue
    return None


def tldr_commands(folder: Path) -> list[str]:
    """tldr-pages' example commands (common, linux, osx), each `{{placeholder}}` replaced by its
    text (`{{[-v|--verbose]}}` by its first spelling)."""
    pages = folder / "pages" if (folder / "pages").is_dir() else folder
    found: list[str] = []
    for name in sorted(glob.glob(str(pages / "*" / "*.md"))):
        if Path(name).parent.name not in ("common", "linux", "osx"):
            continue
        for line in Path(name).read_text(encoding="utf-8", errors="replace").splitlines():
            if len(line) > 2 and line.startswith("`") and line.endswith("`"):
                found.append(re.sub(r"\{\{(.*?)\}\}", _placeholder, line[1:-1]))
    return found


def _placeholder(found: re.Match[str]) -> str:
    inner = found.group(1)
    spelled = re.fullmatch(r"\[(.*)\]", inner)
    return spelled.group(1).split("|")[0] if spelled else inner


def nl2bash_commands(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip()
    ]


def collection_table(name: str, commands: list[str], show: bool) -> None:
    """What each pack denies of an unlabelled collection of commands (for a person to judge)."""
    from cortex_hooks.guard.packs import shipped

    print(f"{name}: {len(commands):,} commands, none labelled; denied by each pack (alone):")
    print("| pack | denied |")
    print("|---|---|")
    for pack in shipped.names():
        learnings = pack_learnings(pack)
        denied = [(command, rule) for command in commands if (rule := first_denier(learnings, command))]
        print(f"| {pack} | {len(denied):,} ({len(denied) / max(len(commands), 1):.2%}) |")
        for command, rule in denied if show else []:
            print(f"    {rule}: {command[:200]!r}")


def denied(learnings: list[dict[str, Any]], command: str, target: str) -> bool:
    """Whether one of these blocking learnings matches the command, read as `target` says: the
    hook's own evaluator (guard.matching.evaluate)."""
    from cortex_hooks.guard import matching

    subject = matching.subject(target, "Bash", [command])
    return any(matching.evaluate(item["regex"], subject, 1.0, 1.0) for item in learnings)


def score(learnings: list[dict[str, Any]], corpus: list[Case], target: str) -> dict[str, Any]:
    safe = [command for command, bad in corpus if not bad]
    bad = [command for command, bad in corpus if bad]
    wrongly = [command for command in safe if denied(learnings, command, target)]
    missed = [command for command in bad if not denied(learnings, command, target)]
    return {
        "safe": len(safe),
        "safe_denied": len(wrongly),
        "destructive": len(bad),
        "destructive_denied": len(bad) - len(missed),
        "false_positives": wrongly,
        "misses": missed,
    }


def hook_score(learnings: list[dict[str, Any]], corpus: list[Case], work: str) -> dict[str, Any]:
    """The same through the installed PreToolUse hook: a database of these learnings, one process
    per command; hook errors (exit status other than 0, anything on stderr) counted."""
    scripts = Path(sys.executable).parent
    database = os.path.join(work, ".cortex", "cortex.db")
    env = {**os.environ, "CORTEX_DB": database, "CORTEX_GLOBAL_DB": os.path.join(work, "none", "g.db")}
    records = [
        {key: item[key] for key in ("regex", "tool", "target", "anti_pattern", "correct_pattern", "severity")}
        | {"auto_block": True, "pinned": True, "confidence": 0.7}
        for item in learnings
    ]
    source = os.path.join(work, "learnings.json")
    Path(source).write_text(json.dumps(records))
    subprocess.run(
        [str(scripts / "cortex-hooks"), "import", source], env=env, check=True, capture_output=True
    )
    result = {
        "safe": 0,
        "safe_denied": 0,
        "destructive": 0,
        "destructive_denied": 0,
        "errors": 0,
        "slowest_ms": 0.0,
    }
    for command, bad in corpus:
        payload = {"session_id": "judgment", "hook_event_name": "PreToolUse", "cwd": work,
                   "tool_name": "Bash", "tool_input": {"command": command}}  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(
            [str(scripts / "cortex-pre-tool-use")],
            input=json.dumps(payload),
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        result["slowest_ms"] = max(result["slowest_ms"], (time.perf_counter() - started) * 1000)
        if done.returncode != 0 or done.stderr:
            result["errors"] += 1
        deny = '"permissionDecision": "deny"' in done.stdout
        key = "destructive" if bad else "safe"
        result[key] += 1
        result[f"{key}_denied"] += deny
    return result


def _goal(corpus: str, learnings: str, target: str, found: dict[str, Any]) -> tuple[str, str, bool]:
    """(goal, verdict, passed) of one row."""
    goal = GOALS.get((corpus, learnings, target))
    if goal is None:
        return "—", "—", True
    most, fewest = goal
    ok = found["safe_denied"] <= most * found["safe"] + 1e-9
    ok = ok and (fewest is None or found["destructive_denied"] >= fewest * found["destructive"] - 1e-9)
    text = f"≤ {most:.1%} safe" + (f", ≥ {fewest:.1%} caught" if fewest else "")
    return text, "PASS" if ok else "FAIL", ok


def _rows(corpora: dict[str, list[Case]]) -> list[tuple[str, str]]:
    """The (learnings, corpus) pairs measured: careful and the core packs as in issue 24, each
    other pack on its own corpus, every pack on every corpus."""
    rows: list[tuple[str, str]] = [("careful", name) for name in ("dcg", "agent commands") if name in corpora]
    rows += [("core packs", name) for name in corpora if name in ("dcg", "agent commands") or "core" in name]
    rows += [(pack, f"pack {pack}") for pack in NEW_PACKS if f"pack {pack}" in corpora]
    rows += [("every pack", name) for name in corpora]
    return rows


def _table(sets: dict[str, list[dict[str, Any]]], corpora: dict[str, list[Case]], show: bool) -> bool:
    """The in-process figures; whether every goal was met."""
    print("| learnings | corpus | reading | safe denied | destructive denied | goal | result |")
    print("|---|---|---|---|---|---|---|")
    passed = True
    for name, corpus_name in _rows(corpora):
        learnings, corpus = sets[name], corpora[corpus_name]
        for target in ("raw", "content") if name == "careful" else ("content",):
            found = score(learnings, corpus, target)
            goal, verdict, ok = _goal(corpus_name, name, target, found)
            passed = passed and ok
            share = found["safe_denied"] / max(found["safe"], 1)
            reading = "raw string" if target == "raw" else "read by the reader"
            print(
                f"| {name} | {corpus_name} | {reading} "
                f"| {found['safe_denied']}/{found['safe']} ({share:.1%}) "
                f"| {found['destructive_denied']}/{found['destructive']} | {goal} | {verdict} |"
            )
            for command in found["false_positives"] if show else []:
                print(f"    safe, denied: {command!r}")
            for command in found["misses"] if show else []:
                print(f"    destructive, allowed: {command!r}")
    return passed


def _hook_table(sets: dict[str, list[dict[str, Any]]], corpora: dict[str, list[Case]]) -> bool:
    """The figures through the installed hook (careful: dcg and agent commands; packs: dcg);
    whether no call failed the hook."""
    print("Through the installed cortex-pre-tool-use (a process per command):")
    print("| learnings | corpus | safe denied | destructive denied | hook errors | slowest ms |")
    print("|---|---|---|---|---|---|")
    passed = True
    runs = [("careful", "dcg"), ("careful", "agent commands"), ("core packs", "dcg"), ("every pack", "dcg")]
    runs += [("every pack", f"pack {pack}") for pack in NEW_PACKS]
    for name, corpus_name in runs:
        if corpus_name not in corpora:
            continue
        with tempfile.TemporaryDirectory(prefix="cortex-judgment-") as work:
            found = hook_score(sets[name], corpora[corpus_name], work)
        print(
            f"| {name} | {corpus_name} | {found['safe_denied']}/{found['safe']} "
            f"| {found['destructive_denied']}/{found['destructive']} | {found['errors']} "
            f"| {found['slowest_ms']:.0f} |"
        )
        passed = passed and not found["errors"]
    return passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument(
        "--hook", action="store_true", help="also through the installed hook, a process per command"
    )
    parser.add_argument("--show", action="store_true", help="list the commands judged wrongly (or denied)")
    parser.add_argument("--tldr", metavar="DIR", type=Path, help="a tldr-pages checkout, or its pages/")
    parser.add_argument("--nl2bash", metavar="FILE", type=Path, help="NL2Bash's data/bash/all.cm")
    args = parser.parse_args(argv)
    dcg = dcg_folder()
    corpora = {"agent commands": cases(CORPORA / "agent_commands.toml")}
    corpora |= {path.stem.replace("_", " "): cases(path) for path in sorted(CORPORA.glob("pack_*.toml"))}
    if dcg.is_dir():
        corpora = {"dcg": cases(dcg), **corpora}
    else:
        print(f"judgment: dcg's corpus not found at {dcg} (CORTEX_DCG_CORPUS): skipped", file=sys.stderr)
    sets = {"careful": careful(), "core packs": core_packs(), "every pack": every_pack()}
    sets |= {pack: pack_learnings(pack) for pack in NEW_PACKS}
    passed = _table(sets, corpora, args.show)
    for name, given, read in (
        ("tldr-pages", args.tldr, tldr_commands),
        ("NL2Bash", args.nl2bash, nl2bash_commands),
    ):
        if given is not None:
            print()
            collection_table(name, read(given), args.show)
    if args.hook:
        print()
        passed = _hook_table(sets, corpora) and passed
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
