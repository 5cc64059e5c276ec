"""Debian's Prometheus scrapes an example's `--metrics` endpoint, and a PromQL query over its
HTTP API returns the MCP operation histogram for `tools/call` of a named tool (OpenTelemetry
names turned Prometheus names: `mcp_server_operation_duration_seconds`, labels
`mcp_method_name`, `gen_ai_tool_name`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import mcp.types as types
import pytest
from mcp import Client

import example_servers

pytestmark = pytest.mark.anyio


def prometheus_bin() -> str:
    found = shutil.which("prometheus") or ("/usr/bin/prometheus" if Path("/usr/bin/prometheus").exists() else None)
    if not found:
        pytest.fail("no prometheus: scripts/setup-tools.sh installs Debian's `prometheus`")
    return found


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


async def elicit(context, params) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"region": "eu-west"})


async def test_prometheus_scrapes_the_operation_histogram(tmp_path: Path):
    binary = example_servers.example_bin("provision")
    metrics_port = example_servers.free_port()
    with example_servers.serving_http(
        binary, tmp_path / "server.log", "--metrics", f"127.0.0.1:{metrics_port}"
    ) as base:
        async with Client(base + "/mcp", elicitation_callback=elicit, read_timeout_seconds=20) as client:
            for n in range(3):
                result = await client.call_tool("provision", {"name": f"db{n}"})
                assert [c.text for c in result.content] == [f"Provisioned 'db{n}' in eu-west."]
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        assert "# TYPE mcp_server_operation_duration_seconds histogram" in text, text[:2000]

        prom_port = example_servers.free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n"
            "scrape_configs:\n"
            f"  - job_name: roundtrip\n    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
        )
        with open(tmp_path / "prometheus.log", "wb") as log:
            prometheus = subprocess.Popen(
                [
                    prometheus_bin(),
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'data'}",
                    f"--web.listen-address=127.0.0.1:{prom_port}",
                ],
                stdout=log,
                stderr=log,
            )
        try:
            query = (
                'mcp_server_operation_duration_seconds_count'
                '{mcp_method_name="tools/call",gen_ai_tool_name="provision"}'
            )
            url = f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
            deadline = time.monotonic() + 60
            series = []
            while time.monotonic() < deadline:
                try:
                    series = get_json(url)["data"]["result"]
                except OSError:
                    series = []
                if series:
                    break
                time.sleep(0.5)
            assert series, "Prometheus never returned the series:\n" + (tmp_path / "prometheus.log").read_text()[-3000:]
            # Two legs a call (the question, then the answer), three calls.
            assert sum(float(s["value"][1]) for s in series) == 6, series
            labels = series[0]["metric"]
            assert labels["job"] == "roundtrip"
            assert labels["mcp_protocol_version"] == "2026-07-28"
            assert labels["network_transport"] == "tcp"
            buckets = get_json(
                f"http://127.0.0.1:{prom_port}/api/v1/query?"
                + urllib.parse.urlencode({"query": 'mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="provision",le="+Inf"}'})
            )["data"]["result"]
            assert buckets, "the histogram's buckets are there too"
        finally:
            prometheus.terminate()
            prometheus.wait(timeout=10)
