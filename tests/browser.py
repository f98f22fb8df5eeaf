"""A real headless Chromium, the system's own (Debian's `chromium`), driven over the DevTools
protocol by Playwright: never a browser Playwright downloads. Used by the report's browser test
and by the script that takes the docs' screenshot."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Headless, and off the network: without the background-networking flags Chromium reaches for
# Google's hosts at every start (update checks, field trials), which a closed network refuses.
FLAGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserUnavailable(Exception):
    """No browser can be had here (the test skips, naming why)."""


def executable() -> str:
    """The system's Chromium: CORTEX_CHROMIUM, else the first on PATH."""
    named = os.environ.get("CORTEX_CHROMIUM")
    if named:
        return named
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserUnavailable("no Chromium on this machine (apt-get install chromium, or set CORTEX_CHROMIUM)")


class Visit:
    """A page loaded from a file, and everything that went wrong while it loaded."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("requestfailed", lambda request: self.problems.append(f"request failed: {request.url}"))
        page.on("request", self._request)

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith(("file:", "data:")):
            self.problems.append(f"request to {request.url}")


@contextmanager
def visit(path: Path, *, width: int = 1280, height: int = 900, dark: bool = False) -> Iterator[Visit]:
    """The file opened in a fresh headless Chromium (a new empty profile each time)."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise BrowserUnavailable("playwright is not installed (pip install '.[test]')") from None
    browser_path = executable()
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=browser_path, args=FLAGS)
        except Error as error:
            raise BrowserUnavailable(f"{browser_path} does not start: {str(error).splitlines()[0]}") from None
        try:
            page = browser.new_page(
                viewport={"width": width, "height": height}, color_scheme="dark" if dark else "light"
            )
            seen = Visit(page)
            page.goto(path.resolve().as_uri(), wait_until="load")
            yield seen
        finally:
            browser.close()


def screenshot(page: Path, target: Path, *, height: int = 1800) -> None:
    """The top of the page, as a person first sees it and scrolls on, as a PNG."""
    with visit(page, width=1280, height=height) as seen:
        seen.page.screenshot(path=str(target), full_page=False)
        if seen.problems:
            raise AssertionError("; ".join(seen.problems))
