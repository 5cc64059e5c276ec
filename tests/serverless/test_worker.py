"""The `provision` example as a Cloudflare Worker (examples/worker, wasm32, under `wrangler
dev`'s workerd): the official Python SDK client (mcp 2.3.0) and TypeScript client (v2) complete
`provision` (two legs) and `wizard` (three) on it; a leg it sealed is taken by the Lambda
function when the two share a key and refused by one with another key, and the other way
round; what a Worker cannot hold is refused.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from conftest import OTHER_KEY, post, worker
from flows import assert_provision, assert_typescript_flows, assert_wizard, first_leg, second_leg

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def other_worker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The worker again, sealing with OTHER_KEY."""
    with worker(tmp_path_factory.mktemp("other-worker"), OTHER_KEY) as url:
        yield url


async def test_provision_takes_two_legs(worker_url: str):
    await assert_provision(worker_url)


async def test_wizard_takes_three_legs(worker_url: str):
    await assert_wizard(worker_url)


def test_the_typescript_client_completes_both_flows(worker_url: str):
    assert_typescript_flows(worker_url)


def test_a_leg_sealed_by_the_worker_is_taken_by_the_function_when_they_share_a_key(worker_url: str, function_url: str):
    done = second_leg(function_url, first_leg(worker_url))
    assert done["result"]["content"][0]["text"] == "Provisioned 'orders' in us-east-1.", done
    done = second_leg(worker_url, first_leg(function_url))
    assert done["result"]["content"][0]["text"] == "Provisioned 'orders' in us-east-1.", done


def test_a_leg_sealed_with_another_key_is_refused(other_worker_url: str, function_url: str):
    for sealed_by, answered_by in ((other_worker_url, function_url), (function_url, other_worker_url)):
        refused = second_leg(answered_by, first_leg(sealed_by))
        assert refused["error"]["code"] == -32602, refused
        assert refused["error"]["message"] == "Invalid or expired requestState", refused


def test_a_worker_holds_no_stream_and_no_session(worker_url: str):
    status, refused = post(worker_url, 3, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    assert status == 501, refused
    assert "no long-lived streams" in refused["error"]["message"], refused
    status, tools = post(worker_url, 4, "tools/list", {})
    names = {tool["name"] for tool in tools["result"]["tools"]}
    assert "provision" in names and "backup" not in names, names
