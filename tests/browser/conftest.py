"""Fixtures of the browser tests: an example server with its playground, and Debian's
chromium driven by Playwright for Python (no browser download: `executable_path` points at
the system's chromium; CHROMIUM names another binary).

Each test saves a screenshot under `target/browser-screenshots/` and checks that the file is
not empty.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
SHOTS = TARGET / "browser-screenshots"


def example_bin(name: str) -> str:
    """Build the example binary `name` (cargo is quick when nothing changed)."""
    subprocess.run(["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", name], cwd=REPO, check=True)
    return str(TARGET / "debug" / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(binary: str, log: Path) -> Iterator[str]:
    """Run `binary --http 127.0.0.1:<port>`; yields its playground URL."""
    port = _free_port()
    with open(log, "wb") as err:
        proc = subprocess.Popen([binary, "--http", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL, stdout=err, stderr=err)
    try:
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{Path(binary).name} exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{Path(binary).name} did not listen on port {port} within 15 s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/playground"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
