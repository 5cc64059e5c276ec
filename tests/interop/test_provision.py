"""The official Python SDK client (mcp 2.3.0) runs every flow of the `provision` example,
whose tools are declared with `#[tool]` and `#[resolve(...)]`.

Each flow runs over stdio and streamable HTTP, in the client's default mode (2026-07-28: the
questions come back as `input_required` rounds) and in `mode="legacy"` (2025-11-25: the same
questions arrive as server-to-client requests inside the one call).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
EXAMPLE = "provision"


@dataclass
class User:
    """Answers like a person would, and remembers each question in order."""

    answers: dict[str, Any] = field(default_factory=dict)
    action: str = "accept"
    asked: list[tuple[Any, str]] = field(default_factory=list)

    async def elicit(self, context, params) -> types.ElicitResult:
        self.asked.append((context.request_id, params.message))
        if self.action != "accept":
            return types.ElicitResult(action=self.action)
        if getattr(params, "mode", None) == "url" or getattr(params, "url", None):
            return types.ElicitResult(action="accept")
        schema = params.requested_schema
        schema = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else schema
        content = {k: self.answers[k] for k in schema.get("properties", {}) if k in self.answers}
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context, params) -> types.CreateMessageResult:
        self.asked.append((context.request_id, params.messages[0].content.text))
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="It is short."), model="test-model"
        )

    async def roots(self, context) -> types.ListRootsResult:
        self.asked.append((context.request_id, "roots"))
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv/a"), types.Root(uri="file:///srv/b")])


def connect(target, mode: str, user: User) -> Client:
    return Client(
        target,
        mode=mode,
        elicitation_callback=user.elicit,
        sampling_callback=user.sample,
        list_roots_callback=user.roots,
        read_timeout_seconds=20,
    )


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def call(target, mode, user: User, tool: str, args: dict[str, Any] | None = None) -> types.CallToolResult:
    async with connect(target, mode, user) as client:
        assert client.protocol_version == (MODERN if mode == "auto" else "2025-11-25")
        return await client.call_tool(tool, args or {})


async def test_the_tools_and_their_arguments(target, mode):
    async with connect(target, mode, User()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    # `drop_database` is for the databases view only (MCP Apps visibility "app"): a client that
    # hosts no views, as this one, does not get it.
    assert set(tools) == {
        "provision", "wizard", "confirm_delete", "slow_sum", "link_account", "summarize", "workspace", "backup",
        "databases",
    }
    assert tools["databases"].meta is None, "no link to a view for a client without the extension"
    # `region` is asked, and an optional argument too (`or_argument`): for hosts that cannot ask.
    assert list(tools["provision"].input_schema["properties"]) == ["name", "region"]
    assert tools["provision"].input_schema["required"] == ["name"]
    assert tools["provision"].description == "Provision a database. Asks which region to put it in, unless given as an argument."


async def test_provision_on_a_host_that_cannot_ask(target, mode):
    # No elicitation callback: the client declares no elicitation, as many hosts do.
    async with Client(target, mode=mode, read_timeout_seconds=20) as client:
        result = await client.call_tool("provision", {"name": "orders", "region": "eu-west-1"})
        assert not result.is_error
        assert text(result) == "Provisioned 'orders' in eu-west-1."
        result = await client.call_tool("provision", {"name": "orders"})
    assert result.is_error
    assert text(result) == (
        "This client cannot be asked for `region`: it does not support elicitation. "
        "Pass `region` as an argument instead."
    )


async def test_provision(target, mode):
    user = User(answers={"region": "eu-west"})
    result = await call(target, mode, user, "provision", {"name": "orders"})
    assert text(result) == "Provisioned 'orders' in eu-west."
    assert [m for _, m in user.asked] == ["Which region should orders live in?"]


async def test_provision_declined(target, mode):
    user = User(action="decline")
    result = await call(target, mode, user, "provision", {"name": "orders"})
    assert result.is_error
    assert "`region`" in text(result)


async def test_wizard_asks_in_two_rounds(target, mode):
    user = User(answers={"name": "Ada", "age": 36})
    result = await call(target, mode, user, "wizard")
    assert text(result) == "Hello Ada, you are 36."
    # The second question names the first answer: it could only be asked in a later round.
    assert [m for _, m in user.asked] == ["What is your name?", "How old are you, Ada?"]


@pytest.mark.parametrize(
    ("action", "answers", "expected"),
    [
        ("accept", {"confirm": True}, "Deleted /tmp/x."),
        ("accept", {"confirm": False}, "Kept /tmp/x."),
        ("decline", {}, "Kept /tmp/x (declined)."),
        ("cancel", {}, "Kept /tmp/x (cancelled)."),
    ],
)
async def test_confirm_delete(target, mode, action, answers, expected):
    user = User(answers=answers, action=action)
    result = await call(target, mode, user, "confirm_delete", {"path": "/tmp/x"})
    assert text(result) == expected


async def test_slow_sum(target, mode):
    # A state-only round: a 2026-07-28 client retries it; on a 2025 session the server does.
    result = await call(target, mode, User(), "slow_sum", {"n": 10})
    assert text(result) == "sum(1..10) = 55"


async def test_link_account(target, mode):
    user = User()
    result = await call(target, mode, user, "link_account")
    assert text(result) == "Account linked."
    assert [m for _, m in user.asked] == ["Sign in to link your account"]


async def test_summarize(target, mode):
    user = User()
    result = await call(target, mode, user, "summarize", {"text": "A long text."})
    assert text(result) == "Summary: It is short."
    assert [m for _, m in user.asked] == ["Summarize in one sentence: A long text."]


async def test_workspace(target, mode):
    result = await call(target, mode, User(), "workspace")
    assert text(result) == "Roots: file:///srv/a, file:///srv/b"


# Raw HTTP, to hold the sealed state in hand.

def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    params = body["params"]
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": body["method"],
    }
    if "name" in params or "uri" in params:
        headers["mcp-name"] = params.get("name") or params["uri"]
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    request = urllib.request.Request(url, data=json.dumps({"jsonrpc": "2.0", "id": 1, **body}).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


FROZEN = {"code": -32602, "message": "Invalid or expired requestState"}


def first_leg(url: str, tool: str, args: dict[str, Any]) -> str:
    status, reply = post(url, {"method": "tools/call", "params": {"name": tool, "arguments": args}})
    assert status == 200 and reply["result"]["resultType"] == "input_required", reply
    return reply["result"]["requestState"]


def test_tampered_and_replayed_state_get_the_frozen_error(example_url):
    state = first_leg(example_url, "wizard", {})
    answer = {"name": {"action": "accept", "content": {"name": "Ada"}}}
    flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
    for bad_state, tool, args in [
        (state + "-TAMPERED", "wizard", {}),
        (flipped, "wizard", {}),
        (state, "provision", {"name": "orders"}),  # replayed on another tool
        (state, "wizard", {"extra": 1}),  # replayed with other arguments
    ]:
        status, reply = post(
            example_url,
            {"method": "tools/call", "params": {"name": tool, "arguments": args, "inputResponses": answer, "requestState": bad_state}},
        )
        assert status == 400, reply
        assert reply["error"] == FROZEN, reply
    # The original still goes on to its second round.
    status, reply = post(
        example_url,
        {"method": "tools/call", "params": {"name": "wizard", "arguments": {}, "inputResponses": answer, "requestState": state}},
    )
    assert status == 200 and reply["result"]["resultType"] == "input_required", reply
    assert list(reply["result"]["inputRequests"]) == ["age"]


async def test_greeting_prompt_asks_the_name(target, mode):
    user = User(answers={"name": "Ada"})
    async with connect(target, mode, user) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert not prompts["greeting"].arguments, "the name is a question, not an argument"
        result = await client.get_prompt("greeting", {})
    assert [m.content.text for m in result.messages] == ["Hello, Ada! Welcome aboard."]
    assert [m for _, m in user.asked] == ["What should I call you?"]


async def test_notes_ask_the_passphrase(target, mode):
    user = User(answers={"passphrase": "swordfish"})
    async with connect(target, mode, user) as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "notes://{id}" in templates
        result = await client.read_resource("notes://42")
    assert [c.text for c in result.contents] == ["Note 42: the eagle lands at dawn."]
    assert [m for _, m in user.asked] == ["Passphrase for note 42?"]


def test_prompt_state_is_refused_when_tampered_or_replayed_on_a_resource(example_url):
    status, reply = post(example_url, {"method": "prompts/get", "params": {"name": "greeting", "arguments": {}}})
    assert status == 200 and reply["result"]["resultType"] == "input_required", reply
    state = reply["result"]["requestState"]
    tampered = {"name": "greeting", "arguments": {}, "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": state + "x"}
    status, reply = post(example_url, {"method": "prompts/get", "params": tampered})
    assert (status, reply["error"]) == (400, FROZEN), reply
    replayed = {"uri": "notes://42", "inputResponses": {"passphrase": {"action": "accept", "content": {"passphrase": "x"}}}, "requestState": state}
    status, reply = post(example_url, {"method": "resources/read", "params": replayed})
    assert (status, reply["error"]) == (400, FROZEN), reply


async def test_backup_runs_synchronously_for_a_client_without_the_tasks_extension(target, mode):
    """`backup` is a task-optional tool. The Python SDK does not declare the tasks extension,
    so the call runs synchronously: the region is asked first in both modes; the mid-run
    question reaches a 2025-era session over its back-channel, while a 2026-07-28 client
    cannot be asked mid-call and the tool keeps the existing backup."""
    user = User(answers={"region": "eu", "overwrite": True})
    result = await call(target, mode, user, "backup", {"database": "orders"})
    assert not result.is_error, text(result)
    asked = [m for _, m in user.asked]
    assert asked[0] == "Which region should the backup of orders go to?"
    if mode == "legacy":
        assert asked[1:] == ["backups/eu/orders.dump already exists. Overwrite it?"]
        assert text(result) == "Backed up orders to backups/eu/orders.dump (overwritten)."
    else:
        assert asked[1:] == []
        assert text(result) == "Backed up orders to backups/eu/orders.dump.new (an existing backup was kept)."
