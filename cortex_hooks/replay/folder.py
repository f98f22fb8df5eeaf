"""Where Claude Code keeps a project's transcripts, and the transcript files under a path.

Claude Code (2.1.197, verified with the real client; see docs/guide/actions.md) writes each session of a
project to `<config>/projects/<folder>/<session id>.jsonl`, where `<config>` is
`$CLAUDE_CONFIG_DIR` or else `~/.claude`, and `<folder>` is the real path (symbolic links
resolved) of the directory the session started in, with every character that is not an ASCII
letter or digit replaced by `-` (one per UTF-16 unit: an emoji gives two); a name longer than
200 characters is cut at 200 and followed by `-` and a hash of the path (Java's string hash,
its absolute value in base 36). A session started in a subfolder has a folder of its own.
"""

from __future__ import annotations

import json
import os
import stat

MAX_NAME = 200  # Claude Code's longest folder name before it cuts and adds a hash
MAX_DEPTH = 3  # folders below a path given that are searched for transcripts
MAX_FILES = 100_000  # transcripts listed under one path at most (a folder of 50,000 is read)


def config_directory() -> str:
    """Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def folder_name(path: str) -> str:
    """The name Claude Code gives the transcripts' folder of a project at `path` (a real path)."""
    name = "".join(
        char if char.isascii() and char.isalnum() else "-" * (2 if ord(char) > 0xFFFF else 1) for char in path
    )
    if len(name) <= MAX_NAME:
        return name
    return f"{name[:MAX_NAME]}-{_base36(abs(_java_hash(path)))}"


def project_folder(project: str) -> str:
    """The folder of a project's transcripts (it may not exist)."""
    return os.path.join(config_directory(), "projects", folder_name(os.path.realpath(project)))


def _java_hash(text: str) -> int:
    """Java's String.hashCode over UTF-16 units, as a signed 32-bit number."""
    units = text.encode("utf-16-le", "surrogatepass")
    value = 0
    for index in range(0, len(units), 2):
        value = (value * 31 + int.from_bytes(units[index : index + 2], "little")) & 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while number:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
    return text or "0"


def transcripts(paths: list[str], skipped: list[tuple[str, str]]) -> list[str]:
    """The transcript files of these paths: a file as given, a folder's `*.jsonl` files (in
    subfolders too, a few levels down), sorted; what cannot be read is named in `skipped`."""
    found: list[str] = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            skipped.append((path, error.strerror or "cannot be read"))
            continue
        if stat.S_ISDIR(mode):
            _walk(path, 0, found, skipped)
        elif stat.S_ISREG(mode):
            found.append(path)
        else:
            skipped.append((path, "not a regular file (a FIFO or a device is never read)"))
        if len(found) > MAX_FILES:
            skipped.append((path, f"more than {MAX_FILES:,} transcripts: the rest are not read"))
            del found[MAX_FILES:]
            break
    return found


def _walk(folder: str, depth: int, found: list[str], skipped: list[tuple[str, str]]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        skipped.append((folder, error.strerror or "cannot be listed"))
        return
    for entry in entries:
        if len(found) > MAX_FILES:
            return
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    _walk(entry.path, depth + 1, found, skipped)
            elif entry.name.endswith(".jsonl"):
                if entry.is_file():
                    found.append(entry.path)
                else:
                    skipped.append((entry.path, "not a regular file (a FIFO or a device is never read)"))
        except OSError as error:
            skipped.append((entry.path, error.strerror or "cannot be read"))


def agents_transcripts(project: str) -> list[str]:
    """The other agents' transcripts of a project: Codex CLI's rollouts of sessions
    started in it or below (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, told by their first
    line's `cwd`) and Gemini CLI's chats of its folder (`~/.gemini/tmp/NAME/chats/*.jsonl`, where
    `NAME/.project_root` names the project)."""
    home = os.path.expanduser("~")
    root = os.path.realpath(project)
    found: list[str] = []
    sessions = os.path.join(os.environ.get("CODEX_HOME") or os.path.join(home, ".codex"), "sessions")
    rollouts: list[str] = []
    if os.path.isdir(sessions):
        _walk(sessions, 0, rollouts, [])
    for path in rollouts:
        if os.path.basename(path).startswith("rollout-") and _codex_cwd_in(path, root):
            found.append(path)
    chats_home = os.path.join(home, ".gemini", "tmp")
    for name in sorted(os.listdir(chats_home)) if os.path.isdir(chats_home) else []:
        try:
            with open(os.path.join(chats_home, name, ".project_root"), encoding="utf-8") as stream:
                named = stream.read().strip()
        except OSError:
            continue
        chats = os.path.join(chats_home, name, "chats")
        if named and os.path.realpath(named) == root and os.path.isdir(chats):
            found += sorted(
                os.path.join(chats, file) for file in os.listdir(chats) if file.endswith((".jsonl", ".json"))
            )
    return found


def _codex_cwd_in(path: str, root: str) -> bool:
    try:
        with open(path, "rb") as stream:
            first = json.loads(stream.readline(1 << 16))
    except (OSError, ValueError):
        return False
    payload = first.get("payload") if isinstance(first, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    if not isinstance(cwd, str):
        return False
    real = os.path.realpath(cwd)
    return real == root or real.startswith(root.rstrip("/") + "/")
