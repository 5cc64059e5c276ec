"""A rate limit per caller and tool, as the official Python SDK client (mcp 2.3.0) meets it:
the `provision` example served with `--limit tool_rate:databases=2/1m`, over stdio and
streamable HTTP, in both eras. The third call within the minute is refused with `-32000`,
whose `data` says which limit and when to retry; another tool is not counted against it.
"""

from __future__ import annotations

import contextlib
import urllib.request
from pathlib import Path
from typing import Iterator

import example_servers
import pytest
from mcp import Client, MCPError, StdioServerParameters

pytestmark = pytest.mark.anyio

LIMIT = ["--limit", "tool_rate:databases=2/1m"]


@pytest.fixture(scope="module")
def provision() -> str:
    return example_servers.example_bin("provision")


@contextlib.contextmanager
def limited_http(binary: str, log: Path) -> Iterator[str]:
    with example_servers.serving_http(binary, log, *LIMIT) as base:
        yield base + "/mcp"


@pytest.fixture(params=["stdio", "http"])
def target(request, provision: str, tmp_path: Path):
    # A server per test: each starts with full buckets.
    if request.param == "stdio":
        yield StdioServerParameters(command=provision, args=["--stdio", *LIMIT])
        return
    with limited_http(provision, tmp_path / "stderr.log") as url:
        yield url


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_third_call_within_the_minute_is_told_when_to_retry(target, mode):
    async with Client(target, mode=mode, read_timeout_seconds=20) as client:
        for _ in range(2):
            assert not (await client.call_tool("databases", {})).is_error
        with pytest.raises(MCPError) as refused:
            await client.call_tool("databases", {})
        # Another tool of the same caller has a bucket of its own.
        assert not (await client.call_tool("provision", {"name": "orders", "region": "eu"})).is_error
    error = refused.value.error
    assert error.code == -32000
    assert error.data["limit"] == "tool_rate"
    assert (error.data["max"], error.data["perMs"]) == (2, 60_000)
    assert 29_000 <= error.data["retryAfterMs"] <= 30_000, error.data
    assert "retry in" in error.message


async def test_a_refusal_is_counted_in_the_limits_metric(provision: str, tmp_path: Path):
    metrics_port = example_servers.free_port()
    flags = [*LIMIT, "--metrics", f"127.0.0.1:{metrics_port}"]
    with example_servers.serving_http(provision, tmp_path / "server.log", *flags) as base:
        async with Client(base + "/mcp", read_timeout_seconds=20) as client:
            for _ in range(2):
                await client.call_tool("databases", {})
            for _ in range(3):
                with pytest.raises(MCPError):
                    await client.call_tool("databases", {})
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
    counted = [line for line in text.splitlines() if line.startswith("roundtrip_server_limits_total{")]
    assert any('roundtrip_limit="tool_rate"' in line and line.endswith(" 3") for line in counted), counted
