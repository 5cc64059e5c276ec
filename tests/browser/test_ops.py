"""The playground against the ops example, in a real browser: a titled choice (`oneOf`) picked
from a select, then a confirmation that a `with` fn asks only for production."""

from __future__ import annotations

from conftest import screenshot
from test_provision import open_tool, question, result_text

EXAMPLE = "ops"


def test_a_oneof_choice_is_a_select_of_titles(page):
    open_tool(page, "deploy")
    # The graph: the environment uses both arguments; the confirmation (a `with` fn) uses
    # them and the environment, so it waits for round 2.
    edges = {(e.get_attribute("data-from"), e.get_attribute("data-to")) for e in page.locator("#graph path.edge").all()}
    assert edges == {
        ("service", "environment"),
        ("version", "environment"),
        ("service", "confirm"),
        ("version", "confirm"),
        ("environment", "confirm"),
    }
    page.fill("#arguments input[name='service']", "api")
    page.fill("#arguments input[name='version']", "1.4.2")
    page.click("text=Call tool")

    environment = question(page, "environment")
    select = environment.locator("select[name='environment']")
    assert select.locator("option").all_inner_texts() == ["— choose —", "Staging", "Production"]
    select.select_option(label="Production")
    screenshot(page, "deploy-choice")
    environment.locator("button", has_text="Accept").click()
    assert 'accept {"environment":"production"}' in page.locator("#timeline .question[data-key='environment']").inner_text()

    confirm = question(page, "confirm")
    assert "Deploy api 1.4.2 to production?" in confirm.inner_text()
    confirm.locator("input[type='checkbox']").check()
    confirm.locator("button", has_text="Accept").click()
    assert "Deployed api 1.4.2 to production." in result_text(page)
    screenshot(page, "deploy-done")
