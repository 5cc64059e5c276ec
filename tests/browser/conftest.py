"""Fixtures of the browser tests: an example server with its playground, and Debian's
chromium driven by Playwright for Python (no browser download: `executable_path` points at
the system's chromium; CHROMIUM names another binary).

Each test saves a screenshot under `target/browser-screenshots/` and checks that the file is
not empty.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_servers  # noqa: E402  (tests/example_servers.py, shared by the suites)

REPO = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
SHOTS = TARGET / "browser-screenshots"


example_bin = example_servers.example_bin


@contextlib.contextmanager
def serving(binary: str, log: Path) -> Iterator[str]:
    """Run `binary --http 127.0.0.1:<port> --playground` until the block ends; yields its playground URL."""
    with example_servers.serving_http(binary, log, "--playground") as base:
        yield base + "/playground"


@pytest.fixture(scope="session")
def browser():
    with example_servers.headless_chromium() as b:
        yield b


@pytest.fixture(scope="module")
def playground(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground URL of the module's example (`EXAMPLE = "<binary>"`)."""
    name = request.module.EXAMPLE
    with serving(example_bin(name), tmp_path_factory.mktemp(name) / "stderr.log") as url:
        yield url


def watch_console(page) -> list[str]:
    """Collect what would make the browser's console unclean: errors logged, requests that
    failed, and responses with an HTTP error status (the page's and its frames'). A test that
    provokes one on purpose adds a substring of it to `page.expected_console`."""
    problems: list[str] = []
    page.expected_console = []

    def console(message) -> None:
        if message.type == "error":
            problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def response(r) -> None:
        if r.status >= 400:
            problems.append(f"HTTP {r.status}: {r.request.method} {r.url}")

    page.on("console", console)
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.method} {r.url}: {r.failure}"))
    page.on("response", response)
    return problems


def unexpected(page, problems: list[str]) -> list[str]:
    """The problems `watch_console` saw that the test did not provoke on purpose."""
    return [p for p in problems if not any(e in p for e in page.expected_console)]


@pytest.fixture
def page(browser, playground: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    problems = watch_console(page)
    page.goto(playground)
    page.wait_for_selector("body[data-ready=true]")
    yield page
    # What happened before the page closes (closing cancels what is still in flight).
    unclean = unexpected(page, problems)
    context.close()
    assert not errors, f"the page threw: {errors}"
    assert not unclean, "the console is not clean:\n" + "\n".join(unclean)


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under target/browser-screenshots/ and check it is not empty."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000, f"{path} is empty"
    return path
