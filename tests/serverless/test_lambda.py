"""The `provision` example as an AWS Lambda function (cargo-lambda's emulator, function URL
events): the official Python SDK client (mcp 2.3.0) and TypeScript client (v2) complete
`provision` (two legs) and `wizard` (three) on it, a leg sealed by another host is taken
when the two share a key and refused when they do not, and a task it starts lives in Redis
over TLS, where another host takes it up.
"""

from __future__ import annotations

import json
import os
import time
from typing import Callable, Iterator

import example_servers
import pytest

from conftest import KEY, lambda_function, post, provision_bin
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


@pytest.fixture(scope="module")
def shared_task_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A Redis speaking only TLS, with a CA of the test's own that the hosts trust through
    `SSL_CERT_FILE`; the function and a plain process both keep their tasks in it
    (`ROUNDTRIP_TASK_STORE=rediss://…`) and seal with KEY."""
    work = tmp_path_factory.mktemp("tasks")
    with example_servers.serving_redis_tls(work) as (store, ca):
        env = {"ROUNDTRIP_TASK_STORE": store, "SSL_CERT_FILE": str(ca)}
        with lambda_function(work, KEY, env) as function:
            process_env = dict(os.environ, ROUNDTRIP_STATE_KEYS=KEY, **env)
            with example_servers.serving_http(provision_bin(), work / "process.log", env=process_env) as base:
                yield {"function": function, "process": base + "/mcp"}


def test_a_task_started_by_the_function_lives_in_redis_over_tls(shared_task_store: dict):
    """`backup` asks its region on the function, which then starts it as a task in the store;
    the plain process sees the task, takes the answer to the question the body asks mid-run,
    and reports the result: every step but the first two reaches the function's task through
    Redis alone."""
    function, process = shared_task_store["function"], shared_task_store["process"]
    call = {"name": "backup", "arguments": {"database": "orders"}}
    status, asked = post(function, 1, "tools/call", call, tasks=True)
    assert status == 200 and asked["result"]["resultType"] == "input_required", asked
    answer = {"region": {"action": "accept", "content": {"region": "eu-west-1"}}}
    retry = {**call, "inputResponses": answer, "requestState": asked["result"]["requestState"]}
    status, created = post(function, 2, "tools/call", retry, tasks=True)
    assert status == 200 and created["result"]["resultType"] == "task", created
    task_id = created["result"]["taskId"]

    def task_on_process() -> dict:
        status, got = post(process, 3, "tasks/get", {"taskId": task_id}, tasks=True)
        assert status == 200 and "result" in got, got
        return got["result"]

    task = poll(task_on_process, lambda t: t["status"] == "input_required")
    (key,) = task["inputRequests"].keys()
    assert "already exists. Overwrite it?" in json.dumps(task["inputRequests"][key]), task
    update = {"taskId": task_id, "inputResponses": {key: {"action": "accept", "content": {"overwrite": True}}}}
    status, updated = post(process, 4, "tasks/update", update, tasks=True)
    assert status == 200 and "result" in updated, updated
    task = poll(task_on_process, lambda t: t["status"] in ("completed", "failed", "cancelled"))
    assert task["status"] == "completed", task
    text = task["result"]["content"][0]["text"]
    assert text == "Backed up orders to backups/eu-west-1/orders.dump (overwritten).", task


def poll(get: Callable[[], dict], done: Callable[[dict], bool], within: float = 30) -> dict:
    """`get()` every 100 ms until `done` says so of its answer (the test fails after `within` s)."""
    deadline = time.monotonic() + within
    while True:
        got = get()
        if done(got):
            return got
        assert time.monotonic() < deadline, f"still {got}"
        time.sleep(0.1)
