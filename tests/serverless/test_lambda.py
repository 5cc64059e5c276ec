"""The `provision` example as an AWS Lambda function (cargo-lambda's emulator, function URL
events): the official Python SDK client (mcp 2.3.0) and TypeScript client (v2) complete
`provision` (two legs) and `wizard` (three) on it, and a leg sealed by another host is taken
when the two share a key and refused when they do not.
"""

from __future__ import annotations

import pytest

from conftest import post
from flows import assert_provision, assert_typescript_flows, assert_wizard, first_leg, second_leg

pytestmark = pytest.mark.anyio


async def test_provision_takes_two_legs(function_url: str):
    await assert_provision(function_url)


async def test_wizard_takes_three_legs(function_url: str):
    await assert_wizard(function_url)


def test_the_typescript_client_completes_both_flows(function_url: str):
    assert_typescript_flows(function_url)


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
