"""`ask --url https://…` against the `provision` example behind nginx terminating TLS.

The test makes its own CA with the openssl CLI (a CA key and certificate, and a certificate for
`localhost` and 127.0.0.1 signed by it), runs `provision --http` on a loopback port and nginx
in front of it (foreground, `daemon off`, its configuration in a temporary directory, free
ports, as scripts/fleet.sh runs it), and calls the `wizard` tool (two rounds of questions,
answered from a file) through nginx. `ask` trusts the CA only through `SSL_CERT_FILE`
(`SSL_CERT_DIR` removed from its environment); without it the same call fails at once with a
certificate error. `scripts/setup-tools.sh` installs nginx and openssl; a missing one fails the
test rather than skipping it.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import example_servers  # tests/example_servers.py (conftest puts tests/ on the path)
import pytest
from test_ask import bins  # noqa: F401  (the fixture that builds ask and provision)


@pytest.fixture(scope="module")
def https_url(bins, tmp_path_factory):  # noqa: F811
    """`https://localhost:<port>/mcp`: nginx with the test CA's certificate, in front of
    `provision --http 127.0.0.1:<port>`; yields (url, ca.pem)."""
    work = tmp_path_factory.mktemp("tls")
    ca, cert, key = example_servers.make_ca(work)
    _, provision = bins
    with example_servers.serving_http(provision, work / "provision.log") as upstream:
        server = f"""
    server {{
        listen 127.0.0.1:{{port}} ssl;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location /mcp {{
            proxy_pass {upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
        }}
    }}"""
        with example_servers.serving_nginx(work, server) as port:
            yield f"https://localhost:{port}/mcp", ca


def ask_wizard(bins, url: str, answers: Path, ca: Path | None) -> tuple[subprocess.CompletedProcess, float]:  # noqa: F811
    """`ask --answers FILE --url URL wizard`, trusting `ca` through SSL_CERT_FILE only (or no
    extra root when None); the result and how long it took."""
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    if ca is not None:
        env["SSL_CERT_FILE"] = str(ca)
    ask, _ = bins
    started = time.monotonic()
    done = subprocess.run(
        [ask, "--answers", str(answers), "--url", url, "wizard"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    return done, time.monotonic() - started


@pytest.fixture
def answers(tmp_path) -> Path:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"name": "Ada", "age": 36}))
    return path


def test_ask_completes_a_two_round_flow_over_https_trusting_the_ca_of_ssl_cert_file(bins, https_url, answers):  # noqa: F811
    url, ca = https_url
    done, _ = ask_wizard(bins, url, answers, ca)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello Ada, you are 36."


def test_ask_also_reaches_the_server_by_its_ip_address(bins, https_url, answers):  # noqa: F811
    url, ca = https_url
    done, _ = ask_wizard(bins, url.replace("localhost", "127.0.0.1"), answers, ca)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello Ada, you are 36."


def test_without_ssl_cert_file_the_certificate_is_refused_at_once(bins, https_url, answers):  # noqa: F811
    url, _ = https_url
    done, took = ask_wizard(bins, url, answers, None)
    assert done.returncode == 1, done.stdout
    assert "invalid peer certificate: UnknownIssuer" in done.stderr, done.stderr
    assert "SSL_CERT_FILE" in done.stderr, "the error says where trusted roots come from"
    assert done.stdout == ""
    # A refused certificate is not retried like a refused connection: it fails the same way.
    assert took < 2, f"took {took:.1f} s"
