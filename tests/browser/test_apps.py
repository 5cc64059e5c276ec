"""The playground as an MCP Apps host, in a real browser, against the provision example: the
`databases` tool's view (written with the official view SDK, `App` of
@modelcontextprotocol/ext-apps) is rendered in the playground's sandbox, gets the tool's
result, and calls the server's tools through the page, whose questions (and a task's) are
answered in the playground's forms; its Content Security Policy is the one the server built
from the view's metadata; what it asks the host for is shown; and every message between the
page and the view is valid by the extension's `schema.json`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, screenshot, unexpected, watch_console

EXAMPLE = "provision"
SCHEMA = json.loads((REPO / "runtime/tests/data/ext-apps-2.0.4-schema.json").read_text())

# Every frame (the page, the sandbox proxy, the view) records the messages it receives: the
# test reads them back to validate what the page and the view said to each other.
RECORD_MESSAGES = """
window.__appsMessages = [];
addEventListener("message", (event) => {
  try { window.__appsMessages.push(JSON.parse(JSON.stringify(event.data))); } catch (_) {}
});
"""


@pytest.fixture
def page(browser, playground: str):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.add_init_script(RECORD_MESSAGES)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    sandboxes: list[dict] = []
    page.on("response", lambda r: sandboxes.append(r.headers) if "/playground/sandbox?" in r.url else None)
    page.sandbox_headers = sandboxes
    problems = watch_console(page)
    page.goto(playground)
    page.wait_for_selector("body[data-ready=true]")
    yield page
    unclean = unexpected(page, problems)
    context.close()
    assert not errors, f"the page threw: {errors}"
    assert not unclean, "the console is not clean:\n" + "\n".join(unclean)


def open_databases(page):
    """Call `databases` and wait for its view; the view's frame, once it shows the table."""
    page.click("nav button[data-name='databases']")
    page.wait_for_selector("#item:not([hidden])")
    assert "Renders its result in the view ui://provision/databases" in page.inner_text("#arguments")
    page.click("text=Call tool")
    page.wait_for_selector(".view-panel[data-state=ready]")
    view = next(
        f
        for f in page.frames
        if f.url == "about:srcdoc" and f.parent_frame and "/playground/sandbox?" in f.parent_frame.url
    )
    view.wait_for_selector("tbody tr")
    return view


def names(view) -> list[str]:
    return view.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.name)")


def question(page, key: str):
    card = page.locator(f"#timeline .question[data-key='{key}']:not(.answered)")
    card.wait_for()
    return card


def outcome(view, text: str) -> str:
    """Wait until the view's outcome line holds `text`; the line."""
    # A function, not an expression: the view's policy forbids `eval`, which expressions use.
    view.wait_for_function("(text) => document.getElementById('outcome').textContent.includes(text)", arg=text)
    return view.inner_text("#outcome")


def view_log(page) -> str:
    return page.inner_text(".view-panel .view-log")


def shot(page, name: str) -> None:
    """A screenshot of the page, and one of the view (full-page shots may miss a sandboxed
    frame's pixels in headless chromium)."""
    page.locator(".view-panel").scroll_into_view_if_needed()
    screenshot(page, name)
    path = Path(screenshot(page, name)).with_name(f"{name}-view.png")
    page.locator("iframe.view").screenshot(path=str(path))
    assert path.stat().st_size > 1000


def test_the_view_gets_the_result_and_calls_a_tool_that_asks(page):
    view = open_databases(page)
    # The tool's result reached the view (ui/notifications/tool-result), and the table shows it.
    assert {"orders", "users"} <= set(names(view))
    assert "database(s)." in view.inner_text("#status")
    # The page shows the same result as text, as for any tool.
    assert "orders (eu-west-1, 20 GB)" in page.inner_text("#result")

    # The view calls drop_database (visibility "app") through the page: its question is a form
    # in the playground's timeline; declined, the database is kept.
    view.click("tr[data-name='orders'] button:has-text('Drop')")
    confirm = question(page, "confirm")
    assert "Really drop the database orders? Its data is lost." in confirm.inner_text()
    shot(page, "apps-view-asks")
    confirm.locator("button", has_text="Decline").click()
    assert outcome(view, "Kept orders.").startswith("Kept orders.")
    assert "orders" in names(view)

    # Confirmed, it is dropped, and the view shows the table the call returned.
    view.click("tr[data-name='users'] button:has-text('Drop')")
    confirm = question(page, "confirm")
    confirm.locator("input[name='confirm']").check()
    confirm.locator("button", has_text="Accept").click()
    assert outcome(view, "Dropped users.").startswith("Dropped users.")
    assert "users" not in names(view)
    calls = page.locator("#timeline > li", has_text="The view calls")
    assert calls.count() == 2
    assert calls.nth(1).get_attribute("class") == "complete"
    assert "drop_database → Dropped users." in view_log(page)
    shot(page, "apps-view-called")


def test_a_task_the_view_starts_is_followed_with_its_questions(page):
    view = open_databases(page)
    view.click("tr[data-name='orders'] button:has-text('Back up')")
    region = question(page, "region")
    assert "Which region should the backup of orders go to?" in region.inner_text()
    region.locator("input[name='region']").fill("eu-west-1")
    region.locator("button", has_text="Accept").click()
    page.locator(".task-panel").wait_for()
    overwrite = question(page, "overwrite")
    overwrite.locator("input[type='checkbox']").check()
    overwrite.locator("button", has_text="Accept").click()
    assert "Backed up orders to backups/eu-west-1/orders.dump (overwritten)." in outcome(view, "Backed up")
    shot(page, "apps-view-task")


def test_the_views_csp_comes_from_its_metadata_and_blocks_a_fetch(page):
    view = open_databases(page)
    # The sandbox's policy: the view declares no origin, so it may connect nowhere.
    policy = page.sandbox_headers[-1]["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "connect-src 'none'" in policy and "frame-src 'none'" in policy
    assert "frame-ancestors 'self'" in policy
    # A fetch from the view is refused by that policy (not by the network: the violation is
    # reported, with its directive), and the view tells the host, which shows it. The browser
    # logs the refusal as an error: expected here.
    page.expected_console.append("https://example.com/data.json")
    got = view.evaluate("fetch('https://example.com/data.json').then(() => 'fetched', (e) => 'refused: ' + e)")
    assert got.startswith("refused")
    page.wait_for_function(
        "() => document.querySelector('.view-log').textContent.includes('connect-src https://example.com/data.json')"
    )
    assert "blocked by the view's Content Security Policy: connect-src" in view_log(page)
    # The view cannot reach the page either: its origin is opaque.
    assert view.evaluate("(() => { try { return String(top.location.href); } catch (e) { return 'blocked'; } })()") == "blocked"
    shot(page, "apps-csp-blocked")


def test_a_link_the_view_asks_for_is_shown_not_opened(page):
    view = open_databases(page)
    view.click("#docs")
    link = page.locator(".view-log li.open-link a")
    link.wait_for()
    assert link.get_attribute("href") == "https://modelcontextprotocol.io/extensions/apps/overview"
    assert link.get_attribute("rel") == "noopener noreferrer"
    assert len(page.context.pages) == 1, "the page opened nothing by itself"


def test_a_tool_hidden_from_views_is_refused_to_them(page):
    # Make `provision` model-only in the tools/list the page gets, as a server may declare it.
    def mark(route):
        body = json.loads(route.request.post_data or "{}")
        response = route.fetch()
        if body.get("method") != "tools/list" or "json" not in response.headers.get("content-type", ""):
            return route.fulfill(response=response)
        listed = response.json()
        for tool in listed["result"]["tools"]:
            if tool["name"] == "provision":
                tool["_meta"] = {"ui": {"visibility": ["model"]}}
        route.fulfill(response=response, json=listed)

    page.route("**/mcp", mark)
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    view = open_databases(page)
    answer = view.evaluate(
        """() => new Promise((resolve) => {
             addEventListener("message", function on(e) {
               if (e.data && e.data.id === "refused-1") { removeEventListener("message", on); resolve(e.data); }
             });
             parent.postMessage({ jsonrpc: "2.0", id: "refused-1", method: "tools/call",
                                  params: { name: "provision", arguments: { name: "x" } } }, "*");
           })"""
    )
    assert answer["error"]["code"] == -32602
    assert 'visibility does not include "app"' in answer["error"]["message"]
    assert "not visible to views" in view_log(page)
    assert page.locator("#timeline > li", has_text="The view calls").count() == 0, "nothing was sent"


def test_a_tool_missing_from_the_listing_is_refused_to_views(page):
    # Drop `provision` from the tools/list the page gets: with no visibility to check, the page
    # refuses it (fail closed) rather than letting the view call it.
    def hide(route):
        body = json.loads(route.request.post_data or "{}")
        response = route.fetch()
        if body.get("method") != "tools/list" or "json" not in response.headers.get("content-type", ""):
            return route.fulfill(response=response)
        listed = response.json()
        listed["result"]["tools"] = [t for t in listed["result"]["tools"] if t["name"] != "provision"]
        route.fulfill(response=response, json=listed)

    page.route("**/mcp", hide)
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    view = open_databases(page)
    answer = view.evaluate(
        """() => new Promise((resolve) => {
             addEventListener("message", function on(e) {
               if (e.data && e.data.id === "unlisted-1") { removeEventListener("message", on); resolve(e.data); }
             });
             parent.postMessage({ jsonrpc: "2.0", id: "unlisted-1", method: "tools/call",
                                  params: { name: "provision", arguments: { name: "x" } } }, "*");
           })"""
    )
    assert answer["error"]["code"] == -32602
    assert "not in the server's tool listing" in answer["error"]["message"]
    assert "not in the server's tool listing" in view_log(page)
    assert page.locator("#timeline > li", has_text="The view calls").count() == 0, "nothing was sent"


def reported_sizes(page) -> list[dict]:
    """What the view reported in `ui/notifications/size-changed`, oldest first."""
    messages = page.evaluate("window.__appsMessages")
    return [m["params"] for m in messages if isinstance(m, dict) and m.get("method") == "ui/notifications/size-changed"]


def follows(page, view, height: int) -> None:
    """Wait until the view's frame shows exactly `height` pixels of it (capped by the page's
    4000 px): the frame's inner height, and the view's own viewport, are that tall."""
    shown = min(height, 4000)
    page.wait_for_function("(h) => document.querySelector('iframe.view').clientHeight === h", arg=shown)
    assert view.evaluate("innerHeight") == shown, "the view's viewport is the height it reported"


def test_the_frame_follows_the_size_the_view_reports(page):
    view = open_databases(page)
    # The official SDK (`App`, autoResize) measures the view and reports its size once
    # connected; the page sizes the frame to it, so the whole view shows without scrolling.
    page.wait_for_function(
        "() => window.__appsMessages.some((m) => m && m.method === 'ui/notifications/size-changed')"
    )
    first = reported_sizes(page)[-1]["height"]
    assert 100 < first < 1000, first
    follows(page, view, first)
    assert view.evaluate("document.documentElement.scrollHeight") <= view.evaluate("innerHeight")

    # The view grows by 600 px: it reports its new height, and the frame grows with it.
    view.evaluate(
        "() => { const d = document.createElement('div'); d.id = 'tall'; d.style.height = '600px'; document.body.append(d); }"
    )
    page.wait_for_function(
        "(h) => document.querySelector('iframe.view').clientHeight >= h", arg=first + 600
    )
    grown = reported_sizes(page)[-1]["height"]
    assert grown >= first + 600
    follows(page, view, grown)
    assert view.evaluate("document.documentElement.scrollHeight") <= view.evaluate("innerHeight")
    shot(page, "apps-view-resized")

    # It shrinks back: so does the frame.
    view.evaluate("() => document.getElementById('tall').remove()")
    page.wait_for_function("(h) => document.querySelector('iframe.view').clientHeight === h", arg=first)
    assert reported_sizes(page)[-1]["height"] == first
    follows(page, view, first)

    # Taller than the page allows (4000 px): the frame stops there and the view scrolls.
    view.evaluate(
        "() => { const d = document.createElement('div'); d.id = 'tall'; d.style.height = '9000px'; document.body.append(d); }"
    )
    page.wait_for_function("() => document.querySelector('iframe.view').clientHeight === 4000")
    assert reported_sizes(page)[-1]["height"] > 9000
    follows(page, view, reported_sizes(page)[-1]["height"])
    for size in reported_sizes(page):
        validate("McpUiSizeChangedNotification", {"method": "ui/notifications/size-changed", "params": size})


def validate(definition: str, message: dict) -> None:
    """`message` (a request or notification without its envelope, or a result) is a valid
    `definition` of the extension's schema."""
    errors = [f"{e.message} at {list(e.absolute_path)}" for e in jsonschema.Draft202012Validator(SCHEMA["$defs"][definition]).iter_errors(message)]
    assert not errors, f"not a valid {definition}: {errors}\n{json.dumps(message, indent=1)[:3000]}"


def without_envelope(message: dict) -> dict:
    return {k: v for k, v in message.items() if k not in ("jsonrpc", "id")}


def test_every_message_is_valid_by_the_extensions_schema(page):
    view = open_databases(page)
    outcome_text = None
    view.click("#refresh")
    outcome_text = outcome(view, "(")
    assert outcome_text
    page.wait_for_function("() => document.querySelector('.view-log').textContent.includes('databases →')")

    proxy = next(f for f in page.frames if "/playground/sandbox?" in f.url)
    to_view = view.evaluate("window.__appsMessages")
    to_page = page.evaluate("window.__appsMessages")
    to_proxy = proxy.evaluate("window.__appsMessages")
    by_method = lambda messages, method: [m for m in messages if isinstance(m, dict) and m.get("method") == method]

    # What the view sent (relayed to the page by the proxy).
    [initialize] = by_method(to_page, "ui/initialize")
    validate("McpUiInitializeRequest", without_envelope(initialize))
    validate("McpUiInitializedNotification", without_envelope(by_method(to_page, "ui/notifications/initialized")[0]))
    for size in by_method(to_page, "ui/notifications/size-changed"):
        validate("McpUiSizeChangedNotification", without_envelope(size))
    validate("McpUiSandboxProxyReadyNotification", without_envelope(by_method(to_page, "ui/notifications/sandbox-proxy-ready")[0]))

    # What the page sent: to the proxy, the view's HTML; to the view, the handshake's answer,
    # the tool's input and result, and the answers to its calls.
    [ready] = by_method(to_proxy, "ui/notifications/sandbox-resource-ready")
    validate("McpUiSandboxResourceReadyNotification", without_envelope(ready))
    assert ready["params"]["html"].startswith("<!doctype html>")
    [answer] = [m for m in to_view if m.get("id") == initialize["id"] and "result" in m]
    validate("McpUiInitializeResult", answer["result"])
    assert answer["result"]["hostContext"]["toolInfo"]["tool"]["name"] == "databases"
    validate("McpUiToolInputNotification", without_envelope(by_method(to_view, "ui/notifications/tool-input")[0]))
    [result] = by_method(to_view, "ui/notifications/tool-result")
    validate("McpUiToolResultNotification", without_envelope(result))
    assert "resultType" not in result["params"], "the view gets a CallToolResult, not the 2026 envelope"
    refresh = [m for m in to_page if m.get("method") == "tools/call"][-1]
    [called] = [m for m in to_view if m.get("id") == refresh["id"] and "result" in m]
    assert called["result"]["structuredContent"]["databases"]


def test_the_view_is_told_before_it_goes(page):
    open_databases(page)
    page.click("nav button[data-name='wizard']")
    # The page sent ui/resource-teardown, the view answered, and only then was it removed.
    page.wait_for_selector(".view-panel", state="detached")
    answers = [m for m in page.evaluate("window.__appsMessages") if isinstance(m, dict) and "result" in m and "method" not in m]
    assert len(answers) == 1, answers
    validate("McpUiResourceTeardownResult", answers[0]["result"])
