"""What the Python test suites (tests/interop, tests/browser, tests/inspector,
tests/serverless) share: building an example binary, running it over HTTP on a free loopback
port until a block ends, nginx in front, a CA of the test's own and Redis speaking TLS with its
certificate, and Debian's chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import os
import shutil
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
    with stopped_at_exit(proc):
        wait_port(Path(binary).name, port, proc, log)
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def stopped_at_exit(proc: subprocess.Popen) -> Iterator[None]:
    """Terminate `proc` when the block ends (kill it if it has not stopped 5 s later)."""
    try:
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def tool(name: str) -> str:
    """The path of the Debian program `name`; fails the test if it is not installed."""
    found = shutil.which(name) or next((p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.path.exists(p)), None)
    if not found:
        pytest.fail(f"{name} is not installed (scripts/setup-tools.sh installs it)")
    return found


@contextlib.contextmanager
def serving_nginx(work: Path, server: str) -> Iterator[int]:
    """Run Debian's nginx in the foreground with one `server { … }` block (`server`, where
    `{port}` stands for a free loopback port), its files in `work`, until the block ends;
    yields the port."""
    port = free_port()
    temp = "\n".join(f"    {kind}_temp_path {work / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    config = f"worker_processes 1;\nevents {{ worker_connections 512; }}\nhttp {{\n    access_log off;\n{temp}\n"
    (work / "nginx.conf").write_text(config + server.replace("{port}", str(port)) + "\n}\n")
    log = work / "nginx-error.log"
    proc = subprocess.Popen(
        [tool("nginx"), "-e", str(log), "-p", str(work), "-c", str(work / "nginx.conf"),
         "-g", f"daemon off; pid {work / 'nginx.pid'}; error_log {log} warn;"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    with stopped_at_exit(proc):
        wait_port("nginx", port, proc, log)
        yield port


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run([tool("openssl"), *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"openssl {' '.join(args)}:\n{done.stderr}"


def make_ca(work: Path) -> tuple[Path, Path, Path]:
    """A CA, and a server certificate for localhost and 127.0.0.1 it signs: (ca.pem, server.pem, server.key)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl(
        "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=roundtrip test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=work,
    )  # fmt: skip
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=work)
    (work / "server.ext").write_text(
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
    )
    openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
        cwd=work,
    )  # fmt: skip
    return work / "ca.pem", work / "server.pem", work / "server.key"


@contextlib.contextmanager
def serving_redis_tls(work: Path) -> Iterator[tuple[str, Path]]:
    """Debian's `redis-server` speaking only TLS (`--port 0 --tls-port`) on a free loopback
    port, with a certificate of a CA made here, until the block ends; yields its
    `rediss://127.0.0.1:<port>/` URL and the CA's certificate, for `SSL_CERT_FILE`."""
    ca, cert, key = make_ca(work)
    port = free_port()
    log = work / "redis.log"
    command = [
        tool("redis-server"), "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
        "--tls-cert-file", str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file", str(ca),
        "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", str(work),
    ]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    with stopped_at_exit(proc):
        wait_port("redis-server", port, proc, log)
        yield f"rediss://127.0.0.1:{port}/", ca


def chromium_path() -> str:
    """Debian's chromium (or the binary CHROMIUM names): Playwright drives it, and never
    downloads a browser of its own."""
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "/usr/lib/chromium/chromium"):
        if candidate and (shutil.which(candidate) or Path(candidate).is_file()):
            return shutil.which(candidate) or candidate
    pytest.fail("no chromium found: scripts/setup-tools.sh installs Debian's `chromium` (or set CHROMIUM)")


@contextlib.contextmanager
def headless_chromium() -> Iterator:
    """A headless chromium for the block (a conftest makes it a session fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Headless: no display needed. The sandbox needs user namespaces, which containers
        # (and root) often lack.
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox"])
        yield b
        b.close()
