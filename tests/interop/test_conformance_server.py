"""The official Python SDK client (mcp 2.3.0) against the conformance example server.

Every test runs over stdio and streamable HTTP, in the client's default mode ("auto": it
probes `server/discover` and speaks 2026-07-28, where a question arrives as an
`input_required` result and the client retries) and in `mode="legacy"` (initialize handshake
at 2025-11-25, where the same question arrives as a server-to-client request).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio

TRANSPORTS = ["stdio", "http"]
MODES = ["auto", "legacy"]
EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


@dataclass
class Recorder:
    """Answers the server's questions and remembers them."""

    name: str = "Ada"
    color: str = "teal"
    elicitations: list[tuple[Any, str, dict[str, Any]]] = field(default_factory=list)
    samplings: list[tuple[Any, str]] = field(default_factory=list)
    roots_calls: list[Any] = field(default_factory=list)
    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)

    async def elicit(self, context, params) -> types.ElicitResult:
        schema = params.requested_schema
        schema = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else schema
        self.elicitations.append((context.request_id, params.message, schema))
        properties = schema.get("properties", {})
        if "name" in properties:
            content: dict[str, Any] = {"name": self.name}
        elif "color" in properties:
            content = {"color": self.color}
        elif "ok" in properties:
            content = {"ok": True}
        elif "context" in properties:
            content = {"context": "interop testing"}
        else:
            content = {}
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context, params) -> types.CreateMessageResult:
        first = params.messages[0].content
        self.samplings.append((context.request_id, getattr(first, "text", None)))
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Hi there"), model="test-model"
        )

    async def roots(self, context) -> types.ListRootsResult:
        self.roots_calls.append(context.request_id)
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/project", name="project")])

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)


@pytest.fixture(params=TRANSPORTS)
def transport(request) -> str:
    return request.param


@pytest.fixture(params=MODES)
def mode(request) -> str:
    return request.param


@pytest.fixture
def target(request, transport: str, server_bin: str):
    if transport == "stdio":
        return StdioServerParameters(command=server_bin, args=["--stdio"])
    return request.getfixturevalue("http_url")


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def connect(target, mode: str, recorder: Recorder, **kwargs) -> Client:
    return Client(
        target,
        mode=mode,
        elicitation_callback=recorder.elicit,
        sampling_callback=recorder.sample,
        list_roots_callback=recorder.roots,
        logging_callback=recorder.log,
        read_timeout_seconds=20,
        **kwargs,
    )


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def assert_asked_by(mode: str, request_id: Any, key: str) -> None:
    """On 2026-07-28 the client answers an input request under its key (the SDK's MRTR driver
    passes the key as the context's request id); on a legacy session the question was a
    server-to-client JSON-RPC request with a numeric id."""
    if mode == "legacy":
        assert request_id != key and isinstance(request_id, int), request_id
    else:
        assert request_id == key


async def test_negotiated_version_and_listing(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        assert client.protocol_version == EXPECTED_VERSION[mode]
        assert client.server_info is not None and client.server_info.name == "roundtrip-conformance"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in [
            "test_simple_text",
            "test_image_content",
            "test_input_required_result_elicitation",
            "test_input_required_result_multi_round",
            "json_schema_2020_12_tool",
        ]:
            assert name in tools
        schema = tools["json_schema_2020_12_tool"].input_schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$defs"]["address"]["$anchor"] == "addressDef"
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert {"test_simple_prompt", "test_prompt_with_arguments", "test_input_required_result_prompt"} <= prompts


async def test_simple_tools(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_simple_text")
        assert texts(result) == ["This is a simple text response for testing."]
        assert not result.is_error

        error = await client.call_tool("test_error_handling", {})
        assert error.is_error is True
        assert texts(error) == ["This tool intentionally returns an error for testing"]

        image = await client.call_tool("test_image_content", {})
        assert isinstance(image.content[0], types.ImageContent)
        assert image.content[0].mime_type == "image/png"


async def test_mrtr_elicitation(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_input_required_result_elicitation", {})
    assert texts(result) == ["Hello, Ada!"]
    assert len(recorder.elicitations) == 1
    request_id, message, schema = recorder.elicitations[0]
    assert message == "What is your name?"
    assert schema["properties"] == {"name": {"type": "string"}}
    assert schema["required"] == ["name"]
    assert_asked_by(mode, request_id, "user_name")


async def test_mrtr_multi_round(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_input_required_result_multi_round", {})
    assert texts(result) == ["Hello, Ada! Your favorite color is teal."]
    assert [m for _, m, _ in recorder.elicitations] == [
        "Step 1: What is your name?",
        "Step 2: What is your favorite color?",
    ]
    assert_asked_by(mode, recorder.elicitations[0][0], "step1")
    assert_asked_by(mode, recorder.elicitations[1][0], "step2")


async def test_mrtr_request_state(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_input_required_result_request_state", {})
    assert texts(result) == ["state-ok: requestState verified, confirmed=true"]


async def test_mrtr_multiple_inputs(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_input_required_result_multiple_inputs", {})
    assert texts(result) == ["Name: Ada; greeting: Hi there; roots: 1 root(s): file:///tmp/project"]
    assert [m for _, m, _ in recorder.elicitations] == ["What is your name?"]
    assert [t for _, t in recorder.samplings] == ["Generate a greeting"]
    assert len(recorder.roots_calls) == 1


async def test_mrtr_prompt(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.get_prompt("test_input_required_result_prompt")
    assert [m.content.text for m in result.messages] == ["Prompt with context: interop testing"]
    assert [m for _, m, _ in recorder.elicitations] == ["What context should the prompt use?"]


async def test_sampling_tool(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_sampling", {"prompt": "Say hi"})
    assert texts(result) == ["LLM response: Hi there"]
    assert [t for _, t in recorder.samplings] == ["Say hi"]
    assert_asked_by(mode, recorder.samplings[0][0], "llm")


async def test_progress(target, mode, recorder):
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async with connect(target, mode, recorder) as client:
        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    assert texts(result)[0].startswith("Progress tool completed")
    assert seen == [(0, 100), (50, 100), (100, 100)]


async def test_logging(target, mode, recorder):
    # On 2026-07-28 the client opts in per request (`_meta` logLevel); a legacy session sends
    # logs until `logging/setLevel` says otherwise.
    async with connect(target, mode, recorder, log_level="info") as client:
        result = await client.call_tool("test_tool_with_logging", {})
    assert texts(result) == ["Tool with logging executed successfully"]
    assert [p.data for p in recorder.logs] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    assert all(p.level == "info" for p in recorder.logs)


async def test_resources_and_prompts(target, mode, recorder):
    async with connect(target, mode, recorder) as client:
        text = await client.read_resource("test://static-text")
        assert text.contents[0].text == "This is the content of the static text resource."
        data = await client.read_resource("test://template/123/data")
        assert data.contents[0].mime_type == "application/json"
        assert json.loads(data.contents[0].text) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})
        assert prompt.messages[0].content.text == "Prompt with arguments: arg1='hello', arg2='world'"
