"""Trace context from the official Python SDK client into a roundtrip server.

The client (`mcp` 2.3.0) runs with the OpenTelemetry SDK configured in its process, so it makes
a CLIENT span for every request and injects its context into `params._meta` (SEP-414). The
`provision` example exports its spans by OTLP/HTTP to a receiver in this process built on the
official `opentelemetry-proto` package (OTLP/HTTP, and OTLP/gRPC through `grpcio`). A
multi-round tool, over stdio and over streamable HTTP: every server span of the flow is in the client's trace, a child of one of the client's
spans, named and attributed by the OpenTelemetry semantic conventions for MCP.
"""

from __future__ import annotations

import os
import time
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import example_servers
from otlp_receiver import GrpcReceiver, Receiver

pytestmark = pytest.mark.anyio

CLIENT_SPANS = InMemorySpanExporter()
_provider = TracerProvider()
_provider.add_span_processor(SimpleSpanProcessor(CLIENT_SPANS))
trace.set_tracer_provider(_provider)
TRACER = trace.get_tracer("roundtrip-interop")


@pytest.fixture(scope="module")
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(scope="module")
def grpc_receiver():
    r = GrpcReceiver()
    yield r
    r.close()


def exporting_env(receiver: Receiver) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL="grpc" if isinstance(receiver, GrpcReceiver) else "http/protobuf",
        OTEL_SERVICE_NAME="provision-under-test",
        OTEL_BSP_SCHEDULE_DELAY="50",
        RUST_LOG="warn",
    )
    return env


@pytest.fixture(scope="module")
def http_url(receiver: Receiver, tmp_path_factory):
    binary = example_servers.example_bin("provision")
    log = tmp_path_factory.mktemp("otel-http") / "stderr.log"
    with example_servers.serving_http(binary, log, env=exporting_env(receiver)) as base:
        yield base + "/mcp"


async def elicit(context, params) -> types.ElicitResult:
    answers = {"name": "Ada", "age": 36}
    properties = params.requested_schema.get("properties", {})
    return types.ElicitResult(action="accept", content={k: answers[k] for k in properties if k in answers})


def server_spans(receiver: Receiver, trace_id: str, legs: int) -> list[dict[str, Any]]:
    """The server's spans of the trace, once the flow's `legs` legs have arrived."""
    deadline = time.monotonic() + 15
    while True:
        spans = [s for s in receiver.in_trace(trace_id) if s["kind"] == "SERVER"]
        if sum(s["name"] == "tools/call wizard" for s in spans) >= legs or time.monotonic() > deadline:
            return spans
        time.sleep(0.05)


@pytest.mark.parametrize("transport", ["stdio", "http", "stdio, exported by OTLP/gRPC"])
async def test_every_server_span_is_in_the_clients_trace(transport, receiver, request):
    if transport.startswith("stdio,"):
        receiver = request.getfixturevalue("grpc_receiver")
        transport = "stdio"
    if transport == "stdio":
        binary = example_servers.example_bin("provision")
        target = StdioServerParameters(command=binary, args=["--stdio"], env=exporting_env(receiver))
    else:
        target = request.getfixturevalue("http_url")
    CLIENT_SPANS.clear()
    with TRACER.start_as_current_span("the user's work") as root:
        async with Client(target, elicitation_callback=elicit, read_timeout_seconds=20) as client:
            result = await client.call_tool("wizard", {})
    assert [c.text for c in result.content] == ["Hello Ada, you are 36."]
    trace_id = format(root.get_span_context().trace_id, "032x")
    mine = {format(s.context.span_id, "016x"): s for s in CLIENT_SPANS.get_finished_spans()}
    assert all(format(s.context.trace_id, "032x") == trace_id for s in mine.values())

    spans = server_spans(receiver, trace_id, legs=3)
    calls = [s for s in spans if s["name"] == "tools/call wizard"]
    assert len(calls) == 3, [s["name"] for s in spans]
    for span in spans:
        parent = mine.get(span["parent_span_id"])
        assert parent is not None, f"{span['name']}: its parent is not one of the client's spans"
        assert parent.kind == trace.SpanKind.CLIENT
        assert span["attributes"]["mcp.method.name"] == parent.attributes["mcp.method.name"]
        assert span["attributes"]["jsonrpc.request.id"] == parent.attributes["jsonrpc.request.id"]
        assert span["attributes"]["network.transport"] == ("pipe" if transport == "stdio" else "tcp")
        assert span["resource"]["service.name"] == "provision-under-test"
    for span in calls:
        attributes = span["attributes"]
        assert attributes["gen_ai.tool.name"] == "wizard"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["mcp.protocol.version"] == "2026-07-28"
        assert "error.type" not in attributes
    assert sorted(s["attributes"]["roundtrip.round"] for s in calls) == [0, 1, 2]
    asked = [s for s in calls if "roundtrip.questions.asked" in s["attributes"]]
    assert len(asked) == 2 and all(s["attributes"]["roundtrip.state.bytes"] > 0 for s in asked)
