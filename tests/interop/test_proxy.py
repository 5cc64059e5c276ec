"""Two clients behind a real nginx: one client's streams, sessions and tasks leave the other's alone.

nginx (Debian's, foreground, configured as deploy/nginx.conf does: `X-Forwarded-For
$proxy_add_x_forwarded_for`, `Forwarded` cleared) fronts `provision --http`. The clients
connect from two loopback addresses of their own (127.0.0.2 for Mallory, 127.0.0.3 for Alice),
so nginx sees two clients and says so in `X-Forwarded-For`. With `--trusted-proxy 127.0.0.1`
the server believes it, and Mallory filling her 32 streams, 100+ sessions and 1 000 tasks leaves
Alice's budgets untouched; without the flag the server sees one caller (nginx), and Alice is
refused a stream: the failure the setting is for.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import urllib.parse
from pathlib import Path
from typing import Iterator

import example_servers  # tests/example_servers.py (conftest puts tests/ on the path)
from test_ask import bins  # noqa: F401  (the fixture that builds ask and provision)

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {
        "elicitation": {"form": {}},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    },
}


@contextlib.contextmanager
def behind_nginx(provision: str, work: Path, *flags: str) -> Iterator[str]:
    """`provision --http` with `flags`, and nginx in front as deploy/nginx.conf sets it up; yields
    nginx's URL."""
    with example_servers.serving_http(provision, work / "provision.log", *flags) as upstream:
        server = f"""
    server {{
        listen 127.0.0.1:{{port}};
        location /mcp {{
            proxy_pass {upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header Forwarded "";
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}"""
        with example_servers.serving_nginx(work, server) as port:
            yield f"http://127.0.0.1:{port}/mcp"


class Client:
    """HTTP/1.1 requests whose connections come from `address` (any 127.0.0.0/8 address is this
    machine), one connection a request (the standard library's `http.client`)."""

    def __init__(self, url: str, address: str):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.path, self.address = parts.hostname, parts.port, parts.path, address

    def post(self, body: dict, headers: dict) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=20, source_address=(self.address, 0))
        conn.request("POST", self.path, body=json.dumps(body), headers={"content-type": "application/json", **headers})
        return conn.getresponse()

    def json(self, body: dict, headers: dict) -> tuple[int, dict, dict]:
        response = self.post(body, headers)
        data = response.read()
        return response.status, dict(response.getheaders()), json.loads(data) if data else {}


def modern(method: str, name: str | None = None) -> dict:
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": method}
    if name:
        headers["mcp-name"] = name
    return headers


def rpc(method: str, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def open_listen(client: Client) -> http.client.HTTPResponse:
    """A `subscriptions/listen` stream, left open (the response's body is not read)."""
    params = {"notifications": {"toolsListChanged": True}, "_meta": META}
    return client.post(rpc("subscriptions/listen", params), modern("subscriptions/listen"))


def initialize(client: Client) -> tuple[int, dict, dict]:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return client.json(rpc("initialize", params), {"accept": "application/json, text/event-stream"})


def start_backup_task(client: Client) -> dict:
    """`backup`: leg 1 asks the region, leg 2 answers it and gets a task (which then parks)."""
    params = {"name": "backup", "arguments": {"database": "orders"}, "_meta": META}
    _, _, leg1 = client.json(rpc("tools/call", params), modern("tools/call", "backup"))
    result = leg1.get("result")
    if not result or result.get("resultType") != "input_required":
        return leg1
    answers = {key: {"action": "accept", "content": {"region": "eu-west-1"}} for key in result["inputRequests"]}
    params = {**params, "inputResponses": answers, "requestState": result["requestState"]}
    return client.json(rpc("tools/call", params), modern("tools/call", "backup"))[2]


def test_behind_nginx_with_trusted_proxy_one_client_leaves_anothers_budgets(bins, tmp_path):  # noqa: F811
    _, provision = bins
    with behind_nginx(provision, tmp_path, "--trusted-proxy", "127.0.0.1") as url:
        mallory, alice = Client(url, "127.0.0.2"), Client(url, "127.0.0.3")
        status, headers, _ = initialize(alice)
        assert status == 200
        session_id = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
        # 32 streams for Mallory, then no more; Alice still gets hers.
        streams = [open_listen(mallory) for _ in range(32)]
        assert [s.status for s in streams] == [200] * 32
        refused = open_listen(mallory)
        assert refused.status == 503
        assert b"max_streams_per_caller" in refused.read()
        alices_stream = open_listen(alice)
        assert alices_stream.status == 200, "Alice's stream is not Mallory's"
        # 120 initialize from Mallory: her own idle sessions make room, Alice's lives.
        for _ in range(120):
            assert initialize(mallory)[0] == 200
        ping_headers = {
            "accept": "application/json, text/event-stream",
            "mcp-session-id": session_id,
            "mcp-protocol-version": "2025-11-25",
        }
        status, _, pong = alice.json({"jsonrpc": "2.0", "id": 3, "method": "ping"}, ping_headers)
        assert status == 200, pong
        # 1 000 tasks fill Mallory's quota, not Alice's.
        for n in range(1000):
            task = start_backup_task(mallory)
            assert task.get("result", {}).get("resultType") == "task", f"task {n}: {task}"
        over = start_backup_task(mallory)
        assert over["error"]["data"]["limit"] == "max_tasks_per_caller", over
        theirs = start_backup_task(alice)
        assert theirs.get("result", {}).get("resultType") == "task", theirs
        for s in [*streams, alices_stream]:
            s.close()


def test_behind_nginx_without_trusted_proxy_every_client_is_nginx(bins, tmp_path):  # noqa: F811
    _, provision = bins
    with behind_nginx(provision, tmp_path) as url:
        mallory, alice = Client(url, "127.0.0.2"), Client(url, "127.0.0.3")
        streams = [open_listen(mallory) for _ in range(32)]
        assert [s.status for s in streams] == [200] * 32
        alices = open_listen(alice)
        assert alices.status == 503, "without the setting, Alice is the same caller as Mallory"
        for s in [*streams, alices]:
            s.close()
