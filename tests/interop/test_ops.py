"""The official Python SDK client (mcp 2.3.0) runs every flow of the `ops` example, whose
declarations reach the application's state (services with their instances, incidents).

Covered: `deploy` (a titled choice of environment, then a confirmation for production only),
`restart` (a choice of the service's instances; an answer outside them is asked again),
`open_incident` (one form, a text and structured result), the `incident://{id}` template
(known and unknown), the `postmortem` prompt (refused before asking for an unknown incident)
and `summarize_logs` (sampling as an SRE at temperature 0.2); an unknown service or a missing
argument ends a call before any question is asked.

Each flow runs over stdio and streamable HTTP, in the client's default mode (2026-07-28: the
questions come back as `input_required` rounds) and in `mode="legacy"` (2025-11-25: the same
questions arrive as server-to-client requests inside the one call). Stdio starts a fresh
server per test; the HTTP server is shared by the module, so incident numbers it hands out
are matched, not assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, MCPError

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
EXAMPLE = "ops"


class InTurn(list):
    """Successive answers to the same question: the first time it is asked, the second..."""


@dataclass
class Question:
    key: Any  # the `inputRequests` key in the default mode, the JSON-RPC id in legacy mode
    message: str
    schema: dict[str, Any]


@dataclass
class User:
    """Answers like a person would, and remembers each question in order."""

    answers: dict[str, Any] = field(default_factory=dict)
    summary: str = "All quiet."
    asked: list[Question] = field(default_factory=list)
    samplings: list[types.CreateMessageRequestParams] = field(default_factory=list)

    async def elicit(self, context, params) -> types.ElicitResult:
        schema = params.requested_schema
        schema = schema.model_dump(by_alias=True, exclude_none=True) if hasattr(schema, "model_dump") else schema
        self.asked.append(Question(context.request_id, params.message, schema))
        content = {}
        for key in schema.get("properties", {}):
            if key in self.answers:
                answer = self.answers[key]
                content[key] = answer.pop(0) if isinstance(answer, InTurn) else answer
        return types.ElicitResult(action="accept", content=content)

    async def sample(self, context, params) -> types.CreateMessageResult:
        self.samplings.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=self.summary), model="test-model"
        )

    @property
    def messages(self) -> list[str]:
        return [q.message for q in self.asked]


def connect(target, mode: str, user: User) -> Client:
    return Client(
        target,
        mode=mode,
        elicitation_callback=user.elicit,
        sampling_callback=user.sample,
        read_timeout_seconds=20,
    )


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def only_property(question: Question, name: str) -> dict[str, Any]:
    """The schema of the one property a question's form asks for."""
    assert list(question.schema["properties"]) == [name], question.schema
    return question.schema["properties"][name]


async def call(target, mode, user: User, tool: str, args: dict[str, Any] | None = None) -> types.CallToolResult:
    async with connect(target, mode, user) as client:
        assert client.protocol_version == (MODERN if mode == "auto" else "2025-11-25")
        return await client.call_tool(tool, args or {})


async def test_the_listings(target, mode):
    async with connect(target, mode, User()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert set(tools) == {"deploy", "restart", "open_incident", "summarize_logs"}
    # What is asked is not an argument.
    assert list(tools["deploy"].input_schema["properties"]) == ["service", "version"]
    assert list(tools["restart"].input_schema["properties"]) == ["service"]
    assert not tools["open_incident"].input_schema.get("properties")
    assert [a.name for a in prompts["postmortem"].arguments] == ["incident"]
    assert "incident://{id}" in templates


@pytest.mark.parametrize(
    ("environment", "confirm", "expected"),
    [
        ("staging", None, "Deployed api 1.4.2 to staging."),
        ("production", True, "Deployed api 1.4.2 to production."),
        ("production", False, "Deployment of api 1.4.2 cancelled."),
    ],
)
async def test_deploy(target, mode, environment, confirm, expected):
    user = User(answers={"environment": environment, "confirm": confirm})
    result = await call(target, mode, user, "deploy", {"service": "api", "version": "1.4.2"})
    assert not result.is_error, text(result)
    assert text(result) == expected
    where = user.asked[0]
    assert where.message == "Deploy api 1.4.2 to which environment?"
    assert only_property(where, "environment")["oneOf"] == [
        {"const": "staging", "title": "Staging"},
        {"const": "production", "title": "Production"},
    ]
    if environment == "staging":
        assert len(user.asked) == 1, user.messages
        return
    # The confirmation names the first answer: it could only be asked in a later round.
    assert user.messages[1:] == ["Deploy api 1.4.2 to production?"]
    assert only_property(user.asked[1], "confirm")["type"] == "boolean"
    if mode == "auto":
        assert [q.key for q in user.asked] == ["environment", "confirm"]


UNKNOWN_SERVICE = ("unknown service", "db")


@pytest.mark.parametrize(
    ("tool", "args", "said"),
    [
        ("deploy", {"service": "db", "version": "1"}, UNKNOWN_SERVICE),
        ("restart", {"service": "db"}, UNKNOWN_SERVICE),
        ("summarize_logs", {"service": "db"}, UNKNOWN_SERVICE),
        ("deploy", {"service": "api"}, ("`version`",)),  # a missing argument
    ],
)
async def test_a_refused_call_asks_nothing(target, mode, tool, args, said):
    user = User(answers={"environment": "staging", "instance": "api-1"})
    result = await call(target, mode, user, tool, args)
    assert result.is_error
    assert all(words in text(result) for words in said), text(result)
    assert user.asked == [] and user.samplings == []


async def test_restart_offers_the_instances_of_the_service(target, mode):
    user = User(answers={"instance": "web-2"})
    result = await call(target, mode, user, "restart", {"service": "web"})
    assert not result.is_error, text(result)
    assert text(result) == "Restarted web-2."
    assert user.messages == ["Restart which instance of web?"]
    assert only_property(user.asked[0], "instance")["oneOf"] == [
        {"const": "web-1", "title": "web-1"},
        {"const": "web-2", "title": "web-2"},
    ]


async def test_restart_asks_again_after_an_answer_outside_the_choices(target, mode):
    user = User(answers={"instance": InTurn(["api-1", "web-1"])})
    result = await call(target, mode, user, "restart", {"service": "web"})
    assert not result.is_error, text(result)
    assert text(result) == "Restarted web-1."
    assert len(user.asked) == 2, user.messages
    assert user.messages[0] == "Restart which instance of web?"
    assert "not one of the choices" in user.messages[1], user.messages[1]
    assert only_property(user.asked[1], "instance")["oneOf"] == only_property(user.asked[0], "instance")["oneOf"]


@pytest.mark.parametrize(
    "answers",
    [
        {"title": "Database slow", "severity": "sev2"},  # paging left to its default
        {"title": "Checkout errors", "severity": "sev1", "page_oncall": True},
    ],
)
async def test_open_incident_asks_one_form_and_stores_the_answer(target, mode, answers):
    user = User(answers=answers)
    async with connect(target, mode, user) as client:
        result = await client.call_tool("open_incident", {})
        assert not result.is_error, text(result)
        title, severity = answers["title"], answers["severity"]
        opened = re.fullmatch(rf"Opened incident #(\d+): {title} \({severity}\)\.", text(result))
        assert opened, text(result)
        number = int(opened[1])
        assert number >= 2
        assert result.structured_content == {"id": number, "title": title, "severity": severity}
        # The same server now serves it.
        read = await client.read_resource(f"incident://{number}")
    assert [c.text for c in read.contents] == [f"Incident #{number}: {title} ({severity})."]
    assert len(user.asked) == 1, user.messages
    properties = user.asked[0].schema["properties"]
    assert set(properties) == {"title", "severity", "page_oncall"}
    assert properties["title"]["type"] == "string" and properties["title"]["minLength"] == 5
    assert properties["severity"]["enum"] == ["sev1", "sev2", "sev3"]
    assert properties["page_oncall"]["type"] == "boolean" and properties["page_oncall"]["default"] is False


async def test_the_first_incident_is_readable(target, mode):
    async with connect(target, mode, User()) as client:
        result = await client.read_resource("incident://1")
    assert [c.text for c in result.contents] == ["Incident #1: Login outage (sev1)."]


async def test_an_unknown_incident_is_resource_not_found(target, mode):
    async with connect(target, mode, User()) as client:
        with pytest.raises(MCPError) as failure:
            await client.read_resource("incident://999")
    # 2026-07-28 says -32602 for an unknown resource; 2025-11-25 said -32002.
    assert failure.value.code == (-32602 if mode == "auto" else -32002)
    assert failure.value.message == "Resource not found"


async def test_postmortem_refuses_an_unknown_incident_before_asking(target, mode):
    user = User(answers={"author": "Grace"})
    async with connect(target, mode, user) as client:
        with pytest.raises(MCPError) as failure:
            await client.get_prompt("postmortem", {"incident": "7"})
    assert failure.value.code == -32602
    assert "no incident #7" in failure.value.message
    assert user.asked == []


async def test_postmortem_asks_who_writes_it(target, mode):
    user = User(answers={"author": "Grace"})
    async with connect(target, mode, user) as client:
        result = await client.get_prompt("postmortem", {"incident": "1"})
    assert user.messages == ["Who writes the postmortem of incident #1?"]
    assert [(m.role, m.content.text) for m in result.messages] == [
        ("user", "Write the postmortem of incident #1 (Login outage) as Grace.")
    ]


async def test_summarize_logs_samples_as_an_sre_at_a_low_temperature(target, mode):
    user = User(summary="All quiet.")
    result = await call(target, mode, user, "summarize_logs", {"service": "worker"})
    assert not result.is_error, text(result)
    assert text(result) == "Summary: All quiet."
    assert user.asked == []
    [params] = user.samplings
    assert params.system_prompt == "You are an SRE."
    assert params.temperature == 0.2
    assert [m.content.text for m in params.messages] == ["Summarize the recent logs of worker in two sentences."]
