"""The MCP Inspector's web UI (2.12.0) in headless chromium against the `provision` example:
connected over streamable HTTP and over stdio (the Inspector starts `provision --stdio`), in
each protocol era, it calls `provision` without `region`, shows the server's question as a
form, sends the answer, and shows the result.

The era is the server entry's `protocolEra` in the Inspector's config file (what its
`--protocol-era` flag sets for a single server): `legacy` negotiates 2025-11-25 by
`initialize`, and the question comes as an `elicitation/create` request inside the call;
`modern` speaks 2026-07-28, and the question comes back as an `input_required` result whose
answer the Inspector sends in a retry of the call. Screenshots of each flow go to
target/browser-screenshots/inspector-*.png.
"""

from __future__ import annotations

from typing import Iterator

import pytest
from playwright.sync_api import expect

from conftest import REVISION, inspector_web, screenshot

# One region a flow, so that each result can only come from that flow's answer.
FLOWS = {
    ("http", "legacy"): "eu-west-1",
    ("http", "modern"): "us-east-1",
    ("stdio", "legacy"): "ap-south-1",
    ("stdio", "modern"): "eu-central-1",
}
# What the Inspector's question dialog says of a round that came back as `input_required`.
MRTR_NOTE = "returned input_required; your answer is sent back as a retry of the original request (MRTR)"


@pytest.fixture(scope="module")
def web(provision_bin: str, provision_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Inspector's web UI with one server entry a flow (`http-legacy`, …, `stdio-modern`)."""
    servers = {}
    for transport, era in FLOWS:
        if transport == "http":
            entry = {"type": "streamable-http", "url": provision_url}
        else:
            entry = {"type": "stdio", "command": provision_bin, "args": ["--stdio"]}
        servers[f"{transport}-{era}"] = {**entry, "protocolEra": era}
    with inspector_web({"mcpServers": servers}, tmp_path_factory.mktemp("inspector-web")) as url:
        yield url


@pytest.fixture
def page(browser, web: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(web)
    yield page
    context.close()
    assert not errors, f"the Inspector's page threw: {errors}"


def settled(page, dialog) -> None:
    """Wait for the dialog's opening transition to end (for the screenshot)."""
    dialog.wait_for()
    dialog.element_handle().wait_for_element_state("stable")
    page.wait_for_function("d => getComputedStyle(d).opacity === '1'", arg=dialog.element_handle())


@pytest.mark.parametrize("transport,era", list(FLOWS), ids=[f"{t}-{e}" for t, e in FLOWS])
def test_provision_asks_the_region_and_the_inspector_answers(page, transport: str, era: str):
    server = f"{transport}-{era}"
    region = FLOWS[(transport, era)]
    switch = page.get_by_role("switch", name=f'Connect or disconnect "{server}"')
    switch.click(force=True)  # Mantine hides the checkbox under its track
    page.get_by_text("Connected", exact=True).wait_for()
    # The revision the era negotiated, as the server card shows it.
    page.get_by_text(f"MCP {REVISION[era]}", exact=True).wait_for()

    page.get_by_text("Tools", exact=True).first.click()
    page.get_by_role("button", name="provision", exact=True).click()
    page.get_by_role("textbox", name="name").fill("orders")
    page.get_by_role("button", name="Execute Tool").click()

    # Round 1: the server's question, as a form built from its requestedSchema.
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("Which region should orders live in?").wait_for()
    settled(page, dialog)
    note = dialog.get_by_text(MRTR_NOTE)
    if era == "modern":
        assert note.count() == 1, dialog.inner_text()
    else:
        assert note.count() == 0, dialog.inner_text()
    dialog.get_by_role("textbox", name="region").fill(region)
    screenshot(page, f"inspector-{server}-question")
    dialog.get_by_role("button", name="Submit").click()

    # Round 2: the retry (modern) or the answer to the request (legacy) completes the call.
    result = page.get_by_text(f"Provisioned 'orders' in {region}.", exact=True)
    result.wait_for()
    expect(dialog).to_have_count(0)
    screenshot(page, f"inspector-{server}-result")

    page.get_by_role("button", name="Disconnect from server").click()
    page.get_by_text("Servers", exact=True).first.click()
    expect(switch).not_to_be_checked()
