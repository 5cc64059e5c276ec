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
import shutil
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


def chromium_path() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "/usr/lib/chromium/chromium"):
        if candidate and (shutil.which(candidate) or Path(candidate).is_file()):
            return shutil.which(candidate) or candidate
    pytest.fail("no chromium found: scripts/setup-tools.sh installs Debian's `chromium` (or set CHROMIUM)")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Headless: no display needed. The sandbox needs user namespaces, which containers
        # (and root) often lack.
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def playground(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground URL of the module's example (`EXAMPLE = "<binary>"`)."""
    name = request.module.EXAMPLE
    with serving(example_bin(name), tmp_path_factory.mktemp(name) / "stderr.log") as url:
        yield url


@pytest.fixture
def page(browser, playground: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(playground)
    page.wait_for_selector("body[data-ready=true]")
    yield page
    context.close()
    assert not errors, f"the page threw: {errors}"


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under target/browser-screenshots/ and check it is not empty."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000, f"{path} is empty"
    return path
