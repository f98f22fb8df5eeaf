"""The pure core of the outcomes (guard.catch_outcomes, docs/guide/outcomes.md): a call's job, a learning's
correct way,
what a result says, a catch's outcome from the calls after it, the rewrite a retry shows; and the
invariants: no event sequence decides a catch twice or raises."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_hooks.guard import catch_outcomes
from cortex_hooks.guard.call import Call

TIMEOUTS = (1.0, 1.0)


def bash(command: str) -> Call:
    return Call("Bash", {"command": command})


@pytest.mark.parametrize(
    ("command", "jobs"),
    [
        ("git push --force origin main", {"git push"}),
        ("make check", {"make check"}),
        ("rm -rf build", {"rm build"}),
        ("sudo npm install -g typescript", {"npm install"}),
        ("env CI=1 make test", {"make test"}),
        ("/usr/bin/git status", {"git status"}),
        ("cd web && make test 2>&1 | tail -20", {"cd web", "make test", "tail"}),
        ("ls", {"ls"}),
        ("python3 -c 'import shutil'", {"python3 import shutil"}),  # a quoted word is an argument too
        ("bash -c 'git push --force'", {"bash git push --force", "git push"}),
    ],
)
def test_the_job_of_a_bash_call_is_each_program_and_its_first_argument(command: str, jobs: set[str]) -> None:
    assert catch_outcomes.jobs(bash(command)) == jobs


def test_the_job_of_a_catch_is_that_of_the_simple_command_it_matched() -> None:
    call = bash("cd web && make check")
    index = call.where(r"^make check\b", "content", TIMEOUTS)
    assert catch_outcomes.jobs(call, index) == {"make check"}
    assert catch_outcomes.caught_jobs(call, r"^make check\b", "content", TIMEOUTS) == {"make check"}
    # a match in the form with its wrapper: the command it wraps; the raw string: every command
    assert catch_outcomes.caught_jobs(bash("sudo git push -f"), r"^sudo git", "content", TIMEOUTS) == {
        "git push"
    }
    assert catch_outcomes.caught_jobs(call, r"make check", "raw", TIMEOUTS) == {"cd web", "make check"}


@pytest.mark.parametrize(
    ("tool", "tool_input", "jobs"),
    [
        ("Write", {"file_path": "/p/.env", "content": "x"}, {"write /p/.env"}),
        ("Edit", {"file_path": "/p/a.py", "old_string": "a", "new_string": "b"}, {"write /p/a.py"}),
        ("NotebookEdit", {"notebook_path": "/p/n.ipynb", "new_source": "x"}, {"write /p/n.ipynb"}),
        ("Read", {"file_path": "/p/a.py"}, {"read /p/a.py"}),
        ("WebFetch", {"url": "https://example.com", "prompt": "x"}, {"WebFetch"}),
        ("mcp__github__create_issue", {"title": "x"}, {"mcp__github__create_issue"}),
    ],
)
def test_the_job_of_another_tool_is_its_file_or_its_name(
    tool: str, tool_input: dict[str, str], jobs: set[str]
) -> None:
    assert catch_outcomes.jobs(Call(tool, tool_input)) == jobs


@pytest.mark.parametrize(
    ("correct", "words", "file"),
    [
        ("`make test`", ("make", "test"), None),
        ("run `make clean`, which keeps the cache", ("make", "clean"), None),
        ("this project uses pnpm: `pnpm install`", ("pnpm", "install"), None),
        ("use `pnpm`", ("pnpm",), None),
        (
            "`git push --force-with-lease`, which refuses when the remote moved",
            ("git", "push", "--force-with-lease"),
            None,
        ),
        ("git branch -d NAME, which refuses while unmerged", None, None),  # no backticks: names none
        ("keep `--force-with-lease` in mind", None, None),  # an option is no command
        ("see `package.json`", None, "package.json"),  # a file, for the file tools
        ("write `.env.example`, with placeholders", None, ".env.example"),
        ("`FOO` then `make test`", ("make", "test"), None),  # a placeholder is no command
    ],
)
def test_the_correct_way_is_the_first_command_in_backticks(
    correct: str, words: tuple[str, ...] | None, file: str | None
) -> None:
    way = catch_outcomes.Way.of(correct)
    assert (way.words, way.file) == (words, file)


@pytest.mark.parametrize(
    ("correct", "caught", "command", "does"),
    [
        ("`make test`", "make check", "make test", True),
        ("`make test`", "make check", "cd web && make test -j4", True),
        ("`make test`", "make check", "make tests", False),
        ("`make test`", "make check", "make", False),
        (
            "`git push --force-with-lease`",
            "git push",
            "git push --force-with-lease=main:abc origin main",
            True,
        ),
        ("`git push --force-with-lease`", "git push", "git push origin main", False),
        ("`pnpm install`", "npm install", "pnpm add lodash", True),  # another program named: any call of it
        ("`git stash` first", "git reset", "git stash push -m x", True),
        ("`git stash` first", "git reset", "git status", False),
        ("`git push origin <branch>`", "git push", "git push origin feature", True),
        ("`npx prettier ...`", "prettier", "npx prettier --write .", True),
    ],
)
def test_a_call_does_the_correct_way(correct: str, caught: str, command: str, does: bool) -> None:
    assert catch_outcomes.Way.of(correct).done_by(bash(command), frozenset({caught})) is does


@pytest.mark.parametrize(
    ("error", "text", "result"),
    [
        (False, "412 passed", catch_outcomes.RAN),
        (True, "Exit code 1\nFAILED", catch_outcomes.RAN),  # an error of its own: it ran
        (True, "cortex-hooks blocked this tool call: it matches …", catch_outcomes.REFUSED),
        (True, "cortex-hooks asks the user before this tool call: …", catch_outcomes.REFUSED),
        (True, "Permission to use Bash with command rm -rf .cortex has been denied.", catch_outcomes.REFUSED),
        (True, "PreToolUse:Bash hook error: [/x/hook]: no", catch_outcomes.REFUSED),
        (
            True,
            "The user doesn't want to proceed with this tool use. The tool use was rejected",
            catch_outcomes.DECLINED,
        ),
        (True, "[Request interrupted by user for tool use]", catch_outcomes.RAN),
    ],
)
def test_what_a_result_says(error: bool, text: str, result: str) -> None:
    assert catch_outcomes.result_of(error, text) == result


MAKE = catch_outcomes.Rule(r"^make check\b", "Bash", "content", "`make test`", TIMEOUTS)
NAMES_NONE = catch_outcomes.Rule(r"^git branch\b.*\s-D\b", "Bash", "content", "git branch -d NAME", TIMEOUTS)
ENV = catch_outcomes.Rule(r"(?:^|/)\.env$", "Write", "path", "write `.env.example`", TIMEOUTS)
RAN, REFUSED, DECLINED = catch_outcomes.RAN, catch_outcomes.REFUSED, catch_outcomes.DECLINED


def catch(
    rule: catch_outcomes.Rule, answer: str = "deny", jobs: tuple[str, ...] = ("make check",)
) -> catch_outcomes.Catch:
    return catch_outcomes.Catch(answer, "caught", frozenset(jobs), rule)


@pytest.mark.parametrize(
    ("caught", "own", "later", "decided"),
    [
        # deny, then the correct command; the same command; a workaround; nothing
        (catch(MAKE), REFUSED, [("make test", RAN)], "followed"),
        (catch(MAKE), REFUSED, [("ls", RAN), ("make test", RAN)], "followed"),
        (catch(MAKE), REFUSED, [("make check", REFUSED)], "retried"),
        (catch(MAKE), REFUSED, [("make check", None)], "retried"),  # a repeat decides before its result
        (catch(MAKE), REFUSED, [("make check", REFUSED), ("make test", RAN)], "retried"),  # the first decides
        (catch(MAKE), REFUSED, [("make -k check", REFUSED)], "retried"),  # the same job, refused
        (catch(MAKE), REFUSED, [("make -k check", RAN)], None),  # the same job, not the correct way
        (catch(MAKE), REFUSED, [("make test", REFUSED)], None),  # the correct way, refused: not followed
        (catch(MAKE), REFUSED, [("make test", None)], None),  # waits for its result
        (catch(MAKE), REFUSED, [("find build -delete", RAN)], None),
        (catch(MAKE), REFUSED, [], None),
        (catch(MAKE), None, [("make test", RAN)], None),  # the agent never read the answer
        # no correct way named: the same job without the anti-pattern
        (catch(NAMES_NONE, jobs=("git branch",)), REFUSED, [("git branch -d x", RAN)], "followed"),
        (catch(NAMES_NONE, jobs=("git branch",)), REFUSED, [("git branch -d x", DECLINED)], "retried"),
        # ask: the person answered; in claude -p, refused like a deny
        (catch(MAKE, "ask"), RAN, [], "asked"),
        (catch(MAKE, "ask"), DECLINED, [("make check", REFUSED)], "asked"),
        (catch(MAKE, "ask"), REFUSED, [("make test", RAN)], "followed"),
        # a rewrite that ran; one refused again
        (catch(MAKE, "rewrite"), RAN, [("make check", REFUSED)], "followed"),
        (catch(MAKE, "rewrite"), REFUSED, [("make check", RAN)], "retried"),
    ],
)
def test_the_outcome_of_a_catch(
    caught: catch_outcomes.Catch, own: str | None, later: list[tuple[str, str | None]], decided: str | None
) -> None:
    found = catch_outcomes.decide(caught, own, [(bash(command), result) for command, result in later])
    assert (found[0] if found else None) == decided


def test_a_file_learning_is_followed_by_the_file_it_names() -> None:
    caught = catch_outcomes.Catch("deny", "caught", frozenset({"write /p/.env"}), ENV)
    example = Call("Write", {"file_path": "/p/.env.example", "content": "KEY="})
    again = Call("Write", {"file_path": "/p/.env", "content": "KEY=1"})
    followed = catch_outcomes.decide(caught, REFUSED, [(example, RAN)])
    assert followed is not None
    assert followed[0] == "followed"
    retried = catch_outcomes.decide(caught, REFUSED, [(again, REFUSED)])
    assert retried is not None
    assert retried[0] == "retried"


@pytest.mark.parametrize(
    ("regex", "caught", "followed", "rewrite"),
    [
        (
            r"^git push\b.*--force(?![\w-])",
            "git push --force origin main",
            "git push --force-with-lease origin main",
            "git push --force-with-lease",
        ),
        (r"^make check\b", "make check", "make test", "make test"),
        (r"^npm (?:install|i)\b", "npm install lodash", "pnpm install lodash", "pnpm install"),
        (r"^make check\b", "make check", "cd web && make test", None),  # among other commands
        (r"^make check\b", "make check", "make check", None),  # nothing changed
        (r"^make check\b", "cd a && make check", "cd a && make test", None),  # the denied call had two
        (r"make", "make check", "make test", None),  # the rewrite would match its own learning
    ],
)
def test_the_rewrite_a_retry_shows(regex: str, caught: str, followed: str, rewrite: str | None) -> None:
    assert catch_outcomes.intended(regex, "content", caught, followed, TIMEOUTS) == rewrite


COMMANDS = st.sampled_from(["make check", "make test", "make -k check", "ls", "git status", "make check V=1"])
EVENTS = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.integers(0, 5), COMMANDS),
        st.tuples(st.just("result"), st.integers(0, 5), st.sampled_from([RAN, REFUSED, DECLINED])),
        st.tuples(st.just("catch"), st.integers(0, 5), st.sampled_from(["deny", "ask", "rewrite"])),
    ),
    max_size=40,
)


@given(EVENTS)
def test_no_sequence_of_events_decides_a_catch_twice_or_raises(events: list[tuple[str, int, str]]) -> None:
    watch = catch_outcomes.Watch()
    added: list[catch_outcomes.Catch] = []
    for offset, (kind, number, value) in enumerate(events):
        call_id = f"toolu_{number}"
        if kind == "call":
            watch.see(catch_outcomes.Seen(call_id, call=bash(value), offset=offset))
        elif kind == "result":
            watch.see(catch_outcomes.Seen(call_id, result=value, offset=offset))
        else:
            one = catch_outcomes.Catch(
                value, call_id, frozenset({"make check"}), MAKE, start=offset, key=len(added)
            )
            added.append(one)
            watch.add(one)
    decided = [caught.key for caught, _ in watch.decided]
    assert len(decided) == len(set(decided))
    assert {result for _, (result, _) in watch.decided} <= set(catch_outcomes.RESULTS)
    assert len(decided) + len(watch.open) == len(added)
