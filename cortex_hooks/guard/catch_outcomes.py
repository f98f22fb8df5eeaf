"""What the agent did after a deny, ask or rewrite, pure (docs/guide/outcomes.md): the job of a
call, the correct way a learning names, and a catch's outcome from the calls that came after it.
SessionEnd (from the transcript, hooks.session_outcomes) and replay (replay.run) both decide
through one `Watch`.

The definitions (docs/guide/outcomes.md says them to the person):
- A call's **job**: for each simple command of a Bash call, as the guard reads it (wrappers such
  as `sudo` or `env` removed), its program and its first argument that does not begin with `-`
  (`git push --force origin main` → `git push`; `make check` → `make check`; `rm -rf build` →
  `rm build`); a Write, Edit, MultiEdit or NotebookEdit call writes its file (`write PATH`), a Read
  reads it (`read PATH`); any other tool's job is its name. The job of a catch is that of the
  simple command the learning matched (of every simple command when it matched none alone).
- A learning's **correct way**: the first command in backticks in its correct pattern
  (`` DO: `make test` ``); a call does it when one of its simple commands begins with those words
  (`<…>`, `{…}`, a word in capitals stand for any one word, `...` for the rest; a word may be
  given a value: `--force-with-lease=main`), or — when it names another program than the one
  caught (`npm install` caught, `` `pnpm install` `` the correct way) — runs that program. For a
  learning of the file tools, the first file in backticks (`` `.env.example` ``): a call does it
  when it writes or reads that file.
- A catch's **outcome**, once the agent has read the answer (the caught call's result):
  an ask the person answered (the call ran, or they refused it) is **asked**, a rewrite that ran is
  **followed**; otherwise the calls the agent made after it, in order, and the first that decides:
  **retried** when the learning matches the call again, or the call does the same job and was
  refused (another rule, the built-in protection, the client, the person); **followed** when the
  call does the correct way and was not refused, or — for a learning that names none — does the
  same job and was not refused. None: unknown, and a resumed session may still decide it.
"""

from __future__ import annotations

import re

from cortex_hooks.guard import matching, prefilter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from cortex_hooks.guard.call import Call
    from cortex_hooks.guard.shell.reader import Simple

RESULTS = ("followed", "retried", "asked")
CAUGHT = ("deny", "ask", "rewrite")  # the answers whose outcome is worked out

# What became of a call, read from its tool result.
RAN = "ran"
REFUSED = "refused"  # by a rule: a hook (ours or another's), the client's permission rules
DECLINED = "declined"  # by the person, in the permission prompt

WRITES = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
_PATHS = ("file_path", "notebook_path")
# The head of a refused call's result: Claude Code puts a hook's deny reason there as it is, the
# person's "no" and its own permission rules in its own words (2.1.197 and later).
_DECLINED = ("The user doesn't want to proceed", "The user doesn't want to take this action")
_REFUSED = (
    "cortex-hooks blocked this tool call",  # guard.verdict_texts.BLOCKED
    "cortex-hooks asks the user before this tool call",  # an ask where no one can answer (claude -p)
    "cortex-hooks corrected this",  # a corrected command refused again (guard.verdict_texts.rechecked)
    "Permission to use",
    "denied by your permission settings",
    "hook error",
    "blocked by hook",
    "denied this tool",
)
# patterns, compiled by `re` on first use: never on the hook's path (PreToolUse reads jobs only)
_SPAN = r"`([^`\n]{1,300})`"
_ANY_WORD = r"\A(?:<[^>]*>|\{[^}]*\}|[A-Z][A-Z0-9_]*(?:…|\.\.\.)?|…)\Z"
_REST = ("...", "…")
_WORD = r"\A[a-z][a-z0-9_-]*\Z"
_FILE = r"\A[\w.~/-]*[./][\w.~/-]*\Z"  # a lone word with a dot or a slash: a file


def result_of(error: bool, text: str) -> str:
    """What became of a call from its result: ran (an error of its own included: it ran), refused
    by a rule, or declined by the person."""
    if not error:
        return RAN
    head = text[:2000]
    if head.lstrip().startswith(_DECLINED):
        return DECLINED
    return REFUSED if any(marker in head for marker in _REFUSED) else RAN


# ---------------------------------------------------------------------------------------------
# The job of a call, and a learning's correct way


def jobs(call: Call, index: int | None = None) -> frozenset[str]:
    """The jobs of a call (see the module); `index`: of this simple command alone (the one a
    learning matched, guard.call.Call.where), when it reads as one."""
    command = call.command
    if command is not None:
        from cortex_hooks.guard.shell import reader

        reading = reader.read(command)
        chosen = reading.commands[index] if index is not None and 0 <= index < len(reading.commands) else None
        if chosen is not None and not (chosen.wrapped or chosen.pipeline):  # a form with its wrapper: all
            job = _job(chosen)
            if job is not None:
                return frozenset((job,))
        return frozenset(job for simple in _plain(reading.commands) if (job := _job(simple)) is not None)
    path = next(
        (value for field in _PATHS if isinstance(value := call.input.get(field), str) and value), None
    )
    if path is not None and call.tool in WRITES:
        return frozenset((f"write {path}",))
    if path is not None and call.tool == "Read":
        return frozenset((f"read {path}",))
    return frozenset((call.tool,))


def caught_jobs(call: Call, regex: str, target: str, timeouts: tuple[float, float]) -> frozenset[str]:
    """The jobs of a caught call: of the simple command the learning's regex matched (a learning
    of target content; one that reads the raw string matched no simple command alone): the hook
    and replay both ask here."""
    index = None
    if target == "content":
        try:
            index = call.where(regex, target, timeouts)
        except matching.Unusable:
            index = None
    return jobs(call, index)


class Way:
    """The correct way a learning names: the first span in backticks of its correct pattern that
    reads as a command (its words: `make test`; a lone word only when it is a plain program name,
    `pnpm`, not `package.json` nor `--force-with-lease`), and the first that names a file (a lone
    word with a dot or a slash: `.env.example`), for a learning of the file tools."""

    __slots__ = ("file", "words")

    def __init__(self, words: tuple[str, ...] | None, file: str | None) -> None:
        self.words = words
        self.file = file

    @classmethod
    def of(cls, correct_pattern: str) -> Way:
        words: tuple[str, ...] | None = None
        file = None
        for found in re.findall(_SPAN, correct_pattern):
            span = found.strip()
            if file is None and re.match(_FILE, span):
                file = span
            if words is None:
                words = _command_words(span)
        return cls(words, file)

    def done_by(self, call: Call, caught: frozenset[str]) -> bool:
        """Whether the call does it: writes or reads that file; or one of its simple commands
        runs the program named, when it is another program than the one caught (a program swap:
        `npm install` caught, `pnpm …` is the correct way), else begins with its words (each may
        be given a value: `--force-with-lease=main`)."""
        if self.file is not None and call.command is None:
            path = next((value for field in _PATHS if isinstance(value := call.input.get(field), str)), "")
            named = self.file[2:] if self.file.startswith("./") else self.file
            return bool(path) and (path == named or path.endswith("/" + named))
        way, command = self.words, call.command
        if way is None or command is None or way[0] not in command:
            return False
        from cortex_hooks.guard.shell import reader

        swapped = all(job.split(" ", 1)[0] != way[0] for job in caught)
        for simple in _plain(reader.read(command).commands):
            words = _words(simple)
            if words and words[0] == way[0] and (swapped or _begins(words, way)):
                return True
        return False


def form(correct_pattern: str) -> tuple[str, ...] | None:
    """The command words of a learning's correct way (see Way), or None."""
    return Way.of(correct_pattern).words


def _command_words(span: str) -> tuple[str, ...] | None:
    from cortex_hooks.guard.shell import reader

    simples = _plain(reader.read(span).commands)
    words = _words(simples[0]) if simples else []
    if not words or words[0].startswith("-") or re.match(_ANY_WORD, words[0]):
        return None
    if len(words) == 1 and not re.match(_WORD, words[0]):
        return None
    return tuple(words)


def _begins(words: list[str], way: Sequence[str]) -> bool:
    for number, wanted in enumerate(way):
        if wanted in _REST:
            return True
        if number >= len(words):
            return False
        given = words[number]
        if (
            given != wanted
            and not given.startswith(wanted + "=")
            and not (number and re.match(_ANY_WORD, wanted))
        ):
            return False
    return True


def _plain(simples: list[Simple]) -> list[Simple]:
    """The simple commands themselves, not their forms with wrappers nor the pipelines they make."""
    return [simple for simple in simples if not (simple.wrapped or simple.pipeline)]


def _words(simple: Simple) -> list[str]:
    """A simple command's words as the shell will use them: the program's base name, then each
    argument's value."""
    from cortex_hooks.guard.shell import invocation as shell_words

    invocation = shell_words.invocation(simple)
    if invocation is not None:
        return [invocation.program, *invocation.values()] if invocation.program else []
    words = simple.text.split()
    if words:
        words[0] = words[0].rsplit("/", 1)[-1]
    return words


def _job(simple: Simple) -> str | None:
    words = _words(simple)
    if not words:
        return None
    argument = next((word for word in words[1:] if not word.startswith("-")), None)
    return f"{words[0]} {argument}" if argument else words[0]


def _mentions(jobs: frozenset[str], call: Call) -> bool:
    """Whether the call may do one of these jobs: a program's name, or the file's path, is in it
    (a plain substring test before the command is read)."""
    command = call.command
    if command is not None:
        return any(job.split(" ", 1)[0] in command for job in jobs)
    return True  # another tool: its jobs cost nothing to know


def intended(
    regex: str, target: str, caught: str, followed: str, timeouts: tuple[float, float]
) -> str | None:
    """The rewrite a learning would need to turn the caught command into the one the agent ran
    instead (its own retry shows the intended command: capture proposes it): when each
    is one simple command and they differ only within the learning's match — `git push --force
    origin main` then `git push --force-with-lease origin main`: the rewrite `git push
    --force-with-lease`. None when it cannot be said so, or the rewrite would match its own
    learning again."""
    from cortex_hooks.errors import CortexError
    from cortex_hooks.guard import rewrite
    from cortex_hooks.guard.call import Call
    from cortex_hooks.guard.shell import reader

    if target not in rewrite.TARGETS or caught == followed:
        return None
    if len(reader.read(caught).texts()) != 1 or len(reader.read(followed).texts()) != 1:
        return None  # a correction among other commands would carry them into the rewrite
    call = Call(matching.READ_TOOL, {"command": caught})
    try:
        index = call.where(regex, target, timeouts)
    except matching.Unusable:
        return None
    if index is None:
        return None
    subject = call.subject(target)
    marked = rewrite.correct(regex, _MARK, caught, subject, index=index, timeouts=timeouts).command
    if marked is None or marked.count(_MARK) != 1:
        return None
    before, after = marked.split(_MARK)
    if not (followed.startswith(before) and followed.endswith(after)) or len(followed) < len(before) + len(
        after
    ):
        return None
    template = followed[len(before) : len(followed) - len(after)].replace("\\", "\\\\")
    try:
        rewrite.check(regex, template, target)
    except CortexError:
        return None
    done = rewrite.correct(regex, template, caught, subject, index=index, timeouts=timeouts).command
    return template if done == followed else None


_MARK = "\x00"  # where a rewrite would go: no command holds it


# ---------------------------------------------------------------------------------------------
# A catch and its outcome


class Rule:
    """The caught learning as its outcome reads it: its regex, tool matcher and target (and the
    regex timeouts of its scope) to see it match again, and its correct way (`way`)."""

    __slots__ = ("literals", "regex", "target", "timeouts", "tool", "way")

    def __init__(
        self,
        regex: str | None,
        tool: str,
        target: str,
        correct_pattern: str,
        timeouts: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        self.regex = regex
        self.tool = tool
        self.target = target
        self.timeouts = timeouts
        self.literals = prefilter.literals(regex) if regex else None
        self.way = Way.of(correct_pattern)

    def repeats(self, call: Call) -> bool:
        """Whether the learning matches this call (as the judge's matching reads it); a regex that
        cannot decide says no."""
        if not self.regex or not matching.tool_accepts(self.tool, call.tool):
            return False
        letter, fragments = prefilter.lookup(self.target, call.tool, call.texts(self.target))
        if not prefilter.satisfied(self.literals, fragments, loose=letter == prefilter.LOOSE):
            return False
        try:
            return call.where(self.regex, self.target, self.timeouts) is not None
        except matching.Unusable:
            return False


class Catch:
    """A deny, ask or rewrite of one learning (`rule`): its answer, the caught call's id and
    jobs, from which byte of the session its own result is looked for (`start`), and the caller's
    `key` for it (a row's id, a learning's)."""

    __slots__ = ("answer", "call_id", "jobs", "key", "named", "rule", "start")

    def __init__(
        self,
        answer: str,
        call_id: str,
        jobs: frozenset[str],
        rule: Rule,
        *,
        start: int = 0,
        key: object = None,
    ) -> None:
        self.answer = answer
        self.call_id = call_id
        self.jobs = jobs
        self.rule = rule
        self.start = start
        self.key = key
        files = any(job.startswith(("write ", "read ")) for job in jobs)
        # whether the learning names a correct way for this catch: a file for a file's job, else a command
        self.named = (rule.way.file if files else rule.way.words) is not None


class Seen:
    """One event of a session as the outcomes read it, in order: a call (`call`, with its `id`)
    or a call's result (`result`: ran, refused or declined), each with the byte it was read at."""

    __slots__ = ("call", "id", "offset", "result", "source")

    def __init__(
        self,
        id: str,
        *,
        call: Call | None = None,
        result: str | None = None,
        offset: int = 0,
        source: object = None,
    ) -> None:
        self.id = id
        self.call = call
        self.result = result
        self.offset = offset
        self.source = source  # the caller's own record of the event (replay: the transcript's line)


Decision = tuple[str, "Seen | None"]  # the outcome, and the call that decided it (None: its own result)


class _Later:
    """A call after a catch that may decide it (the learning matches it again, it does the same
    job, or the correct way), and what became of it (None: not read yet)."""

    __slots__ = ("event", "follows", "owner", "repeats", "result", "same")

    def __init__(self, event: Seen, owner: _Open, repeats: bool, same: bool, follows: bool) -> None:
        self.event = event
        self.owner = owner
        self.repeats = repeats  # the learning matches it again
        self.same = same  # it does the caught call's job
        self.follows = follows  # once it ran: the correct way (or, without one, the same job)
        self.result: str | None = None


class _Open:
    """A catch not decided yet: whether the agent has read its answer (`armed`), and the calls
    after it that may decide it, in order, the first waiting for its result."""

    __slots__ = ("armed", "catch", "done", "queue")

    def __init__(self, catch: Catch) -> None:
        self.catch = catch
        self.armed = False
        self.done = False
        self.queue: list[_Later] = []


class Watch:
    """The open catches of one session, decided as its events go by, in the order they were
    written (see the module for the rules): a catch's own result arms it (or decides an ask or a
    rewrite); after it, the first call that decides it. Only the calls that may decide an open
    catch are kept: a transcript of any size is read in little memory."""

    def __init__(self) -> None:
        self._unarmed: dict[str, list[_Open]] = {}  # by the caught call's id: awaiting its own result
        self._armed: list[_Open] = []
        self._results: dict[str, list[_Later]] = {}  # the latest call of each id, awaiting its result
        self.decided: list[tuple[Catch, Decision]] = []

    @property
    def open(self) -> list[Catch]:
        waiting = [one for ones in self._unarmed.values() for one in ones] + self._armed
        return [one.catch for one in waiting]

    @property
    def armed(self) -> list[Catch]:
        """The open catches whose own result was read: what came after it decided nothing yet."""
        return [waiting.catch for waiting in self._armed if not waiting.done]

    @property
    def idle(self) -> bool:
        """Whether no catch is open: nothing more can be decided."""
        return not self._unarmed and not self._armed

    def awaits(self, call_id: str) -> bool:
        """Whether the result of a call of this id can decide something: a caught call's own, or
        a call an open catch waits on."""
        return call_id in self._unarmed or call_id in self._results

    def add(self, catch: Catch) -> None:
        self._unarmed.setdefault(catch.call_id, []).append(_Open(catch))

    def see(self, event: Seen) -> None:
        if event.call is not None:
            self._call(event)
        elif event.result is not None:
            self._result(event)

    def _call(self, event: Seen) -> None:
        call = event.call
        assert call is not None
        later: list[_Later] = []
        repeated: dict[int, bool] = {}  # by rule: the catches of one learning ask once per call
        done: list[frozenset[str]] = []  # the call's own jobs, read once
        touched = []
        for waiting in self._armed:
            catch = waiting.catch
            repeats = repeated.get(id(catch.rule))
            if repeats is None:
                repeats = repeated[id(catch.rule)] = catch.rule.repeats(call)
            same = False
            if not repeats and _mentions(catch.jobs, call):
                if not done:
                    done.append(jobs(call))
                same = not catch.jobs.isdisjoint(done[0])
            named = catch.named
            correct = not repeats and named and catch.rule.way.done_by(call, catch.jobs)
            if repeats or same or correct:
                item = _Later(event, waiting, repeats, same, correct or (not named and same))
                waiting.queue.append(item)
                later.append(item)
                touched.append(waiting)
        if later:
            self._results[event.id] = later  # an id seen again (a resumed mock session's): the latest
        else:
            self._results.pop(event.id, None)
        self._advance(touched)

    def _result(self, event: Seen) -> None:
        touched = []
        for item in self._results.pop(event.id, []):
            item.result = event.result
            touched.append(item.owner)
        unarmed = self._unarmed.get(event.id, [])
        for waiting in [one for one in unarmed if event.offset >= one.catch.start]:
            unarmed.remove(waiting)
            own = _own(waiting.catch.answer, event.result)
            if own is not None:
                self.decided.append((waiting.catch, own))
            else:
                waiting.armed = True
                self._armed.append(waiting)
        if not unarmed:
            self._unarmed.pop(event.id, None)
        self._advance(touched)

    def _advance(self, touched: list[_Open]) -> None:
        """The catches these events touched, decided where their first deciding call now decides."""
        decided = False
        for waiting in dict.fromkeys(touched):
            if waiting.done:  # a result of a call it was decided by, or came after
                continue
            found = _first(waiting.queue)
            if found is not None:
                waiting.done = decided = True
                self.decided.append((waiting.catch, found))
        if decided:
            self._armed = [waiting for waiting in self._armed if not waiting.done]


def _own(answer: str, result: str | None) -> Decision | None:
    """What the caught call's own result decides: an ask the person answered, a rewrite that ran."""
    if result == RAN and answer == "ask":
        return "asked", None
    if result == RAN and answer == "rewrite":
        return "followed", None
    if result == DECLINED and answer in ("ask", "rewrite"):
        return "asked", None
    return None


def _first(queue: list[_Later]) -> Decision | None:
    """The decision of the first call that decides (dropping, from the front, those that did not);
    None while the first that may decide waits for its result."""
    while queue:
        head = queue[0]
        if head.repeats:
            return "retried", head.event
        if head.result is None:
            return None
        if head.result in (REFUSED, DECLINED):
            if head.same:
                return "retried", head.event
        elif head.follows:
            return "followed", head.event
        queue.pop(0)
    return None


def decide(catch: Catch, own: str | None, later: Iterable[tuple[Call, str | None]]) -> Decision | None:
    """One catch's outcome from what became of the caught call (`own`; None: not read yet) and the
    calls after it, each with what became of it (None: not read yet); None while nothing decides
    it. (A Watch fed these events in this order.)"""
    watch = Watch()
    watch.add(catch)
    if own is not None:
        watch.see(Seen(catch.call_id, result=own, offset=catch.start))
    for number, (call, result) in enumerate(later):
        watch.see(Seen(f"later {number}", call=call))
        if result is not None:
            watch.see(Seen(f"later {number}", result=result))
    return watch.decided[0][1] if watch.decided else None
