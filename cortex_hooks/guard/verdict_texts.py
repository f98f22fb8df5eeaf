"""The texts a verdict puts before the agent (and, for an ask, the person), pure, each within
the room Claude Code shows whole: the built-in protection's and the learnings'."""

from __future__ import annotations

from cortex_hooks import confidence, sanitize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cortex_hooks.guard.hits import Hit
    from cortex_hooks.guard.selfguard.protected import Refusal

TEXT_LIMIT = 9499  # under 9,500: Claude Code turns longer output into a file reference

BLOCKED = "cortex-hooks blocked this tool call"  # how every deny begins (capture knows our own by it)
DENY_HEADER = f"{BLOCKED}: it matches a learned anti-pattern. Do it the correct way instead."
PROTECTED = f"{BLOCKED} (built-in protection)"  # how a deny of the built-in protection begins
# The reason of an ask: the person reads it in the permission prompt; in `claude -p`, where no one
# can answer, Claude Code refuses the call and the agent reads it as the call's error.
ASK_HEADER = (
    "cortex-hooks asks the user before this tool call: it matches a learned anti-pattern "
    "that needs the user's approval."
)
WARN_HEADER = (
    "cortex-hooks: this tool call matches learned anti-patterns (not blocked). "
    "Check it against the correct pattern:"
)
REWRITE_HEADER = "cortex-hooks corrected this Bash command before it ran (a learned correction):"
VERBS = {"deny": "NEVER", "ask": "ASK FIRST", "warn": "AVOID", "rewrite": "AVOID"}
ALSO_HEADER = "Learned anti-patterns this call matches too (each gained confidence from this catch):"
BUILT_IN = (
    "This protection is built in, not a learning (it never decays and cannot be archived or muted): "
    "the agent may not switch off or weaken its own guard, so do not look for another way around it."
)


def protected(refused: Refusal, hits: list[Hit], limit: int) -> str:
    """A deny of the built-in protection: what the call would do, the harm in
    plain words first and then what of the guard's it touches; what the person can do; then the
    learnings that match too, with their NEVER and DO lines."""
    what, why = sanitize.line(refused.what, 300), sanitize.line(refused.why, 1000)
    if refused.harm is not None:
        head = f"{PROTECTED}: {what} {refused.harm}, where the guard's own files live ({why})."
    else:
        head = f"{PROTECTED}: {what}: {why}."
    if refused.command is not None and refused.harm is None:
        command = _cut(sanitize.clean(refused.command), limit // 3)
        person = (
            "If the person wants it done, ask them to run it in their own terminal, where nothing "
            f"stops it:\n{command}"
        )
    elif refused.command is not None:
        person = "If the person really wants it done, they can do it themselves, outside this session."
    else:
        person = "If the person wants this change, ask them to make it themselves, outside this session."
    text = f"{head} {BUILT_IN} {person}"
    if hits:
        learned = listed(ALSO_HEADER, hits, VERBS["deny"], max(limit - len(text) - 1, 0))
        if len(text) + 1 + len(learned) > limit:  # the learnings' DO lines before the command shown
            text = f"{head} {BUILT_IN}"
            learned = listed(ALSO_HEADER, hits, VERBS["deny"], max(limit - len(text) - 1, 0))
        text += "\n" + learned
    return text[:limit]


def listed(header: str, hits: list[Hit], verb: str, limit: int) -> str:
    """The header and an entry per learning, within `limit` characters and naming every one:
    long texts are shortened to share the room, and learnings beyond room are named by id."""
    share = (limit - len(header)) // max(len(hits), 1) - 1
    text = header
    for shown, hit in enumerate(hits):
        entry = _entry(hit, verb, share)
        if len(text) + 1 + len(entry) + len(_more(hits[shown + 1 :])) > limit:
            return (text + _more(hits[shown:]))[:limit]
        text += "\n" + entry
    return text


def correction(hit: Hit, written: str, corrected: str, limit: int) -> str:
    """What the agent is told of a rewrite: the learning, the command it wrote and what ran."""
    room = max(limit - len(REWRITE_HEADER) - 60, 40)
    entry = _entry(hit, "AVOID", room // 3)
    each = max((room - len(entry)) // 2, 20)
    lines = [
        REWRITE_HEADER,
        entry,
        f"  your command: {_cut(sanitize.line(written), each)}",
        f"  what runs:    {_cut(sanitize.line(corrected), each)}",
    ]
    return "\n".join(lines)[:limit]


def rechecked(hit: Hit, corrected: str, answer: str) -> str:
    """The header of a verdict on a corrected command: what was corrected, then why it is
    denied or asked about."""
    shown = _cut(sanitize.line(corrected), 300)
    if answer == "deny":
        return (
            f"cortex-hooks corrected this command (learning #{hit.id}) to `{shown}`, and the corrected "
            "command is blocked: it matches a learned anti-pattern. Do it the correct way instead."
        )
    return (
        f"cortex-hooks corrected this command (learning #{hit.id}) to `{shown}`; the corrected command "
        "matches a learned anti-pattern that needs the user's approval."
    )


def _entry(hit: Hit, verb: str, room: int) -> str:
    """One learning in at most `room` characters (its first line at least)."""
    policy = hit.policy
    after = confidence.boosted(hit.before, policy)
    gated = hit.action != "warn" or hit.rewrite is not None
    soon = gated and not confidence.blocks(hit.before, policy) and confidence.blocks(after, policy)
    acts = {"block": "blocks", "ask": "asks"}.get(hit.action, "corrects")
    scope = "global, " if hit.scope == "global" else ""
    if hit.team is not None:
        scope = f"team {sanitize.line(hit.team)}, "
    elif hit.slug is not None:  # a pack's learning: its stable id says which rule of which pack
        scope += f"{sanitize.line(hit.slug)}, "
    head = (
        f"- learning #{hit.id} ({scope}{sanitize.line(hit.severity)}, confidence "
        f"{confidence.show(hit.before)} -> {confidence.show(after)}"
        f"{f'; {hit.action}: {acts} from its next match' if soon else ''})"
    )
    labels = f"\n  {verb}: " + "\n  DO: "
    body = room - len(head) - len(labels)
    if body < 20:
        return head
    anti_pattern, correct_pattern = sanitize.line(hit.anti_pattern), sanitize.line(hit.correct_pattern)
    anti = _cut(anti_pattern, max(body // 2, body - len(correct_pattern)))
    correct = _cut(correct_pattern, body - len(anti))
    return f"{head}\n  {verb}: {anti}\n  DO: {correct}"


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def _more(rest: list[Hit]) -> str:
    if not rest:
        return ""
    ids = ", ".join(f"#{hit.id}" + (" (global)" if hit.scope == "global" else "") for hit in rest)
    show = "`cortex-hooks show ID`" + (", `--global` for a global one" if "(global)" in ids else "")
    return f"\n… and {len(rest)} more: learnings {ids} ({show})"


# What an agent reads where its hooks cannot say what Claude Code's can (cortex_hooks.agents):
# an ask where the agent has no ask, a rewrite where it cannot change a call's input.
CANNOT_ASK = (
    "This agent cannot ask the person from a hook, so the call is refused: ask the person in "
    "the conversation, and make the call only if they agree."
)
CORRECTED_HEADER = (
    f"{BLOCKED}: a learned correction applies, and this agent cannot change a call's input. "
    "Run the corrected command instead:"
)


def asked_without_asking(reason: str) -> str:
    """An ask's reason, as a deny's, for an agent that has no ask."""
    return f"{reason[: TEXT_LIMIT - len(CANNOT_ASK) - 1]}\n{CANNOT_ASK}"


def corrected_as_deny(corrected: str, context: str | None) -> str:
    """A rewrite, as a deny's reason, for an agent that cannot rewrite: the corrected command to
    run, then what was corrected (and the other matches)."""
    command = _cut(sanitize.clean(corrected), TEXT_LIMIT // 3)
    text = f"{CORRECTED_HEADER}\n{command}"
    if context:
        text += "\n" + context
    return text[:TEXT_LIMIT]
