"""The MCP Inspector's CLI (2.12.0) against the `provision` example, over streamable HTTP and
stdio, in both protocol eras (`--protocol-era legacy`, its default, negotiates 2025-11-25 by
`initialize`; `modern` speaks 2026-07-28 with no session).

The CLI declares no elicitation at all and cannot answer a question, so it completes what
needs none: `tools/list`, the state-only round of `slow_sum` (the server runs it again itself
on a 2025 session; the CLI retries it on 2026-07-28), and `provision` given its `region` as an
argument (the `or_argument` fallback). Without `region` it gets the tool error that names the
argument to pass, and `link_account` (a URL-mode question) the error naming the capability.

A 2025-06-18 session is out of the CLI's reach (its legacy era offers 2025-11-25), so the
-32021 of `link_account` on such a session without `elicitation.url` is checked with the
official Python SDK client (mcp 2.3.0), as tests/interop does, pinned to that revision.
"""

from __future__ import annotations

import anyio
import pytest

ERAS = ["legacy", "modern"]


@pytest.fixture(params=["http", "stdio"])
def target(request, provision_bin: str) -> list[str]:
    """The CLI's arguments that reach the server: its URL, or the command after `--`."""
    if request.param == "http":
        return ["--server-url", request.getfixturevalue("provision_url"), "--transport", "http"]
    return ["--transport", "stdio", "--", provision_bin, "--stdio"]


def call(cli, target: list[str], era: str, tool: str, *args: str):
    """`--method tools/call` of `tool` with `key=value` arguments; options before the target."""
    tool_args = ["--tool-arg", *args] if args else []
    return cli("--protocol-era", era, "--method", "tools/call", "--tool-name", tool, *tool_args, *target)


def text(result: dict) -> str:
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")


@pytest.mark.parametrize("era", ERAS)
def test_tools_list(cli, target, era):
    run = cli("--protocol-era", era, "--method", "tools/list", *target)
    assert run.returncode == 0, run.stderr
    tools = {t["name"]: t for t in run.json()["result"]["tools"]}
    assert {"provision", "wizard", "slow_sum", "link_account", "backup"} <= set(tools)
    # `region` is a question, and also an optional argument (its `or_argument` fallback).
    schema = tools["provision"]["inputSchema"]
    assert set(schema["properties"]) == {"name", "region"}
    assert schema["required"] == ["name"]


@pytest.mark.parametrize("era", ERAS)
def test_slow_sum_completes(cli, target, era):
    run = call(cli, target, era, "slow_sum", "n=10")
    assert run.returncode == 0, run.stderr
    result = run.json()["result"]
    assert text(result) == "sum(1..10) = 55"
    assert not result.get("isError")
    # The modern era's result says it is the last round.
    assert result.get("resultType") == ("complete" if era == "modern" else None)


@pytest.mark.parametrize("era", ERAS)
def test_provision_with_region_as_an_argument(cli, target, era):
    run = call(cli, target, era, "provision", "name=orders", "region=eu-west-1")
    assert run.returncode == 0, run.stderr
    assert text(run.json()["result"]) == "Provisioned 'orders' in eu-west-1."


@pytest.mark.parametrize("era", ERAS)
def test_provision_without_region_names_the_argument_to_pass(cli, target, era):
    run = call(cli, target, era, "provision", "name=orders")
    # Exit 5: the tool answered with isError.
    assert run.returncode == 5, run.stderr
    result = run.json()["result"]
    assert result["isError"] is True
    assert text(result) == (
        "This client cannot be asked for `region`: it does not support elicitation. "
        "Pass `region` as an argument instead."
    )
    assert run.error()["code"] == "tool_is_error"


@pytest.mark.parametrize("era", ERAS)
def test_link_account_is_refused_naming_the_capability(cli, target, era):
    run = call(cli, target, era, "link_account")
    assert run.returncode == 1, run.stderr
    message = run.error()["message"]
    assert "Server requires the elicitation (url mode) capability for this request" in message
    if era == "legacy":
        assert "the client declared no such capability at initialize" in message
    if era == "legacy" and "--server-url" in target:
        # Over HTTP the CLI quotes the server's JSON-RPC error whole: -32021, and the
        # capability it needs in `data.requiredCapabilities`.
        assert '"code":-32021' in message
        assert '"requiredCapabilities":{"elicitation":{"url":{}}}' in message


# A 2025-06-18 session that declares form elicitation but not `elicitation.url`: the official
# Python SDK client, made to offer 2025-06-18 at initialize and to declare `{"form": {}}` only.


@pytest.fixture
def sdk_2025_06_18(monkeypatch):
    import mcp.client.session as session
    import mcp.types as types

    monkeypatch.setattr(session, "LATEST_HANDSHAKE_VERSION", "2025-06-18")
    build = session.ClientSession._build_capabilities

    def form_only(self, version):
        caps = build(self, version)
        return caps.model_copy(update={"elicitation": types.ElicitationCapability(form=types.FormElicitationCapability())})

    monkeypatch.setattr(session.ClientSession, "_build_capabilities", form_only)


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_link_account_on_a_2025_06_18_session_without_url_mode_gets_32021(request, sdk_2025_06_18, transport, provision_bin):
    import mcp.types as types
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    if transport == "http":
        server = request.getfixturevalue("provision_url")
    else:
        server = StdioServerParameters(command=provision_bin, args=["--stdio"])
    asked = []

    async def elicit(context, params):
        asked.append(params)
        return types.ElicitResult(action="cancel")

    async def run():
        with anyio.fail_after(30):
            return await call_link_account()

    async def call_link_account():
        async with Client(server, mode="legacy", elicitation_callback=elicit, read_timeout_seconds=20) as client:
            assert client.protocol_version == "2025-06-18"
            with pytest.raises(MCPError) as caught:
                await client.call_tool("link_account", {})
            return caught.value.error

    error = anyio.run(run)
    assert not asked, "the server asked a URL question of a session that cannot open one"
    assert error.code == -32021
    assert "elicitation (url mode) capability" in error.message
    assert error.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}

