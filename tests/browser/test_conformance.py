"""The playground against the conformance example, in a real browser: a form whose fields all
have defaults (filled in), the five enum shapes (selects and multi-select checkboxes), and an
image result."""

from __future__ import annotations

from conftest import screenshot
from test_provision import open_tool, question, result_text

EXAMPLE = "conformance"


def test_defaults_are_filled_in(page):
    open_tool(page, "test_elicitation_sep1034_defaults")
    page.click("text=Call tool")
    form = question(page, "form")
    assert form.locator("input[name='name']").input_value() == "John Doe"
    assert form.locator("input[name='age']").input_value() == "30"
    assert form.locator("input[name='score']").input_value() == "95.5"
    assert form.locator("input[name='verified']").is_checked()
    assert form.locator("select[name='status'] option:checked").inner_text() == "active"
    form.locator("button", has_text="Accept").click()
    text = result_text(page)
    for part in ['"name":"John Doe"', '"age":30', '"score":95.5', '"status":"active"', '"verified":true']:
        assert part in text, text


def test_single_and_multi_select_choices(page):
    open_tool(page, "test_elicitation_sep1330_enums")
    page.click("text=Call tool")
    form = question(page, "form")
    form.locator("select[name='titledSingle']").select_option(label="Second Option")
    form.locator("select[name='legacyEnum']").select_option(label="Option Two")
    form.locator("label", has_text="First Choice").locator("input").check()
    form.locator("label", has_text="Third Choice").locator("input").check()
    form.locator("label", has_text="option2").locator("input").check()
    screenshot(page, "enums")
    form.locator("button", has_text="Accept").click()
    text = result_text(page)
    for part in ['"titledSingle":"value2"', '"legacyEnum":"opt2"', '"titledMulti":["value1","value3"]', '"untitledMulti":["option2"]']:
        assert part in text, text
    assert "untitledSingle" not in text, "an unanswered optional field is left out"


def test_an_image_result_is_shown(page):
    open_tool(page, "test_image_content")
    page.click("text=Call tool")
    image = page.locator("#result img")
    image.wait_for()
    assert image.get_attribute("src").startswith("data:image/png;base64,")
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")
    screenshot(page, "image-result")


def test_an_x_mcp_header_argument_travels_in_its_header_too(page):
    # The server answers 400 (-32020) when Mcp-Param-Region is missing or differs from the
    # body; a non-ASCII value goes base64-encoded.
    open_tool(page, "test_custom_header")
    with page.expect_request(lambda r: r.method == "POST" and r.headers.get("mcp-method") == "tools/call") as sent:
        page.fill("#arguments input[name='region']", "zürich")
        page.click("text=Call tool")
    assert sent.value.headers["mcp-param-region"] == "=?base64?esO8cmljaA==?="
    assert "Region: zürich" in result_text(page)


def test_skills_are_listed_and_a_skill_md_is_read_on_demand(page):
    skill = page.locator("#skills button[data-name='skill://pdf-processing/SKILL.md']")
    assert skill.inner_text() == "pdf-processing"
    assert skill.get_attribute("title") == "Extract, fill, and assemble PDF documents"
    skill.click()
    page.wait_for_selector("#item:not([hidden])")
    assert "skill://pdf-processing/references/FORMS.md" in page.locator("#arguments").inner_text()
    page.click("text=Read SKILL.md")
    text = result_text(page)
    assert "name: pdf-processing" in text, text
    screenshot(page, "skill")
