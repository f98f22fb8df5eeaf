"""Every `console` example of the docs is run, and prints what it shows: an example that prints
something else fails here (tests/docs_examples.py says how a page is run and what is normalized)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_examples import ELLIPSIS, ROOT, agrees, blocks, difference, missing, pages, run
from support import SCRIPTS

VENV = SCRIPTS.parent
PAGES = [page for page in pages() if blocks(page)]


def test_the_docs_have_console_examples_to_run() -> None:
    names = {page.name for page in PAGES}
    assert "README.md" in names
    assert sum(len(blocks(page)) for page in PAGES) >= 20


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_console_example_prints_what_it_shows(page: Path, tmp_path: Path) -> None:
    if absent := missing(page):
        pytest.skip(f"{page.name}'s examples need {', '.join(absent)} (an optional extra)")
    ran = run(page, tmp_path, VENV)
    wrong = [difference(each) for each in ran if not agrees(each.command.expected, each.actual)]
    assert not wrong, "\n\n".join(wrong)


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_every_setup_comment_belongs_to_a_console_block(page: Path) -> None:
    """A setup written anywhere but right before a console block would be silently skipped."""
    written = len(re.findall(r"^\s*<!--\s*setup:", page.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert written == sum(1 for block in blocks(page) if block.setup)


def test_an_example_that_prints_something_else_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n"
        "<!-- setup: cortex-hooks add --anti-pattern a --correct b --regex a -->\n"
        "```console\n"
        "$ cortex-hooks list --json | grep -c anti_pattern\n"
        "2\n"
        "$ echo one; echo two >&2\n"
        "one\n"
        "two\n"
        "$ pwd\n"
        "/home/dev/code/my-app\n"
        "$ cat\n"
        "$ echo after\n"
        "after\n"
        "```\n",
        encoding="utf-8",
    )
    first, second, third, reading, after = run(page, tmp_path / "world", VENV)
    assert first.actual == ("1",)  # the setup's learning, and the install's database: not 2
    assert not agrees(first.command.expected, first.actual)
    assert agrees(second.command.expected, second.actual)
    assert agrees(third.command.expected, third.actual)  # the temporary prefix removed
    assert (reading.actual, after.actual) == ((), ("after",))  # stdin is empty, never the script


def test_a_failing_setup_fails_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- setup: false -->\n```console\n$ true\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="a setup failed"):
        run(page, tmp_path / "world", VENV)


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        (("a", "b"), ("a", "b"), True),
        (("a", "b  ", ""), ("a", "b"), True),
        (("a",), ("a", "b"), False),
        (("a", ELLIPSIS), ("a", "b", "c"), True),
        (("a", ELLIPSIS, "c"), ("a", "b", "b", "c"), True),
        (("a", ELLIPSIS, "c"), ("a", "c"), True),
        (("a", ELLIPSIS, "c"), ("a", "b"), False),
        ((ELLIPSIS, "x"), ("a", "b"), False),
    ],
)
def test_an_ellipsis_line_stands_for_any_lines(
    expected: tuple[str, ...], actual: tuple[str, ...], same: bool
) -> None:
    assert agrees(expected, actual) is same
