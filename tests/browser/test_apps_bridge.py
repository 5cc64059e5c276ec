"""The other way round: the official MCP Apps host, `AppBridge` of @modelcontextprotocol/ext-apps
with the official TypeScript client, renders the provision example's view from a roundtrip
server. The client speaks the 2025-11-25 protocol (it declares the extension at `initialize`),
the host reads the view's link with the package's own helpers and checks the metadata with the
package's own schemas, and the view (built with the official `App`) gets the result and calls
a tool through the bridge, whose question the client answers over the session's back-channel.

The bridge and the client are bundled by scripts/setup-tools.sh (`.tools/ext-apps-<version>/
host-bundle.mjs`); the test page is served on the server's own origin through Playwright's
request interception, so that it calls the endpoint as a page of that origin would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import example_servers
from conftest import REPO, screenshot

EXT_APPS_VERSION = os.environ.get("EXT_APPS_VERSION", "2.0.4")
BUNDLE = REPO / ".tools" / f"ext-apps-{EXT_APPS_VERSION}" / "host-bundle.mjs"

HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>official MCP Apps host</title></head>
<body>
<h1>AppBridge of @modelcontextprotocol/ext-apps</h1>
<div id="frame"></div>
<script type="module">
import {
  AppBridge, PostMessageTransport, getToolUiResourceUri, isToolVisibilityAppOnly, buildAllowAttribute,
  RESOURCE_MIME_TYPE, McpUiToolMetaSchema, McpUiResourceMetaSchema, Client, StreamableHTTPClientTransport,
} from "./host-bundle.mjs";

const report = (window.hostReport = { asked: [], links: [], logs: [] });
try {
  const client = new Client(
    { name: "official-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
  );
  // The server asks (elicitation/create on the session) when the view drops a database.
  client.setRequestHandler("elicitation/create", async (request) => {
    report.asked.push(request.params.message);
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  report.protocolVersion = client.transport.protocolVersion || null;
  report.serverExtensions = client.getServerCapabilities().extensions || {};

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "databases");
  report.toolMeta = McpUiToolMetaSchema.parse(tool._meta.ui);
  report.flatUri = tool._meta["ui/resourceUri"];
  report.uri = getToolUiResourceUri(tool);
  report.appOnly = isToolVisibilityAppOnly(tools.find((t) => t.name === "drop_database"));

  const read = await client.readResource({ uri: report.uri });
  const contents = read.contents[0];
  report.mimeType = contents.mimeType;
  report.resourceMeta = McpUiResourceMetaSchema.parse((contents._meta && contents._meta.ui) || {});

  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  const allow = buildAllowAttribute(report.resourceMeta.permissions);
  if (allow) iframe.setAttribute("allow", allow);
  iframe.style.cssText = "width: 900px; height: 300px; border: 1px solid #ccc";
  document.getElementById("frame").append(iframe);

  const bridge = new AppBridge(
    client,
    { name: "official-host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web", toolInfo: { tool } } },
  );
  bridge.onopenlink = async ({ url }) => {
    report.links.push(url);
    return {};
  };
  bridge.onloggingmessage = (params) => report.logs.push(params);
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  // Listen before the view's script runs, then load it.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = contents.text;
  await initialized;
  await bridge.sendToolInput({ arguments: {} });
  await bridge.sendToolResult(await client.callTool({ name: "databases", arguments: {} }));
  document.body.dataset.ready = "true";
} catch (error) {
  report.error = String((error && error.stack) || error);
  document.body.dataset.ready = "error";
}
</script>
</body></html>
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    if not BUNDLE.is_file():
        pytest.fail(f"{BUNDLE} is missing: run scripts/setup-tools.sh")
    binary = example_servers.example_bin("provision")
    with example_servers.serving_http(binary, tmp_path_factory.mktemp("bridge") / "stderr.log") as base:
        yield base


@pytest.fixture
def host(browser, server: str):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def serve(route):
        if route.request.url.endswith("/host-bundle.mjs"):
            route.fulfill(body=BUNDLE.read_bytes(), content_type="text/javascript")
        else:
            route.fulfill(body=HOST_PAGE, content_type="text/html")

    page.route(f"{server}/official-host/**", serve)
    page.goto(f"{server}/official-host/index.html")
    page.wait_for_selector("body[data-ready]")
    report = page.evaluate("window.hostReport")
    assert page.get_attribute("body", "data-ready") == "true", report.get("error")
    yield page, report
    context.close()
    assert not errors, f"the page threw: {errors}"


def view_frame(page):
    frame = next(f for f in page.frames if f.url == "about:srcdoc")
    frame.wait_for_selector("tbody tr")
    return frame


def test_the_official_host_accepts_what_roundtrip_serves(host):
    page, report = host
    assert "io.modelcontextprotocol/ui" in report["serverExtensions"]
    assert report["toolMeta"] == {"resourceUri": "ui://provision/databases"}
    assert report["flatUri"] == "ui://provision/databases"
    assert report["uri"] == "ui://provision/databases"
    assert report["appOnly"] is True
    assert report["mimeType"] == "text/html;profile=mcp-app"
    assert report["resourceMeta"] == {"prefersBorder": True}

    view = view_frame(page)
    rows = view.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.name)")
    assert rows == ["events", "orders", "users"]
    assert "Connected to official-host" in view.inner_text("#status") or "database(s)." in view.inner_text("#status")
    screenshot(page, "apps-official-host")


def test_the_view_calls_a_tool_through_the_official_bridge(host):
    page, _ = host
    view = view_frame(page)
    view.click("tr[data-name='events'] button:has-text('Drop')")
    view.wait_for_function("() => document.getElementById('outcome').textContent.startsWith('Dropped events.')")
    report = page.evaluate("window.hostReport")
    assert report["asked"] == ["Really drop the database events? Its data is lost."]
    assert "events" not in view.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.name)")

    view.click("#docs")
    page.wait_for_function("() => window.hostReport.links.length > 0")
    assert page.evaluate("window.hostReport.links") == ["https://modelcontextprotocol.io/extensions/apps/overview"]
    screenshot(page, "apps-official-host-called")
    path = Path(screenshot(page, "apps-official-host-called")).with_name("apps-official-host-view.png")
    page.locator("iframe").screenshot(path=str(path))
    print(json.dumps(report, indent=1)[:400])
