"""Where things live: the project's database, its config file beside it, creating them private."""

from __future__ import annotations

import os

from cortex_hooks.errors import USAGE, CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.config import Config
    from cortex_hooks.notes import Notes

DIRECTORY = ".cortex"
FILENAME = "cortex.db"
CONFIG_FILENAME = "config.toml"
GLOBAL_DATABASE = os.path.join("~", ".claude", "memory", "cortex-global.db")  # docs/guide/scopes.md
TEAM_FOLDER, TEAM_NAME = ".claude", "cortex-team.jsonl"  # the team file (docs/guide/team.md), in a project
ABSENT = "absent"  # the stat of a file that is not there (nor ever was, for a database)

# Words the name of every place the guard keeps holds (guard.selfguard.protected). A database given by
# CORTEX_DB or CORTEX_GLOBAL_DB adds its file name and its folder (names_own_place).
OWN_WORDS: tuple[str, ...] = ("cortex", ".claude", "settings.json", "settings.local.json")
OWN_WORDS += (".codex", ".gemini", ".cursor", "hooks.json", ".github", ".copilot")  # other agents'
# The programs (and git's commands) that reach the guard's places without naming them: through
# a folder that holds one (`rm -rf .`, `chown -R x ~`, `find . -delete`, `mv ../proj /tmp`), a
# glob (`rm -rf .c*`, `git restore .c*`), git deleting the ignored `.cortex/` (`git clean -x`,
# `git stash -a`), a word bound to what a producer yields (`… | xargs`, `for`, `read`), an archiver
# or compressor, and text run when it is made (a shell, `eval`, `source`, a decoder).
# guard.selfguard.file_effects judges them; a command that holds none of them, none of
# OWN_WORDS, no dot-glob, no inline code and no `$'`, `{` or `<(` it never refuses.
REACHING = frozenset(
    {
        *("rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "mv", "rsync", "find"),
        *("chmod", "chown", "chgrp", "chattr", "setfacl", "clean", "stash", "checkout", "restore"),
        *("xargs", "parallel", "read", "for", "eval", "source", "bash", "sh", "zsh", "dash", "ksh"),
        *("base64", "base32", "basenc", "xxd", "rev", "openssl", "uudecode", "tar", "bsdtar", "zip"),
        *("unzip", "7z", "7za", "7zr", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd"),
        *("unzstd", "lzma", "unlzma", "uncompress", "compress", "gio"),
    }
)
_REACHING_BYTES = frozenset(name.encode() for name in REACHING)
# A program run by a word only the shell knows (`$C archive 1`) is refused when these follow it
# (guard.selfguard.own_cli: the first words of its weakening commands and its groups).
HIDDEN_COMMANDS = frozenset(
    {
        *("update", "unpin", "keep", "archive", "forget", "memories", "decisions", "errors", "todos"),
        *("prune", "lifecycle", "uninstall", "packs", "team", "import", "move", "reflect", "sessions"),
        "integrity",
    }
)
_HIDDEN_BYTES = frozenset(name.encode() for name in HIDDEN_COMMANDS)
# Interpreters, and the options that give them code on the command line (`python3 -c`, `perl -e`).
_INTERPRETERS = (b"python", b"pypy", b"node", b"ruby", b"perl", b"php", b"deno", b"bun")
_CODE = frozenset({b"-c", b"-e", b"-E", b"-r", b"--eval", b"-p", b"--print", b"-"})
# What a command's words are cut at (`/` too: `/bin/rm` holds `rm`; `=` and `!`: a git setting's
# or alias's value), and what the shell removes from them (quotes, escapes: neither `r''m -rf .`
# nor `rm -rf .co\rtex` hides a word). Bytes: one C pass over a 1 MB command (str.translate and
# substring tests cost 2-3 times as much).
_CUTS = bytes.maketrans(b";|&()<>`/\t\n=!", b"             ")
_REMOVED = b"'\"\\"
# The fields of a tool call that may name the guard's places (guard.selfguard.mcp_tools's, for any
# MCP server's tool): commands (a string, or a list of words), paths, lists of paths.
COMMAND_FIELDS = ("command", "cmd", "script", "shell_command", "commandLine")
PATH_FIELDS = (
    *("file_path", "notebook_path", "path", "destination", "source", "target", "filePath", "file"),
    *("filename", "fileName", "relative_path", "relativePath", "dir", "directory", "folder", "dest"),
    *("from", "to", "old_path", "new_path", "oldPath", "newPath", "src", "dst", "output", "uri"),
)
LIST_FIELDS = ("paths", "files", "file_paths", "filePaths", "sources", "uris")
NAMING_FIELDS = (*COMMAND_FIELDS, *PATH_FIELDS)


def hook_database(payload_cwd: object) -> str:
    """The database a hook uses: CORTEX_DB, else the project Claude Code names, else the payload's cwd."""
    explicit = os.environ.get("CORTEX_DB")
    if explicit:
        return explicit
    return os.path.join(hook_project(payload_cwd), DIRECTORY, FILENAME)


def names_own_place(tool_input: dict[str, object], cwd: object = None) -> bool:
    """Whether a tool call made in `cwd` could reach a place the guard keeps (docs/guide/selfguard.md): a few
    substring tests on its command or paths, all that a call which cannot pays. It never says no
    to a call the built-in protection (guard.selfguard.tool_calls) would refuse: a command's words are
    read with the shell's quotes and escapes removed, one of the REACHING programs counts, and so
    does any call made inside `.cortex/` or `.claude/` (there `config.toml` is the guard's)."""
    words: tuple[str, ...] = OWN_WORDS
    for variable in ("CORTEX_DB", "CORTEX_GLOBAL_DB"):
        custom = os.environ.get(variable)
        if custom:  # its folder may be any, its config file beside it named bare
            folder = os.path.dirname(custom)
            words += (os.path.basename(custom) or custom, folder if len(folder) > 1 else custom)
            words += (CONFIG_FILENAME,)
    if isinstance(cwd, str) and (f"/{DIRECTORY}" in cwd or "/.claude" in cwd):
        return True
    words += _linked(cwd)
    for field in NAMING_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, list) and field in COMMAND_FIELDS:
            value = " ".join(word for word in value if isinstance(word, str))  # `cmd: ["rm", …]`
        if not isinstance(value, str):
            continue
        if "%" in value:  # a `file://` URI's escapes (`%2Ecortex`)
            from urllib.parse import unquote

            value = unquote(value)
        if any(word in value for word in words):
            return True
        if field in COMMAND_FIELDS and _runs_or_reaches(value, words):
            return True
        if field in PATH_FIELDS and _above(value, cwd):
            return True
    for field in LIST_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, list) and any(
            isinstance(item, str) and (any(word in item for word in words) or _above(item, cwd))
            for item in value
        ):
            return True
    return False


def _above(path: str, cwd: object) -> bool:
    """Whether a path is a folder that holds the project or the home folder (a tool that deletes
    or moves it takes the guard's places with it)."""
    base = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    full = os.path.normpath(os.path.join(base, os.path.expanduser(path)))
    held = (os.path.normpath(hook_project(cwd)), os.path.expanduser("~"))
    return any(place == full or place.startswith(full.rstrip("/") + "/") for place in held)


# The guard's places a link may stand for: the place it leads to is guarded too (a team file that
# is a link to `team/rules.jsonl`: a write of that file names none of OWN_WORDS).
_LINKED = (
    (DIRECTORY,),
    (DIRECTORY, FILENAME),
    (".claude", "settings.json"),
    (".claude", "settings.local.json"),
    (".claude", "cortex-team.jsonl"),
)


def _linked(cwd: object) -> tuple[str, ...]:
    """The names of what the guard's places that are links lead to (a readlink each: a place that
    is none costs one failed system call)."""
    found: list[str] = []
    project = hook_project(cwd)
    home = os.path.expanduser("~")
    for folder, parts in [*((project, parts) for parts in _LINKED), (home, (".claude", "settings.json"))]:
        path = os.path.join(folder, *parts)
        try:
            target = os.readlink(path)
        except (OSError, ValueError):
            continue
        name = os.path.basename(target.rstrip("/"))
        if name:
            found.append(name)
    return tuple(found)


def _runs_or_reaches(command: str, words: tuple[str, ...]) -> bool:
    """Whether a command could reach the guard's places without naming them (REACHING), or runs
    code or text the hook reads for them."""
    if "$'" in command or "{" in command or "<(" in command:  # `$'\x72m'`, `c{o,}rtex`, `bash <(…)`
        return True
    plain = command.encode("utf-8", "surrogatepass").replace(b"\\\n", b"")
    plain = plain.translate(_CUTS, _REMOVED)
    if any(word.encode("utf-8", "surrogatepass") in plain for word in words):
        return True
    split = plain.split()
    present = set(split)
    if not _REACHING_BYTES.isdisjoint(present):
        return True
    if b"$" in plain and not _HIDDEN_BYTES.isdisjoint(present):
        return True  # `$C archive 1`
    if any(word[:1] == b"." and (b"*" in word or b"?" in word or b"[" in word) for word in split):
        return True  # a dot-glob: `.c*`, `.[c]ortex`
    code = not _CODE.isdisjoint(present) or "<<" in command or "<" in command
    if code and any(name in plain for name in _INTERPRETERS):  # in a word iff in the whole text
        return True  # inline code, or code on standard input
    return b"awk" in plain and (b"system" in plain or ">" in command or "getline" in command)


def hook_project(payload_cwd: object) -> str:
    """The project a hook runs for: the one Claude Code names, else the payload's cwd (a text
    with a NUL byte names no folder: then the hook's own working directory)."""
    if not (isinstance(payload_cwd, str) and payload_cwd and "\0" not in payload_cwd):
        payload_cwd = os.getcwd()
    return os.environ.get("CLAUDE_PROJECT_DIR") or payload_cwd


def cli_database(option: str | None) -> str:
    """The database the CLI uses: --db, CORTEX_DB, CLAUDE_PROJECT_DIR, else the nearest project root."""
    explicit = option or os.environ.get("CORTEX_DB")
    if explicit:
        return explicit
    return os.path.join(project_root(), DIRECTORY, FILENAME)


def global_database(option: str | None = None) -> str:
    """The user-global database: --global-db, else CORTEX_GLOBAL_DB, else ~/.claude/memory/."""
    return os.path.abspath(
        os.path.expanduser(option or os.environ.get("CORTEX_GLOBAL_DB") or GLOBAL_DATABASE)
    )


def project_root() -> str:
    """The CLI's project: CLAUDE_PROJECT_DIR, else the nearest ancestor of the working directory
    holding `.cortex/`, `.git` or `.claude/`, else the working directory itself.

    The `.claude/` of the home directory is the user's configuration, not a project marker.
    """
    explicit = os.environ.get("CLAUDE_PROJECT_DIR")
    if explicit:
        return os.path.abspath(explicit)
    start = here = os.getcwd()
    home = os.path.abspath(os.path.expanduser("~"))
    while True:
        if (
            os.path.isdir(os.path.join(here, DIRECTORY))
            or os.path.exists(os.path.join(here, ".git"))
            or (here != home and os.path.isdir(os.path.join(here, ".claude")))
        ):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return start
        here = parent


def install_project() -> str:
    """The folder `install` wires: the one Claude Code will start in (docs/guide/selfguard.md).

    Claude Code reads `.claude/settings.json` of the folder it starts in (never of a git root
    above it) and names that folder CLAUDE_PROJECT_DIR, where the hooks then look for the
    database. So install wires CLAUDE_PROJECT_DIR when set, else the working directory, and
    refuses a working directory that lies inside another project (the root the CLI would pick),
    naming both: guessing either one could leave the other unguarded without a word.
    """
    explicit = os.environ.get("CLAUDE_PROJECT_DIR")
    if explicit:
        return os.path.abspath(explicit)
    here, root = os.getcwd(), project_root()
    if root == here:
        return here
    import shlex

    names = (DIRECTORY, ".git", ".claude")
    marker = next((name for name in names if os.path.lexists(os.path.join(root, name))), "a marker")
    raise CortexError(
        f"{here} lies inside the project {root} (it holds {marker}), but Claude Code reads "
        ".claude/settings.json of the folder it starts in and its hooks use that folder's "
        f"database: to guard Claude Code started in {root}, run `cd {shlex.quote(root)} && "
        f"cortex-hooks install`; started here, run `CLAUDE_PROJECT_DIR={shlex.quote(here)} "
        "cortex-hooks install`",
        USAGE,
    )


def config_path(database: str) -> str:
    """The config file of a database: `config.toml` beside it."""
    return os.path.join(os.path.dirname(os.path.abspath(database)), CONFIG_FILENAME)


def config_for(database: str, notes: Notes | None = None) -> Config:
    """The configuration in force for this database: the defaults when it has no config file (the
    PreToolUse path then never imports pydantic). An invalid file is said in `notes` (else once
    on stderr) and the defaults are in force."""
    path = config_path(database)
    if not os.path.exists(path):
        from cortex_hooks.config import DEFAULT

        return DEFAULT
    from cortex_hooks import config_file

    return config_file.load(path, notes)


def team_path(project: str) -> str:
    return os.path.join(project, TEAM_FOLDER, TEAM_NAME)


def pending_path(database: str) -> str:
    """Where writes a hook could not make under another process's lock wait (store.pending)."""
    return database + ".pending"


def keeper_folder(database: str) -> str:
    """Where the keeper keeps its copy of a database's guard: a folder of the user's
    state, outside every project (no git command there reaches it), named by the database's
    real path: CORTEX_STATE_DIR, else $XDG_STATE_HOME/cortex-hooks, else ~/.local/state/cortex-hooks.
    (A readable name and the CRC-32 of the whole path.)"""
    root = os.environ.get("CORTEX_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state"),
        "cortex-hooks",
    )
    name = _KEPT.get(database)
    if name is None:
        real = os.path.realpath(database)
        readable = "".join(char if char.isalnum() else "-" for char in real)[-80:]
        name = _KEPT[database] = f"{readable}-{crc32(real.encode('utf-8', 'surrogateescape')):08x}"
    return os.path.join(root, "keep", name)


_KEPT: dict[str, str] = {}  # each database's folder name, worked out once per process


def crc32(data: bytes) -> int:
    """`zlib.crc32(data)`, four bits at a time: for a path, cheaper than loading `zlib` (a shared
    library, ~0.3 ms of every tool call; `hashlib` would cost 10 ms)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        crc = (crc >> 4) ^ _CRC_NIBBLES[crc & 15]
        crc = (crc >> 4) ^ _CRC_NIBBLES[crc & 15]
    return crc ^ 0xFFFFFFFF


# CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) of each four-bit value
_CRC_NIBBLES = (
    *(0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C),
    *(0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C),
)


def guard_path(database: str) -> str:
    """What a deny needs, readable without SQLite's lock (store.guard_file)."""
    return database + ".guard"


def create_private(path: str) -> None:
    """Create an empty database file (0600) and, when it is ours, its missing directory (0700).

    Ours are a project's `.cortex/` (in a folder that exists) and the user-global database's
    default folder: any other folder a database is to go in must be there already, so a mistyped
    `--db /nonexistent/x.db` is refused rather than a tree of folders made. A `.cortex/` directory
    we create gets a `.gitignore` of `*`, so the memory is never committed by accident. An
    existing file is left alone: this runs before SQLite ever opens the path.
    """
    path = os.path.realpath(path)  # through a symlink, even one whose target is not there yet
    directory = os.path.dirname(path)
    if not os.path.isdir(directory) and not _ours(directory):
        raise CortexError(
            f"cannot create the database {path}: its folder {directory} does not exist "
            "(create the folder first, or name another path)",
            USAGE,
        )
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, mode=0o700, exist_ok=True)
            os.chmod(directory, 0o700)
            if os.path.basename(directory) == DIRECTORY:
                with open(os.path.join(directory, ".gitignore"), "w", encoding="utf-8") as ignore:
                    ignore.write("*\n")
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        if not os.path.isdir(directory):
            raise CortexError(f"cannot create the database: {directory} is not a directory") from None
        # The file exists: another process created it first, or it is there already.
    except OSError as error:
        raise CortexError(f"cannot create the database {path}: {error.strerror or error}") from None


def _ours(directory: str) -> bool:
    """A folder cortex-hooks makes for a database: a project's `.cortex/`, or the default folder
    of the user-global database."""
    if os.path.basename(directory) == DIRECTORY:
        return os.path.isdir(os.path.dirname(directory))
    default = os.path.realpath(os.path.dirname(os.path.expanduser(GLOBAL_DATABASE)))
    return directory == default


def cli_command() -> str:
    """How the agent can run this installation's CLI: `cortex-hooks` when PATH finds it, else
    its full path (hooks installed from a venv that is not on PATH still name a working command)."""
    import shlex
    import shutil
    import sys

    plugin = os.environ.get("CLAUDE_PLUGIN_ROOT")  # set for a plugin's hooks and MCP server
    if plugin and os.access(os.path.join(plugin, "bin", "cortex-hooks"), os.X_OK):
        return "cortex-hooks"  # Claude Code puts the plugin's bin/ on the agent's Bash PATH
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "cortex-hooks")
    if not os.access(beside, os.X_OK):
        return "cortex-hooks"
    found = shutil.which("cortex-hooks")
    if found and os.path.samefile(found, beside):
        return "cortex-hooks"
    return shlex.quote(beside)


MANAGED = {  # managed settings, by platform: written by `install --managed`, guarded like the rest
    "linux": "/etc/claude-code/managed-settings.json",
    "darwin": "/Library/Application Support/ClaudeCode/managed-settings.json",
    "win32": "C:\\ProgramData\\ClaudeCode\\managed-settings.json",
}


def managed_path(platform: str) -> str:
    """Where managed settings live on this platform (CortexError: none known)."""
    found = MANAGED.get(platform) or (MANAGED["linux"] if platform.startswith("linux") else None)
    if found is None:
        raise CortexError(f"no managed settings location is known for {platform}", USAGE)
    return found
