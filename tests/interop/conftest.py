"""Fixtures of the interop tests: the conformance example server, reached by the official
Python SDK client (`mcp`) over stdio or streamable HTTP.

The server binary is built once per session (`cargo build -p roundtrip-examples --bin
conformance`) unless CONFORMANCE_BIN names one.
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


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


example_bin = example_servers.example_bin


@contextlib.contextmanager
def serving_http(binary: str, log: Path) -> Iterator[str]:
    """Run `binary --http 127.0.0.1:<port>` until the block ends; yields its endpoint URL."""
    with example_servers.serving_http(binary, log) as base:
        yield base + "/mcp"


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
