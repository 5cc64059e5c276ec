"""The `provision` flow of roundtrip's example on the official Python SDK (`mcp` 2.3.0,
`MCPServer`), for the peer benchmark (`scripts/bench-peers.sh`).

The question is declared the SDK's own way, as a resolver dependency
(`Annotated[Region, Resolve(ask_region)]`): at 2026-07-28 the SDK answers leg 1 with an
`InputRequiredResult` carrying the elicitation and a `requestState` it seals itself
(encrypted and bound to the method, tool, arguments and a 600 s window, under a per-process
key), and resumes the call on leg 2 from `inputResponses` and the echoed state.

    python provision_server.py PORT     # streamable HTTP at http://127.0.0.1:PORT/mcp,
                                        # stateless, JSON responses, one process

The functions are `async def`, as roundtrip's tools are `async fn`: the SDK runs a plain `def`
tool or resolver in a worker thread (`anyio.to_thread`), which would cost it a thread hop per
call that roundtrip does not pay.

It is served as `MCPServer.run("streamable-http", stateless_http=True, json_response=True)`
would (the SDK's Starlette app under one uvicorn process), except that uvicorn's
per-request access log is off: the Rust servers of the comparison log nothing per request.
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

TEXT = "This is a simple text response for testing."


class Region(BaseModel):
    region: str


async def ask_region(name: str) -> Elicit[Region]:
    return Elicit(f"Which region should {name} live in?", Region)


mcp = MCPServer("provisioner", version="1.0.0")


@mcp.tool()
async def provision(name: str, region: Annotated[Region, Resolve(ask_region)]) -> str:
    """Provision a database. Asks which region to put it in."""
    return f"Provisioned '{name}' in {region.region}."


@mcp.tool()
async def test_simple_text() -> str:
    """Returns simple text (the plain tools/call of the benchmark)."""
    return TEXT


if __name__ == "__main__":
    import uvicorn

    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8082
    app = mcp.streamable_http_app(stateless_http=True, json_response=True, host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    print(f"provision_server (mcp, MCPServer) serving MCP at http://127.0.0.1:{port}/mcp", file=sys.stderr)
    uvicorn.Server(config).run()
