"""Secrets out of every text capture stores: keys, tokens, passwords in URLs, high-entropy strings."""

from __future__ import annotations

import math
import re
from collections import Counter

MASK = "[REDACTED]"
_DIGIT = re.compile(r"\d")
_ALPHA = re.compile(r"[A-Za-z]")

_KNOWN = re.compile(
    r"(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic keys
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub tokens
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}"  # AWS, Google
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JWT
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))"
)
# `password=…`, `API_KEY: …`, `--token …`, `Authorization: Bearer …`: the value goes.
# Bounded and anchored at a word's start: unbounded `[\w-]*` on each side backtracks
# quadratically over a long word (a 900-character output line took seconds).
_KEY = r"[\w-]{0,40}?(?:api[_-]?key|secret|token|passw(?:or)?d|pwd|credential|auth)[\w-]{0,40}"
_ASSIGNED = re.compile(
    rf"(?i)((?:(?<![\w-]){_KEY}\s*[=:]\s*|(?<![\w-])--?{_KEY}\s+)(?:bearer\s+|basic\s+)?)"
    r"(['\"]?)([^\s'\"&;|]{4,})\2"
)
_URL_PASSWORD = re.compile(
    r"(?i)((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,20}://[^\s/:@]{1,200}:)([^\s/@]{1,200})(@)"
)
_LONG = re.compile(r"(?<![A-Za-z0-9+/=_\-.])[A-Za-z0-9+/=_\-.]{32,}")


_KEY_WORDS = re.compile(r"(?i)key|secret|token|passw|pwd|credential|auth")


def redact(text: str) -> str:
    """The text with every secret it holds replaced by MASK."""
    text = _KNOWN.sub(MASK, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda found: found.group(1) + MASK + found.group(3), text)
    if _KEY_WORDS.search(text):  # the costly pattern only where it can match
        text = _ASSIGNED.sub(_mask_value, text)
    return _LONG.sub(lambda found: MASK if _random(found.group(0)) else found.group(0), text)


def is_secret(token: str) -> bool:
    """Whether a word is (or holds) a secret, or one already redacted."""
    return MASK in token or redact(token) != token


def _mask_value(found: re.Match[str]) -> str:
    value = found.group(3)
    if value == MASK or value.startswith("$"):  # `$TOKEN` names a secret, it is not one
        return found.group(0)
    return f"{found.group(1)}{found.group(2)}{MASK}{found.group(2)}"


def _random(word: str) -> bool:
    """A long word that looks random: high entropy and digits mixed with letters (not a path,
    not a long identifier made of words)."""
    if "/" in word.strip("/") and word.count("/") > 1:
        return False  # a path
    if not (_DIGIT.search(word) and _ALPHA.search(word)):
        return False
    counts = Counter(word)
    entropy = -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())
    return entropy >= 3.5
