"""The text of a replay: what the guard would have done, learning by learning, with examples."""

from __future__ import annotations

from typing import Any

from cortex_hooks.texts.words import clean

_VERBS = {"denied": "denied", "asked": "asked about", "rewritten": "rewritten", "warned": "warned about"}
_ANSWERED = {"deny": "denied", "ask": "asked", "rewrite": "rewrote", "warn": "warned"}


def replayed(report: dict[str, Any], *, title: str | None = None) -> str:
    """The whole report: what was read, what the guard would have done, each learning that
    matched with its examples, and how many matched nothing."""
    where = ", ".join(clean(path, one_line=True) for path in report["paths"])
    since = f", calls since {report['since'][:10]}" if report["since"] else ""
    lines = [title] if title else []
    lines.append(
        f"Replayed {report['transcripts']:,} transcript{'s' if report['transcripts'] != 1 else ''} "
        f"({report['calls']:,} tool calls) from {where}{since}."
    )
    answers = report["answers"]
    done = [
        f"{_VERBS[name]} {answers[answer]:,}"
        for answer, name in (
            ("deny", "denied"),
            ("ask", "asked"),
            ("rewrite", "rewritten"),
            ("warn", "warned"),
        )
        if answers[answer]
    ]
    lines.append(
        "No tool call was read, so there is nothing to judge."
        if not report["calls"]
        else "The guard would have " + (", ".join(done) + " calls." if done else "let every call through.")
    )
    built_in = report.get("built_in")
    if built_in and built_in["matched"]:  # counted under its own name (SPEC §20)
        lines += ["", f"The built-in protection would have denied {built_in['denied']:,} calls:"]
        lines += [
            f"    e.g. {example['at'][:10] or '?'} denied: {_cut(clean(example['call'], one_line=True), 120)}"
            for example in built_in["examples"]
        ]
    quiet = 0
    for learning in report["learnings"]:
        if not learning["matched"]:
            quiet += 1
            continue
        lines += ["", *_learning(learning)]
    if quiet:
        lines += ["", f"{quiet} learning{'s' if quiet != 1 else ''} matched no call."]
    lines.append("Nothing was written: a replay is read only.")
    return "\n".join(lines)


def name(learning: dict[str, Any]) -> str:
    """How a report names a learning: its id, its pack slug, or the proposal it would come from."""
    if learning["id"] is not None:
        return f"#{learning['id']}" + (" (global)" if learning["scope"] == "global" else "")
    if learning["slug"] is not None:
        return str(learning["slug"])
    return f"proposal #{learning['proposal']}"


def _learning(learning: dict[str, Any]) -> list[str]:
    rewrite = learning["rewrite"]
    acts = learning["action"] + (
        f", rewrite to `{clean(rewrite, one_line=True)[:60]}`" if rewrite is not None else ""
    )
    trust = "" if learning["trusted"] else " — not trusted yet: it warns until its confidence passes the gate"
    counts = ", ".join(
        f"{_VERBS[key]} {learning[key]:,}"
        for key in ("denied", "asked", "rewritten", "warned")
        if learning[key]
    )
    lines = [
        f"{name(learning)} {_cut(clean(learning['anti_pattern'], one_line=True), 80)}",
        f"    {acts}, confidence {learning['confidence']:.2f}{trust}",
        f"    matched {learning['matched']:,} call{'s' if learning['matched'] != 1 else ''}:"
        f" would have {counts}",
    ]
    lines += _after(learning.get("outcomes"))
    for example in learning["examples"]:
        corrected = example["corrected"]
        then = f"\n          -> {_cut(clean(corrected, one_line=True), 120)}" if corrected is not None else ""
        lines.append(
            f"    e.g. {example['at'][:10] or '?'} {_ANSWERED[example['answer']]}: "
            f"{_cut(clean(example['call'], one_line=True), 120)}{then}"
        )
    return lines


def _after(outcomes: dict[str, Any] | None) -> list[str]:
    """What the agent did after the calls it would have caught (SPEC §23), and the latest call it
    retried the anti-pattern with."""
    if not outcomes or not outcomes["caught"]:
        return []
    answered = f", the person answered {outcomes['asked']:,}" if outcomes["asked"] else ""
    lines = [
        f"    after them the agent followed the correct way {outcomes['followed']:,}, retried the "
        f"anti-pattern {outcomes['retried']:,}{answered}, unknown {outcomes['unknown']:,}"
    ]
    last = outcomes["last_retried"]
    if last is not None:
        lines.append(
            f"    last retried {last['at'][:10] or '?'}: {_cut(clean(last['call'], one_line=True), 120)}"
        )
    return lines


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"
