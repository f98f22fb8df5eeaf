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
GLOBAL_DATABASE = os.path.join("~", ".claude", "memory", "cortex-global.db")  # SPEC §8

# Words the name of every place the guard keeps holds (guard.protected). A database given by
# CORTEX_DB or CORTEX_GLOBAL_DB adds its file name and its folder (names_own_place).
OWN_WORDS: tuple[str, ...] = ("cortex", ".claude", "settings.json", "settings.local.json")
OWN_WORDS += (".codex", ".gemini", ".cursor", "hooks.json", ".github", ".copilot")  # other agents' (SPEC §22)
# The programs (and git's commands) that reach the guard's places without naming them: through
# a folder that holds one (`rm -rf .`, `chown -R x ~`, `find . -delete`, `mv ../proj /tmp`), a
# glob (`rm -rf .c*`, `git restore .c*`), or git deleting the ignored `.cortex/` (`git clean -x`,
# `git stash -a`). guard.self_protection_programs judges them; a command that holds none of them
# and none of OWN_WORDS it never refuses.
REACHING = frozenset(
    {
        *("rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "mv", "rsync", "find"),
        *("chmod", "chown", "chgrp", "chattr", "setfacl", "clean", "stash", "checkout", "restore"),
    }
)
_REACHING_BYTES = frozenset(name.encode() for name in REACHING)
# What a command's words are cut at (`/` too: `/bin/rm` holds `rm`), and what the shell removes
# from them (quotes, escapes: neither `r''m -rf .` nor `rm -rf .co\rtex` hides a word). Bytes:
# one C pass over a 1 MB command (str.translate and substring tests cost 2-3 times as much).
_CUTS = bytes.maketrans(b";|&()<>`/\t\n", b"           ")
_REMOVED = b"'\"\\"
NAMING_FIELDS = ("command", "file_path", "notebook_path", "path", "destination", "source", "target")


def hook_database(payload_cwd: object) -> str:
    """The database a hook uses: CORTEX_DB, else the project Claude Code names, else the payload's cwd."""
    explicit = os.environ.get("CORTEX_DB")
    if explicit:
        return explicit
    return os.path.join(hook_project(payload_cwd), DIRECTORY, FILENAME)


def names_own_place(tool_input: dict[str, object], cwd: object = None) -> bool:
    """Whether a tool call made in `cwd` could reach a place the guard keeps (SPEC §19): a few
    substring tests on its command or paths, all that a call which cannot pays. It never says no
    to a call the built-in protection (guard.self_protection) would refuse: a command's words are
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
    for field in NAMING_FIELDS:
        value = tool_input.get(field)
        if not isinstance(value, str):
            continue
        if any(word in value for word in words):
            return True
        if field == "command":
            if "$'" in value or "{" in value:  # `$'\x72m'`, `c{o,}rtex`: words only the shell spells
                return True
            plain = value.encode("utf-8", "surrogatepass").replace(b"\\\n", b"")
            plain = plain.translate(_CUTS, _REMOVED)
            if any(word.encode("utf-8", "surrogatepass") in plain for word in words):
                return True
            if not _REACHING_BYTES.isdisjoint(plain.split()):
                return True
    return False


def hook_project(payload_cwd: object) -> str:
    """The project a hook runs for: the one Claude Code names, else the payload's cwd."""
    return os.environ.get("CLAUDE_PROJECT_DIR") or (
        payload_cwd if isinstance(payload_cwd, str) and payload_cwd else os.getcwd()
    )


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
    """The folder `install` wires: the one Claude Code will start in (SPEC §19).

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


def pending_path(database: str) -> str:
    """Where writes a hook could not make under another process's lock wait (store.pending)."""
    return database + ".pending"


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
