"""Text a command makes before a shell or an interpreter runs it, pure: what the
hook can work out of it without running anything.

- `$'\\x2ecortex'`: the shell's ANSI-C quoting, decoded (ansi_c);
- what `echo`, `printf` (its format applied), `base64 -d`, `xxd -r -p` and `rev` write, when
  their input is in the command (`printf '%s' 'rm -rf .cortex' | bash`, `echo cm0g… | base64 -d |
  sh`): produced;
- inline code with its string literals joined and decoded (`'.cor' + 'tex'`, `".c" "ortex"`,
  `chr(46)`, `"\\x2e"`): folded; and the paths it deletes or moves, as written (deletions).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cortex_hooks.guard.shell.invocation import Invocation

MAX_TEXT = 1 << 20  # what a producer may make before the hook stops working it out
DECODERS = frozenset({"base64", "base32", "basenc", "xxd", "openssl", "rev", "tr", "uudecode", "gpg"})
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_SIMPLE_ESCAPES |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ESCAPE = re.compile(
    r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))"
)


def ansi_c(text: str, *, octal_zero: bool = False) -> str:
    """The value of `$'text'` (and of `echo -e`/printf's escapes: `octal_zero`, `\\0NNN`)."""

    def one(found: re.Match[str]) -> str:
        simple, octal, hexa, short, long, control = found.groups()
        if simple:
            return _SIMPLE_ESCAPES[simple]
        if octal is not None:
            digits = octal[1:] if octal_zero and octal.startswith("0") and len(octal) > 1 else octal
            return chr(int(digits or "0", 8) % 256)
        if hexa:
            return chr(int(hexa, 16))
        number = short or long
        if number:
            value = int(number, 16)
            return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd"
        return chr(ord(control) & 0x1F)

    return _ESCAPE.sub(one, text)


def printf(words: list[str]) -> str:
    """What `printf FORMAT ARGS…` writes (its format reused until the arguments run out)."""
    if not words:
        return ""
    form, args = words[0], words[1:]
    out: list[str] = []
    index = 0
    while True:
        used = 0
        position = 0
        while position < len(form):
            char = form[position]
            if char == "\\":
                found = _ESCAPE.match(form, position)
                if found:
                    out.append(ansi_c(found.group(), octal_zero=True))
                    position = found.end()
                    continue
                out.append(char)
                position += 1
                continue
            if char != "%":
                out.append(char)
                position += 1
                continue
            spec = re.match(r"%[-+ #0]*\d*(?:\.\d+)?([sbcdiuoxXfeEgGq%])", form[position:])
            if spec is None:
                out.append(char)
                position += 1
                continue
            kind = spec.group(1)
            if kind == "%":
                out.append("%")
            else:
                value = args[index] if index < len(args) else ""
                index += 1
                used += 1
                out.append(
                    ansi_c(value, octal_zero=True) if kind == "b" else value[:1] if kind == "c" else value
                )
            position += spec.end()
            if sum(map(len, out)) > MAX_TEXT:
                return "".join(out)
        if not used or index >= len(args):
            return "".join(out)


def echo(words: list[str]) -> str:
    escapes = False
    while words and re.fullmatch(r"-[neE]+", words[0]):
        escapes = "e" in words[0] or (escapes and "E" not in words[0])
        words = words[1:]
    text = " ".join(words)
    return (ansi_c(text, octal_zero=True) if escapes else text) + "\n"


def decoded(call: Invocation, fed: str) -> str | None:
    """What a decoder writes for this input (None: not one the hook works out)."""
    import base64
    import binascii

    values = call.values()
    name = call.program
    try:
        if name in ("base64", "openssl") and any(v in ("-d", "--decode", "-D") for v in values):
            if name == "openssl" and not any(v in ("base64", "enc", "-base64", "-a") for v in values):
                return None
            return base64.b64decode("".join(fed.split()), validate=False).decode("utf-8", "replace")
        if name == "base32" and any(v in ("-d", "--decode") for v in values):
            return base64.b32decode("".join(fed.split())).decode("utf-8", "replace")
        if name == "xxd" and "-r" in values and any(v in ("-p", "-ps", "-plain") for v in values):
            return binascii.unhexlify("".join(fed.split())).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""
    if name == "rev":
        return "\n".join(line[::-1] for line in fed.split("\n"))
    return None


_LITERAL = r"""(?:[rbuRBU]{0,2})(?:'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")"""
_JOINED = re.compile(rf"({_LITERAL})(?:\s*(?:\+|\.|,\s*)?\s*)({_LITERAL})")
_CHR = re.compile(r"\b(?:chr|String\.fromCharCode)\s*\(\s*(\d{1,7})\s*\)")


def folded(code: str) -> str:
    """Inline code with its literal strings decoded and joined where they are concatenated
    (`'.cor' + 'tex'`, `".c" . "ortex"`, `".c" "ortex"`), `chr(46)` as the character it makes."""
    if len(code) > MAX_TEXT:
        return code
    code = _CHR.sub(lambda found: repr(chr(int(found[1]) % 0x110000)), code)

    def decode(found: re.Match[str]) -> str:
        literal = found.group()
        prefix = re.match(r"[rbuRBU]*", literal).group()  # type: ignore[union-attr]
        body = literal[len(prefix) + 1 : -1]
        return (
            "'" + (body if "r" in prefix.lower() else ansi_c(body, octal_zero=True)).replace("'", "\\'") + "'"
        )

    code = re.sub(_LITERAL, decode, code)
    for _ in range(64):  # each pass joins pairs: a long chain takes a few
        joined = _JOINED.sub(lambda found: found[1][:-1] + found[2][1:], code)
        if joined == code:
            break
        code = joined
    return code


# Calls that delete or move the path they are first given (Python, Node, Ruby, Perl, PHP).
_DELETING = re.compile(
    r"(?P<call>\b(?:shutil\.(?:rmtree|move)|os\.(?:remove|unlink|rmdir|removedirs|rename|renames|replace)"
    r"|fs\.(?:rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|rename|renameSync)"
    r"|FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|mv|remove_entry)|File\.(?:delete|unlink|rename)|Dir\.(?:rmdir|delete)"
    r")\s*\(\s*|\b(?:unlink|rename|rmdir|rmtree|remove_tree|unlinkSync|rmSync)(?:\s*\(\s*|\s+(?=[$@'\"])))"
    r"(?P<arg>[^,)\n;]*)"
    r"|(?P<path>\bPath\s*\(\s*)(?P<of>[^,)\n;]*)\)\s*\.\s*(?:unlink|rmdir|rename|replace)\s*\("
)


def deletions(code: str) -> list[tuple[str, str | None]]:
    """(call, path) for each call in folded code that deletes or moves a path: the path as its
    literal string says, or None when the code builds it at run time."""
    found: list[tuple[str, str | None]] = []
    for match in _DELETING.finditer(code):
        argument = (match["arg"] if match["call"] else match["of"]).strip()
        literal = re.fullmatch(r"'((?:\\.|[^'\\])*)'", argument)
        call = (match["call"] or "Path(…).unlink").strip(" (")
        if not argument or argument in ("{", "$_") or argument.startswith(("@", "glob")):
            found.append((call, None))
        elif literal is not None:
            found.append((call, literal[1].replace("\\'", "'")))
        else:
            found.append((call, None))
    return found


def produced(call: Invocation, fed: Callable[[], str | None]) -> str | None:
    """What a producer in a pipe writes, when the command holds it (None: only run time knows);
    `fed` gives what comes on its own standard input."""
    values = call.values()
    if call.program == "echo":
        return echo(values)
    if call.program == "printf":
        return printf([value for value in values if value != "--"][:4096])
    text: str | None
    if call.stdin == "herestring":
        text = next((arg.value for operator, arg in call.redirects if operator == "<<<"), "") + "\n"
    elif call.stdin == "pipe":
        text = fed()
    else:
        return None
    if text is None:
        return None
    if call.program == "cat" and not [value for value in values if value != "-"]:
        return text
    return decoded(call, text)
