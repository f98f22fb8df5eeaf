"""The one redactor (docs/guide/selfguard.md): secrets out of everything stored or sent from a transcript or a
prompt — session summaries, capture's evidence and proposals, the drafting prompt.

Each rule below is one kind of evidence that a string is a secret, applied in order (what one
masks, the next leaves alone):

1. it announces itself: a private key block, a token whose shape names its issuer (`ghp_`,
   `AKIA…`, `xoxb-`, `sk-ant-api03-` …: the kinds gitleaks' rule set names), a webhook URL;
2. its place says so: the password of a URL (`scheme://user:PASS@`), an `Authorization:` or
   `Cookie:` header, a command's password option (`sshpass -p`, `mysql -pPASS`, `curl -u u:PASS`,
   `docker login -p` …: _COMMANDS), a value whose name says secret (`PGPASSWORD=`, `*_TOKEN=`,
   `"apiKey": "…"`, `--client-secret …`, `Password=…;` in a connection string);
3. it looks random: a long word, letters and digits mixed, of high entropy, that is not a hex
   hash or a UUID (git SHAs, ids), a path, base64 of ordinary text or an identifier of words.

A secret becomes MASK; the quotes around it stay, so a redacted command still reads as one. It
is idempotent, and every pattern is linear in the text (no nested unbounded repeats).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache

MASK = "[REDACTED]"

# Shapes that name their issuer: a prefix, then a body long enough that a word of the same
# prefix in a command or a sentence is not taken for one.
_TOKENS = (
    r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}|ABSK[A-Za-z0-9+/]{100,}={0,2}",  # AWS
    r"bedrock-api-key-[A-Za-z0-9+/]{20,}={0,2}|LTAI[A-Za-z0-9]{20}|AQVN[\w-]{35,38}|YC[\w-]{38}",
    r"t1\.[\w-]+={0,2}\.[\w-]{86}={0,2}|[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}",  # Yandex, Azure
    r"AIza[\w-]{35}|ya29\.[\w-]{20,}|GOCSPX-[\w-]{20,}",  # Google
    r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{40,}|GR1348941[\w-]{20,}|_gitlab_session=[0-9a-z]{32}",
    r"gl(?:pat|dt|ft|imt|ptt|rt|soat|cbt|ffct|agent|oas)-[\w.-]{20,}",  # GitLab
    r"xox[abposre]-[\w-]{8,}|xoxe\.xox[bp]-[\w-]{20,}|xapp-\d-[A-Za-z0-9-]{20,}",  # Slack
    r"sk-ant-[\w-]{16,}|sk-(?:proj|svcacct|admin)-[\w-]{20,}",  # Anthropic, OpenAI
    r"sk-(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{32,}|pplx-[A-Za-z0-9]{48}|hf_[A-Za-z]{34}|api_org_[A-Za-z]{34}",
    r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{24,}",  # Stripe
    r"eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}|eyJ[\w-]{16,}\.[\w-]{16,}\.[\w-]{16,}",  # JWT
    r"npm_[A-Za-z0-9]{36}|pypi-AgEIcHlwaS5vcmc[\w-]{50,}|rubygems_[a-f0-9]{48}|CLOJARS_[a-z0-9]{60}",
    r"do[opr]_v1_[a-f0-9]{64}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|dp\.pt\.[A-Za-z0-9]{43}",
    r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}|EZ[AT]K[A-Za-z0-9]{54}|FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}",
    r"fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}|fio-u-[\w=-]{64}|duffel_(?:test|live)_[\w=-]{43}",
    r"lin_api_[A-Za-z0-9]{40}|PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}|pul-[a-f0-9]{40}|dapi[a-f0-9]{32}",
    r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}|ATATT3[\w=-]{150,}|ops_eyJ[A-Za-z0-9+/]{100,}",
    # 1Password
    r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    r"p8e-[A-Za-z0-9]{32}|4b1d[A-Za-z0-9]{38}|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}|dnkey-[\w=-]{26}-[\w=-]{52}",
    r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[\w+/=-]{30,120}",
    r"EAA[MC][A-Za-z0-9]{100,}|\d{15,16}(?:\||%7C)[0-9a-zA-Z_-]{27,40}",  # Facebook
    r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9+/]{60,}={0,2}",
    r"(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}|[a-z0-9]{14}\.atlasv1\.[\w=-]{60,70}",
    r"HRKU-AA[\w-]{58}|ico-[A-Za-z0-9]{32}|s-s4t2(?:ud|af)-[a-f0-9]{64}|(?:pub)?key-[a-f0-9]{32}",
    r"[0-9a-f]{32}-us\d{1,2}|[pst]k\.eyJ[\w.-]{40,}|[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk",
    r"NRAK-[A-Z0-9]{27}|NRII-[\w-]{32}|NRJS-[a-f0-9]{19}|ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}",
    r"API-[A-Z0-9]{26}|sha256~[\w-]{43}|access-(?:sandbox|development|production)-[0-9a-f-]{36}",
    r"pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}|pnu_[A-Za-z0-9]{36}|rdme_[a-z0-9]{70}|tk-us-[\w-]{48}",
    r"SG\.[\w=.-]{66}|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|sntrys_eyJ[A-Za-z0-9+/=_]{50,}|sntryu_[a-f0-9]{64}",
    r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}|shippo_(?:live|test)_[a-fA-F0-9]{40}|sq[upa]_[a-z0-9]{40}",
    r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}|(?:EAAA|sq0atp-)[\w-]{22,60}|sq0csp-[\w-]{43}",
    r"\d{5,16}:A[\w-]{34}|SK[0-9a-fA-F]{32}|A{22}[A-Za-z0-9%]{80,100}|tfp_[\w.=-]{59}",  # Telegram, Twilio
    r"hv[sb]\.[\w-]{90,300}|s\.(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{24}",  # Vault
    r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}|live_[\w=-]{40}",  # Lob, GoCardless
    r"(?:hooks\.slack\.com/(?:services|workflows|triggers)|discord(?:app)?\.com/api/webhooks)/[\w/+-]{20,}",
    r"[a-z0-9-]+\.webhook\.office\.com/webhookb2/[\w@/-]{60,}",
)
# Commands whose options carry a password, and how: `next` (`-p PASS`), `attached` (`-pPASS`),
# `both`; `user:`, `user%`, `user,`: after a user name (`curl -u u:PASS`); `user/`: the first
# argument (`sqlplus scott/PASS@db`); `last`: the last word (`htpasswd -b f user PASS`);
# `login`, `secret`: only in that subcommand (`docker run -p 8080:80` is a port, `gh pr create -b`
# a body); `wrapper`: the rest of the line is another command's (`sshpass -p PASS ssh -p 22 host`).
_OPTIONS: tuple[tuple[str, dict[str, str]], ...] = (
    ("sshpass", {"-p": "both", "wrapper": ""}),
    ("mysql mysqldump mysqladmin mysqlimport mysqlcheck mysqlshow mariadb mariadb-dump", {"-p": "both"}),
    ("mongo mongosh mongodump mongorestore mongoexport mongoimport", {"-p": "both"}),
    ("docker podman nerdctl buildah skopeo helm oras az", {"-p": "next", "login": ""}),
    ("ldapsearch ldapadd ldapmodify ldapdelete ldapwhoami ldappasswd", {"-w": "next"}),
    ("7z 7za 7zr rar unrar", {"-p": "attached"}),
    ("sqlcmd bcp osql", {"-P": "both"}),
    ("curl wget", {"-u": "user:", "--user": "user:", "-U": "user:", "--proxy-user": "user:"}),
    ("smbclient rpcclient smbmap smbget", {"-U": "user%", "--user": "user%"}),
    ("sqlplus sqlldr expdp impdp rman", {"first": "user/"}),
    ("redis-cli", {"-a": "next"}),
    ("zip unzip", {"-P": "next"}),
    ("openssl", {"-k": "next"}),
    ("lftp", {"-u": "user,"}),
    ("htpasswd", {"-b": "last"}),
    ("ssh-keygen", {"-N": "both", "-P": "both"}),  # the new and the old passphrase
    ("useradd usermod", {"-p": "next", "--password": "next"}),  # a password's hash
    ("gh", {"-b": "next", "--body": "next", "secret": ""}),  # `gh secret set NAME --body VALUE`
)
_COMMANDS = {name: spec for names, spec in _OPTIONS for name in names.split()}
_NAME_WORDS = (
    "passw|pwd|pass|secret|token|key|auth|credential|creds|cookie|session|sig|dsn|salt|bearer|jwt|otp"
    "|webhook|connection|api"
)
_SCHEMES = "bearer|basic|token|digest|negotiate|apikey|sso-key|bot"
# The commands that read a password (or a token) on their standard input.
_READS_SECRET = (
    r"(?:sudo\b[^|;&\n]*?\s(?:-S|--stdin)\b|passwd\b[^|;&\n]*?\s--stdin\b|chpasswd\b"
    r"|[\w-]+\b[^|;&\n]*?\s--password-stdin\b|gh\s+auth\s+login\b[^|;&\n]*?--with-token\b"
    r"|gh\s+secret\s+set\b)"
)
_VALUE = r"""'[^'\n]*'|"(?:\\.|[^"\\\n])*"|(?:\[REDACTED\]|[^\s'"`&;|,<>)}\]])+"""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_KEPT_VALUES = _words(
    "none null nil true false yes no on off required optional str string int bool bytes any undefined"
    " number object dict list secret password token redacted hidden masked changeme example stdin"
    " await new this self function lambda yield async typeof"
)
_NEUTRAL_LAST = _words(  # the last part of a name that holds no secret: TOKEN_FILE, api_key_id
    "file path dir directory name names id ids type size length len count limit max min format fmt env"
    " var ref hint field column col prefix suffix header mode algo algorithm kind version expiry expires"
    " expiration ttl timeout provider endpoint host hostname port user username region scope scopes"
    " policy label location url uri enabled required method strategy source store output input stdin"
    " base version docs doc spec schema server service client gateway"
)
_NOT_SECRET_KEYS = _words(  # a `key` that is no secret: sort_key, primary key, public key
    "primary foreign sort partition cache map dict hash idempotency dedup unique composite lookup index"
    " group order shard routing public pub recv send list"
)


# The sources of the patterns below (flags inline), each compiled on its first use (_pattern).
_SOURCES = {
    "private": (
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}-----|\Z)"
    ),
    "token": rf"(?<![A-Za-z0-9])(?:{'|'.join(_TOKENS)})(?![A-Za-z0-9])",
    "url": r"(?i)((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,20}://[^\s/:@'\"]{0,200}:)([^\s/@'\"]{1,200})@",
    # Bundler's credentials for a gem host: BUNDLE_GEMS__EXAMPLE__COM=user:PASS
    "bundler": r"(?<![\w])(BUNDLE_[A-Z0-9_]+__[A-Z0-9_]+\s*[=:]\s*['\"]?[^\s:'\"]+:)([^\s'\"]+)",
    # .NET and NuGet settings: <add key="ClearTextPassword" value="PASS" />
    "setting": r"""(?i)(\bkey\s*=\s*"([^"\n]*)"\s+value\s*=\s*)("[^"\n]*")""",
    "header": (
        r"(?im)\b((?:proxy-)?authorization|cookie|set-cookie|private-token"
        rf"|x-[\w-]{{0,30}}(?:key|token|secret|auth)[\w-]{{0,30}})(\s*:\s*)((?:(?:{_SCHEMES})\s+)?)"
        r"([^\s'\"\\][^'\"\n\\]*)"
    ),
    "commands": r"(?<![\w.-])(?:" + "|".join(map(re.escape, _COMMANDS)) + r")(?![\w.-])",
    "word": r"""(?:[^\s'"\\;&|()<>`]|\\.|'[^']*'|"(?:\\.|[^"\\])*")+|[;&|()<>`\n]""",
    "named": rf"""(?ix)(?:(?<![\w.-])(?P<dash>--?)
        (?P<option>[\w.-]{{0,40}}?(?:{_NAME_WORDS})[\w.-]{{0,40}})(?:=|\s+)
        |(?<![\w.$-])(?P<name>[\w.-]{{0,40}}?(?:{_NAME_WORDS})[\w.-]{{0,40}})['"]?\s*(?::=|=>|=|:)\s*)
        (?P<scheme>(?:(?:{_SCHEMES})\s+)?)(?P<value>{_VALUE})""",
    "long": r"(?<![A-Za-z0-9+/_\-.])[A-Za-z0-9+/_\-.]{32,}={0,3}(?![A-Za-z0-9+/=_\-.])",
    # a password a command reads on its standard input, from `echo`/`printf` or a here-string
    "fed": (
        rf"(?P<echo>\b(?:echo|printf)(?:\s+-[neE]+)*(?:\s+(?:'%s(?:\\n)?'|\"%s(?:\\n)?\"))?\s+)"
        rf"(?P<value>{_VALUE})(?=\s*\|\s*(?:\S+\s+)*?(?P<reader>{_READS_SECRET}))"
        rf"|(?P<here>{_READS_SECRET}[^\n;|<]*<<<\s*)(?P<told>{_VALUE})"
    ),
    # a .netrc line: `machine HOST login USER password PASS` (or `password PASS` on its own line)
    "netrc": (
        r"(?im)(\b(?:machine[ \t]+\S+|default)[ \t]+(?:login[ \t]+\S+[ \t]+)?password[ \t]+)(\S+)"
        r"|^([ \t]*password[ \t]+)(\S+)(?=[ \t]*(?:$|account\b|machine\b|macdef\b))"
    ),
    # an `expect` script answering a password prompt: `expect "*assword:"; send "PASS\r"`
    "expect": (
        r"(?is)(\bexpect\s+(?:-\w+\s+)*(?:\"[^\"\n]*(?:assword|passphrase|passcode|token|secret)[^\"\n]*\""
        r"|\{[^}\n]*(?:assword|passphrase|passcode|token|secret)[^}\n]*\}|\S*(?:assword|passphrase)\S*)"
        r"[\s;]+(?:[^\n]*\n\s*){0,2}?send\s+(?:--\s+)?)(\"(?:\\.|[^\"\\\n])*\"|\{[^}\n]*\}|[^\s;]+)"
    ),
    # "my github password is hunter2": prose, where the value looks like a password
    "prose": (
        r"(?i)(\b(?:my|our|the|his|her|their|your|its)\s+(?:[\w.@-]+\s+){0,3}?"
        r"(?:password|passphrase|passcode|passwd|pwd)\s+(?:(?:for|on|of|to)\s+(?:\S+\s+){1,4}?)?(?:is|was|=|:)\s+)"
        r"(\"[^\"\n]{3,}\"|'[^'\n]{3,}'|\S+)"
    ),
    # a Heroku API key: a UUID given as Heroku's key or token
    "heroku": (
        r"(?i)(\bheroku[\w .-]{0,30}?[\s'\"]{0,3}(?:=|:|=>)\s*['\"]?)"
        r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    ),
}
# What a text must hold for a pattern to find anything in it, tested before the pattern is
# compiled or run: a kept tool call is redacted on every match PreToolUse records, and compiling
# all of them costs that hook 8 ms. No token holds a blank and the shortest is 13 characters
# (tests/test_one_redactor.py holds both to the patterns); a long random word is 32 or more.
_TOKEN_WIDTH, _LONG_WIDTH = 13, 32
_HEADER_HINTS = ("authorization", "cookie", "private-token", "x-")
_FED_HINTS = ("sudo", "passwd", "--password-stdin", "--with-token", "secret set")
_NAME_HINTS = tuple(_NAME_WORDS.split("|"))


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """Compiled on first use, each on its own: a process that never needs one pays nothing."""
    return re.compile(_SOURCES[name])


def redact(text: str) -> str:
    """The text with every secret it holds replaced by MASK."""
    if "-----BEGIN" in text:
        text = _pattern("private").sub(MASK, text)
    if _longest_word(text) >= _TOKEN_WIDTH:
        text = _pattern("token").sub(MASK, text)
    if "://" in text:
        text = _pattern("url").sub(lambda found: f"{found[1]}{masked(found[2])}@", text)
    if "BUNDLE_" in text:
        text = _pattern("bundler").sub(lambda found: found[1] + masked(found[2]), text)
    lowered = text.lower()
    if "value" in lowered:
        text = _pattern("setting").sub(_setting, text)
    if any(hint in lowered for hint in _HEADER_HINTS):
        text = _pattern("header").sub(_header, text)
    if any(name in text for name in _COMMANDS) and _pattern("commands").search(text):
        text = _password_options(text)
    text = _where_it_stands(text, lowered)
    if any(hint in lowered for hint in _NAME_HINTS):
        text = _pattern("named").sub(_named, text)
    if _longest_word(text) >= _LONG_WIDTH:
        text = _pattern("long").sub(lambda found: MASK if _random(found[0]) else found[0], text)
    return text


def _where_it_stands(text: str, lowered: str) -> str:
    """A password by where it stands: fed to a command on its standard input, a `.netrc` line, an
    `expect` answer to a password prompt, prose naming it, a Heroku key."""
    if any(hint in lowered for hint in _FED_HINTS):
        text = _pattern("fed").sub(_fed, text)
    if "password" in lowered and ("machine" in lowered or "default" in lowered):
        text = _pattern("netrc").sub(
            lambda found: (found[1] or found[3]) + masked(found[2] or found[4]), text
        )
    if "send" in lowered and "expect" in lowered:
        text = _pattern("expect").sub(lambda found: found[1] + _sent(found[2]), text)
    if any(word in lowered for word in ("password", "passphrase", "passcode", "passwd", "pwd")):
        text = _pattern("prose").sub(_prose, text)
    if "heroku" in lowered:
        text = _pattern("heroku").sub(lambda found: found[1] + MASK, text)
    return text


def _longest_word(text: str) -> int:
    return max(map(len, text.split()), default=0)


def is_secret(token: str) -> bool:
    """Whether a word is (or holds) a secret, or one already redacted."""
    return MASK in token or redact(token) != token


def masked(value: str, *, password: bool = True) -> str:
    """A value as it is shown: MASK in its place (inside its quotes), unless it is no secret: a
    `$VARIABLE`, a path, a placeholder, a short number, code (`os.environ[…]`)."""
    quote = value[:1] if len(value) > 1 and value[:1] in "'\"" and value.endswith(value[:1]) else ""
    inner = value[1:-1] if quote else value
    return value if _kept(inner, password=password) else f"{quote}{MASK}{quote}"


def _kept(value: str, *, password: bool) -> bool:
    if re.match(r"\$(?:\d|[0-9a-z]{1,3}|2[aby])\$", value):
        return False  # a crypt(3) hash (`useradd -p '$6$salt$…'`), not a variable
    return (
        not value
        or MASK in value
        or value.startswith(("$", "%", "{{", "<", "(", "/", "./", "../", "~/", "env:", "file:", "fd:", "-"))
        or value.lower() in _KEPT_VALUES
        or len(set(value)) == 1  # ******, xxxx
        or len(value) < (3 if password else 4)
        or (not password and value.isdigit() and len(value) <= 8)  # ports, counts, limits
        or re.match(r"[A-Za-z_][\w.]*[(\[]", value) is not None  # code: get_token(), os.environ[…]
    )


def _fed(found: re.Match[str]) -> str:
    """A password piped or told to a command that reads it (`echo PW | sudo -S …`); for chpasswd,
    `user:PASSWORD`."""
    piped = found["value"] is not None
    value, head = (found["value"], found["echo"]) if piped else (found["told"], found["here"])
    reader = found["reader"] if piped else found["here"]
    if "chpasswd" not in reader or ":" not in value:
        return head + masked(value)
    quote = value[:1] if value[:1] in "'\"" else ""
    user, _, password = value.strip("'\"").partition(":")
    return f"{head}{quote}{user}:{masked(password)}{quote}"


def _sent(value: str) -> str:
    """What `send` answers a password prompt with, its `\\r` kept."""
    for end in ('\\r"', '\\n"', "\\r}", "\\n}"):
        if value.endswith(end) and len(value) > len(end) + 1:
            return value[0] + MASK + end
    return masked(value)


def _prose(found: re.Match[str]) -> str:
    """A password named in prose: masked when it looks like one (digits, symbols or a capital
    inside, or quoted), not an ordinary word (`the password is stored in the vault`)."""
    value = found[2]
    core = value.rstrip(".,;:!?)")
    quoted = value[:1] in "'\""
    looks = re.search(r"\d|[^\w]|(?<=\w)[A-Z]", core.strip("'\"")) is not None
    if not core or not (quoted or looks) or core.lower() in _KEPT_VALUES:
        return found[0]
    return found[1] + masked(core) + value[len(core) :]


def _header(found: re.Match[str]) -> str:
    value = found[4].rstrip()
    if _kept(value, password=False):
        return found[0]
    return f"{found[1]}{found[2]}{found[3]}{MASK}{found[4][len(value) :]}"


def _setting(found: re.Match[str]) -> str:
    if secret_name(found[2]) is None:
        return found[0]
    return found[1] + masked(found[3], password=secret_name(found[2]) == "password")


def _named(found: re.Match[str]) -> str:
    name = found["option"] if found["dash"] else found["name"]
    if name.lower() == "key" and re.match(r"\s+value\s*=", found.string[found.end() :]):
        return found[0]  # <add key="…" value="…">: the setting's name, judged above
    kind = secret_name(name)
    value = found["value"]
    head = found[0][: found.start("value") - found.start()]
    if kind is None or (found["dash"] and name.lower().startswith("no-")):
        return head + _pattern("named").sub(_named, value)  # not a secret's name: look inside
    if kind == "weak" and not _token_like(value.strip("'\"")):
        return found[0]
    return head + masked(value, password=kind == "password")


def _token_like(value: str) -> bool:
    """What a bare `key`, `auth` or `session` holds when it is a secret: a long mixed word."""
    return len(value) >= 8 and bool(re.search(r"\d", value)) and bool(re.search(r"[A-Za-z]", value))


def secret_name(name: str) -> str | None:
    """ "password" or "secret" when a name says its value is one (`PGPASSWORD`, `apiKey`,
    `client-secret`, `storepass`); "weak" for a bare `key`, `auth` or `session`, whose value
    must look like a token too (`"key": "README.md"` is none), and for a name holding `api`
    (`MY_API`, `STRIPE_API_LIVE`); else None (`author`, `sort_key`, `TOKEN_FILE`, `API_BASE`)."""
    parts = [part.lower() for part in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    if "private" in parts and "key" in parts:
        return "secret"  # a service account's private_key_id as much as its private_key
    if not parts or (parts[-1] in _NEUTRAL_LAST and parts[-2:] != ["session", "id"]):
        return None
    if len(parts) == 1 and parts[0] in ("key", "keys", "auth", "session", "sig", "salt", "otp", "cookie"):
        return "weak"
    for index, part in enumerate(parts):
        if "passw" in part or "passphrase" in part or part.endswith(("pass", "pwd")) or part == "pw":
            return "password"
        if part in ("key", "keys") and index and parts[index - 1] in _NOT_SECRET_KEYS:
            return None
        if (
            "secret" in part
            or part.endswith(("token", "tokens", "apikey", "privatekey", "accesskey", "authkey"))
            or part in ("key", "keys", "auth", "authorization", "credential", "credentials", "creds", "otp")
            or part in ("cookie", "cookies", "session", "sessionid", "sig", "signature", "dsn", "salt")
            or part in ("bearer", "jwt", "webhook", "connectionstring", "connstr")
        ):
            return "secret"
    return "weak" if "api" in parts else None  # `MY_API=…`: a token, when its value looks like one


def _password_options(text: str) -> str:
    """The text with the password options of _COMMANDS masked, one shell segment at a time."""
    spans: list[tuple[int, int]] = []
    segment: list[re.Match[str]] = []
    for word in [*_pattern("word").finditer(text), None]:
        if word is not None and word[0] not in ";&|()<>`\n":
            segment.append(word)
        else:
            spans += _segment_passwords(segment)
            segment = []
    for start, end in sorted(set(spans), reverse=True):
        text = text[:start] + masked(text[start:end]) + text[end:]
    return text


def _segment_passwords(words: list[re.Match[str]]) -> list[tuple[int, int]]:
    """The spans of the passwords in one segment: its command's options, then a wrapped one's."""
    for index, word in enumerate(words):
        spec = _COMMANDS.get(word[0].strip("'\"").rsplit("/", 1)[-1])
        needed = [sub for sub in ("login", "secret") if sub in spec] if spec is not None else []
        if spec is not None and all(any(w[0] == sub for w in words[index:]) for sub in needed):
            break
    else:
        return []
    found: list[tuple[int, int]] = []
    rest = words[index + 1 :]
    first = "first" in spec
    for position, word in enumerate(rest):
        text, after = word[0], rest[position + 1 :]
        if not text.startswith("-") or text == "-":
            if position and found[-1:] == [(rest[position - 1].end(), rest[position - 1].end())]:
                found[-1] = (word.start(), word.end())  # the value of `-p PASS`
            elif first and text.find("/") > 0:
                end = text.find("@") if "@" in text else len(text)
                found.append((word.start() + text.find("/") + 1, word.start() + end))
            elif "wrapper" in spec:
                return found + _segment_passwords(rest[position:])
            first = False
            continue
        found += _option(spec, word, after)
    return [span for span in found if span[0] < span[1]]


def _option(spec: dict[str, str], word: re.Match[str], after: list[re.Match[str]]) -> list[tuple[int, int]]:
    """The password span one option word gives: its own tail, or (end, end) for the next word."""
    text = word[0]
    for option, style in spec.items():
        if style == "last" and not text.startswith("--") and option[1] in text and after:
            return [(after[-1].start(), after[-1].end())]
        if style.startswith("user") and (
            text == option or text.startswith(option + "=") or (len(option) == 2 and text.startswith(option))
        ):
            value, offset = (
                (after[0][0], after[0].start())
                if text == option and after
                else (text[len(option) :].lstrip("="), word.end() - len(text[len(option) :].lstrip("=")))
            )
            cut = value.find(style[-1])
            return [(offset + cut + 1, offset + len(value.rstrip("'\"")))] if cut > 0 else []
        if text == option and style in ("next", "both"):
            return [(word.end(), word.end())]
        if option.startswith("--") and text.startswith(option + "=") and style in ("next", "both"):
            return [(word.start() + len(option) + 1, word.end())]
        if len(option) == 2 and text.startswith(option) and len(text) > 2 and style in ("attached", "both"):
            return [(word.start() + 2, word.end())]
    return []


def _random(word: str) -> bool:
    """A long word that looks random: letters and digits mixed, high entropy; not a hex hash or
    a UUID, not a path, not base64 of ordinary text, not an identifier made of words."""
    core = word.strip("=.-_/")
    if len(core) < 32 or not (re.search(r"\d", core) and re.search(r"[A-Za-z]", core)):
        return False
    if re.fullmatch(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", core):
        return False  # a hash, a git SHA, a UUID: identifiers, not secrets
    if core.startswith(("sha1-", "sha256-", "sha384-", "sha512-", "h1:")):
        return False  # a package's integrity hash
    if _path(word) or _wordy(core) or _ordinary_base64(core):
        return False
    entropy = -sum(n / len(core) * math.log2(n / len(core)) for n in Counter(core).values())
    return entropy >= 3.5


def _path(word: str) -> bool:
    """A path (`/home/dev/app-2024/src`, `.cache/pip/wheels/7a/…`): three parts or more, rooted
    or mostly words, none of them long and random by itself."""
    parts = [part for part in word.split("/") if part]
    if len(parts) < 3 or any(_random(part) for part in parts):
        return False
    words = sum(bool(re.search(r"[a-z]{3}", part)) for part in parts)
    return word.startswith(("/", "./", "../")) or 3 * words >= 2 * len(parts)


def _wordy(word: str) -> bool:
    """Made of words (`test_keeps_long_identifiers_2`, `getUserAccountSettings4`): most of its
    letters are in runs of four or more lowercase letters."""
    if re.fullmatch(r"[A-Z][A-Z0-9]{0,14}(?:_[A-Z0-9]{1,15}){2,}", word):
        return True  # SCREAMING_SNAKE_CASE
    letters = sum(char.isalpha() for char in word)
    in_words = sum(len(run) for run in re.findall(r"[a-z]{4,}", word))
    return in_words >= 0.6 * letters and not re.search(r"[A-Z]{2}[a-z]?[A-Z]|[a-z]\d[a-z]", word)


def _ordinary_base64(word: str) -> bool:
    """Base64 of ordinary text (not of a secret): it decodes to printable UTF-8 with spaces."""
    import base64  # only for a long random-looking word: not on a hook's usual path
    import binascii

    try:
        decoded = base64.b64decode(word + "=" * (-len(word) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    printable = sum(char.isprintable() for char in decoded)
    return " " in decoded and printable >= 0.95 * len(decoded) and redact(decoded) == decoded
