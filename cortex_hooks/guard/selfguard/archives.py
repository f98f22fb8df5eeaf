"""What archivers and (de)compressors do to the guard's places, pure.

They read what they archive and write the archive; some delete what they archived (`tar
--remove-files`, `zip -m`, `7z a -sdel`), or write what they extract: into a folder of the guard's
(`tar -xf a.tar -C .cortex`, `unzip a.zip -d .claude`), or a member named as one of its files; a
decompressor writes the file its operand names without its suffix (`gunzip config.toml.gz`).
Extracting an unknown archive into the project is everyday work and passes: what is in it is only
known when it runs. Some run a command (`tar --to-command=…`, `zip -TT …`): commands_run.
"""

from __future__ import annotations

from cortex_hooks.guard.selfguard.protected import FOLDER_KIND, UNKNOWN, Places, Refusal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.selfguard.word_paths import Context
    from cortex_hooks.guard.shell.invocation import Arg, Invocation

DECOMPRESSORS = {
    **dict.fromkeys(("gunzip",), (".gz", ".tgz", ".z")),
    **dict.fromkeys(("bunzip2",), (".bz2", ".tbz")),
    **dict.fromkeys(("unxz", "unlzma"), (".xz", ".lzma")),
    **dict.fromkeys(("unzstd",), (".zst",)),
    **dict.fromkeys(("uncompress",), (".Z",)),
}
COMPRESSORS = {
    **{"gzip": "gunzip", "bzip2": "bunzip2", "xz": "unxz", "zstd": "unzstd", "lzma": "unlzma"},
    "compress": "uncompress",
}
PROGRAMS = frozenset({"tar", "bsdtar", "zip", "unzip", "7z", "7za", "7zr", *DECOMPRESSORS, *COMPRESSORS})
# tar's options that take a value (short, in a bundle the value is the next word; long)
_TAR_VALUED = "fCTXbHKLNVgIF"
_TAR_LONG = frozenset(
    {"--file", "--directory", "--files-from", "--exclude-from", "--exclude", "--transform", "--owner"}
    | {"--group", "--mode", "--mtime", "--newer", "--label", "--use-compress-program", "--to-command"}
)
_ZIP_VALUED = frozenset({"-P", "-b", "-n", "-t", "-tt", "-O", "--out", "-TT", "--unzip-command", "-Z"})
_UNZIP_VALUED = frozenset({"-P", "-d", "-x"})


def commands_run(call: Invocation) -> list[str]:
    """The command lines an archiver runs itself (`--to-command`, `--checkpoint-action=exec=`,
    `-I PROGRAM`, `zip -TT`)."""
    values = call.values()
    found: list[str] = []
    for index, value in enumerate(values):
        following = values[index + 1] if index + 1 < len(values) else ""
        for option in ("--to-command", "--use-compress-program", "--info-script", "--new-volume-script"):
            if value == option:
                found.append(following)
            elif value.startswith(option + "="):
                found.append(value.partition("=")[2])
        if value.startswith("--checkpoint-action=exec="):
            found.append(value.split("=", 2)[2])
        if call.program in ("tar", "bsdtar") and value == "-I":
            found.append(following)
        if call.program == "zip" and value in ("-TT", "--unzip-command"):
            found.append(following)
        elif call.program == "zip" and value.startswith("--unzip-command="):
            found.append(value.partition("=")[2])
    return [text for text in found if text]


def judged(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    name = call.program
    if name in ("tar", "bsdtar"):
        return _tar(call, places, bases, context)
    if name == "zip":
        return _zip(call, places, bases, context)
    if name == "unzip":
        return _unzip(call, places, bases, context)
    if name.startswith("7z"):
        return _seven(call, places, bases, context)
    return _decompressed(call, places, bases, context)


def _tar(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    from cortex_hooks.guard.selfguard.operands import named

    letters, archive, folder, members = _tar_words(call.args)
    values = call.values()
    extracts = "x" in letters or any(value in ("--extract", "--get") for value in values)
    writes = any(letter in letters for letter in "cru") or any(
        value in ("--create", "--append", "--update", "--delete", "--concatenate") for value in values
    )
    if writes and archive is not None and archive.value != "-":
        found = places.named(archive, bases, context=context)
        if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
            return named("writes", found)
    if "--remove-files" in values:
        for member in members:
            found = places.named(member, bases, whole=True, context=context)
            if found is not None:
                return named("deletes (tar --remove-files)", found)
    if extracts:
        return _extracted(folder, members, places, bases, context)
    return None


def _tar_words(args: list[Arg]) -> tuple[str, Arg | None, Arg | None, list[Arg]]:
    """tar's mode letters, its archive (-f), its folder (-C) and the members it is given."""
    letters = ""
    given: dict[str, Arg] = {}  # the values of -f and -C
    members: list[Arg] = []
    pending: list[str] = []  # the letters whose values come next, in order
    for index, arg in enumerate(args):
        value = arg.value
        if pending:
            given.setdefault(pending.pop(0), arg)
        elif index == 0 and value[:1] != "-" and value.isalpha():  # the old style: `tar czf x.tgz …`
            letters += value
            pending = [letter for letter in value if letter in _TAR_VALUED]
        elif value.startswith("--"):
            option, equals, rest = value.partition("=")
            letter = {"--file": "f", "--directory": "C"}.get(option, "-")
            if equals:
                given.setdefault(letter, _word(rest, arg))
            elif option in _TAR_LONG:
                pending = [letter]
        elif value.startswith("-") and len(value) > 1:
            letters += _bundle(value[1:], arg, given, pending)
        else:
            members.append(arg)
    return letters, given.get("f"), given.get("C"), members


def _bundle(bundle: str, arg: Arg, given: dict[str, Arg], pending: list[str]) -> str:
    """The letters of `-czf` (up to the first that takes a value: its value is the rest, or the
    next word)."""
    for at, letter in enumerate(bundle):
        if letter in _TAR_VALUED:
            rest = bundle[at + 1 :]
            if rest:
                given.setdefault(letter, _word(rest, arg))
            else:
                pending.append(letter)
            return bundle[: at + 1]
    return bundle


def _word(value: str, like: Arg) -> Arg:
    from cortex_hooks.guard.shell.invocation import Arg

    return Arg(value, expands=like.expands, tilde=value.startswith("~/"))


def _extracted(
    folder: Arg | None, members: list[Arg], places: Places, bases: list[str], context: Context
) -> Refusal | None:
    """Extraction into a folder of the guard's, or of a member named as one of its files."""
    from cortex_hooks.guard.shell.invocation import Arg

    if folder is not None:
        held = _guard_folder(folder, places, bases)
        if held is not None:
            return Refusal("", f"it extracts files into the guard's folder {held}")
    where = folder.value.rstrip("/") + "/" if folder is not None else ""
    for member in members:
        inside = Arg(where + member.value, expands=member.expands or bool(folder and folder.expands))
        found = places.named(inside, bases, context=context)
        if found is not None and found[0] != UNKNOWN:
            return Refusal("", f"it extracts over the guard's {found[0]} {found[1]}")
    return None


def _guard_folder(folder: Arg, places: Places, bases: list[str]) -> str | None:
    """The folder, when it is (or lies in) `.cortex/`, `.claude/` or the folder of one of the
    guard's places."""
    from cortex_hooks.guard.selfguard.protected import FOLDER, SETTINGS_FOLDER

    held = {path.rsplit("/", 1)[0] for path, _ in places.concrete_places()}
    for path in places.paths(folder, bases) or []:
        names = path.split("/")
        if FOLDER in names or SETTINGS_FOLDER in names or path in held:
            return path
    return None


def _zip(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    from cortex_hooks.guard.selfguard.operands import named

    words = _positional(call.args, _ZIP_VALUED)
    if not words:
        return None
    archive, files = words[0], words[1:]
    found = places.named(archive, bases, context=context)
    if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
        return named("writes", found)
    values = call.values()
    if any(
        value in ("-m", "--move") or (value[:2] != "--" and value[:1] == "-" and "m" in value)
        for value in values
    ):
        recursive = any(
            value in ("-r", "-R", "--recurse-paths") or (value[:1] == "-" and "r" in value[1:2])
            for value in values
        )
        for member in files:
            found = places.named(member, bases, whole=recursive, context=context)
            if found is not None and (recursive or found[0] != FOLDER_KIND):
                return named("deletes (zip -m)", found)
    return None


def _unzip(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    from cortex_hooks.guard.selfguard.operands import option_value

    folder = option_value(call.args, "d", "--exdir")
    words = _positional(call.args, _UNZIP_VALUED)
    if any(value in ("-l", "-t", "-v", "-p", "-c", "-Z") for value in call.values()):
        return None  # lists, tests or prints: writes nothing
    return _extracted(folder, words[1:], places, bases, context)


def _seven(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    from cortex_hooks.guard.selfguard.operands import named
    from cortex_hooks.guard.shell.invocation import Arg

    words = [arg for arg in call.args if not arg.value.startswith("-")]
    if len(words) < 2:
        return None
    command, archive, files = words[0].value, words[1], words[2:]
    if command in ("x", "e"):
        folder = next(
            (Arg(arg.value[2:], expands=arg.expands) for arg in call.args if arg.value.startswith("-o")), None
        )
        return _extracted(folder, files, places, bases, context)
    if command in ("a", "u", "d"):
        found = places.named(archive, bases, context=context)
        if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
            return named("writes", found)
        if "-sdel" in call.values():
            for member in files:
                found = places.named(member, bases, whole=True, context=context)
                if found is not None:
                    return named("deletes (7z -sdel)", found)
    return None


def _decompressed(call: Invocation, places: Places, bases: list[str], context: Context) -> Refusal | None:
    """`gunzip X.gz` writes X (and `gzip X` replaces it: any program given one is refused)."""
    from cortex_hooks.guard.selfguard.operands import named, operands
    from cortex_hooks.guard.shell.invocation import Arg

    values = call.values()
    name = call.program
    decompresses = name in DECOMPRESSORS or any(
        value in ("-d", "--decompress", "--uncompress") for value in values
    )
    if any(
        value in ("--stdout", "--to-stdout", "--list", "--test")
        or (value[:1] == "-" and value[1:2] != "-" and any(letter in value for letter in "clt"))
        for value in values
    ):
        return None  # to standard output, a listing or a test: no file written
    suffixes = DECOMPRESSORS.get(name) or DECOMPRESSORS.get(COMPRESSORS.get(name, ""), ())
    recursive = any(value in ("-r", "--recursive") for value in values)
    for pattern in context.appended or ():  # `find … | xargs gzip`: each file it is given, replaced
        hit = None if pattern.anything else places.reached(pattern, whole=recursive)
        if hit is not None and hit[0] not in (UNKNOWN, FOLDER_KIND):
            return named("replaces", hit)
    for arg in operands(call.args):
        if recursive:  # every file below is replaced by its compressed (or decompressed) form
            found = places.named(arg, bases, whole=True, context=context)
            if found is not None:
                return named("compresses (or decompresses) in place", found)
        found = places.named(arg, bases, context=context)
        if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
            return named("replaces", found)
        if decompresses:
            stem = next((arg.value[: -len(s)] for s in suffixes if arg.value.endswith(s)), None)
            if stem:
                found = places.named(Arg(stem, expands=arg.expands), bases, context=context)
                if found is not None and found[0] not in (UNKNOWN, FOLDER_KIND):
                    return named("writes", found)
    return None


def _positional(args: list[Arg], valued: frozenset[str]) -> list[Arg]:
    """The words that are neither an option nor an option's value."""
    found: list[Arg] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.value in valued:
            skip = True
            continue
        if not arg.value.startswith("-") or arg.value == "-":
            found.append(arg)
    return found
