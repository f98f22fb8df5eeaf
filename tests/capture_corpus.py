"""A synthetic corpus of sessions for capture's precision: everyday work (TDD loops, searches
that find nothing, git, pushes rejected and fixed with an added step, harmless "no" prompts) with
a few real mistakes mixed in, deterministic from a seed."""

from __future__ import annotations

import random

from transcripts import NOT_FOUND, Transcript

PYTEST_FAIL = (
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.7, pytest-8.3.2\ncollected 12 items\n\n"
    "tests/test_{n}.py ..F.\n\nFAILED tests/test_{n}.py::test_parse - AssertionError: assert 1 == 2\n"
    "1 failed, 11 passed in 0.31s"
)


def everyday(t: Transcript, rng: random.Random) -> None:
    for _ in range(rng.randint(3, 8)):
        scene = rng.choice(
            ["tdd", "grep", "git", "look", "push", "traceback", "npm", "rg", "diff", "question", "thanks"]
        )
        n = rng.randint(1, 30)
        if scene == "tdd":
            t.bash(f"pytest tests/test_{n}.py -q", PYTEST_FAIL.format(n=n), code=1)
            t.tool("Edit", {"file_path": f"src/m{n}.py", "old_string": "1", "new_string": "2"}, "ok")
            t.bash(f"pytest tests/test_{n}.py -q", "12 passed")
            t.bash(f"uv run pytest tests/test_{n + 1}.py", PYTEST_FAIL.format(n=n + 1), code=1)
            t.bash(f"uv run pytest tests/test_{n + 2}.py", "3 passed")
        elif scene == "grep":
            t.bash(f"grep -rn handler_{n} src", "", code=1).bash(f"grep -rn Handler{n} src", "src/a.py:3: x")
        elif scene == "rg":
            t.bash(f"cd src && rg 'fn_{n}'", "", code=1).bash(f"cd src && rg 'func_{n}'", "a.py:1")
        elif scene == "diff":
            t.bash(f"diff out_{n}.txt expected.txt", "1c1\n< a\n---\n> b", code=1).bash(
                f"diff out_{n + 1}.txt expected.txt"
            )
        elif scene == "git":
            t.bash("git status").bash("git diff --stat").bash("git add -A").bash(f"git commit -m 'step {n}'")
        elif scene == "look":
            t.bash("ls -la").bash(f"cat src/m{n}.py").tool("Read", {"file_path": f"src/m{n}.py"}, "code")
        elif scene == "push":
            t.bash(
                "git push", "! [rejected] main -> main (fetch first)\nerror: failed to push some refs", code=1
            )
            t.bash("git pull --rebase && git push")
        elif scene == "traceback":
            t.bash(f"python3 scripts/run_{n}.py", "Traceback ...\nNameError: name 'x' is not defined", code=1)
            t.tool("Edit", {"file_path": f"scripts/run_{n}.py", "old_string": "x", "new_string": "y"}, "ok")
            t.bash(f"python3 scripts/run_{n}.py", "done")
        elif scene == "npm":
            t.bash("npm test", "FAIL src/app.test.js\n  ✕ renders (5 ms)", code=1).bash(
                "npm test -- --watch=false"
            )
        elif scene == "question":
            t.prompt(rng.choice(["no, why did that fail?", "no worries, keep going", "never mind the lint"]))
        else:
            t.prompt(rng.choice(["no problem", "no need to run the tests again", "thanks, looks good"]))


def corpus(sessions: int = 40, seed: int = 14) -> list[Transcript]:
    rng = random.Random(seed)
    found = []
    for number in range(sessions):
        t = Transcript(f"corpus-{number:02d}").prompt("Work on the next task.")
        everyday(t, rng)
        # The project's real mistakes, each in some sessions:
        if number % 5 == 1:  # python does not exist here, python3 does
            t.bash("python manage.py migrate", NOT_FOUND.format(word="python"), code=127)
            t.bash("python3 manage.py migrate")
        if number % 7 == 3:  # pytest only in the uv environment
            t.bash("python3 -m pytest -x", "/usr/bin/python3: No module named pytest", code=1)
            t.bash("uv run python3 -m pytest -x")
        if number % 11 == 4:  # the Makefile has test, not check
            t.bash("make check", "make: *** No rule to make target 'check'.  Stop.", code=2).bash("make test")
        if number == 9:  # a typo made once: never proposed
            t.bash("gti status", NOT_FOUND.format(word="gti"), code=127).bash("git status")
        if number == 12:  # the person's correction, at first sight
            t.bash("npm install left-pad").prompt("no, use pnpm not npm in this repo")
        if number == 20:  # a redirect, not a rule: it names nothing the calls did
            t.bash("ls").prompt("no, look at the other folder first")
        everyday(t, rng)
        found.append(t)
    return found
