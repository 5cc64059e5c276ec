"""What the Python test suites (tests/interop, tests/browser) share: building an example
binary and running it over HTTP on a free loopback port until a block ends."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def example_bin(name: str) -> str:
    """Build the example binary `name` (cargo is quick when nothing changed)."""
    subprocess.run(["cargo", "build", "--quiet", "-p", "roundtrip-examples", "--bin", name], cwd=REPO, check=True)
    return str(TARGET / "debug" / name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(name: str, port: int, proc: subprocess.Popen, log: Path) -> None:
    """Wait up to 15 s for `proc` (called `name`, writing to `log`) to listen on `port`; fail
    the test with its log if it exits first."""
    deadline = time.monotonic() + 15
    while True:
        if proc.poll() is not None:
            pytest.fail(f"{name} exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"{name} did not listen on port {port} within 15 s")
            time.sleep(0.05)


@contextlib.contextmanager
def serving_http(binary: str, log: Path, *flags: str, env: dict | None = None) -> Iterator[str]:
    """Run `binary --http 127.0.0.1:<port> [flags]` until the block ends; yields `http://127.0.0.1:<port>`."""
    port = free_port()
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [binary, "--http", f"127.0.0.1:{port}", *flags], stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env
        )
    try:
        wait_port(Path(binary).name, port, proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
