"""`install --agent NAME` / `uninstall --agent NAME` for the other coding agents: each
agent's own hook file at the scope asked (install.agent_hooks), merged with what was there, a
backup beside it; uninstall takes ours out, and gives back the file's very bytes when nothing but
install changed it since (or removes the file when nothing but ours is in it). Plain `install`
(Claude Code's) names the other agents it finds, and how to wire them."""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Callable
from typing import Any

from cortex_hooks import location
from cortex_hooks.api.wording import clean
from cortex_hooks.cli import render
from cortex_hooks.errors import USAGE, CortexError
from cortex_hooks.install import agent_hooks, file_changes, settings_text
from cortex_hooks.install.file_changes import Plan
from cortex_hooks.install.wiring import SCRIPTS, diff
from cortex_hooks.keeper import check

NAMES = ("claude", *agent_hooks.AGENTS)
# How each agent is found on this machine: the folder it keeps in the home once it has run
# (not its command on PATH: what install says must not depend on how PATH happens to be set).
FOUND_BY = {"codex": ".codex", "gemini": ".gemini", "copilot": ".copilot", "cursor": ".cursor"}
NOTES = {
    "codex": (
        "Codex runs a hook only once you trust it: start `codex` in {project}, type /hooks and trust "
        "the three cortex-hooks hooks (a changed hooks file needs trusting again; Codex also loads a "
        "project's .codex/ only in a project you trust). `codex exec --dangerously-bypass-hook-trust` "
        "runs them untrusted, for automation that vets its hooks itself."
    ),
    "gemini": (
        "Gemini CLI runs a project's hooks only in a folder you trust (it asks when you start it "
        "there, or `gemini --skip-trust`)."
    ),
    "copilot": (
        "Copilot CLI loads .github/hooks/ in a folder you trust; in a repository, the same file "
        "drives GitHub's cloud coding agent."
    ),
    "cursor": (
        "Written from Cursor's documentation (no Cursor client was run to verify it): restart Cursor "
        "to load it. Cursor runs a call whose hook fails unless the hook is marked failClosed."
    ),
}


def register(install: argparse.ArgumentParser, uninstall: argparse.ArgumentParser) -> None:
    for parser, verb in ((install, "wire"), (uninstall, "unwire")):
        parser.add_argument(
            "--agent",
            choices=NAMES,
            default=None,
            help=f"the coding agent to {verb} (default claude: Claude Code); codex, gemini and "
            "copilot use their own hook files, cursor .cursor/hooks.json; --scope project or user",
        )


def asked(args: argparse.Namespace) -> str | None:
    """The other agent asked for (None: Claude Code, install's own path)."""
    agent = getattr(args, "agent", None)
    return None if agent in (None, "claude") else str(agent)


def run(
    args: argparse.Namespace,
    agent: str,
    *,
    script_path: Callable[[str], str],
    ensure_database: Callable[[argparse.Namespace], dict[str, Any]],
) -> int:
    """Install or uninstall one agent's hooks; the exit status. `script_path` names our
    installed scripts, `ensure_database` creates the project's database (cli.install's own)."""
    claude_only = [
        option
        for option, given in (
            ("--with-commands", getattr(args, "with_commands", False)),
            ("--with-learn-command", getattr(args, "with_learn_command", False)),
            ("--with-mcp", getattr(args, "with_mcp", False)),
            ("--packs", getattr(args, "packs", None)),
            ("--purge", getattr(args, "purge", False)),
        )
        if given
    ]
    if claude_only:
        raise CortexError(
            f"{claude_only[0]} is for Claude Code's install, not --agent {agent} (run it without --agent; "
            "packs and the memory are the project's, shared by every agent)",
            USAGE,
        )
    if args.action == "install" and args.scope != "user":
        location.install_project()  # a folder inside another project is refused, naming both
    project = location.install_project() if args.scope != "user" else location.project_root()
    target = agent_hooks.path(agent, args.scope, project)
    plan = _plan(agent, args.action, target, script_path)
    if args.dry_run:
        _dry(args, agent, plan)
        return 0
    database = None
    if plan.changed:
        file_changes.refuse_read_only(plan.path)
    if args.action == "install" and args.scope != "user":
        database = ensure_database(args)
    if plan.changed:
        _apply(plan)

        check.follow([location.hook_database(project), location.global_database()], plan.path, "agent")
    _report(args, agent, plan, database, project)
    return 0


def _commands(agent: str, script_path: Callable[[str], str]) -> dict[str, str]:
    return {
        event: f"{shlex.quote(script_path(script))} --agent {agent}"
        for event, script in SCRIPTS.items()
        if event in agent_hooks.EVENTS[agent]
    }


def _document(agent: str, raw: bytes | None, where: str) -> dict[str, Any]:
    return {} if raw is None else agent_hooks.check(agent, settings_text.parse(raw, where), where)


def _plan(agent: str, action: str, where: str, script_path: Callable[[str], str]) -> Plan:
    raw = file_changes.read(where)
    document = _document(agent, raw, where)
    original = None if raw is None else raw.decode("utf-8")
    label = f"{agent_hooks.TITLES[agent]}'s hooks"
    if action == "install":
        merged, changes = agent_hooks.wired(agent, document, _commands(agent, script_path))
        after = settings_text.dumped(merged, original) if changes else original
        return Plan(where, raw, after, changes, label=label)
    left, changes = agent_hooks.unwired(agent, document)
    if not changes:
        return Plan(where, raw, original, changes, label=label)
    if left is None:
        return Plan(where, raw, None, changes, label=label, backed_up=False)
    backup = _before_install(agent, where, original, document)
    if backup is not None:  # given back byte for byte; the backup, now the file itself, goes
        before = (file_changes.read(backup) or b"").decode("utf-8")
        return Plan(where, raw, before, changes, label=label, backed_up=False, stale=[backup])
    return Plan(where, raw, settings_text.dumped(left, original), changes, label=label)


def _before_install(agent: str, where: str, text: str | None, document: dict[str, Any]) -> str | None:
    """The backup holding the file's bytes before our install, when nothing but that install
    changed it since: the newest backup holds none of ours, and install would write exactly this
    file from it."""
    newest = file_changes.backups(where)[:1]
    found = agent_hooks.ours(agent, document)
    if text is None or not newest or any(len(commands) != 1 for commands in found.values()):
        return None
    try:
        raw = file_changes.read(newest[0]) or b""
        earlier = _document(agent, raw, newest[0])
    except CortexError:  # a backup we cannot read: the removal does without it
        return None
    if any(agent_hooks.ours(agent, earlier).values()):
        return None
    original = raw.decode("utf-8")
    again, _ = agent_hooks.wired(agent, earlier, {event: commands[0] for event, commands in found.items()})
    return newest[0] if settings_text.dumped(again, original) == text else None


def _apply(plan: Plan) -> None:
    try:
        if plan.before is not None and plan.backed_up:
            plan.backup, plan.removed_backups = file_changes.back_up(plan.path, plan.before)
        if plan.after is None:
            os.remove(plan.path)
            _remove_empty(os.path.dirname(plan.path))
        else:
            file_changes.write(plan.path, plan.after)
        for stale in plan.stale:
            os.remove(stale)
    except OSError as error:
        raise CortexError(f"cannot write {error.filename or plan.path}: {error.strerror or error}") from None


def _remove_empty(folder: str) -> None:
    """The agent's folder the removed file leaves empty (`.codex/`, `.github/hooks/` and then
    `.github/`), as install found the project without them; a folder with anything in it stays."""
    for _ in range(2):
        try:
            if not os.path.isdir(folder) or os.path.islink(folder) or os.listdir(folder):
                return
            os.rmdir(folder)
        except OSError:
            return
        folder = os.path.dirname(folder)
        if os.path.basename(folder) != ".github":
            return


def _events(plan: Plan) -> str:
    return ", ".join(dict.fromkeys(change.where for change in plan.changes))


def _dry(args: argparse.Namespace, agent: str, plan: Plan) -> None:
    text = None if plan.before is None else plan.before.decode("utf-8")
    shown = diff(plan.path, text, plan.after) if plan.changed else ""
    if args.json:
        render.emit_json(
            {
                "agent": agent,
                "scope": args.scope,
                "dry_run": True,
                "files": [{**_plan_json(plan), "diff": shown}],
            }
        )
        return
    if plan.changed:
        render.say(shown.rstrip("\n"))
    else:
        render.say(f"{clean(plan.path)}: nothing would change.")
    render.say("Dry run: nothing was written.")


def _plan_json(plan: Plan) -> dict[str, Any]:
    return {
        "path": plan.path,
        "action": plan.action(),
        "backup": plan.backup,
        "events": list(dict.fromkeys(change.where for change in plan.changes)),
    }


def _report(
    args: argparse.Namespace, agent: str, plan: Plan, database: dict[str, Any] | None, project: str
) -> None:
    title = agent_hooks.TITLES[agent]
    note = NOTES[agent].format(project=project) if args.action == "install" else None
    if args.json:
        render.emit_json(
            {
                "agent": agent,
                "scope": args.scope,
                "dry_run": False,
                "files": [_plan_json(plan)],
                "database": database,
                "notes": [note] if note else [],
            }
        )
        return
    where = f"{clean(plan.path)} ({args.scope} scope)"
    if not plan.changed:
        verb = "already in" if args.action == "install" else "not in"
        render.say(f"{title}'s cortex-hooks hooks are {verb} {where}; nothing changed.")
    elif args.action == "install":
        render.say(f"Wired {title}'s hooks ({_events(plan)}) in {where}.")
    elif plan.after is None:
        render.say(f"Removed {where}: nothing but cortex-hooks' hooks was in it.")
    elif plan.before is not None and plan.after.encode("utf-8") != plan.before and not plan.backed_up:
        render.say(f"Gave {where} back as it was before install ({_events(plan)} removed).")
    else:
        render.say(f"Removed {title}'s cortex-hooks hooks ({_events(plan)}) from {where}.")
    if plan.backup is not None:
        render.say(f"Backup of the previous file: {clean(plan.backup)}")
    if database is not None:
        state = "created" if database["created"] else "in place"
        render.say(f"Database {clean(database['path'])}: {state}.")
    if note:
        render.say(note)


def found() -> list[str]:
    """The other agents this machine has: their folder in the home."""
    home = os.path.expanduser("~")
    return [agent for agent, folder in FOUND_BY.items() if os.path.isdir(os.path.join(home, folder))]


def mention_found(args: argparse.Namespace) -> None:
    """After Claude Code's install: the other agents found here, and the command that wires each
    to the same memory (nothing when none is found, or for --json)."""
    if args.action != "install" or args.json or args.dry_run:
        return
    agents = found()
    if not agents:
        return
    names = ", ".join(agent_hooks.TITLES[agent] for agent in agents)
    commands = " ; ".join(f"cortex-hooks install --agent {agent}" for agent in agents)
    render.say(f"Also found here: {names}. The same guard and memory in each: {commands}")
