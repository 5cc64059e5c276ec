"""Fixtures of the interop tests: the conformance example server, reached by the official
Python SDK client (`mcp`) over stdio or streamable HTTP.

The server binary is built once per session (`cargo build -p roundtrip-examples --bin
conformance`) unless CONFORMANCE_BIN names one.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def server_bin() -> str:
    override = os.environ.get("CONFORMANCE_BIN")
    if override:
        return override
    subprocess.run(
        ["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", "conformance"],
        cwd=REPO,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "conformance")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def http_url(server_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """`http://127.0.0.1:<port>/mcp` of one server process shared by the HTTP tests."""
    port = _free_port()
    log = tmp_path_factory.mktemp("http-server") / "stderr.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [server_bin, "--http", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL, stdout=err, stderr=err
        )
    try:
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                output = log.read_text(errors="replace")
                # Until the streamable HTTP transport is merged the binary says so and exits.
                if "no HTTP transport" in output:
                    pytest.skip("this build of the conformance server has no HTTP transport")
                pytest.fail(f"the HTTP server exited with {proc.returncode}:\n{output}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the HTTP server did not listen on port {port} within 15 s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
