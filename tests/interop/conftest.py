"""Fixtures of the interop tests: the conformance example server, reached by the official
Python SDK client (`mcp`) over stdio or streamable HTTP.

The server binary is built once per session (`cargo build -p roundtrip-examples --bin
conformance`) unless CONFORMANCE_BIN names one.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def example_bin(name: str) -> str:
    """Build the example binary `name` (once per call; cargo is quick when nothing changed)."""
    subprocess.run(["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", name], cwd=REPO, check=True)
    return str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving_http(binary: str, log: Path) -> Iterator[str]:
    """Run `binary --http 127.0.0.1:<port>` until the block ends; yields its endpoint URL."""
    port = _free_port()
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [binary, "--http", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL, stdout=err, stderr=err
        )
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
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server_bin() -> str:
    override = os.environ.get("CONFORMANCE_BIN")
    return override or example_bin("conformance")


@pytest.fixture(scope="session")
def http_url(server_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """`http://127.0.0.1:<port>/mcp` of one server process shared by the HTTP tests."""
    with serving_http(server_bin, tmp_path_factory.mktemp("http-server") / "stderr.log") as url:
        yield url


# A test module of an example server sets `EXAMPLE = "<binary>"` and gets these fixtures: the
# binary, one HTTP server for the module, each test run over stdio and over HTTP (`target`),
# and in the client's default mode and `mode="legacy"` (`mode`).


@pytest.fixture(scope="module")
def example(request) -> str:
    return example_bin(request.module.EXAMPLE)


@pytest.fixture(scope="module")
def example_url(request, example: str, tmp_path_factory: pytest.TempPathFactory):
    with serving_http(example, tmp_path_factory.mktemp(request.module.EXAMPLE) / "stderr.log") as url:
        yield url


@pytest.fixture(params=["stdio", "http"])
def target(request, example: str):
    from mcp import StdioServerParameters

    if request.param == "stdio":
        return StdioServerParameters(command=example, args=["--stdio"])
    return request.getfixturevalue("example_url")


@pytest.fixture(params=["auto", "legacy"])
def mode(request) -> str:
    return request.param
